"""The cluster's coordinator: the one owner of what every ingress replica and shard must agree
on, run as one Ray actor on the head node (:mod:`hebbs.cluster.deployments`), so that nothing
needs a disk two nodes share.

- **The key store**: ``DATA_DIR/keys.sqlite3`` on the head node (``hebbs keys create --db
  DATA_DIR`` writes it there); ingress replicas and shards ask :meth:`Coordinator.lookup` and
  keep the answer for :data:`KEY_CACHE_TTL_S` (:mod:`hebbs.cluster.key_cache`).
- **The shard list, its version and placements**: ``cluster.json``
  (:mod:`hebbs.cluster.state`); :meth:`Coordinator.view_for` gives a shard the list and the
  tenants frozen on it, :meth:`Coordinator.shard_map` gives clients the list with each shard's
  URL (:data:`MAP_ROUTE`).
- **The tenants being moved**: writes are not asked about. Each shard enforces what it owns
  (:mod:`hebbs.cluster.ownership`): a move freezes its tenants on their old shard, which
  refuses new writes and waits for the ones in flight.
- **Moves**: :meth:`Coordinator.add_shard` and :meth:`Coordinator.remove_shard` mark the tenants
  whose owner changes as moving, freeze them on their shards, stream each store over HTTP from
  the old shard's export into the new shard's import (never through a shared path), switch and
  save the shard list (one version on), push it to every shard (from then on the old shard
  answers the moved tenants 421 and the new one serves them), then remove the old copies. A
  failure before the switch removes the new copies, thaws the tenants and leaves the list as
  it was.

:class:`Coordinator` is the logic, free of Ray; the actor gives it the shards' URLs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any, Final

import httpx

from hebbs.cluster.config import Placement, check_shards
from hebbs.cluster.constants import (
    FORWARD_TIMEOUT_S,
    HASHING,
    INTERNAL_PREFIX,
    SECRET_HEADER,
    SHARD_RETRY_S,
    SHARD_WAIT_S,
)
from hebbs.cluster.forward import Resolver, ShardUnavailable, ShardUrls
from hebbs.cluster.hashing import owner
from hebbs.cluster.ownership import ShardView
from hebbs.cluster.shard import IMPORT_ROUTE
from hebbs.cluster.state import ClusterState, load_state, save_state
from hebbs.server.transfer_routes import NDJSON
from hebbs.service.keys import KeyInfo, KeyStore

LOG = logging.getLogger("hebbs.cluster")

#: Seconds the shard map waits for one shard's URL (a replica that restarts is left out, its URL
#: None, rather than holding up every client's map).
MAP_RESOLVE_TIMEOUT_S: Final = 2.0
#: Seconds a move keeps trying to remove a moved store that a request (a subscription) still
#: holds open on its old shard.
REMOVE_WAIT_S: Final = 10.0


class Coordinator:
    """The coordinator of the cluster at ``data_dir`` (the head node's: keys and
    ``cluster.json``)."""

    def __init__(self, data_dir: str | Path, resolve: Resolver) -> None:
        self.data_dir = Path(data_dir)
        state = load_state(self.data_dir)
        if state is None:
            raise RuntimeError(f"no cluster state in {self.data_dir}: deploy the cluster first")
        self.state: ClusterState = state
        self.keys = KeyStore(self.data_dir)
        self.moving: dict[str, tuple[str, str]] = {}
        self._resolve = resolve
        self._urls = ShardUrls(resolve)
        self._control = asyncio.Lock()
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(FORWARD_TIMEOUT_S, connect=SHARD_RETRY_S * 10)
        )

    @property
    def shards(self) -> tuple[str, ...]:
        return self.state.shards

    def lookup(self, key: str) -> KeyInfo | None:
        """The record of ``key`` (None: unknown), read from the key store now."""
        return self.keys.lookup(key)

    def placement(self, shard: str) -> Placement | None:
        """Where ``shard`` runs, as saved (None: not saved, the default)."""
        return self.state.placements.get(shard)

    # What shards and clients route by.

    def view(self) -> ShardView:
        """The shard list and its version."""
        return ShardView(self.state.version, self.shards)

    def view_for(self, shard: str) -> tuple[ShardView, list[str]]:
        """The shard list and the tenants frozen on ``shard`` (being moved from it)."""
        frozen = [tenant for tenant, (source, _) in self.moving.items() if source == shard]
        return self.view(), frozen

    async def shard_map(self) -> dict[str, Any]:
        """The shard map clients route by: ``{"version", "hashing", "shards": [{"name",
        "url"}]}``, each URL asked of the shard's replica now (None while it restarts)."""
        state = self.state

        async def url(shard: str) -> str | None:
            try:
                return await asyncio.wait_for(self._resolve(shard), MAP_RESOLVE_TIMEOUT_S)
            except (ShardUnavailable, asyncio.TimeoutError):
                return None

        urls = await asyncio.gather(*(url(shard) for shard in state.shards))
        shards = [{"name": shard, "url": found} for shard, found in zip(state.shards, urls)]
        return {"version": state.version, "hashing": HASHING, "shards": shards}

    # The shards' internal routes.

    async def _internal(self, shard: str, method: str, path: str, **options: Any) -> httpx.Response:
        url = await self._urls.get(shard)
        headers = {SECRET_HEADER: self.state.secret, **options.pop("headers", {})}
        try:
            answer = await self._http.request(
                method, url + INTERNAL_PREFIX + path, headers=headers, **options
            )
        except httpx.TransportError:
            self._urls.forget(shard)
            raise
        if answer.status_code >= 400:
            raise RuntimeError(
                f"shard {shard}: {method} {path} answered {answer.status_code} {answer.text}"
            )
        return answer

    async def tenants_of(self, shard: str) -> list[str]:
        """The tenants whose store is on ``shard`` and that it owns."""
        found = (await self._internal(shard, "GET", "/tenants")).json()["tenants"]
        return [tenant for tenant in found if owner(tenant, self.shards) == shard]

    async def _copy(self, tenant: str, source: str, target: str) -> dict[str, int]:
        """``tenant``'s store streamed over HTTP from ``source``'s export into ``target``'s
        import."""
        await self._internal(target, "DELETE", f"/tenants/{tenant}")
        url = await self._urls.get(source)
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
                IMPORT_ROUTE,
                params={"tenant": tenant},
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
            except (RuntimeError, httpx.TransportError) as error:
                if time.monotonic() >= deadline:
                    LOG.warning("could not remove the old copy of %s: %s", tenant, error)
                    return False
                await asyncio.sleep(SHARD_RETRY_S)

    # Moves.

    async def _freeze(self, plan: dict[str, tuple[str, str]], route: str) -> None:
        """Freezes (``route`` "/freeze") or thaws ("/thaw") the tenants of ``plan`` on their
        old shards."""
        by_source: dict[str, list[str]] = defaultdict(list)
        for tenant, (source, _) in plan.items():
            by_source[source].append(tenant)
        for source, tenants in by_source.items():
            await self._internal(source, "POST", route, json={"tenants": tenants})

    async def _push(self, shards: Iterable[str]) -> None:
        """Gives each of ``shards`` the current list, retried while one is down (a shard that
        restarts asks for the list itself)."""
        body = {"version": self.state.version, "shards": list(self.shards)}
        for shard in shards:
            deadline = time.monotonic() + SHARD_WAIT_S
            while True:
                try:
                    await self._internal(shard, "POST", "/view", json=body)
                    break
                except (RuntimeError, httpx.TransportError, ShardUnavailable) as error:
                    if time.monotonic() >= deadline:
                        LOG.warning("shard %s did not take list %s: %s", shard, body, error)
                        break
                    await asyncio.sleep(SHARD_RETRY_S)

    async def _move(
        self, after: tuple[str, ...], placements: dict[str, Placement], sources: Iterable[str]
    ) -> dict[str, Any]:
        """Moves the tenants of ``sources`` whose owner under the shard list ``after`` is
        another shard, then makes ``after`` the list (see the module's documentation)."""
        before = self.shards
        plan: dict[str, tuple[str, str]] = {}
        for shard in sources:
            for tenant in await self.tenants_of(shard):
                if owner(tenant, after) != shard:
                    plan[tenant] = (shard, owner(tenant, after))
        self.moving.update(plan)
        moved: dict[str, dict[str, Any]] = {}
        try:
            await self._freeze(plan, "/freeze")
            for tenant, (source, target) in plan.items():
                counts = await self._copy(tenant, source, target)
                moved[tenant] = {"from": source, "to": target, **counts}
                LOG.info("copied tenant %s from %s to %s: %s", tenant, source, target, counts)
            self.state = self.state.with_shards(after, placements)
            save_state(self.data_dir, self.state)
        except BaseException:
            for tenant, (_, target) in plan.items():
                await self._remove(target, tenant)
            try:
                await self._freeze(plan, "/thaw")
            finally:
                for tenant in plan:
                    self.moving.pop(tenant, None)
            raise
        await self._push(dict.fromkeys((*after, *before)))
        for tenant, (source, _) in plan.items():
            moved[tenant]["old_copy_removed"] = await self._remove(source, tenant)
        await self._freeze(plan, "/thaw")
        for tenant in plan:
            self.moving.pop(tenant, None)
        return {"shards": list(self.shards), "moved": moved}

    async def add_shard(self, name: str, placement: Placement) -> dict[str, Any]:
        """Adds shard ``name`` (deployed already, at ``placement``) and moves to it the tenants
        it now owns: ``{"shards": [...], "moved": {tenant: {"from", "to", "memories", ...}}}``.
        """
        async with self._control:
            if name in self.shards:
                raise ValueError(f"shard {name!r} is in the cluster already")
            after = (*self.shards, name)
            check_shards(after)
            placements = {**self.state.placements, name: placement}
            return await self._move(after, placements, self.shards)

    async def remove_shard(self, name: str) -> dict[str, Any]:
        """Moves every tenant of shard ``name`` to its owner among the other shards, then drops
        ``name`` from the list (its deployment is deleted by the caller); the same report as
        :meth:`add_shard`."""
        async with self._control:
            if name not in self.shards:
                raise ValueError(f"shard {name!r} is not in the cluster")
            after = tuple(shard for shard in self.shards if shard != name)
            if not after:
                raise ValueError(f"shard {name!r} is the cluster's last shard")
            report = await self._move(after, dict(self.state.placements), (name,))
            self._urls.forget(name)
            return report

    async def close(self) -> None:
        await self._http.aclose()
        self.keys.close()
