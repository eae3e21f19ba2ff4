"""``TokenVectorCache``: per-token vectors of stored memories, quantised, keyed by memory id.

A late-interaction re-ranker needs every candidate's token vectors. Encoding 50 candidates at
query time costs a model run over all of them; with the vectors cached (filled at write time by
:meth:`LateInteractionReranker.index_memories`, or on first use) a query encodes only itself.
Content never changes under one memory id (a revision is a new memory), so an entry never goes
stale; :meth:`discard` drops the entries of forgotten memories.

Storage per token: int8 codes plus one float32 scale (``dimension + 4`` bytes), float16
(``2 * dimension``) or float32 (``4 * dimension``). Thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from hebbs._convert import invalid

from .constants import CACHE_DTYPES, DEFAULT_CACHE_DTYPE, INT8_LIMIT, CacheDtype


@dataclass(frozen=True)
class _Entry:
    codes: NDArray[np.generic]
    scales: NDArray[np.float32] | None

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes) + (int(self.scales.nbytes) if self.scales is not None else 0)


class TokenVectorCache:
    """Quantised per-token vectors keyed by 16-byte memory id.

    ``dtype`` chooses the storage (see the module docs); ``max_entries`` bounds the number of
    memories kept, evicting the least recently used (None: unbounded). :meth:`get` returns what
    :meth:`roundtrip` of the stored vectors returns, so a cache hit scores exactly like a fresh
    encoding passed through the same quantisation.
    """

    def __init__(
        self, dtype: CacheDtype = DEFAULT_CACHE_DTYPE, max_entries: int | None = None
    ) -> None:
        if dtype not in CACHE_DTYPES:
            raise invalid("dtype", f"must be one of {CACHE_DTYPES}, got {dtype!r}")
        if max_entries is not None and (
            isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1
        ):
            raise invalid("max_entries", f"must be None or a positive int, got {max_entries!r}")
        self.dtype: CacheDtype = dtype
        self.max_entries = max_entries
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()
        self._nbytes = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"TokenVectorCache(dtype={self.dtype!r}, entries={len(self)}, "
            f"nbytes={self.nbytes}, max_entries={self.max_entries})"
        )

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    @property
    def nbytes(self) -> int:
        """Bytes held by the stored vectors (codes and scales; not the dict overhead)."""
        return self._nbytes

    def get(self, key: bytes) -> NDArray[np.float32] | None:
        """The float32 token vectors stored under ``key``, or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
        return _decode(entry)

    def put(self, key: bytes, vectors: NDArray[np.float32]) -> NDArray[np.float32]:
        """Stores ``vectors`` ``[tokens, dimension]`` under ``key`` and returns their
        round-tripped (quantised, then decoded) float32 form."""
        entry = _encode(self.dtype, vectors)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._nbytes -= old.nbytes
            self._entries[key] = entry
            self._nbytes += entry.nbytes
            while self.max_entries is not None and len(self._entries) > self.max_entries:
                _, evicted = self._entries.popitem(last=False)
                self._nbytes -= evicted.nbytes
        return _decode(entry)

    def roundtrip(self, vectors: NDArray[np.float32]) -> NDArray[np.float32]:
        """``vectors`` as :meth:`get` would return them after :meth:`put`, without storing."""
        return _decode(_encode(self.dtype, vectors))

    def discard(self, keys: Iterable[bytes]) -> int:
        """Drops the entries of ``keys`` (for example forgotten memories); returns how many."""
        dropped = 0
        with self._lock:
            for key in keys:
                entry = self._entries.pop(key, None)
                if entry is not None:
                    self._nbytes -= entry.nbytes
                    dropped += 1
        return dropped

    def clear(self) -> None:
        """Drops every entry."""
        with self._lock:
            self._entries.clear()
            self._nbytes = 0


def _encode(dtype: CacheDtype, vectors: NDArray[np.float32]) -> _Entry:
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise invalid("vectors", f"must be 2-D [tokens, dimension], got shape {matrix.shape}")
    if dtype == "float32":
        return _Entry(np.array(matrix, dtype=np.float32, copy=True), None)
    if dtype == "float16":
        return _Entry(matrix.astype(np.float16), None)
    peaks = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix), np.float32)
    scales = (np.maximum(peaks, np.float32(1e-12)) / np.float32(INT8_LIMIT)).astype(np.float32)
    codes = np.rint(matrix / scales[:, np.newaxis]).astype(np.int8)
    return _Entry(codes, scales)


def _decode(entry: _Entry) -> NDArray[np.float32]:
    if entry.scales is None:
        return np.asarray(entry.codes, dtype=np.float32)
    decoded: NDArray[np.float32] = entry.codes.astype(np.float32) * entry.scales[:, np.newaxis]
    return decoded
