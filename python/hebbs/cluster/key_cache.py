"""The cluster's keys as the ingress replicas and the shards see them: the coordinator's key
store (:mod:`hebbs.cluster.coordinator`, on the head node), asked over Ray and each answer kept
for :data:`KEY_CACHE_TTL_S`, so no node but the head needs the SQLite file.

:class:`CachedKeys` stands in for the server's :class:`~hebbs.service.keys.KeyStore` in its
:class:`~hebbs.service.auth.AuthConfig` (the server only looks keys up): a lookup answers from
the cache while the entry is younger than the TTL, else asks the coordinator. An unknown key is
kept too (so a flood of bad keys does not reach the coordinator). So a key revoked (or created
after a failed try) in the key store is refused (or accepted) everywhere within the TTL; a key
never tried before works at once. The cache is keyed by the key's SHA-256, never the key.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable
from typing import Callable, Final

from hebbs.cluster.constants import KEY_CACHE_TTL_S
from hebbs.service.keys import KeyInfo, KeyStore, digest

#: Entries kept at most; the oldest half is dropped when the cache is full.
MAX_CACHED_KEYS: Final = 100_000


class CachedKeys(KeyStore):
    """Key lookups through ``fetch`` (the coordinator, blocking) or :meth:`prefetch` (the
    coordinator, awaited), cached for ``ttl_s``. Without ``fetch`` (the ingress, which must not
    block its event loop) a lookup answers what the :meth:`prefetch` just before it found,
    however long that took. Only :meth:`lookup` and :meth:`close` of the key store are served:
    keys are created and revoked in the key store itself."""

    def __init__(
        self,
        fetch: Callable[[str], KeyInfo | None] | None,
        fetch_async: Callable[[str], Awaitable[KeyInfo | None]] | None = None,
        ttl_s: float = KEY_CACHE_TTL_S,
    ) -> None:
        # No SQLite file: the coordinator holds it.
        self._fetch = fetch
        self._fetch_async = fetch_async
        self.ttl_s = ttl_s
        self._entries: dict[str, tuple[float, KeyInfo | None]] = {}
        self._guard = threading.Lock()

    def _cached(self, key: str, fresh: bool = True) -> tuple[bool, KeyInfo | None]:
        with self._guard:
            entry = self._entries.get(digest(key))
        if entry is None or (fresh and time.monotonic() - entry[0] >= self.ttl_s):
            return False, None
        return True, entry[1]

    def _keep(self, key: str, info: KeyInfo | None, asked_at: float) -> None:
        with self._guard:
            if len(self._entries) >= MAX_CACHED_KEYS:
                for old in list(self._entries)[: MAX_CACHED_KEYS // 2]:
                    del self._entries[old]
            self._entries[digest(key)] = (asked_at, info)

    def lookup(self, key: str) -> KeyInfo | None:
        hit, info = self._cached(key, fresh=self._fetch is not None)
        if hit or self._fetch is None:
            return info
        asked_at = time.monotonic()
        info = self._fetch(key)
        self._keep(key, info, asked_at)
        return info

    async def prefetch(self, key: str) -> None:
        """Makes the next :meth:`lookup` of ``key`` answer from the cache, asking the
        coordinator without blocking the event loop if the entry is missing or stale."""
        if self._fetch_async is None or self._cached(key)[0]:
            return
        asked_at = time.monotonic()
        self._keep(key, await self._fetch_async(key), asked_at)

    def close(self) -> None:
        with self._guard:
            self._entries.clear()
