"""``TokenVectorCache``: per-token vectors of stored memories, quantised, keyed by memory id.

A late-interaction re-ranker needs every candidate's token vectors. Encoding 50 candidates at
query time costs a model run over all of them; with the vectors cached (filled at write time by
:meth:`LateInteractionReranker.index_memories`, or on first use) a query encodes only itself.
Content never changes under one memory id (a revision is a new memory), so an entry never goes
stale; :meth:`discard` drops the entries of forgotten memories.

Storage per token: int8 codes plus one float32 scale (``dimension + 4`` bytes), float16
(``2 * dimension``) or float32 (``4 * dimension``). Thread-safe.

With ``store=`` (an open :class:`hebbs.Hebbs`, the ``.sync`` of an :class:`hebbs.AsyncHebbs`,
or anything with their ``put_token_vectors`` and ``get_token_vectors``) the int8 codes and
scales are also written to the engine, durably, and read back from it when the in-memory LRU
misses: after a reopen, re-ranking reads the stored vectors instead of re-encoding the
candidates. Forget deletes the stored vectors with their memory. Only int8 is persisted; a
store with ``dtype="float16"`` or ``"float32"`` is rejected (those dtypes stay in memory only).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray

from hebbs._inputs import invalid
from hebbs.embedder.token_vectors import dequantize_int8, quantize_int8
from hebbs.errors import InvalidInputError
from hebbs.types import MemoryIdLike, TokenVectors, TokenVectorsItem

from .constants import CACHE_DTYPES, DEFAULT_CACHE_DTYPE, CacheDtype


class TokenVectorStore(Protocol):
    """Where a :class:`TokenVectorCache` persists int8 token vectors: :class:`hebbs.Hebbs`."""

    def put_token_vectors(self, items: Iterable[TokenVectorsItem]) -> None: ...

    def get_token_vectors(self, ids: Sequence[MemoryIdLike]) -> list[TokenVectors | None]: ...


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
    memories kept in memory, evicting the least recently used (None: unbounded); ``store``
    persists int8 vectors in the engine (see the module docs). :meth:`get` returns what
    :meth:`roundtrip` of the stored vectors returns, so a cache hit scores exactly like a fresh
    encoding passed through the same quantisation, whether it came from memory or the store.
    """

    def __init__(
        self,
        dtype: CacheDtype = DEFAULT_CACHE_DTYPE,
        max_entries: int | None = None,
        *,
        store: TokenVectorStore | None = None,
    ) -> None:
        if dtype not in CACHE_DTYPES:
            raise invalid("dtype", f"must be one of {CACHE_DTYPES}, got {dtype!r}")
        if store is not None and dtype != "int8":
            raise invalid("store", f"only int8 token vectors are persisted, not {dtype!r}")
        if max_entries is not None and (
            isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1
        ):
            raise invalid("max_entries", f"must be None or a positive int, got {max_entries!r}")
        self.dtype: CacheDtype = dtype
        self.max_entries = max_entries
        self.store = store
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()
        self._nbytes = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"TokenVectorCache(dtype={self.dtype!r}, entries={len(self)}, "
            f"nbytes={self.nbytes}, max_entries={self.max_entries}, "
            f"persisted={self.store is not None})"
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
        return self.get_many([key])[0]

    def get_many(self, keys: Sequence[bytes]) -> list[NDArray[np.float32] | None]:
        """The token vectors of each key: from memory, else (with a store) from one read of
        the engine for all the keys memory missed; None where neither has them."""
        with self._lock:
            entries = [self._entries.get(key) for key in keys]
            for key, entry in zip(keys, entries):
                if entry is not None:
                    self._entries.move_to_end(key)
        missing = [i for i, entry in enumerate(entries) if entry is None]
        if self.store is not None and missing:
            stored = self.store.get_token_vectors([keys[i] for i in missing])
            for i, found in zip(missing, stored):
                if found is not None:
                    entry = _Entry(found[0], found[1])
                    self._remember(keys[i], entry)
                    entries[i] = entry
        return [None if entry is None else _decode(entry) for entry in entries]

    def put(self, key: bytes, vectors: NDArray[np.float32]) -> NDArray[np.float32]:
        """Stores ``vectors`` ``[tokens, dimension]`` under ``key`` and returns their
        round-tripped (quantised, then decoded) float32 form."""
        return self.put_many([(key, vectors)])[0]

    def put_many(
        self,
        items: Sequence[tuple[bytes, NDArray[np.float32]]],
        *,
        skip_unknown: bool = False,
    ) -> list[NDArray[np.float32]]:
        """Stores each ``(key, vectors)`` in memory and (with a store) in the engine, in one
        write, and returns the round-tripped vectors. The engine rejects keys that name no
        memory (:class:`~hebbs.errors.InvalidInputError`); with ``skip_unknown`` those are
        kept in memory only, for a query whose candidate was forgotten meanwhile."""
        entries = [(key, _encode(self.dtype, vectors)) for key, vectors in items]
        if self.store is not None and entries:
            _persist(self.store, entries, skip_unknown=skip_unknown)
        for key, entry in entries:
            self._remember(key, entry)
        return [_decode(entry) for _, entry in entries]

    def _remember(self, key: bytes, entry: _Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._nbytes -= old.nbytes
            self._entries[key] = entry
            self._nbytes += entry.nbytes
            while self.max_entries is not None and len(self._entries) > self.max_entries:
                _, evicted = self._entries.popitem(last=False)
                self._nbytes -= evicted.nbytes

    def roundtrip(self, vectors: NDArray[np.float32]) -> NDArray[np.float32]:
        """``vectors`` as :meth:`get` would return them after :meth:`put`, without storing."""
        return _decode(_encode(self.dtype, vectors))

    def discard(self, keys: Iterable[bytes]) -> int:
        """Drops the in-memory entries of ``keys`` (for example forgotten memories; the engine
        deleted their stored vectors itself); returns how many."""
        dropped = 0
        with self._lock:
            for key in keys:
                entry = self._entries.pop(key, None)
                if entry is not None:
                    self._nbytes -= entry.nbytes
                    dropped += 1
        return dropped

    def clear(self) -> None:
        """Drops every in-memory entry (the store keeps its vectors)."""
        with self._lock:
            self._entries.clear()
            self._nbytes = 0


def _persist(
    store: TokenVectorStore, entries: list[tuple[bytes, _Entry]], *, skip_unknown: bool
) -> None:
    """Writes int8 ``entries`` to ``store`` in one call; with ``skip_unknown``, retries without
    each entry the engine names as ``items[i].id`` (a memory that no longer exists)."""
    pending = list(entries)
    while pending:
        try:
            store.put_token_vectors([_stored_item(key, entry) for key, entry in pending])
            return
        except InvalidInputError as error:
            unknown = _unknown_item(error, len(pending)) if skip_unknown else None
            if unknown is None:
                raise
            del pending[unknown]


def _stored_item(key: bytes, entry: _Entry) -> TokenVectorsItem:
    """What the engine stores of an int8 entry (a store only ever holds int8 entries)."""
    if entry.scales is None or entry.codes.dtype != np.int8:
        raise TypeError(f"only int8 token vectors are persisted, got {entry.codes.dtype}")
    return key, cast("NDArray[np.int8]", entry.codes), entry.scales


def _unknown_item(error: InvalidInputError, count: int) -> int | None:
    """The index ``i`` of an error naming ``items[i].id``, if it does."""
    field = str(getattr(error, "field", ""))
    prefix, suffix = "items[", "].id"
    if not (field.startswith(prefix) and field.endswith(suffix)):
        return None
    index = field[len(prefix) : -len(suffix)]
    return int(index) if index.isdigit() and int(index) < count else None


def _encode(dtype: CacheDtype, vectors: NDArray[np.float32]) -> _Entry:
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise invalid("vectors", f"must be 2-D [tokens, dimension], got shape {matrix.shape}")
    if dtype == "float32":
        return _Entry(np.array(matrix, dtype=np.float32, copy=True), None)
    if dtype == "float16":
        return _Entry(matrix.astype(np.float16), None)
    return _Entry(*quantize_int8(matrix))


def _decode(entry: _Entry) -> NDArray[np.float32]:
    if entry.scales is None:
        return np.asarray(entry.codes, dtype=np.float32)
    return dequantize_int8(cast("NDArray[np.int8]", entry.codes), entry.scales)
