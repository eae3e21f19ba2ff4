""":class:`HebbsVectorStore`: hebbs as a LangChain ``VectorStore``. A document is a memory: its
``page_content`` the content, its ``metadata`` the context (JSON types kept both ways), its id
the memory's key, so adding a document whose id a memory holds replaces that memory (the
engine's upsert by key). Searches are hebbs' ``recall`` with its defaults."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable, Final

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from langchain_core.vectorstores.utils import maximal_marginal_relevance

from hebbs._inputs import invalid
from hebbs._native import RecallOutput
from hebbs.api.operations import Operations
from hebbs.engine import Hebbs
from hebbs.integrations.langchain.documents import DEFAULT_K, metadata_filter, to_document

#: Documents a maximal-marginal-relevance search recalls to choose from (LangChain's default).
DEFAULT_FETCH_K: Final = 20
#: Relevance's weight against diversity in that choice (LangChain's default).
DEFAULT_LAMBDA_MULT: Final = 0.5


class HebbsVectorStore(VectorStore):
    """A LangChain vector store over a hebbs store (``hebbs.Hebbs``, ``HebbsClient`` or any
    object with their operations).

    ``embedding``, a LangChain ``Embeddings``, embeds the documents and the queries and hebbs
    receives the vectors (``embedding=`` / ``cue_embedding=``); without it hebbs embeds them
    with its own model. ``recall_options`` are :meth:`~hebbs.Hebbs.recall` keyword arguments
    applied to every search (``quality``, ``entity_id``, ``strategies``, ...); a search's own
    keyword arguments come on top.

    Ids are keys of the whole store: two vector stores over one hebbs store share them.
    """

    def __init__(
        self,
        store: Operations[Any],
        embedding: Embeddings | None = None,
        *,
        recall_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.embedding = embedding
        self.recall_options = dict(recall_options or {})

    @property
    def embeddings(self) -> Embeddings | None:
        """The LangChain embeddings given, or None when hebbs embeds with its own model."""
        return self.embedding

    def add_documents(
        self,
        documents: list[Document],
        *,
        ids: Sequence[str | None] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Stores ``documents`` with one atomic ``remember_many`` and returns their ids: each
        one's entry in ``ids`` (when given and not None), else its ``Document.id``, else a new
        UUID. A document whose id a memory holds replaces it. ``kwargs`` go to every item
        (``importance``, ``entity_id``, ``session_id``, ``kind``...)."""
        if ids is not None and len(ids) != len(documents):
            reason = f"{len(ids)} ids for {len(documents)} documents"
            raise invalid("ids", reason)
        keys = [
            (ids[index] if ids is not None else None) or document.id or str(uuid.uuid4())
            for index, document in enumerate(documents)
        ]
        if not documents:
            return keys
        items: list[dict[str, Any]] = [
            {**kwargs, "content": document.page_content, "context": dict(document.metadata)}
            for document in documents
        ]
        for item, key in zip(items, keys):
            item["key"] = key
        if self.embedding is not None:
            vectors = self.embedding.embed_documents([doc.page_content for doc in documents])
            for item, vector in zip(items, vectors):
                item["embedding"] = vector
        self.store.remember_many(items)
        return keys

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool:
        """Forgets the memories holding ``ids`` (unknown ids are skipped). ``ids`` is required:
        the hebbs store holds more than this vector store's documents."""
        if ids is None:
            raise invalid("ids", "name the documents to delete")
        if ids:
            while self.store.forget(keys=list(ids)).truncated:
                pass
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents with ``ids``, in their order, unknown ids left out."""
        if not ids:
            return []
        found = self.store.get_many(keys=list(ids))
        return [to_document(memory) for memory in found if memory is not None]

    def similarity_search(
        self,
        query: str,
        k: int = DEFAULT_K,
        filter: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """The ``k`` documents hebbs recalls for ``query``, best first; ``filter`` selects by
        metadata (see :meth:`similarity_search_with_score`)."""
        return [doc for doc, _ in self.similarity_search_with_score(query, k, filter, **kwargs)]

    def similarity_search_with_score(
        self,
        query: str,
        k: int = DEFAULT_K,
        filter: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """The ``k`` documents hebbs' ``recall`` returns for ``query`` with its defaults, each
        with its score (0..1, higher is better: the recall's composite score that orders them).
        ``filter`` is over metadata keys in hebbs' filter language (``{"source": "a"}``,
        ``{"page": {"$gte": 2}}``, ``$and`` / ``$or`` / ``$not``: docs/filters.md); ``kwargs``
        are more ``recall`` arguments."""
        if self.embedding is not None:
            kwargs = {**kwargs, "cue_embedding": self.embedding.embed_query(query)}
        return _scored(self._recall(query, k, filter, kwargs))

    def similarity_search_by_vector(
        self,
        embedding: list[float],
        k: int = DEFAULT_K,
        filter: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """The ``k`` documents nearest ``embedding`` (a cue given only as a vector: hebbs runs
        its ``similarity`` strategy)."""
        output = self._recall(None, k, filter, {**kwargs, "cue_embedding": embedding})
        return [doc for doc, _ in _scored(output)]

    def max_marginal_relevance_search(
        self,
        query: str,
        k: int = DEFAULT_K,
        fetch_k: int = DEFAULT_FETCH_K,
        lambda_mult: float = DEFAULT_LAMBDA_MULT,
        filter: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """``k`` of the ``fetch_k`` documents hebbs recalls for ``query`` (text and vector),
        chosen by maximal marginal relevance over their stored vectors: ``lambda_mult`` 1 is
        relevance alone, 0 diversity alone. The query's vector comes from ``embedding``, else
        from the store's own embedder (an embedded ``hebbs.Hebbs``)."""
        vector = self._query_vector(query)
        return self._diverse(query, vector, k, fetch_k, lambda_mult, filter, kwargs)

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: list[float],
        k: int = DEFAULT_K,
        fetch_k: int = DEFAULT_FETCH_K,
        lambda_mult: float = DEFAULT_LAMBDA_MULT,
        filter: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """:meth:`max_marginal_relevance_search` for a cue given only as a vector."""
        return self._diverse(None, embedding, k, fetch_k, lambda_mult, filter, kwargs)

    def _query_vector(self, query: str) -> list[float]:
        """The query's vector: ``embedding``'s, else the store's own embedder's."""
        if self.embedding is not None:
            return self.embedding.embed_query(query)
        if not isinstance(self.store, Hebbs):
            reason = (
                "maximal marginal relevance needs the query's vector: give the vector store "
                "an embedding, or use an embedded hebbs.Hebbs"
            )
            raise invalid("embedding", reason)
        vectors = self.store.embedder.embed_query([query])
        return [float(value) for value in vectors[0]]

    def _diverse(
        self,
        query: str | None,
        vector: Sequence[float],
        k: int,
        fetch_k: int,
        lambda_mult: float,
        filter: Mapping[str, Any] | None,
        kwargs: Mapping[str, Any],
    ) -> list[Document]:
        """``k`` of the ``fetch_k`` recalled documents, by maximal marginal relevance."""
        options = {**kwargs, "cue_embedding": vector, "include_embedding": True}
        results = self._recall(query, fetch_k, filter, options).results
        memories = [result.memory for result in results if result.memory.embedding is not None]
        stored = [list(memory.embedding) for memory in memories if memory.embedding is not None]
        chosen = maximal_marginal_relevance(
            np.asarray(vector, dtype=np.float32), stored, lambda_mult=lambda_mult, k=k
        )
        return [to_document(memories[index]) for index in chosen]

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        """The scores are already relevance scores in 0..1."""
        return _same

    def _recall(
        self,
        query: str | None,
        k: int,
        filter: Mapping[str, Any] | None,
        kwargs: Mapping[str, Any],
    ) -> RecallOutput:
        options: dict[str, Any] = {**self.recall_options, **kwargs}
        if filter is not None:
            options["filter"] = metadata_filter(filter)
        return self.store.recall(query, top_k=k, **options)

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        embedding: Embeddings | None = None,
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        store: Operations[Any] | None = None,
        **kwargs: Any,
    ) -> HebbsVectorStore:
        """A vector store over ``store`` (required) holding ``texts``, with ``metadatas`` and
        ``ids`` (see :meth:`add_documents`); ``recall_options`` may be among ``kwargs``, the
        rest go to :meth:`add_texts`."""
        if store is None:
            raise invalid("store", "from_texts needs the hebbs store to write to")
        vectorstore = cls(store, embedding, recall_options=kwargs.pop("recall_options", None))
        vectorstore.add_texts(list(texts), metadatas, ids=ids, **kwargs)
        return vectorstore


def _scored(output: RecallOutput) -> list[tuple[Document, float]]:
    return [(to_document(result.memory), result.score) for result in output.results]


def _same(score: float) -> float:
    return score
