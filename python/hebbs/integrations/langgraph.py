"""LangGraph's long-term memory on hebbs: :class:`HebbsStore`, a
``langgraph.store.base.BaseStore`` (``pip install 'hebbs[langgraph]'``).

An item is one memory: its (namespace, key) is the memory's key
(:mod:`hebbs.integrations._langgraph_mapping` has the encoding), its value the memory's
``context`` (JSON types kept), its namespace the memory's ``entity_id`` and its content the
text of the value's indexed fields, which hebbs embeds (with its own model, or with the
``embed`` function of LangGraph's index configuration). A put replaces the
item's memory (hebbs' upsert by key), a delete forgets it; ``search`` with a ``query`` is
hebbs' ``recall`` with its defaults restricted to the namespace prefix, without one a listing by
key prefix. docs/integrations/langgraph.md maps every part."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from langgraph.store.base import (
    BaseStore,
    Embeddings,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    ensure_embeddings,
    validate_op_namespace,
)

from hebbs._inputs import invalid
from hebbs._native import MAX_ENTITY_ID_BYTES, MAX_KEY_BYTES, MAX_LIST_PAGE, MAX_TOP_K, Memory
from hebbs.api.operations import Operations
from hebbs.integrations._langgraph_mapping import (
    DEFAULT_KEY_PREFIX,
    WHOLE_VALUE,
    embedded_text,
    memory_key,
    namespace_prefix,
    namespace_range,
    split_memory_key,
    translate_filter,
)

__all__ = ["DEFAULT_KEY_PREFIX", "HebbsStore"]

#: The ``index`` settings :class:`HebbsStore` reads: ``fields``, which parts of a value are
#: embedded, and ``embed``, LangGraph's embedding function when hebbs' own model should not embed
#: (``dims`` is accepted with it: hebbs checks each vector's length against its store).
INDEX_KEYS: Final = frozenset({"fields", "embed", "dims"})
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)


class HebbsStore(BaseStore):
    """A LangGraph store whose items are memories of the hebbs store ``memories`` (a
    :class:`hebbs.Hebbs`, or a :class:`hebbs.HebbsClient` of a server).

    ``index`` is LangGraph's index configuration: its ``fields`` say which parts of a value are
    embedded (default ``["$"]``, the whole value as JSON text; a put's ``index`` list overrides
    them for that item), its ``embed`` (optional) embeds them and the queries instead of hebbs'
    model. ``key_prefix`` starts every memory key and entity id this store writes
    (default :data:`DEFAULT_KEY_PREFIX`), so other memories of the same hebbs store are never
    listed or returned. TTLs are not supported (``supports_ttl`` is False)."""

    __slots__ = ("embeddings", "fields", "key_prefix", "memories")

    def __init__(
        self,
        memories: Operations[Any],
        *,
        index: IndexConfig | None = None,
        key_prefix: str = DEFAULT_KEY_PREFIX,
    ) -> None:
        config: Mapping[str, Any] = index or {}
        unknown = set(config) - INDEX_KEYS
        if unknown:
            raise ValueError(
                f"index: {sorted(unknown)} not supported; "
                f"the index configuration takes {sorted(INDEX_KEYS)}"
            )
        if not key_prefix:
            raise ValueError("key_prefix: must not be empty (it keeps the store's items apart)")
        self.memories = memories
        self.key_prefix = key_prefix
        self.fields: list[str] = list(config.get("fields") or [WHOLE_VALUE])
        embed = config.get("embed")
        self.embeddings: Embeddings | None = ensure_embeddings(embed) if embed else None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs ``ops`` as ``InMemoryStore`` does: every read sees the store as it was before the
        batch, then the writes are applied (the last write of a key wins): the puts as one
        atomic ``remember_many``, the deletes as one ``forget``."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = []
        writes: dict[tuple[tuple[str, ...], str], PutOp] = {}
        gets = [op for op in ops if isinstance(op, GetOp)]
        got = iter(self._get_many(gets))
        for op in ops:
            if isinstance(op, GetOp):
                results.append(next(got))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                writes[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise ValueError(f"Unknown operation type: {type(op)}")
        self._write(list(writes.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread (hebbs releases the GIL while it works)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # The operations.

    def _get_many(self, ops: Sequence[GetOp]) -> list[Item | None]:
        if not ops:
            return []
        keys = [memory_key(self.key_prefix, op.namespace, op.key) for op in ops]
        # A key longer than hebbs keeps names no item: nothing to ask for.
        kept = [key for key in keys if _fits(key, MAX_KEY_BYTES)]
        found = dict(zip(kept, self.memories.get_many(keys=kept) if kept else [], strict=True))
        items: list[Item | None] = []
        for key in keys:
            memory = found.get(key)
            items.append(None if memory is None else self._item(memory))
        return items

    def _write(self, writes: Sequence[PutOp]) -> None:
        deletes = [op for op in writes if op.value is None]
        puts = [op for op in writes if op.value is not None]
        if puts:
            items = [self._remember_item(op) for op in puts]
            if self.embeddings is not None:
                vectors = self.embeddings.embed_documents([item["content"] for item in items])
                for item, vector in zip(items, vectors, strict=True):
                    item["embedding"] = vector
            self.memories.remember_many(items)
        if deletes:
            keys = [memory_key(self.key_prefix, op.namespace, op.key) for op in deletes]
            keys = [key for key in keys if _fits(key, MAX_KEY_BYTES)]
            if keys:
                self.memories.forget(keys=keys, limit=len(keys))

    def _remember_item(self, op: PutOp) -> dict[str, Any]:
        value = dict(op.value or {})
        fields = self.fields if op.index is None or op.index is False else list(op.index)
        entity_id = namespace_prefix(self.key_prefix, op.namespace)
        if not _fits(entity_id, MAX_ENTITY_ID_BYTES):
            raise invalid(
                "namespace",
                f"{op.namespace!r} is {len(entity_id.encode())} bytes as an entity id "
                f"(key prefix and escapes included), hebbs keeps at most {MAX_ENTITY_ID_BYTES}",
            )
        key = memory_key(self.key_prefix, op.namespace, op.key)
        if not _fits(key, MAX_KEY_BYTES):
            raise invalid(
                "key",
                f"namespace and key are {len(key.encode())} bytes as a memory key (key prefix "
                f"and escapes included), hebbs keeps at most {MAX_KEY_BYTES}",
            )
        return {
            "content": embedded_text(value, fields),
            "context": value,
            "entity_id": entity_id,
            "key": key,
        }

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = namespace_prefix(self.key_prefix, op.namespace_prefix)
        conditions = translate_filter(op.filter)
        if min(op.offset, op.limit) < 0:
            listed = list(self._listing(prefix, conditions))
            return [_search_item(item, None) for item in listed[op.offset : op.offset + op.limit]]
        wanted = op.offset + op.limit
        found: list[tuple[Item, float | None]] = []
        if op.query and wanted > 0:
            found = self._recall(op.query, prefix, conditions, min(wanted, MAX_TOP_K))
        if len(found) < wanted:
            seen = {(item.namespace, item.key) for item, _ in found}
            for item in self._listing(prefix, conditions, page=wanted):
                if (item.namespace, item.key) not in seen:
                    found.append((item, None))
                    if len(found) == wanted:
                        break
        return [_search_item(item, score) for item, score in found[op.offset : wanted]]

    def _recall(
        self, query: str, prefix: str, conditions: list[dict[str, Any]], top_k: int
    ) -> list[tuple[Item, float | None]]:
        scope = namespace_range(prefix)
        cue = None if self.embeddings is None else self.embeddings.embed_query(query)
        output = self.memories.recall(
            query,
            top_k=top_k,
            cue_embedding=cue,
            filter=_all_of(([scope] if scope else []) + conditions),
        )
        # A memory hebbs derived from items (an insight of their entity) holds no key: not an item.
        return [
            (self._item(result.memory), float(result.score))
            for result in output.results
            if (result.memory.key or "").startswith(prefix)
        ]

    def _listing(
        self, prefix: str, conditions: list[dict[str, Any]], page: int = MAX_LIST_PAGE
    ) -> Iterator[Item]:
        """The items whose memory key starts with ``prefix`` and that the conditions select, in
        the order hebbs stored them (a put moves an item to the end)."""
        return (self._item(memory) for memory in self._memories(prefix, conditions, page))

    def _memories(
        self, prefix: str, conditions: list[dict[str, Any]], page: int = MAX_LIST_PAGE
    ) -> Iterator[Memory]:
        """The memories of :meth:`_listing`, read ``page`` at a time (at most
        ``MAX_LIST_PAGE``)."""
        if not _fits(prefix, MAX_KEY_BYTES):
            return  # no memory key is that long
        cursor = None
        while True:
            listed = self.memories.list_memories(
                key_prefix=prefix,
                filter=_all_of(conditions),
                cursor=cursor,
                limit=min(max(page, 1), MAX_LIST_PAGE),
            )
            yield from listed.memories
            cursor = listed.next_cursor
            if cursor is None:
                return

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        """Every namespace holding an item, from one pass over the store's keys (narrowed to the
        prefix condition's labels before the first wildcard)."""
        fixed: list[str] = []
        for condition in op.match_conditions or ():
            if condition.match_type == "prefix":
                fixed = list(_leading_labels(condition.path))
                break
        namespaces = {
            split_memory_key(self.key_prefix, memory.key or "")[0]
            for memory in self._memories(namespace_prefix(self.key_prefix, fixed), [])
        }
        kept = [
            namespace
            for namespace in namespaces
            if all(_matches(condition, namespace) for condition in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            kept = list({namespace[: op.max_depth] for namespace in kept})
        return sorted(kept)[op.offset : op.offset + op.limit]

    def _item(self, memory: Memory) -> Item:
        key = memory.key
        if key is None:
            raise ValueError(f"memory {memory.id_hex} has no key: not an item of a HebbsStore")
        namespace, item_key = split_memory_key(self.key_prefix, key)
        return Item(
            value=dict(memory.context),
            key=item_key,
            namespace=namespace,
            created_at=_time(memory.created_at),
            updated_at=_time(memory.updated_at),
        )


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def _all_of(conditions: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not conditions:
        return None
    if len(conditions) == 1:
        return conditions[0]
    return {"$and": conditions}


def _fits(text: str, limit: int) -> bool:
    return len(text.encode()) <= limit


def _time(microseconds: int) -> datetime:
    return _EPOCH + timedelta(microseconds=microseconds)


def _leading_labels(path: Sequence[str]) -> Iterator[str]:
    for label in path:
        if label == "*":
            return
        yield label


def _matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace match: ``path`` equals the namespace's first (``prefix``) or last
    (``suffix``) labels, ``*`` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        labels = namespace[: len(path)]
    elif condition.match_type == "suffix":
        labels = namespace[len(namespace) - len(path) :]
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(want in ("*", have) for want, have in zip(path, labels))
