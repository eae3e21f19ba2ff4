"""The cluster's ingress: authenticates the key, maps its tenant to the owning shard by
rendezvous hashing (:mod:`hebbs.cluster.hashing`) and forwards the request to that shard over
HTTP (:mod:`hebbs.cluster.forward`).

:class:`Router` is the logic, free of Ray: :mod:`hebbs.cluster.deployments` runs it in each
ingress replica (``ingress_replicas`` of them behind Serve's proxy) and links it to the
coordinator (:mod:`hebbs.cluster.coordinator`) and the shards' URLs. The replicas hold nothing
that must agree: keys are looked up at the coordinator and kept :data:`KEY_CACHE_TTL_S`
(:mod:`hebbs.cluster.key_cache`); requests are routed by the shard list fetched from it at most
:data:`ROUTE_CACHE_TTL_S` ago, and a shard that no longer owns the tenant answers 421, after
which the replica fetches the list at once and resends. A write asks nothing of the
coordinator: the owning shard itself refuses writes to a tenant being moved
(:mod:`hebbs.cluster.ownership`).

A request with a key is answered 401/403/429 by the ingress itself when the key is bad (the
shard checks the scope again); one without a key goes to the first shard (the probes,
``/openapi.json``, ``/docs``, ``/ui``; every keyed route there answers 401). ``GET`` of
:data:`MAP_ROUTE` is answered by the replica: the shard map and the key's tenant and owner,
for clients that route themselves. Answers come back as the shard gave them, with
:data:`INGRESS_HEADER` naming the replica.
"""

from __future__ import annotations

import os
import time
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hebbs.cluster.constants import INGRESS_HEADER, MAP_ROUTE, ROUTE_CACHE_TTL_S
from hebbs.cluster.forward import Forwarder, Resolver, is_write
from hebbs.cluster.key_cache import CachedKeys
from hebbs.cluster.ownership import ShardView, map_answer
from hebbs.service.auth import SCHEME, AuthConfig, authenticate_header
from hebbs.service.errors import ApiError, error_body, unauthorized
from hebbs.service.keys import KeyInfo
from hebbs.service.limits import TokenBuckets


class CoordinatorLink(Protocol):
    """What an ingress replica asks the coordinator (:mod:`hebbs.cluster.coordinator`)."""

    async def lookup(self, key: str) -> KeyInfo | None: ...

    async def view(self) -> ShardView: ...

    async def shard_map(self) -> dict[str, Any]: ...


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
        self.forwarder = Forwarder(resolve)
        self._view = ShardView(0, ())
        self._view_at = -ROUTE_CACHE_TTL_S

    async def view(self, fresh: bool = False) -> ShardView:
        """The shard list, fetched from the coordinator at most :data:`ROUTE_CACHE_TTL_S` ago
        (timed from before the fetch, so the list is never older than it looks), or now when
        ``fresh``."""
        if fresh or time.monotonic() - self._view_at >= ROUTE_CACHE_TTL_S:
            asked_at = time.monotonic()
            self._view = await self.link.view()
            self._view_at = asked_at
        return self._view

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
            if path == MAP_ROUTE:
                raise unauthorized("the shard map needs a valid API key")

            async def first(fresh: bool) -> tuple[str, int]:
                view = await self.view(fresh)
                return view.shards[0], view.version

            return await self.forwarder.forward(request, first, write=False)
        scheme, _, key = header.partition(" ")
        if scheme.lower() == SCHEME and key.strip():
            await self.keys.prefetch(key.strip())
        tenant = authenticate_header(self.auth, header, "read").tenant
        if path == MAP_ROUTE and request.method == "GET":
            return JSONResponse(map_answer(await self.link.shard_map(), tenant))

        async def owner(fresh: bool) -> tuple[str, int]:
            view = await self.view(fresh)
            return view.owner(tenant), view.version

        return await self.forwarder.forward(request, owner, write=is_write(request.method, path))

    async def close(self) -> None:
        await self.forwarder.close()
        self.keys.close()
