"""hebbs inside LangChain (``pip install 'hebbs[langchain]'``, docs/integrations/langchain.md):

- :class:`HebbsVectorStore`, a ``langchain_core`` ``VectorStore``: a document is a memory, its id
  the memory's key, its metadata the memory's context;
- :class:`HebbsRetriever`, a ``BaseRetriever`` that answers with hebbs' ``recall``;
- :class:`HebbsByteStore`, a ``BaseStore[str, bytes]`` over the store's named state table.
"""

from hebbs.integrations.langchain.bytestore import HebbsByteStore
from hebbs.integrations.langchain.retriever import HebbsRetriever
from hebbs.integrations.langchain.vectorstore import HebbsVectorStore

__all__ = ["HebbsByteStore", "HebbsRetriever", "HebbsVectorStore"]
