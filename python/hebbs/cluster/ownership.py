"""What one shard owns, which the shard itself enforces: the shard list at a version (a tenant
is the shard's when rendezvous hashing over the list names it) and the tenants frozen for a
move, with the writes in flight to each counted.

The coordinator (:mod:`hebbs.cluster.coordinator`) moves a tenant by freezing it on its old
shard (:meth:`Ownership.freeze`: new writes refused with 503, the ones in flight waited for),
copying its store, switching the list and pushing the new version to every shard
(:meth:`Ownership.adopt`); from then on the old shard answers the tenant 421 and the new one
serves it. So a write outside a move asks nothing of the coordinator, and no shard accepts a
write for a tenant that another shard owns. A shard that (re)starts asks the coordinator for
the list and for the tenants frozen on it before it serves a keyed request.

:class:`Ownership` is plain logic, used from the shard server's event loop only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from hebbs.cluster.constants import DRAIN_WAIT_S
from hebbs.cluster.hashing import owner

LOG = logging.getLogger("hebbs.cluster")

#: Seconds between two looks at the writes in flight while a freeze waits for them.
DRAIN_POLL_S: Final = 0.01


@dataclass(frozen=True)
class ShardView:
    """The shard list at ``version`` (one more at each change the coordinator makes)."""

    version: int
    shards: tuple[str, ...]

    def owner(self, tenant: str) -> str:
        return owner(tenant, self.shards)


class Ownership:
    """Shard ``name``'s view of the list, its frozen tenants and its writes in flight."""

    def __init__(self, name: str, view: ShardView, frozen: Iterable[str] = ()) -> None:
        self.name = name
        self.view = view
        self.frozen: set[str] = set(frozen)
        self.writes: Counter[str] = Counter()

    def adopt(self, view: ShardView) -> bool:
        """Takes ``view`` if it is newer than the one held; whether it did."""
        if view.version <= self.view.version:
            return False
        self.view = view
        return True

    def owns(self, tenant: str) -> bool:
        return self.view.owner(tenant) == self.name

    @contextmanager
    def writing(self, tenant: str) -> Iterator[None]:
        """Counts a write to ``tenant`` in flight for its duration."""
        self.writes[tenant] += 1
        try:
            yield
        finally:
            self.writes[tenant] -= 1
            if self.writes[tenant] <= 0:
                del self.writes[tenant]

    async def freeze(self, tenants: Iterable[str], wait_s: float = DRAIN_WAIT_S) -> None:
        """Refuses new writes to ``tenants`` from now on and returns when none is in flight
        (at most ``wait_s``)."""
        chosen = set(tenants)
        self.frozen |= chosen
        deadline = time.monotonic() + wait_s
        while any(self.writes.get(tenant) for tenant in chosen):
            if time.monotonic() >= deadline:
                LOG.warning("writes to %s still in flight; moving anyway", sorted(chosen))
                return
            await asyncio.sleep(DRAIN_POLL_S)

    def thaw(self, tenants: Iterable[str]) -> None:
        """Accepts writes to ``tenants`` again (a move that failed, or one that ended)."""
        self.frozen -= set(tenants)


def map_answer(shard_map: dict[str, Any], tenant: str) -> dict[str, Any]:
    """The answer of :data:`~hebbs.cluster.constants.MAP_ROUTE` to a key of ``tenant``: the
    coordinator's ``shard_map`` (``version``, ``hashing``, ``shards`` with their URLs) with the
    tenant and its owner, so that a client routes without hashing itself."""
    names = tuple(str(shard["name"]) for shard in shard_map["shards"])
    return {**shard_map, "tenant": tenant, "owner": owner(tenant, names)}
