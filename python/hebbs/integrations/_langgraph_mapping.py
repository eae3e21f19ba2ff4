"""How LangGraph's store concepts are written in hebbs' terms, for
:mod:`hebbs.integrations.langgraph`: a (namespace, key) pair as a hebbs memory key, a
namespace as an entity id, an item's value as the text hebbs embeds, and LangGraph's ``filter``
as a filter of hebbs' language (docs/filters.md) on ``context.<field>``.

The encoding: every label and the key have ``%`` and ``/`` (and control characters) escaped as
``%XX``, each label is followed by ``/`` and the key comes last, after the store's key prefix:
``("users", "42")`` and ``"prefs"`` is ``langgraph/users/42/prefs``. It is one-to-one, and the
memories of every namespace under a prefix are exactly those whose key starts with the
prefix's encoding (``langgraph/users/``), which is what the listing and the namespace range of
a recall select."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from langgraph.store.base import get_text_at_path, tokenize_path

#: Where a :class:`~hebbs.integrations.langgraph.HebbsStore`'s memory keys (and entity ids)
#: start unless told otherwise: LangGraph refuses ``langgraph`` as a namespace's first label, so
#: this prefix can never be read as a namespace of the caller's.
DEFAULT_KEY_PREFIX: Final = "langgraph/"
#: What an item's embedded text is made of when neither the store's ``index`` nor the put
#: names fields: the whole value, as JSON text (LangGraph's ``"$"``).
WHOLE_VALUE: Final = "$"
#: The comparison operators LangGraph's ``filter`` takes, all of which hebbs' language has.
FILTER_OPERATORS: Final = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})

_SEPARATOR: Final = "/"
_ESCAPED: Final = re.compile(r"[%/\x00-\x1f\x7f]")
_ESCAPE: Final = re.compile(r"%([0-9A-F]{2})")


def escape(part: str) -> str:
    """A label or key with ``%``, ``/`` and control characters written as ``%XX``."""
    return _ESCAPED.sub(lambda match: f"%{ord(match.group()):02X}", part)


def unescape(part: str) -> str:
    """The inverse of :func:`escape`."""
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), part)


def namespace_prefix(key_prefix: str, namespace: Sequence[str]) -> str:
    """The encoding of a namespace: every memory key of an item in it, or in a namespace under
    it, starts with this. It is also the entity id of the namespace's memories."""
    return key_prefix + "".join(escape(label) + _SEPARATOR for label in namespace)


def memory_key(key_prefix: str, namespace: Sequence[str], key: str) -> str:
    """The hebbs key of the item ``key`` of ``namespace``."""
    return namespace_prefix(key_prefix, namespace) + escape(key)


def split_memory_key(key_prefix: str, memory_key: str) -> tuple[tuple[str, ...], str]:
    """The namespace and key a hebbs key written by :func:`memory_key` holds."""
    *labels, key = memory_key[len(key_prefix) :].split(_SEPARATOR)
    return tuple(unescape(label) for label in labels), unescape(key)


def namespace_range(prefix: str) -> dict[str, Any] | None:
    """A hebbs filter selecting the memories whose key starts with ``prefix`` (a string range:
    the keys that sort from ``prefix`` up to, not including, the first string after every
    string that starts with it, which the engine plans from its key index); None when
    ``prefix`` is empty (everything)."""
    if not prefix:
        return None
    after = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    return {"key": {"$gte": prefix, "$lt": after}}


def embedded_text(value: Mapping[str, Any], fields: Sequence[str]) -> str:
    """What hebbs embeds for an item: the texts LangGraph's paths ``fields`` pick from the value
    (``"$"`` the whole value as JSON text), one a line; the whole value when they pick none."""
    texts: list[str] = []
    for field in fields:
        path = field if field == WHOLE_VALUE else tokenize_path(field)
        texts.extend(get_text_at_path(value, path))
    if not texts:
        texts = get_text_at_path(value, WHOLE_VALUE)
    return "\n".join(texts)


def translate_filter(filter: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """LangGraph's ``filter`` as the conditions of a hebbs filter (to be AND-combined), read as
    ``InMemoryStore`` reads it: each key a top-level field of the value, holding a value to
    equal, an object of operators (``$eq $ne $gt $gte $lt $lte``) or an object of nested fields
    to match one by one; a ``None`` to equal is a null or a missing field. Raises
    :class:`ValueError` naming the part hebbs cannot say (a field name with a ``.``, an empty
    object, an unknown operator)."""
    conditions: list[dict[str, Any]] = []
    for name, wanted in (filter or {}).items():
        conditions.extend(_field_conditions(f"filter.{name}", "context", name, wanted))
    return conditions


def _field_conditions(where: str, parent: str, name: str, wanted: Any) -> list[dict[str, Any]]:
    if not isinstance(name, str) or not name or "." in name:
        raise ValueError(f"{where}: a field name must be a non-empty string without '.'")
    field = f"{parent}.{name}"
    if not isinstance(wanted, Mapping):
        return [_equals(field, wanted)]
    if not wanted:
        raise ValueError(f"{where}: an empty object selects nothing hebbs can express")
    if any(isinstance(key, str) and key.startswith("$") for key in wanted):
        return [_operator(f"{where}.{op}", field, op, operand) for op, operand in wanted.items()]
    conditions: list[dict[str, Any]] = []
    for inner, inner_wanted in wanted.items():
        conditions.extend(_field_conditions(f"{where}.{inner}", field, inner, inner_wanted))
    return conditions


def _equals(field: str, wanted: Any) -> dict[str, Any]:
    if wanted is None:
        return {"$or": [{field: None}, {field: {"$exists": False}}]}
    return {field: {"$eq": _json(wanted)}}


def _operator(where: str, field: str, op: str, operand: Any) -> dict[str, Any]:
    if op not in FILTER_OPERATORS:
        raise ValueError(
            f"{where}: unsupported operator, expected one of {sorted(FILTER_OPERATORS)}"
        )
    if op == "$eq":
        return _equals(field, operand)
    if op == "$ne" and operand is None:
        return {"$and": [{field: {"$exists": True}}, {field: {"$ne": None}}]}
    return {field: {op: _json(operand)}}


def _json(value: Any) -> Any:
    """A filter operand as JSON has it (tuples become arrays), refused if JSON has no form."""
    try:
        result: Any = json.loads(json.dumps(value))
    except (TypeError, ValueError) as error:
        raise ValueError(f"filter value {value!r} is not JSON: {error}") from error
    return result
