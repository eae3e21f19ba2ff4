"""What the LangChain adapters share: a memory as a LangChain ``Document`` and LangChain's
metadata filter in hebbs' filter language (docs/filters.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from langchain_core.documents import Document

from hebbs._inputs import invalid
from hebbs._native import Memory
from hebbs.errors import InvalidTypeError

#: Documents a search returns when the caller does not say (LangChain's own default ``k``).
DEFAULT_K: Final = 4

#: hebbs' filter field that holds a memory's metadata: ``{"source": "a"}`` from LangChain reads
#: ``{"context.source": "a"}``.
METADATA_FIELD: Final = "context"

#: The filter operators that stand in place of a field and hold filters (docs/filters.md).
_LIST_OPERATORS: Final = frozenset({"$and", "$or"})
_NOT_OPERATOR: Final = "$not"


def to_document(memory: Memory) -> Document:
    """``memory`` as a ``Document``: its content, its context as the metadata (JSON types as
    stored) and its key as the id (the memory's id when it has no key)."""
    key = memory.key
    return Document(
        id=key if key is not None else memory.id_hex,
        page_content=memory.content,
        metadata=dict(memory.context),
    )


def metadata_filter(filter: Mapping[str, Any], field: str = "filter") -> dict[str, Any]:
    """``filter``, a LangChain filter over metadata keys in hebbs' filter language, in hebbs'
    own: each field named under the memory's context (``{"source": "a"}`` reads
    ``{"context.source": "a"}``), the operators ``$and``, ``$or`` and ``$not`` kept with their
    filters translated alike. The engine checks the rest (``field`` names this filter in the
    errors raised here)."""
    if not isinstance(filter, Mapping):
        raise invalid(field, "must be an object of metadata keys", InvalidTypeError)
    translated: dict[str, Any] = {}
    for name, condition in filter.items():
        path = f"{field}.{name}"
        if name in _LIST_OPERATORS:
            if not isinstance(condition, list):
                raise invalid(path, "must be an array of filters", InvalidTypeError)
            translated[name] = [
                metadata_filter(item, f"{path}[{index}]") for index, item in enumerate(condition)
            ]
        elif name == _NOT_OPERATOR:
            translated[name] = metadata_filter(condition, path)
        else:
            translated[f"{METADATA_FIELD}.{name}"] = condition
    return translated
