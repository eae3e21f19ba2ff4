"""``HebbsDocumentStore``: Haystack's ``DocumentStore`` protocol over a hebbs store.

Counting, filtering, deleting and updating run the translated filter
(:mod:`hebbs.integrations.haystack.filters`) in the core, scoped to the store's ``index``;
writing is one ``remember_many`` whose keys (:mod:`hebbs.integrations.haystack.codec`) make
``DuplicatePolicy.OVERWRITE`` an atomic replace. See docs/integrations/haystack.md.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from haystack import Document, default_from_dict, default_to_dict
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.document_stores.types import DuplicatePolicy

from hebbs._native import Memory, RecallOutput
from hebbs.api import RememberRequest, parse
from hebbs.api.operations import Operations
from hebbs.engine import Hebbs
from hebbs.integrations.haystack.codec import (
    INDEX_PATH,
    META_KEY,
    NO_CONTENT_PATH,
    key_of,
    key_prefix,
    to_document,
    to_item,
)
from hebbs.integrations.haystack.filters import to_hebbs_filter

#: The ``index`` a store uses unless given one.
DEFAULT_INDEX: Final = "default"
#: Memories read per ``list_memories`` page by ``filter_documents``.
LIST_PAGE: Final = 1000
#: Documents written per ``remember_many`` call.
WRITE_BATCH: Final = 256


class HebbsDocumentStore:
    """A Haystack document store kept in a hebbs store.

    Pass an open store (``hebbs.Hebbs``, ``hebbs.HebbsClient``: any
    :class:`~hebbs.api.operations.Operations`) as ``store``, or the directory of an embedded
    store as ``path`` (opened with the bundled embedder; only a store built from a path can be
    serialised by :meth:`to_dict`). ``index`` names this document store inside the hebbs store
    (several can share one); it holds no ``:``.

    Documents written without an embedding are embedded by the hebbs store's embedder; one
    written with an embedding keeps it (the store's dimension must be the embedding's).
    """

    def __init__(
        self,
        store: Operations[Any] | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        index: str = DEFAULT_INDEX,
    ) -> None:
        if (store is None) == (path is None):
            raise ValueError("give HebbsDocumentStore either `store` or `path`")
        if not isinstance(index, str) or not index or ":" in index:
            raise ValueError(f"index: a non-empty name without ':', got {index!r}")
        self._path = None if path is None else os.fspath(path)
        self._given = store
        self._opened: Hebbs | None = None
        self.index = index
        self._prefix = key_prefix(index)

    @property
    def store(self) -> Operations[Any]:
        """The hebbs store the documents live in (a ``path`` is opened on first use)."""
        if self._given is not None:
            return self._given
        if self._opened is None:
            assert self._path is not None
            self._opened = Hebbs.open(self._path)
        return self._opened

    def close(self) -> None:
        """Closes the store this object opened from ``path`` (a given store stays open)."""
        if self._opened is not None:
            self._opened.close()
            self._opened = None

    def to_dict(self) -> dict[str, Any]:
        """Serialises the store: its ``path`` and ``index``."""
        if self._path is None:
            raise TypeError(
                "a HebbsDocumentStore built from a store object cannot be serialised: "
                "build it with path= to use to_dict"
            )
        return default_to_dict(self, path=self._path, index=self.index)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HebbsDocumentStore:
        """The store :meth:`to_dict` describes."""
        store: HebbsDocumentStore = default_from_dict(cls, data)
        return store

    def scoped(self, filters: Mapping[str, Any] | None) -> dict[str, Any]:
        """The hebbs filter of a Haystack filter, limited to this store's documents (for the
        calls that take no ``key_prefix``: ``recall`` and ``forget``)."""
        scope = {INDEX_PATH: self.index}
        translated = to_hebbs_filter(filters)
        return scope if translated is None else {"$and": [scope, translated]}

    def count_documents(self) -> int:
        """The number of documents in the store."""
        return self.store.count_memories(key_prefix=self._prefix)

    def filter_documents(self, filters: dict[str, Any] | None = None) -> list[Document]:
        """The documents the filter selects (all without one), in the order they were written."""
        return [to_document(memory) for memory in self._memories(filters)]

    def write_documents(
        self, documents: list[Document], policy: DuplicatePolicy = DuplicatePolicy.NONE
    ) -> int:
        """Writes the documents; ``DuplicatePolicy.NONE`` is ``FAIL``. Returns how many were
        written: with ``FAIL`` a document whose id the store or an earlier document of the
        list holds raises :class:`DuplicateDocumentError` and nothing is written; ``SKIP``
        leaves those out; ``OVERWRITE`` replaces them (the last of the list wins)."""
        checked = _checked_documents(documents)
        if policy == DuplicatePolicy.NONE:
            policy = DuplicatePolicy.FAIL
        unique: dict[str, int] = {}
        for position, document in enumerate(checked):
            if document.id in unique:
                if policy == DuplicatePolicy.FAIL:
                    raise DuplicateDocumentError(f"ID '{document.id}' is twice in the list")
                if policy == DuplicatePolicy.SKIP:
                    continue
            unique[document.id] = position
        items = {id: _checked_item(checked[at], at, self.index) for id, at in unique.items()}
        if policy != DuplicatePolicy.OVERWRITE:
            existing = self._existing(list(items))
            if existing and policy == DuplicatePolicy.FAIL:
                raise DuplicateDocumentError(f"ID '{sorted(existing)[0]}' already exists")
            items = {id: item for id, item in items.items() if id not in existing}
        writes = list(items.values())
        for start in range(0, len(writes), WRITE_BATCH):
            self.store.remember_many(writes[start : start + WRITE_BATCH])
        return len(writes) if policy == DuplicatePolicy.SKIP else len(checked)

    def delete_documents(self, document_ids: list[str]) -> None:
        """Deletes the documents with those ids; unknown ids are skipped."""
        if document_ids:
            self.store.forget(keys=[key_of(self.index, id) for id in document_ids])

    def delete_all_documents(self) -> None:
        """Deletes every document of the store."""
        self.delete_by_filter({})

    def delete_by_filter(self, filters: dict[str, Any]) -> int:
        """Deletes the documents the filter selects; returns how many."""
        scoped = self.scoped(filters)
        deleted = 0
        while True:
            result = self.store.forget(filter=scoped)
            deleted += result.forgotten_count
            if not result.truncated:
                return deleted

    def update_by_filter(self, filters: dict[str, Any], meta: dict[str, Any]) -> int:
        """Merges ``meta`` into the meta of the documents the filter selects (each rewritten
        under its key); returns how many."""
        updated = [_with_meta(to_document(memory), meta) for memory in self._memories(filters)]
        self.write_documents(updated, policy=DuplicatePolicy.OVERWRITE)
        return len(updated)

    def count_documents_by_filter(self, filters: dict[str, Any]) -> int:
        """The number of documents the filter selects."""
        return self.store.count_memories(key_prefix=self._prefix, filter=to_hebbs_filter(filters))

    async def count_documents_async(self) -> int:
        """:meth:`count_documents` in a worker thread."""
        return await asyncio.to_thread(self.count_documents)

    async def filter_documents_async(self, filters: dict[str, Any] | None = None) -> list[Document]:
        """:meth:`filter_documents` in a worker thread."""
        return await asyncio.to_thread(self.filter_documents, filters)

    async def write_documents_async(
        self, documents: list[Document], policy: DuplicatePolicy = DuplicatePolicy.NONE
    ) -> int:
        """:meth:`write_documents` in a worker thread."""
        return await asyncio.to_thread(self.write_documents, documents, policy)

    async def delete_documents_async(self, document_ids: list[str]) -> None:
        """:meth:`delete_documents` in a worker thread."""
        await asyncio.to_thread(self.delete_documents, document_ids)

    async def delete_all_documents_async(self) -> None:
        """:meth:`delete_all_documents` in a worker thread."""
        await asyncio.to_thread(self.delete_all_documents)

    async def delete_by_filter_async(self, filters: dict[str, Any]) -> int:
        """:meth:`delete_by_filter` in a worker thread."""
        return await asyncio.to_thread(self.delete_by_filter, filters)

    async def update_by_filter_async(self, filters: dict[str, Any], meta: dict[str, Any]) -> int:
        """:meth:`update_by_filter` in a worker thread."""
        return await asyncio.to_thread(self.update_by_filter, filters, meta)

    async def count_documents_by_filter_async(self, filters: dict[str, Any]) -> int:
        """:meth:`count_documents_by_filter` in a worker thread."""
        return await asyncio.to_thread(self.count_documents_by_filter, filters)

    def recall_documents(
        self,
        *,
        filters: Mapping[str, Any] | None,
        top_k: int,
        bm25: bool = False,
        options: Mapping[str, Any] | None = None,
        **cue: Any,
    ) -> list[Document]:
        """The documents of one ``recall`` (``cue=`` text or ``cue_embedding=``), each scored
        with its result's score; ``bm25`` leaves documents without text out. The retrievers'
        search; ``options`` are more ``recall`` arguments."""
        scoped = self.scoped(filters)
        if bm25:
            scoped = {"$and": [scoped, {NO_CONTENT_PATH: {"$exists": False}}]}
        output: RecallOutput = self.store.recall(
            **cue, top_k=top_k, filter=scoped, **dict(options or {})
        )
        return [to_document(result.memory, result.score) for result in output.results]

    def _memories(self, filters: Mapping[str, Any] | None) -> Iterable[Memory]:
        """The memories of this store's documents a Haystack filter selects, in id order (the
        order they were written)."""
        translated = to_hebbs_filter(filters)
        cursor = None
        while True:
            page = self.store.list_memories(
                key_prefix=self._prefix, filter=translated, cursor=cursor, limit=LIST_PAGE
            )
            yield from page.memories
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def _existing(self, document_ids: Sequence[str]) -> set[str]:
        """The ids among ``document_ids`` the store holds."""
        if not document_ids:
            return set()
        found = self.store.get_many(keys=[key_of(self.index, id) for id in document_ids])
        return {id for id, memory in zip(document_ids, found) if memory is not None}


def _checked_documents(documents: object) -> list[Document]:
    if not isinstance(documents, list) or not all(isinstance(d, Document) for d in documents):
        raise ValueError("write_documents takes a list of Documents")
    return documents


def _checked_item(document: Document, position: int, index: str) -> dict[str, Any]:
    """The ``remember_many`` item of ``documents[position]``, checked as the store checks it
    (an error names ``documents[position].<field>``), so that bad input writes nothing even
    when the documents take several ``remember_many`` calls."""
    item = to_item(document, index)
    parse(RememberRequest, item, prefix=f"documents[{position}]")
    return item


def _with_meta(document: Document, meta: Mapping[str, Any]) -> Document:
    data = document.to_dict(flatten=False)
    data[META_KEY] = {**document.meta, **meta}
    return Document.from_dict(data)
