""":class:`HebbsRetriever`: hebbs' ``recall`` as a LangChain ``BaseRetriever``."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import AliasChoices, ConfigDict, Field

from hebbs._inputs import invalid
from hebbs.integrations.langchain.documents import DEFAULT_K, to_document

#: The names the number of documents goes by, in the constructor and in ``invoke``.
_K_NAMES = ("k", "top_k")


class HebbsRetriever(BaseRetriever):
    """Answers a query with the memories hebbs' ``recall`` returns for it, best first, as
    ``Document`` objects (content, context as metadata, key, or id when the memory has no key,
    as the id).

    ``store`` is a ``hebbs.Hebbs``, a ``HebbsClient`` or any object with their operations.
    ``k`` (or ``top_k``) is the number of documents; ``filter`` (hebbs' filter language,
    docs/filters.md: ``{"context.source": "a"}``), ``strategies``, ``quality`` and ``entity_id``
    are ``recall``'s, and ``recall_options`` holds any other ``recall`` argument. Each left
    unset keeps ``recall``'s default. ``invoke(query, k=..., filter=..., ...)`` overrides them
    for one call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    store: Any
    k: int = Field(default=DEFAULT_K, validation_alias=AliasChoices(*_K_NAMES))
    filter: dict[str, Any] | None = None
    strategies: list[Any] | None = None
    quality: str | None = None
    entity_id: str | None = None
    recall_options: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        given = [name for name in _K_NAMES if name in kwargs]
        if len(given) > 1:
            raise invalid("top_k", "give k or top_k, not both")
        top_k = kwargs.pop(given[0]) if given else self.k
        options: dict[str, Any] = dict(self.recall_options)
        for name in ("filter", "strategies", "quality", "entity_id"):
            value = getattr(self, name)
            if value is not None:
                options[name] = value
        options.update(kwargs)
        output = self.store.recall(query, top_k=top_k, **options)
        return [to_document(result.memory) for result in output.results]
