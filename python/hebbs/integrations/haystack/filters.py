"""Haystack's filter syntax translated into hebbs' filter language (docs/filters.md), which the
core evaluates inside every search: nothing is filtered in Python.

A Haystack filter is a comparison ``{"field": "meta.x", "operator": "==", "value": 1}`` or a
logic node ``{"operator": "AND" | "OR" | "NOT", "conditions": [...]}``. Fields map to the
context paths :mod:`hebbs.integrations.haystack.codec` writes: ``meta.<key>`` (and a legacy
field without the ``meta.`` prefix that is not a Document field) to ``context.meta.<key>``,
``meta`` (the whole dict) to ``context.meta``, ``id`` to the document's id. The semantics
are those of Haystack's in-memory store (``haystack.utils.filters``), with the differences
docs/integrations/haystack.md lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from haystack.errors import FilterError

from hebbs.integrations.haystack.codec import ID_PATH, META_PATH

#: The Document fields a filter can name besides ``meta.*``.
_FIELD_PATHS: Final = {"id": ID_PATH, "meta": META_PATH}
#: Document fields hebbs keeps but cannot filter on (``content`` is the memory's text, which
#: the filter language does not read; the others are vectors and bytes).
_UNFILTERABLE_FIELDS: Final = frozenset(
    {"content", "blob", "embedding", "sparse_embedding", "score", "dataframe"}
)
_ORDERING: Final = {">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte"}
_COMPARISONS: Final = frozenset({"==", "!=", "in", "not in", *_ORDERING})
_LOGIC: Final = frozenset({"AND", "OR", "NOT"})

#: A filter no document matches (every document has an id) and one every document matches.
MATCH_NONE: Final[dict[str, Any]] = {ID_PATH: {"$exists": False}}
MATCH_ALL: Final[dict[str, Any]] = {ID_PATH: {"$exists": True}}


def to_hebbs_filter(filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The hebbs filter of a Haystack filter; None when there is none (``None`` or ``{}``).

    Raises :class:`haystack.errors.FilterError` for a malformed filter, an unknown operator, a
    field hebbs cannot filter on, or a value the operator cannot take (a list or a non-date
    string for ``>``, a non-list for ``in``), as Haystack's own stores do."""
    if not filters:
        return None
    if not isinstance(filters, Mapping):
        raise FilterError(f"a filter must be a dict, got {type(filters).__name__}")
    return _node(filters)


def _node(node: Any) -> dict[str, Any]:
    if not isinstance(node, Mapping):
        raise FilterError(f"a filter condition must be a dict, got {node!r}")
    if "field" in node:
        return _comparison(node)
    return _logic(node)


def _logic(node: Mapping[str, Any]) -> dict[str, Any]:
    operator, conditions = _required(node, "operator", "conditions")
    if operator not in _LOGIC:
        raise FilterError(f"unknown logical operator {operator!r}: one of {sorted(_LOGIC)}")
    if not isinstance(conditions, list):
        raise FilterError(f"'conditions' must be a list, got {type(conditions).__name__}")
    parts = [_node(condition) for condition in conditions]
    if operator == "AND":
        return {"$and": parts} if parts else MATCH_ALL
    if operator == "OR":
        return {"$or": parts} if parts else MATCH_NONE
    return {"$not": {"$and": parts}} if parts else MATCH_NONE


def _comparison(node: Mapping[str, Any]) -> dict[str, Any]:
    operator, value = _required(node, "operator", "value")
    if operator not in _COMPARISONS:
        raise FilterError(
            f"unknown comparison operator {operator!r}: one of {sorted(_COMPARISONS)}"
        )
    path = field_path(node["field"])
    value = _as_json(value)
    if operator == "==":
        return _equal(path, value)
    if operator == "!=":
        return {"$not": _equal(path, value)}
    if operator in ("in", "not in"):
        matched = _in(path, operator, value)
        return matched if operator == "in" else {"$not": matched}
    return _ordering(path, operator, value)


def _as_json(value: Any) -> Any:
    """A filter value as the context holds it: a ``datetime`` (which Haystack's filters take)
    as its ISO 8601 text, the form dates have in meta (JSON has no dates)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    return value


def _required(node: Mapping[str, Any], *keys: str) -> list[Any]:
    """The values of ``keys`` in a filter node, which must hold them all."""
    for key in keys:
        if key not in node:
            raise FilterError(f"'{key}' key missing in {dict(node)}")
    return [node[key] for key in keys]


def field_path(field: Any) -> str:
    """The hebbs filter field of a Haystack filter field."""
    if not isinstance(field, str) or not field:
        raise FilterError(f"a filter field must be a non-empty string, got {field!r}")
    if field.startswith("meta."):
        return f"{META_PATH}.{field[len('meta.') :]}"
    if field in _FIELD_PATHS:
        return _FIELD_PATHS[field]
    if field in _UNFILTERABLE_FIELDS or "." in field:
        raise FilterError(
            f"hebbs cannot filter on the field {field!r}: filters read meta, meta.<key> and id"
        )
    return f"{META_PATH}.{field}"


def _equal(path: str, value: Any) -> dict[str, Any]:
    """Haystack's ``==``: a missing field equals None."""
    if value is None:
        return {"$or": [{path: {"$exists": False}}, {path: {"$eq": None}}]}
    return {path: {"$eq": value}}


def _in(path: str, operator: str, value: Any) -> dict[str, Any]:
    """Haystack's ``in`` (the caller negates it for ``not in``): the value must be a list."""
    if not isinstance(value, list):
        raise FilterError(f"the value of '{operator}' must be a list, got {type(value).__name__}")
    if not value:
        return MATCH_NONE
    matched: dict[str, Any] = {path: {"$in": value}}
    if any(item is None for item in value):
        return {"$or": [{path: {"$exists": False}}, matched]}
    return matched


def _ordering(path: str, operator: str, value: Any) -> dict[str, Any]:
    """``>`` ``>=`` ``<`` ``<=``: numbers, or strings that are ISO 8601 dates (compared as the
    core compares strings, byte by byte: see the docs); None matches nothing."""
    if value is None:
        return MATCH_NONE
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise FilterError(
            f"'{operator}' compares numbers or ISO 8601 dates, got {type(value).__name__}"
        )
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise FilterError(
                f"'{operator}' compares strings only when they are ISO 8601 dates, got {value!r}"
            ) from None
    return {path: {_ORDERING[operator]: value}}
