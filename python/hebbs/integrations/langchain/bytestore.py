""":class:`HebbsByteStore`: a LangChain ``BaseStore[str, bytes]`` in a hebbs store's named
state table (the engine's ``state_get`` / ``state_scan`` and its atomic writes: small values kept in
the database itself, beside the memories but not memories: no embedding, no count, no recall).
LangChain's ``CacheBackedEmbeddings`` and ``MultiVectorRetriever`` keep their bytes in one."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

import numpy as np
from langchain_core.stores import BaseStore

from hebbs._inputs import invalid
from hebbs._native import MAX_STATE_NAME_BYTES, MAX_STATE_SCAN, MAX_STATE_VALUE_BYTES, NativeEngine
from hebbs.engine import Hebbs
from hebbs.errors import InvalidTypeError

#: Where the byte stores' entries live in the state table: ``langchain/bytes/<namespace>/<key>``.
STATE_PREFIX: Final = "langchain/bytes/"

#: The namespace of a byte store not given one.
DEFAULT_NAMESPACE: Final = "default"


class HebbsByteStore(BaseStore[str, bytes]):
    """Bytes under string keys, kept in ``store``'s database (an embedded ``hebbs.Hebbs``).

    ``namespace`` (no ``/``) separates byte stores sharing one database. A key is any
    non-empty string; the engine bounds the name it is stored under (namespace, key and
    ``STATE_PREFIX``) to ``MAX_STATE_NAME_BYTES`` UTF-8 bytes and a value to
    ``MAX_STATE_VALUE_BYTES``. ``mset`` checks every pair, then writes them in one atomic batch.
    """

    def __init__(self, store: Hebbs, namespace: str = DEFAULT_NAMESPACE) -> None:
        if not isinstance(store, Hebbs):
            reason = "the byte store needs an embedded hebbs.Hebbs (its state table)"
            raise invalid("store", reason, InvalidTypeError)
        if not isinstance(namespace, str):
            raise invalid("namespace", "must be a string", InvalidTypeError)
        if not namespace or "/" in namespace:
            raise invalid("namespace", "must be non-empty, without '/'")
        self._state = _state_table(store)
        self._prefix = f"{STATE_PREFIX}{namespace}/"

    def mget(self, keys: Sequence[str]) -> list[bytes | None]:
        """The values of ``keys``, in their order: None where a key has none."""
        names = [self._name(key, f"keys[{index}]") for index, key in enumerate(keys)]
        return [self._state.state_get(name) for name in names]

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        """Sets each key to its value (replacing what it had), in one atomic write: all of them
        or, when a pair is refused, none."""
        entries = []
        for index, (key, value) in enumerate(key_value_pairs):
            field = f"key_value_pairs[{index}]"
            if not isinstance(value, bytes):
                raise invalid(field, "the value must be bytes", InvalidTypeError)
            if len(value) > MAX_STATE_VALUE_BYTES:
                reason = f"the value's {len(value)} bytes are over {MAX_STATE_VALUE_BYTES}"
                raise invalid(field, reason)
            entries.append((self._name(key, field), value))
        self._write(entries)

    def mdelete(self, keys: Sequence[str]) -> None:
        """Deletes ``keys`` (those without a value are skipped); every key is checked first."""
        names = [self._name(key, f"keys[{index}]") for index, key in enumerate(keys)]
        self._write([(name, None) for name in names])

    def _write(self, entries: Sequence[tuple[str, bytes | None]]) -> None:
        """Sets (or deletes, for None) the state entries in one atomic write batch."""
        if entries:
            self._state.write_atomic([], np.zeros((0, 0), dtype=np.float32), state=entries)

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        """The keys starting with ``prefix`` (every key without one), in byte order."""
        if prefix is not None and not isinstance(prefix, str):
            raise invalid("prefix", "must be a string", InvalidTypeError)
        scanned = self._prefix + (prefix or "")
        if len(scanned.encode()) > MAX_STATE_NAME_BYTES:
            return
        entries = self._state.state_scan(scanned)
        if len(entries) >= MAX_STATE_SCAN:
            reason = f"the listing reaches the engine's {MAX_STATE_SCAN} entries; narrow it"
            raise invalid("prefix", reason)
        start = len(self._prefix)
        for name, _ in entries:
            yield name[start:]

    def _name(self, key: str, field: str) -> str:
        """The state name ``key`` is stored under, or an error naming ``field``."""
        if not isinstance(key, str):
            raise invalid(field, "the key must be a string", InvalidTypeError)
        if not key:
            raise invalid(field, "the key must not be empty")
        name = self._prefix + key
        room = MAX_STATE_NAME_BYTES - len(self._prefix.encode())
        if len(name.encode()) > MAX_STATE_NAME_BYTES:
            reason = f"the key's {len(key.encode())} UTF-8 bytes are over {room} (this namespace's)"
            raise invalid(field, reason)
        return name


def _state_table(store: Hebbs) -> NativeEngine:
    """The native engine whose state table ``store`` keeps. ``Hebbs`` has no public accessor
    for the state table yet: this reads its private ``_native``, here only."""
    return store._native
