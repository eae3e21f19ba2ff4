"""hebbs inside Haystack (``pip install 'hebbs[haystack]'``): :class:`HebbsDocumentStore`, a
Haystack ``DocumentStore``, and the retriever components :class:`HebbsEmbeddingRetriever`,
:class:`HebbsBM25Retriever` and :class:`HebbsRetriever`. See docs/integrations/haystack.md."""

from hebbs.integrations.haystack.document_store import DEFAULT_INDEX, HebbsDocumentStore
from hebbs.integrations.haystack.retrievers import (
    HebbsBM25Retriever,
    HebbsEmbeddingRetriever,
    HebbsRetriever,
)

__all__ = [
    "DEFAULT_INDEX",
    "HebbsBM25Retriever",
    "HebbsDocumentStore",
    "HebbsEmbeddingRetriever",
    "HebbsRetriever",
]
