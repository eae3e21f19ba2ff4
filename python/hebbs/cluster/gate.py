"""The gate in front of a shard's REST app: every keyed request is checked against what the
shard owns (:mod:`hebbs.cluster.ownership`) before the app sees it, so any shard is an entry
point of the cluster and clients may route to the owner themselves.

For a request whose key is valid (a bad key goes on to the app, which answers 401):

- its tenant is this shard's: a write to a tenant frozen for a move is refused 503 with
  ``Retry-After``; anything else goes to the app, writes counted in flight (a freeze waits for
  them);
- it is another shard's and the request was routed by a shard map (it carries
  :data:`MAP_VERSION_HEADER`: a client that routes, an ingress replica or another shard): 421
  ``moved`` with the owner and this shard's map version, so the sender fetches the map again;
- it is another shard's and the request was not routed (curl, an MCP host, a client given
  this node's URL): forwarded once to the owner (:mod:`hebbs.cluster.forward`), as any node
  of Elasticsearch or Qdrant does.

A request routed by a newer map than the shard's makes it fetch its view from the coordinator
first. A write refused because its tenant is frozen makes the shard ask the coordinator which
of its tenants are moving (at most once per :data:`FROZEN_RECHECK_S`), so a freeze left by a
move that failed or whose coordinator restarted ends there.

``GET`` of :data:`MAP_ROUTE` is answered here: the shard map, the key's tenant and its owner.
Every answer to a keyed request carries :data:`MAP_VERSION_HEADER` and :data:`SHARD_HEADER`.
The internal routes (:data:`INTERNAL_PREFIX`) and keyless requests (probes, documents) pass
unchecked.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hebbs.cluster.constants import (
    INTERNAL_PREFIX,
    MAP_ROUTE,
    MAP_VERSION_HEADER,
    MOVE_RETRY_AFTER_S,
    MOVED_CODE,
    MOVED_STATUS,
    SHARD_HEADER,
)
from hebbs.cluster.forward import Forwarder, Resolver, is_write
from hebbs.cluster.key_cache import CachedKeys
from hebbs.cluster.ownership import Ownership, ShardView, map_answer
from hebbs.service.auth import SCHEME, refusal
from hebbs.service.errors import (
    ApiError,
    error_body,
    error_response,
    not_ready,
    unauthorized,
)

#: Seconds between two looks at the coordinator's moving tenants by a shard that refuses a
#: write to a frozen one (so a freeze whose move is gone ends within this time).
FROZEN_RECHECK_S: Final = float(MOVE_RETRY_AFTER_S)


class ShardLink(Protocol):
    """What a shard asks the coordinator (:mod:`hebbs.cluster.coordinator`)."""

    async def view_for(self, shard: str) -> tuple[ShardView, list[str]]:
        """The shard list and the tenants frozen on ``shard`` (being moved from it)."""
        ...

    async def shard_map(self) -> dict[str, Any]: ...


def moving(tenant: str) -> ApiError:
    """The 503 of a write to a tenant being moved."""
    return not_ready(
        f"tenant {tenant} is moving to another shard: retry after {MOVE_RETRY_AFTER_S} s",
        MOVE_RETRY_AFTER_S,
    )


def moved(tenant: str, owner: str, version: int) -> JSONResponse:
    """The 421 of a routed request for a tenant another shard owns."""
    body = error_body(
        MOVED_CODE,
        f"tenant {tenant} is owned by shard {owner} (shard map version {version}): "
        "fetch the map again",
    )
    return JSONResponse(
        {**body, "owner": owner, "map_version": version},
        status_code=MOVED_STATUS,
        headers={MAP_VERSION_HEADER: str(version)},
    )


def routed_version(value: str | None) -> int | None:
    """The map version a request was routed by (None: not routed; 0: not a number)."""
    if value is None:
        return None
    return int(value) if value.isdigit() else 0


class ShardGuard:
    """Shard ``name``'s ownership, loaded from the coordinator through ``link`` on first use,
    its keys and its forwarding to the other shards."""

    def __init__(self, name: str, keys: CachedKeys, link: ShardLink, resolve: Resolver) -> None:
        self.name = name
        self.keys = keys
        self.link = link
        self.forwarder = Forwarder(resolve)
        self._ownership: Ownership | None = None
        self._loading: asyncio.Lock | None = None
        self._checked_at = -FROZEN_RECHECK_S

    async def ownership(self) -> Ownership:
        """The shard's ownership, asked of the coordinator the first time."""
        if self._ownership is None:
            if self._loading is None:
                self._loading = asyncio.Lock()
            async with self._loading:
                if self._ownership is None:
                    view, frozen = await self.link.view_for(self.name)
                    self._ownership = Ownership(self.name, view, frozen)
        return self._ownership

    async def refresh(self) -> Ownership:
        """The ownership with the coordinator's current shard list and frozen tenants (a
        tenant frozen for a move the coordinator no longer runs, because it failed or the
        coordinator restarted, is thawed)."""
        found = await self.ownership()
        self._checked_at = time.monotonic()
        view, frozen = await self.link.view_for(self.name)
        found.adopt(view)
        found.frozen = set(frozen)
        return found

    async def recheck(self) -> Ownership:
        """:meth:`refresh`, at most once per :data:`FROZEN_RECHECK_S`."""
        if time.monotonic() - self._checked_at >= FROZEN_RECHECK_S:
            return await self.refresh()
        return await self.ownership()

    async def tenant(self, header: str) -> str | None:
        """The tenant of the key in ``header`` (None: no valid key; the app answers it)."""
        scheme, _, key = header.partition(" ")
        key = key.strip()
        if scheme.lower() != SCHEME or not key:
            return None
        await self.keys.prefetch(key)
        info = self.keys.lookup(key)
        if info is None or refusal(info) is not None:
            return None
        return info.tenant


class ShardGate:
    """The ASGI middleware that checks each keyed request against ``guard`` (see the module's
    documentation)."""

    def __init__(self, app: ASGIApp, guard: ShardGuard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(INTERNAL_PREFIX):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        header = request.headers.get("authorization")
        try:
            tenant = None if header is None else await self.guard.tenant(header)
            if tenant is None:
                if scope["path"] == MAP_ROUTE:
                    raise unauthorized("the shard map needs a valid API key")
                # No key, or a bad one: the app answers (probes, documents, the 401).
                await self.app(scope, receive, send)
                return
            await self._gate(request, tenant, send)
        except ApiError as error:
            # A refusal, or the coordinator unavailable (restarting): 503.
            await error_response(error)(scope, receive, send)

    async def _gate(self, request: Request, tenant: str, send: Send) -> None:
        scope, receive = request.scope, request.receive
        guard = self.guard
        held = await guard.ownership()
        version = routed_version(request.headers.get(MAP_VERSION_HEADER))
        if version is not None and version > held.view.version:
            held = await guard.refresh()
        if request.url.path == MAP_ROUTE and request.method == "GET":
            answer: Response = JSONResponse(map_answer(await guard.link.shard_map(), tenant))
            await answer(scope, receive, self._stamped(send, held))
            return
        if not held.owns(tenant):
            if version is not None:
                await moved(tenant, held.view.owner(tenant), held.view.version)(
                    scope, receive, send
                )
                return

            async def owner(fresh: bool) -> tuple[str, int]:
                view = (await guard.refresh()).view if fresh else held.view
                return view.owner(tenant), view.version

            write = is_write(request.method, request.url.path)
            answer = await guard.forwarder.forward(request, owner, write=write)
            await answer(scope, receive, send)
            return
        if not is_write(request.method, request.url.path):
            await self.app(scope, receive, self._stamped(send, held))
            return
        if tenant in held.frozen and tenant in (await self.guard.recheck()).frozen:
            raise moving(tenant)
        with held.writing(tenant):
            await self.app(scope, receive, self._stamped(send, held))

    def _stamped(self, send: Send, held: Ownership) -> Send:
        """``send`` with this shard's name and map version added to the answer's headers."""
        stamp = [
            (MAP_VERSION_HEADER.encode(), str(held.view.version).encode()),
            (SHARD_HEADER.encode(), self.guard.name.encode()),
        ]

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *stamp]}
            await send(message)

        return stamped
