"""``GET /v1/export`` and ``POST /v1/import``: a tenant's store out and in as the JSON Lines
export format (:mod:`hebbs.transfer`).

The export streams (``application/x-ndjson``), produced page by page while the client reads.
The import body is spooled to a temporary file as it arrives (at most
:data:`~hebbs.service.limits.MAX_IMPORT_BYTES`, 413 past it; the general body limit does not
apply), then validated whole and written: a bad line is a 400 naming ``line N.<field>`` with
nothing written. Export needs a ``read`` key, import a ``write`` key; both act on the key's
tenant only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import Final

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from hebbs.server.openapi import KEYED_ERRORS, errors, stream
from hebbs.server.routes import READ, WRITE
from hebbs.service.auth import Caller
from hebbs.service.errors import payload_too_large
from hebbs.service.limits import MAX_IMPORT_BYTES
from hebbs.service.tenants import TenantStores
from hebbs.transfer.export import export_lines
from hebbs.transfer.importer import import_file

#: The media type of an export.
NDJSON: Final = "application/x-ndjson"
#: The import path, read by the body limit (it limits this body itself).
IMPORT_PATH: Final = "/v1/import"

router = APIRouter(prefix="/v1", responses=KEYED_ERRORS, tags=["transfer"])


@router.get(
    "/export", response_class=StreamingResponse, responses=stream(NDJSON, {"type": "string"})
)
def export(request: Request, embeddings: bool = True, caller: Caller = READ) -> StreamingResponse:
    """The caller's store as the export format, one JSON object a line (``embeddings=false``
    leaves the vectors out)."""
    return export_response(request.app.state.tenants, caller.tenant, embeddings)


def export_response(tenants: TenantStores, tenant: str, embeddings: bool) -> StreamingResponse:
    """``tenant``'s store as the export format, streamed (also a cluster shard's move out)."""

    def lines() -> Iterator[bytes]:
        with tenants.lease(tenant) as engine:
            for line in export_lines(engine, embeddings=embeddings):
                yield (line + "\n").encode("utf-8")

    return StreamingResponse(lines(), media_type=NDJSON)


@router.post(
    "/import",
    responses=errors(400, 409, 413),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {NDJSON: {"schema": {"type": "string"}}},
            "description": "an export: JSON Lines, header first, end line last",
        }
    },
)
async def import_(request: Request, caller: Caller = WRITE) -> Response:
    """Loads an export (the request body, JSON Lines) into the caller's store: validated
    whole first, then written. Answers the counts written."""
    return JSONResponse(await import_body(request, request.app.state.tenants, caller.tenant))


async def import_body(request: Request, tenants: TenantStores, tenant: str) -> dict[str, int]:
    """Spools the body of ``request`` (an export) and loads it into ``tenant``'s store (also a
    cluster shard's move in): the counts written."""
    with tempfile.NamedTemporaryFile(prefix="hebbs-import-", suffix=".jsonl") as spool:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_IMPORT_BYTES:
                raise payload_too_large(MAX_IMPORT_BYTES)
            spool.write(chunk)
        spool.flush()

        def load() -> dict[str, int]:
            with tenants.lease(tenant) as engine:
                result = import_file(engine, spool.name)
            return {
                "memories": result.memories,
                "edges": result.edges,
                "tombstones": result.tombstones,
            }

        return await run_in_threadpool(load)
