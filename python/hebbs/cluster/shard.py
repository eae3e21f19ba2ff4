"""One shard of a cluster: the hebbs REST app (:func:`hebbs.server.create_app`) over the
shard's own data directory on its node's disk, served by uvicorn on its Ray node's address
(127.0.0.1 on one machine) and a free port inside its Ray Serve replica
(:mod:`hebbs.cluster.deployments`); the ingress forwards to that port over HTTP, so streamed
answers (export, subscriptions) pass as they are. Its keys are the coordinator's, through a
:class:`~hebbs.cluster.key_cache.CachedKeys` put in place of the key store the app opens (which
stays empty: nothing writes it).

In front of the app, the gate (:mod:`hebbs.cluster.gate`) checks each keyed request against
what the shard owns: served, refused while its tenant moves, answered 421 or forwarded to the
owner.

Beside the ``/v1`` routes a shard has internal ones under :data:`INTERNAL_PREFIX`, left out of
its OpenAPI document and refused (403) without the cluster's secret in :data:`SECRET_HEADER`:
the tenants it holds, the export, import and removal of one tenant's store, the freezing and
thawing of tenants and the new shard list, which is how the coordinator moves a tenant from one
shard to another, over HTTP.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel

from hebbs.cluster.constants import INTERNAL_PREFIX, SECRET_HEADER
from hebbs.cluster.forward import Resolver
from hebbs.cluster.gate import ShardGate, ShardGuard, ShardLink
from hebbs.cluster.key_cache import CachedKeys
from hebbs.cluster.ownership import ShardView
from hebbs.server.serve import BackgroundServer
from hebbs.server.transfer_routes import export_response, import_body
from hebbs.service.auth import AuthConfig
from hebbs.service.errors import ApiError, forbidden
from hebbs.service.limits import BodyLimit
from hebbs.service.tenants import TenantStores, valid_tenant

#: The internal import's route (one path for every tenant, named by the query, so that the body
#: limit's exemption, which matches whole paths, can name it).
IMPORT_ROUTE: Final = "/import"


def _tenant(tenant: str) -> str:
    if not valid_tenant(tenant):
        raise ApiError(400, "invalid_input", f"invalid tenant name {tenant!r}", field="tenant")
    return tenant


class Tenants(BaseModel):
    """The body of a freeze or a thaw."""

    tenants: list[str]


class View(BaseModel):
    """The body of a new shard list."""

    version: int
    shards: list[str]


def internal_router(secret: str) -> APIRouter:
    """The internal routes, each refused without ``secret``."""

    def check(request: Request) -> None:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            raise forbidden("an internal route of a cluster shard")

    router = APIRouter(
        prefix=INTERNAL_PREFIX, include_in_schema=False, dependencies=[Depends(check)]
    )

    @router.get("/tenants")
    def tenants(request: Request) -> dict[str, Any]:
        stores: TenantStores = request.app.state.tenants
        return {"tenants": stores.names()}

    @router.get("/tenants/{tenant}/export")
    def export(request: Request, tenant: str) -> StreamingResponse:
        return export_response(request.app.state.tenants, _tenant(tenant), embeddings=True)

    @router.post(IMPORT_ROUTE)
    async def import_(request: Request, tenant: str) -> JSONResponse:
        stores: TenantStores = request.app.state.tenants
        return JSONResponse(await import_body(request, stores, _tenant(tenant)))

    @router.delete("/tenants/{tenant}")
    def remove(request: Request, tenant: str) -> dict[str, Any]:
        stores: TenantStores = request.app.state.tenants
        return {"removed": stores.remove(_tenant(tenant))}

    @router.post("/freeze")
    async def freeze(request: Request, body: Tenants) -> dict[str, Any]:
        """Refuses writes to the tenants from now on; answers when none is in flight."""
        guard: ShardGuard = request.app.state.guard
        await (await guard.ownership()).freeze(body.tenants)
        return {"frozen": body.tenants}

    @router.post("/thaw")
    async def thaw(request: Request, body: Tenants) -> dict[str, Any]:
        guard: ShardGuard = request.app.state.guard
        (await guard.ownership()).thaw(body.tenants)
        return {"thawed": body.tenants}

    @router.post("/view")
    async def view(request: Request, body: View) -> dict[str, Any]:
        """Takes the coordinator's new shard list (if newer than the one held)."""
        guard: ShardGuard = request.app.state.guard
        held = await guard.ownership()
        held.adopt(ShardView(body.version, tuple(body.shards)))
        return {"version": held.view.version}

    return router


def shard_app(server: BackgroundServer, secret: str, guard: ShardGuard) -> FastAPI:
    """``server``'s app with the gate in front and the internal routes added (before it
    starts), the internal import exempt from the general body limit like ``/v1/import`` (it
    spools the body and limits it to ``MAX_IMPORT_BYTES`` itself): a moved store is as large as
    the tenant."""
    app = server.app
    if not isinstance(app, FastAPI):
        raise TypeError("a shard serves the hebbs FastAPI app")
    app.state.guard = guard
    app.include_router(internal_router(secret))
    app.add_middleware(ShardGate, guard=guard)
    for middleware in app.user_middleware:
        factory: object = middleware.cls
        exempt = middleware.kwargs.get("exempt")
        if factory is BodyLimit and isinstance(exempt, frozenset):
            middleware.kwargs["exempt"] = exempt | {INTERNAL_PREFIX + IMPORT_ROUTE}
    return app


class ShardServer:
    """Shard ``name`` over ``data_dir`` (its own), with the cluster's ``keys``, linked to the
    coordinator by ``link`` and to the other shards' URLs by ``resolve``, served on ``host``
    until :meth:`stop`."""

    def __init__(
        self,
        data_dir: str | Path,
        name: str,
        secret: str,
        keys: CachedKeys,
        link: ShardLink,
        resolve: Resolver,
        host: str,
    ) -> None:
        self.name = name
        self._server = BackgroundServer(Path(data_dir), host=host)
        app = shard_app(self._server, secret, ShardGuard(name, keys, link, resolve))
        auth: AuthConfig = app.state.auth
        if auth.keys is not None:
            auth.keys.close()
        auth.keys = keys
        self._server.start()

    @property
    def url(self) -> str:
        return self._server.url

    def alive(self) -> bool:
        """Whether its uvicorn thread still serves."""
        return self._server.alive()

    def stop(self) -> None:
        self._server.stop()
