"""Checked request models as JSON bodies: the wire shape of every request value.

numpy arrays and scalars become lists and numbers, ids given as bytes become 32 hex digits (an id
of the wrong length is refused here, as the engine would), :class:`~hebbs.Edge` becomes
``{"target", "edge_type", "confidence"}``, :class:`~hebbs.EdgeType` / :class:`~hebbs.MemoryKind`
their ``.value``, :class:`~hebbs.RecallStrategyConfig` ``{"strategy", <overrides given>}`` and
:class:`~hebbs.ScoringWeights` its six fields. Only the fields the caller gave are written: the
server builds the same model, so the defaults are the same (a value equal to its default, such as
``edges=()``, is left out too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from hebbs._inputs import ID_BYTES, invalid
from hebbs._native import Edge, EdgeType, MemoryKind, RecallStrategyConfig, ScoringWeights
from hebbs.api import Request

#: The overrides a RecallStrategyConfig may carry, in its constructor's order.
STRATEGY_OVERRIDES = (
    "entity_id",
    "top_k",
    "ef_search",
    "time_range",
    "seed_memory_id",
    "edge_types",
    "max_depth",
    "direction",
    "analogical_alpha",
)
#: The fields of ScoringWeights.
WEIGHT_FIELDS = (
    "w_relevance",
    "w_recency",
    "w_importance",
    "w_reinforcement",
    "max_age_us",
    "reinforcement_cap",
)


def id_text(value: bytes | str, field: str) -> str:
    """An id as sent: bytes as 32 hex digits (16 bytes exactly), text as given."""
    if isinstance(value, bytes):
        if len(value) != ID_BYTES:
            raise invalid(field, f"expected 16 bytes, got {len(value)}")
        return value.hex()
    return value


def to_json(value: object, field: str) -> Any:
    """``value`` (a checked request field) as a JSON value; ``field`` names it in errors."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return id_text(value, field)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (EdgeType, MemoryKind)):
        return value.value
    if isinstance(value, Edge):
        return value.to_dict()
    if isinstance(value, RecallStrategyConfig):
        config: dict[str, Any] = {"strategy": value.strategy}
        for name in STRATEGY_OVERRIDES:
            override = getattr(value, name)
            if override is not None:
                config[name] = to_json(override, f"{field}.{name}")
        return config
    if isinstance(value, ScoringWeights):
        return {name: getattr(value, name) for name in WEIGHT_FIELDS}
    if isinstance(value, Request):
        return body(value)
    if isinstance(value, Mapping):
        return {str(key): to_json(item, f"{field}.{key}") for key, item in value.items()}
    if isinstance(value, Iterable):
        return [to_json(item, f"{field}[{i}]") for i, item in enumerate(value)]
    raise TypeError(f"{field}: {type(value).__name__} has no JSON form")


def _is_default(value: object, default: object) -> bool:
    """Whether ``value`` equals a plain default (None, a number, a string, an empty list)."""
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(value) == list(default)
    plain = (type(None), bool, int, float, str)
    return isinstance(value, plain) and type(value) is type(default) and value == default


def body(request: Request, *, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """The JSON object of ``request``: the fields the caller gave, but ``exclude`` and those
    equal to their default."""
    left_out = set(exclude)
    fields = type(request).model_fields
    return {
        name: to_json(getattr(request, name), name)
        for name in fields
        if name in request.model_fields_set
        and name not in left_out
        and not _is_default(getattr(request, name), fields[name].default)
    }
