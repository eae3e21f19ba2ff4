"""Which shard owns a tenant: rendezvous (highest-random-weight) hashing over the shard list.

Every (shard, tenant) pair gets a 64-bit weight from BLAKE2b; the tenant's owner is the shard
of the highest weight (ties, vanishingly rare, go to the larger name). Adding a shard moves
exactly the tenants whose new weight for it beats their old maximum, about 1/(n+1) of them, and
only to the new shard; removing one moves only its own tenants. The weights depend on the names
alone, so every ingress, the mover and a client that knows the shard list agree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

#: Bytes of a weight.
WEIGHT_BYTES = 8


def weight(shard: str, tenant: str) -> int:
    """The weight of ``shard`` for ``tenant``."""
    digest = hashlib.blake2b(
        f"{shard}\x00{tenant}".encode(), digest_size=WEIGHT_BYTES, person=b"hebbs-hrw"
    ).digest()
    return int.from_bytes(digest, "big")


def owner(tenant: str, shards: Sequence[str]) -> str:
    """The shard of ``shards`` that owns ``tenant``."""
    if not shards:
        raise ValueError("a cluster needs at least one shard")
    return max(shards, key=lambda shard: (weight(shard, tenant), shard))


def moves(
    tenants: Iterable[str], before: Sequence[str], after: Sequence[str]
) -> dict[str, tuple[str, str]]:
    """The tenants whose owner changes from the shard list ``before`` to ``after``:
    ``{tenant: (old owner, new owner)}``."""
    changed = {}
    for tenant in tenants:
        old, new = owner(tenant, before), owner(tenant, after)
        if old != new:
            changed[tenant] = (old, new)
    return changed
