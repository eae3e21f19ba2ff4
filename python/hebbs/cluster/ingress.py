"""The cluster's ingress: authenticates the key, maps its tenant to the owning shard by
rendezvous hashing (:mod:`hebbs.cluster.hashing`) and forwards the request to that shard over
HTTP; and moves tenants when a shard joins.

:class:`Router` is the logic, free of Ray: :mod:`hebbs.cluster.deployments` runs it in the
ingress's Ray Serve replica and gives it the shards' URLs. A request with a key is answered
401/403/429 by the ingress itself when the key is bad (the shard checks the scope again); one
without a key goes to the first shard (the probes, ``/openapi.json``, ``/docs``, ``/ui``; every
keyed route there answers 401). Answers come back as the shard gave them; server-sent events and
export streams are passed through as they arrive.

A shard that cannot be reached (its replica was killed and Ray Serve is starting another) is
retried for :data:`SHARD_WAIT_S`: a request that never reached it is sent again to the new
replica, a read that failed before its answer began too; a write that failed after it was sent,
or an answer that broke midway, is answered 503 (not acknowledged: the client may retry), so the
ingress never sends a write twice.

Moving a tenant (:meth:`Router.add_shard`): the tenants whose owner changes are marked moving
(their writes answered 503 ``not_ready`` with ``Retry-After: MOVE_RETRY_AFTER_S``; their reads
still served by the old owner), the writes already in flight are waited for, each store is
streamed from the old owner's export into the new owner's import, the shard list is switched and
saved, and the old copies are removed. A failure before the switch removes the new copies and
leaves the list as it was. One ingress replica holds the moving set, so the ingress runs one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any, Callable, Final

import httpx
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from hebbs.cluster.constants import (
    FORWARD_TIMEOUT_S,
    INTERNAL_PREFIX,
    MOVE_RETRY_AFTER_S,
    SECRET_HEADER,
    SHARD_RETRY_S,
    SHARD_WAIT_S,
)
from hebbs.cluster.hashing import owner
from hebbs.cluster.state import ClusterState, load_state, save_state
from hebbs.server.auth import AuthConfig, authenticate_header
from hebbs.server.errors import ApiError, error_body, not_ready
from hebbs.server.keys import KeyStore
from hebbs.server.limits import TokenBuckets
from hebbs.server.transfer_routes import NDJSON

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
#: Seconds :meth:`Router.add_shard` keeps trying to remove a moved store that a request (a
#: subscription) still holds open on its old shard.
REMOVE_WAIT_S: Final = 10.0

#: Resolves a shard's name to its current URL (asks Ray Serve); raises
#: :class:`ShardUnavailable` while the shard has no replica that answers.
Resolver = Callable[[str], Awaitable[str]]


class ShardUnavailable(Exception):
    """A shard has no replica that answers now (Ray Serve is starting another)."""


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
    """The ingress of the cluster at ``data_dir`` (its keys and ``cluster.json``)."""

    def __init__(self, data_dir: str | Path, resolve: Resolver) -> None:
        self.data_dir = Path(data_dir)
        state = load_state(self.data_dir)
        if state is None:
            raise RuntimeError(f"no cluster state in {self.data_dir}: deploy the cluster first")
        self.state: ClusterState = state
        self.auth = AuthConfig(keys=KeyStore(self.data_dir), buckets=TokenBuckets())
        self.moving: dict[str, tuple[str, str]] = {}
        self.writes: Counter[str] = Counter()
        self._resolve = resolve
        self._urls: dict[str, str] = {}
        self._control = asyncio.Lock()
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(FORWARD_TIMEOUT_S, connect=SHARD_RETRY_S * 10),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
        )

    @property
    def shards(self) -> tuple[str, ...]:
        return self.state.shards

    def owner(self, tenant: str) -> str:
        return owner(tenant, self.shards)

    # The forwarding path.

    async def handle(self, request: Request) -> Response:
        """The answer to ``request``: the owning shard's, or the ingress's own error."""
        try:
            return await self._handle(request)
        except ApiError as error:
            return error_response(error)

    async def _handle(self, request: Request) -> Response:
        header = request.headers.get("authorization")
        path = request.url.path
        if header is None:
            return await self._forward(request, self.shards[0], write=False)
        caller = authenticate_header(self.auth, header, "read")
        tenant = caller.tenant
        write = is_write(request.method, path)
        if not write:
            return await self._forward(request, self.owner(tenant), write=False)
        if tenant in self.moving:
            raise ApiError(
                503,
                "not_ready",
                f"tenant {tenant} is moving to another shard: retry after {MOVE_RETRY_AFTER_S} s",
                headers={"Retry-After": str(MOVE_RETRY_AFTER_S)},
            )
        self.writes[tenant] += 1
        try:
            return await self._forward(request, self.owner(tenant), write=True)
        finally:
            self.writes[tenant] -= 1
            if not self.writes[tenant]:
                del self.writes[tenant]

    async def _url(self, shard: str) -> str:
        url = self._urls.get(shard)
        if url is None:
            url = await self._resolve(shard)
            self._urls[shard] = url
        return url

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
                url = await self._url(shard)
                request = self._http.build_request(
                    method, url + path, params=query or None, headers=headers, content=body
                )
                return await self._http.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                failure: Exception = error
                self._urls.pop(shard, None)
            except httpx.TransportError as error:
                self._urls.pop(shard, None)
                if write:
                    raise not_ready(
                        f"shard {shard} failed while answering a write, which may not have "
                        "been applied: retry"
                    ) from None
                failure = error
            except ShardUnavailable as error:
                failure = error
                self._urls.pop(shard, None)
            if time.monotonic() >= deadline:
                LOG.warning("shard %s unreachable: %s", shard, failure)
                raise ApiError(
                    503,
                    "not_ready",
                    f"shard {shard} is unavailable: retry",
                    headers={"Retry-After": str(MOVE_RETRY_AFTER_S)},
                )
            await asyncio.sleep(SHARD_RETRY_S)

    # Moving tenants.

    async def _internal(self, shard: str, method: str, path: str, **options: Any) -> httpx.Response:
        url = await self._url(shard)
        headers = {SECRET_HEADER: self.state.secret, **options.pop("headers", {})}
        answer = await self._http.request(
            method, url + INTERNAL_PREFIX + path, headers=headers, **options
        )
        if answer.status_code >= 400:
            raise RuntimeError(
                f"shard {shard}: {method} {path} answered {answer.status_code} {answer.text}"
            )
        return answer

    async def tenants_of(self, shard: str) -> list[str]:
        """The tenants whose store is on ``shard`` (and that it owns)."""
        found = (await self._internal(shard, "GET", "/tenants")).json()["tenants"]
        return [tenant for tenant in found if self.owner(tenant) == shard]

    async def _copy(self, tenant: str, source: str, target: str) -> dict[str, int]:
        """``tenant``'s store streamed from ``source``'s export into ``target``'s import."""
        await self._internal(target, "DELETE", f"/tenants/{tenant}")
        url = await self._url(source)
        headers = {SECRET_HEADER: self.state.secret}
        export = INTERNAL_PREFIX + f"/tenants/{tenant}/export"
        async with self._http.stream("GET", url + export, headers=headers) as out:
            if out.status_code != 200:
                raise RuntimeError(f"shard {source}: export of {tenant} answered {out.status_code}")

            async def lines() -> AsyncIterator[bytes]:
                async for chunk in out.aiter_raw():
                    yield chunk

            answer = await self._internal(
                target,
                "POST",
                f"/tenants/{tenant}/import",
                content=lines(),
                headers={"content-type": NDJSON},
            )
        counts: dict[str, int] = answer.json()
        return counts

    async def _remove(self, shard: str, tenant: str) -> bool:
        deadline = time.monotonic() + REMOVE_WAIT_S
        while True:
            try:
                await self._internal(shard, "DELETE", f"/tenants/{tenant}")
                return True
            except RuntimeError as error:
                if time.monotonic() >= deadline:
                    LOG.warning("could not remove the old copy of %s: %s", tenant, error)
                    return False
                await asyncio.sleep(SHARD_RETRY_S)

    async def _drain(self, tenants: set[str]) -> None:
        """Waits until no write to ``tenants`` is in flight."""
        while any(self.writes.get(tenant) for tenant in tenants):
            await asyncio.sleep(0.01)

    async def add_shard(self, name: str) -> dict[str, Any]:
        """Adds shard ``name`` (deployed already) and moves to it the tenants it now owns:
        ``{"shards": [...], "moved": {tenant: {"from": old, "memories": n, ...}}}``."""
        async with self._control:
            if name in self.shards:
                raise ValueError(f"shard {name!r} is in the cluster already")
            after = (*self.shards, name)
            plan: dict[str, tuple[str, str]] = {}
            for shard in self.shards:
                for tenant in await self.tenants_of(shard):
                    if owner(tenant, after) != shard:
                        plan[tenant] = (shard, owner(tenant, after))
            self.moving.update(plan)
            moved: dict[str, dict[str, Any]] = {}
            try:
                await self._drain(set(plan))
                for tenant, (source, target) in plan.items():
                    counts = await self._copy(tenant, source, target)
                    moved[tenant] = {"from": source, "to": target, **counts}
                    LOG.info("copied tenant %s from %s to %s: %s", tenant, source, target, counts)
                self.state = ClusterState(after, self.state.secret)
                save_state(self.data_dir, self.state)
            except BaseException:
                for tenant, (_, target) in plan.items():
                    await self._remove(target, tenant)
                for tenant in plan:
                    self.moving.pop(tenant, None)
                raise
            for tenant, (source, _) in plan.items():
                moved[tenant]["old_copy_removed"] = await self._remove(source, tenant)
                self.moving.pop(tenant, None)
            return {"shards": list(self.shards), "moved": moved}

    async def close(self) -> None:
        await self._http.aclose()
        keys = self.auth.keys
        if keys is not None:
            keys.close()
