"""The cluster's ingress: authenticates the key, maps its tenant to the owning shard by
rendezvous hashing (:mod:`hebbs.cluster.hashing`) and forwards the request to that shard over
HTTP.

:class:`Router` is the logic, free of Ray: :mod:`hebbs.cluster.deployments` runs it in each
ingress replica (``ingress_replicas`` of them behind Serve's proxy) and links it to the
coordinator (:mod:`hebbs.cluster.coordinator`) and the shards' URLs. The replicas hold nothing
that must agree: keys are looked up at the coordinator and kept :data:`KEY_CACHE_TTL_S`
(:mod:`hebbs.cluster.key_cache`); reads are routed by the shard list fetched from it at most
:data:`ROUTE_CACHE_TTL_S` ago; every write asks the coordinator first (:meth:`begin_write`:
its owner, or refused while its tenant moves) and tells it when done, so a move is seen by
every replica at once.

A request with a key is answered 401/403/429 by the ingress itself when the key is bad (the
shard checks the scope again); one without a key goes to the first shard (the probes,
``/openapi.json``, ``/docs``, ``/ui``; every keyed route there answers 401). Answers come back
as the shard gave them, with :data:`INGRESS_HEADER` naming the replica; server-sent events and
export streams are passed through as they arrive.

A shard that cannot be reached (its replica was killed and Ray Serve is starting another) is
retried for :data:`SHARD_WAIT_S`: a request that never reached it is sent again to the new
replica, a read that failed before its answer began too; a write that failed after it was sent,
or an answer that broke midway, is answered 503 (not acknowledged: the client may retry), so the
ingress never sends a write twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable
from typing import Callable, Final, Protocol

import httpx
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from hebbs.cluster.constants import (
    FORWARD_TIMEOUT_S,
    INGRESS_HEADER,
    MOVE_RETRY_AFTER_S,
    ROUTE_CACHE_TTL_S,
    SHARD_RETRY_S,
    SHARD_WAIT_S,
)
from hebbs.cluster.hashing import owner
from hebbs.cluster.key_cache import CachedKeys
from hebbs.server.transfer_routes import NDJSON
from hebbs.service.auth import SCHEME, AuthConfig, authenticate_header
from hebbs.service.errors import ApiError, error_body, not_ready
from hebbs.service.keys import KeyInfo
from hebbs.service.limits import TokenBuckets

LOG = logging.getLogger("hebbs.cluster")

#: Headers of one hop only, never forwarded (either way).
HOP_HEADERS: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
#: POST routes that only read the store (everything else but GET and HEAD writes).
READ_POSTS: Final = frozenset(
    {
        "/v1/memories/recall",
        "/v1/memories/prime",
        "/v1/memories/batch",
        "/v1/recall",
        "/v1/prime",
        "/v1/subscribe",
    }
)
#: Answers passed through as they arrive rather than read whole first.
STREAMED_TYPES: Final = ("text/event-stream", NDJSON)
#: Resolves a shard's name to its current URL (asks Ray Serve); raises
#: :class:`ShardUnavailable` while the shard has no replica that answers.
Resolver = Callable[[str], Awaitable[str]]


class ShardUnavailable(Exception):
    """A shard has no replica that answers now (Ray Serve is starting another)."""


class ShardUrls:
    """Each shard's current URL, asked of ``resolve`` once and kept until :meth:`forget` (a
    shard that failed may have restarted on another port)."""

    def __init__(self, resolve: Resolver) -> None:
        self._resolve = resolve
        self._urls: dict[str, str] = {}

    async def get(self, shard: str) -> str:
        url = self._urls.get(shard)
        if url is None:
            url = await self._resolve(shard)
            self._urls[shard] = url
        return url

    def forget(self, shard: str) -> None:
        self._urls.pop(shard, None)


class CoordinatorLink(Protocol):
    """What an ingress replica asks the coordinator (:mod:`hebbs.cluster.coordinator`)."""

    async def lookup(self, key: str) -> KeyInfo | None: ...

    async def shards(self) -> tuple[str, ...]: ...

    async def begin_write(self, tenant: str) -> str | None: ...

    def end_write(self, tenant: str) -> None: ...


def is_write(method: str, path: str) -> bool:
    """Whether a request may change its tenant's store (refused while the tenant moves)."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return False
    return not (method == "POST" and path in READ_POSTS)


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse(
        error_body(error.error_code, error.message, error.field),
        status_code=error.status,
        headers=error.headers,
    )


class Router:
    """One ingress replica's routing, linked to the coordinator by ``link``."""

    def __init__(self, link: CoordinatorLink, resolve: Resolver) -> None:
        self.link = link
        self.name = str(os.getpid())
        self.keys = CachedKeys(None, link.lookup)
        self.auth = AuthConfig(keys=self.keys, buckets=TokenBuckets())
        self._urls = ShardUrls(resolve)
        self._shards: tuple[str, ...] = ()
        self._shards_at = -ROUTE_CACHE_TTL_S
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(FORWARD_TIMEOUT_S, connect=SHARD_RETRY_S * 10),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
        )

    async def shards(self) -> tuple[str, ...]:
        """The shard list, fetched from the coordinator at most :data:`ROUTE_CACHE_TTL_S` ago
        (timed from before the fetch, so the list is never older than it looks)."""
        if time.monotonic() - self._shards_at >= ROUTE_CACHE_TTL_S:
            asked_at = time.monotonic()
            self._shards = tuple(await self.link.shards())
            self._shards_at = asked_at
        return self._shards

    # The forwarding path.

    async def handle(self, request: Request) -> Response:
        """The answer to ``request``: the owning shard's, or the ingress's own error."""
        try:
            answer = await self._handle(request)
        except ApiError as error:
            answer = error_response(error)
        answer.headers[INGRESS_HEADER] = self.name
        return answer

    async def _handle(self, request: Request) -> Response:
        header = request.headers.get("authorization")
        path = request.url.path
        if header is None:
            return await self._forward(request, (await self.shards())[0], write=False)
        scheme, _, key = header.partition(" ")
        if scheme.lower() == SCHEME and key.strip():
            await self.keys.prefetch(key.strip())
        caller = authenticate_header(self.auth, header, "read")
        tenant = caller.tenant
        if not is_write(request.method, path):
            return await self._forward(request, owner(tenant, await self.shards()), write=False)
        shard = await self.link.begin_write(tenant)
        if shard is None:
            raise ApiError(
                503,
                "not_ready",
                f"tenant {tenant} is moving to another shard: retry after {MOVE_RETRY_AFTER_S} s",
                headers={"Retry-After": str(MOVE_RETRY_AFTER_S)},
            )
        try:
            return await self._forward(request, shard, write=True)
        finally:
            self.link.end_write(tenant)

    async def _forward(self, request: Request, shard: str, *, write: bool) -> Response:
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_HEADERS]
        body = await request.body()
        answer = await self._send(
            shard, request.method, request.url.path, request.url.query, headers, body, write
        )
        out_headers = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS}
        if answer.headers.get("content-type", "").startswith(STREAMED_TYPES):
            return StreamingResponse(
                answer.aiter_raw(),
                status_code=answer.status_code,
                headers=out_headers,
                background=BackgroundTask(answer.aclose),
            )
        try:
            content = b"".join([chunk async for chunk in answer.aiter_raw()])
        except httpx.TransportError:
            raise not_ready(f"shard {shard} failed while answering: retry") from None
        finally:
            await answer.aclose()
        return Response(content, status_code=answer.status_code, headers=out_headers)

    async def _send(
        self,
        shard: str,
        method: str,
        path: str,
        query: str,
        headers: list[tuple[str, str]],
        body: bytes,
        write: bool,
    ) -> httpx.Response:
        """The shard's answer (headers read, body not yet), retried while the shard is down."""
        deadline = time.monotonic() + SHARD_WAIT_S
        while True:
            try:
                url = await self._urls.get(shard)
                request = self._http.build_request(
                    method, url + path, params=query or None, headers=headers, content=body
                )
                return await self._http.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                failure: Exception = error
                self._urls.forget(shard)
            except httpx.TransportError as error:
                self._urls.forget(shard)
                if write:
                    raise not_ready(
                        f"shard {shard} failed while answering a write, which may not have "
                        "been applied: retry"
                    ) from None
                failure = error
            except ShardUnavailable as error:
                failure = error
                self._urls.forget(shard)
            if time.monotonic() >= deadline:
                LOG.warning("shard %s unreachable: %s", shard, failure)
                raise ApiError(
                    503,
                    "not_ready",
                    f"shard {shard} is unavailable: retry",
                    headers={"Retry-After": str(MOVE_RETRY_AFTER_S)},
                )
            await asyncio.sleep(SHARD_RETRY_S)

    async def close(self) -> None:
        await self._http.aclose()
        self.keys.close()
