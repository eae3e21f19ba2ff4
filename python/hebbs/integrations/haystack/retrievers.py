"""Haystack retriever components over :class:`HebbsDocumentStore`, each one ``recall``:

- :class:`HebbsEmbeddingRetriever`: a query embedding (``cue_embedding``, hebbs' vector search);
- :class:`HebbsBM25Retriever`: a query text searched with the ``keyword`` strategy (BM25 over
  the full-text index), documents without text left out;
- :class:`HebbsRetriever`: a query text with hebbs' default recall (hybrid dense + BM25, the
  re-rank stage, docs/hybrid.md), the query embedded by the hebbs store's embedder.

Each takes ``filters`` (Haystack's syntax, applied in the core), ``top_k``, ``filter_policy``
and ``recall_options`` (more ``recall`` arguments, e.g. ``{"quality": "fast"}``); a
document's ``score`` is its recall score.

Haystack evaluates the ``run`` annotations (its sockets' types), so this module spells them
with ``Optional`` and no ``from __future__ import annotations``: they evaluate on Python 3.9.
"""

import asyncio
from collections.abc import Mapping
from typing import Any, Final, Optional

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.document_stores.types import FilterPolicy, apply_filter_policy

from hebbs.integrations.haystack.document_store import HebbsDocumentStore

#: How many documents a retriever returns unless told.
DEFAULT_RETRIEVER_TOP_K: Final = 10
#: The strategy of :class:`HebbsBM25Retriever`.
BM25_STRATEGY: Final = "keyword"


class _HebbsRetrieverBase:
    """What the three retrievers share: their parameters, serialisation and search."""

    def __init__(
        self,
        document_store: HebbsDocumentStore,
        filters: Optional[dict[str, Any]] = None,
        top_k: int = DEFAULT_RETRIEVER_TOP_K,
        filter_policy: FilterPolicy = FilterPolicy.REPLACE,
        recall_options: Optional[dict[str, Any]] = None,
    ) -> None:
        if not isinstance(document_store, HebbsDocumentStore):
            raise TypeError("document_store must be a HebbsDocumentStore")
        if top_k <= 0:
            raise ValueError(f"top_k must be greater than 0, got {top_k}")
        self.document_store = document_store
        self.filters = filters
        self.top_k = top_k
        self.filter_policy = filter_policy
        self.recall_options = dict(recall_options or {})

    def to_dict(self) -> dict[str, Any]:
        """Serialises the component (its store must have been built from a path)."""
        return default_to_dict(
            self,
            document_store=self.document_store.to_dict(),
            filters=self.filters,
            top_k=self.top_k,
            filter_policy=self.filter_policy.value,
            recall_options=self.recall_options,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """The component :meth:`to_dict` describes."""
        init = dict(data.get("init_parameters", {}))
        init["document_store"] = HebbsDocumentStore.from_dict(init["document_store"])
        if "filter_policy" in init:
            init["filter_policy"] = FilterPolicy.from_str(init["filter_policy"])
        return default_from_dict(cls, {**data, "init_parameters": init})

    def _search(
        self,
        filters: Optional[dict[str, Any]],
        top_k: Optional[int],
        *,
        bm25: bool = False,
        extra: Optional[Mapping[str, Any]] = None,
        **cue: Any,
    ) -> dict[str, list[Document]]:
        top_k = self.top_k if top_k is None else top_k
        if top_k < 0:
            raise ValueError(f"top_k must be 0 or more, got {top_k}")
        if top_k == 0:
            return {"documents": []}
        documents = self.document_store.recall_documents(
            filters=apply_filter_policy(self.filter_policy, self.filters, filters),
            top_k=top_k,
            bm25=bm25,
            options={**(extra or {}), **self.recall_options},
            **cue,
        )
        return {"documents": documents}


@component
class HebbsEmbeddingRetriever(_HebbsRetrieverBase):
    """The documents nearest a query embedding (of the hebbs store's dimension)."""

    @component.output_types(documents=list[Document])
    def run(
        self,
        query_embedding: list[float],
        filters: Optional[dict[str, Any]] = None,
        top_k: Optional[int] = None,
    ) -> dict[str, list[Document]]:
        """The ``top_k`` documents nearest ``query_embedding`` that ``filters`` selects."""
        return self._search(filters, top_k, cue_embedding=query_embedding)

    @component.output_types(documents=list[Document])
    async def run_async(
        self,
        query_embedding: list[float],
        filters: Optional[dict[str, Any]] = None,
        top_k: Optional[int] = None,
    ) -> dict[str, list[Document]]:
        """:meth:`run` in a worker thread."""
        return await asyncio.to_thread(self.run, query_embedding, filters, top_k)


class _HebbsTextRetriever(_HebbsRetrieverBase):
    """A retriever of a query text: one ``recall`` with the subclass's ``_bm25`` and
    ``_strategies``."""

    _bm25: bool = False
    _strategies: Optional[tuple[str, ...]] = None

    @component.output_types(documents=list[Document])
    def run(
        self, query: str, filters: Optional[dict[str, Any]] = None, top_k: Optional[int] = None
    ) -> dict[str, list[Document]]:
        """The ``top_k`` documents that best match ``query`` among those ``filters`` selects."""
        extra = {} if self._strategies is None else {"strategies": list(self._strategies)}
        return self._search(filters, top_k, bm25=self._bm25, extra=extra, cue=query)

    @component.output_types(documents=list[Document])
    async def run_async(
        self, query: str, filters: Optional[dict[str, Any]] = None, top_k: Optional[int] = None
    ) -> dict[str, list[Document]]:
        """:meth:`run` in a worker thread."""
        return await asyncio.to_thread(self.run, query, filters, top_k)


@component
class HebbsBM25Retriever(_HebbsTextRetriever):
    """The documents whose text best matches a query by BM25 (hebbs' ``keyword`` strategy);
    documents without text are left out."""

    _bm25 = True
    _strategies = (BM25_STRATEGY,)


@component
class HebbsRetriever(_HebbsTextRetriever):
    """hebbs' default recall of a query text: the best pipeline, no embedder component needed."""
