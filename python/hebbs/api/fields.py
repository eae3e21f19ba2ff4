"""The value types that request fields are made of, each checked once: text that UTF-8 can
encode, ids, timestamps, float32 vectors, JSON objects, edges and strategy lists.

Every type accepts its JSON form as well as the Python objects: an edge as
``{"target": "<32 hex>", "edge_type": "caused_by", "confidence": 0.9}`` (an :class:`Edge` is
built), a strategy as a name or ``{"strategy": "temporal", "entity_id": ..., "top_k": ...}`` (a
:class:`RecallStrategyConfig` is built), a vector as a list of numbers, an id as 32 hex digits.
The types whose Python form is an object carry a JSON schema of their JSON form
(``WithJsonSchema``), so the server's OpenAPI document describes them.

Each type checks what Python must know before the native module sees a value (its type, that it
fits the native integer, that a string is encodable); the engine checks the rest (ranges,
lengths, dimensions) and names the field the same way. A failed check raises pydantic's
``PydanticCustomError`` with type ``hebbs_type`` (a wrong type) or ``hebbs_value``; the request
layer turns it into :class:`~hebbs.errors.InvalidTypeError` / ``InvalidValueError``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Optional

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, WithJsonSchema
from pydantic_core import PydanticCustomError

from hebbs._inputs import ID_FORMS, ID_TEXT, id_bytes
from hebbs._native import (
    DIRECTIONS,
    MAX_CONTENT_BYTES,
    MAX_KEY_BYTES,
    STRATEGIES,
    Edge,
    EdgeType,
    HebbsError,
    InvalidInputError,
    InvalidTypeError,
    MemoryKind,
    RecallStrategyConfig,
    ScoringWeights,
    check_filter,
)

#: The largest unsigned 32-bit value (native `u32` fields).
U32_MAX = 2**32 - 1
#: The largest unsigned 64-bit value (native `u64` and `usize` fields).
U64_MAX = 2**64 - 1
#: The longest duration a ``Seconds`` field takes (100 years): its microseconds added to a
#: time stay far inside 64 bits.
MAX_SECONDS = 100 * 365 * 24 * 3600
#: The largest signed 64-bit value.
I64_MAX = 2**63 - 1
#: How deeply a JSON object (``context``, ``cue_context``) may nest, on every surface: the
#: deepest that every surface can also return. gRPC carries it as a ``google.protobuf.Struct``,
#: which costs protobuf's decoders (C++, Java, Python: 100 nested messages) three levels an
#: object level; a ``RecallResponse`` holds at most 33 object levels, so 32 leaves one spare.
MAX_JSON_DEPTH = 32

#: The names of the edge types and memory kinds, as their ``.value`` spells them.
EDGE_TYPE_NAMES: tuple[str, ...] = tuple(
    kind.value
    for kind in (
        EdgeType.CAUSED_BY,
        EdgeType.RELATED_TO,
        EdgeType.FOLLOWED_BY,
        EdgeType.REVISED_FROM,
        EdgeType.INSIGHT_FROM,
        EdgeType.CONTRADICTS,
    )
)
MEMORY_KIND_NAMES: tuple[str, ...] = tuple(
    kind.value
    for kind in (
        MemoryKind.EPISODE,
        MemoryKind.INSIGHT,
        MemoryKind.REVISION,
        MemoryKind.DOCUMENT,
        MemoryKind.PROPOSITION,
    )
)
#: A memory id in JSON: 32 hex digits, with or without the UUID hyphens (``ID_TEXT``).
ID_PATTERN = f"^(?:{ID_TEXT.pattern})$"

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def wrong_type(expected: str) -> PydanticCustomError:
    return PydanticCustomError("hebbs_type", "expected {expected}", {"expected": expected})


def bad_value(reason: str) -> PydanticCustomError:
    return PydanticCustomError("hebbs_value", "{reason}", {"reason": reason})


def _encodable(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise bad_value(f"not valid Unicode (a lone surrogate at {error.start})") from None
    return text


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise wrong_type("a str")
    return _encodable(value)


def _key(value: object) -> str:
    """A caller key: any characters, 1 to ``MAX_KEY_BYTES`` UTF-8 bytes."""
    text = _text(value)
    size = len(text.encode("utf-8"))
    if not 1 <= size <= MAX_KEY_BYTES:
        raise bad_value(f"must be 1 to {MAX_KEY_BYTES} bytes, not {size}")
    return text


def _key_prefix(value: object) -> str:
    text = _text(value)
    size = len(text.encode("utf-8"))
    if size > MAX_KEY_BYTES:
        raise bad_value(f"{size} bytes is more than {MAX_KEY_BYTES}")
    return text


def _content(value: object) -> str:
    text = _text(value)
    if not text.strip():
        raise bad_value("must not be empty")
    size = len(text.encode("utf-8"))
    if size > MAX_CONTENT_BYTES:
        raise bad_value(f"{size} bytes is more than {MAX_CONTENT_BYTES}")
    return text


def _integer(low: int, high: int) -> BeforeValidator:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise wrong_type("an int")
        number = int(value)
        if not low <= number <= high:
            raise bad_value(f"{number} is outside {low}..={high}")
        return number

    return BeforeValidator(check)


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise wrong_type("a number")
    try:
        number = float(value)
    except OverflowError:
        raise bad_value(f"{value} is too large") from None
    if not math.isfinite(number):
        raise bad_value(f"{number} is not finite")
    return number


def _fraction(value: object) -> float:
    number = _number(value)
    if not 0.0 <= number <= 1.0:
        raise bad_value(f"{number} is outside 0..=1")
    return number


def _flag(value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise wrong_type("a bool")
    return bool(value)


def _micros(value: object) -> int:
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        delta = aware - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        if micros < 0:
            raise bad_value(f"{value.isoformat()} is before 1970")
        return micros
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise wrong_type("microseconds since the epoch (int) or a datetime")
    number = int(value)
    if not 0 <= number <= U64_MAX:
        raise bad_value(f"{number} is outside 0..={U64_MAX}")
    return number


def _time_range(value: object) -> tuple[int, int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise wrong_type("a (start, end) pair")
    start, end = value
    return (0 if start is None else _micros(start), U64_MAX if end is None else _micros(end))


def _seconds(value: object) -> float:
    if isinstance(value, timedelta):
        value = value.total_seconds()
    seconds = _number(value)
    if not 0 < seconds <= MAX_SECONDS:
        raise bad_value(f"{seconds} is outside (0, {MAX_SECONDS}] seconds")
    return seconds


def _id(value: object) -> bytes:
    """An id as its 16 bytes, by the one id parser of every surface."""
    try:
        return id_bytes(value, "id")
    except InvalidTypeError as error:
        raise wrong_type(ID_FORMS) from error
    except InvalidInputError as error:
        raise bad_value(error.reason) from error


def _list(what: str) -> BeforeValidator:
    """A list from any iterable but a str, bytes or mapping (which are single values)."""

    def check(value: object) -> list[Any]:
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            raise wrong_type(f"a list of {what}")
        try:
            return list(value)
        except TypeError:
            raise wrong_type(f"a list of {what}") from None

    return BeforeValidator(check)


def _vector(value: object) -> NDArray[np.float32]:
    vector = _array(value, 1, "a 1-D array of numbers", "a 1-D vector")
    if vector.size == 0:
        raise bad_value("must not be empty")
    return vector


def _matrix(value: object) -> NDArray[np.float32]:
    return np.ascontiguousarray(
        _array(value, 2, "a 2-D array of numbers", "a 2-D [tokens, dimension] array")
    )


def _array(value: object, ndim: int, expected: str, shape: str) -> NDArray[np.float32]:
    """``value`` as a float32 array of ``ndim`` dimensions (``expected`` and ``shape`` word the
    errors)."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32 and value.ndim == ndim:
        return value
    if isinstance(value, (str, bytes, Mapping)):
        raise wrong_type(expected)
    try:
        with np.errstate(over="ignore"):  # past float32's range is inf: the engine refuses it
            array = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError, OverflowError):
        raise wrong_type(expected) from None
    if array.ndim != ndim:
        raise bad_value(f"expected {shape}, got shape {array.shape}")
    return array


def _json_value(value: object, depth: int) -> None:
    if depth > MAX_JSON_DEPTH:
        raise bad_value(f"nests deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -(2**63) <= value <= U64_MAX:
            raise bad_value("integers must fit in 64 bits")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise bad_value("floats must be finite")
    elif isinstance(value, str):
        _encodable(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise wrong_type("a dict with str keys")
            _encodable(key)
            _json_value(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _json_value(item, depth + 1)
    else:
        raise wrong_type(f"JSON values ({type(value).__name__} is not JSON-serialisable)")


def _json_object(value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise wrong_type("a dict")
    result = dict(value)
    _json_value(result, 1)
    return result


def _filter(value: object) -> dict[str, Any]:
    """A filter in the filter language, checked by the engine's own parser: a fault is a
    ``hebbs_value`` / ``hebbs_type`` error whose ``inside`` is its path inside the filter."""
    result = _json_object(value)
    try:
        check_filter(result)
    except InvalidInputError as error:
        kind = "hebbs_type" if isinstance(error, InvalidTypeError) else "hebbs_value"
        inside = error.field.removeprefix("filter")
        raise PydanticCustomError(
            kind, "{reason}", {"reason": error.reason, "inside": inside}
        ) from None
    return result


#: The JSON schema of a filter (docs/filters.md): an object of field conditions and
#: combinators, checked in full by the engine.
_FILTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "Only memories this filter selects are returned. Keys are fields (context.<key>, "
        "dotted for nested objects; kind, entity_id, session_id, created_at, importance, key) "
        "whose value is a value to equal or an object of operators ($eq $ne $gt $gte $lt $lte "
        "$in $nin $exists $contains), or the combinators $and and $or (arrays of filters) and "
        "$not (a filter)."
    ),
    "additionalProperties": True,
    "examples": [
        {"context.channel": "email", "context.priority": {"$gte": 2}},
        {"$or": [{"kind": "insight"}, {"$not": {"context.status": {"$in": ["closed"]}}}]},
    ],
}


class _JsonForm(BaseModel):
    """The JSON form of a native object: its constructor's arguments, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)


def _checked(model: type[_JsonForm], value: Mapping[str, Any]) -> dict[str, Any]:
    """``value``'s keys checked by ``model``: the arguments it gives, or the first problem as a
    ``hebbs_type`` / ``hebbs_value`` error whose reason names the key."""
    try:
        form = model.model_validate(dict(value))
    except ValidationError as error:
        detail = error.errors(include_url=False)[0]
        key = ".".join(str(part) for part in detail["loc"])
        kind = detail["type"]
        if kind == "extra_forbidden":
            raise wrong_type(f"no key {key!r}") from None
        if kind == "missing":
            raise wrong_type(f"the key {key!r}") from None
        reason = f"{key}: {detail['msg']}"
        if kind == "hebbs_type" or kind.endswith("_type"):
            raise PydanticCustomError("hebbs_type", "{reason}", {"reason": reason}) from None
        raise bad_value(reason) from None
    return {name: getattr(form, name) for name in form.model_fields_set}


def _native(build: Any, arguments: dict[str, Any]) -> Any:
    """``build(**arguments)``, its input errors turned into field errors of this value."""
    try:
        return build(**arguments)
    except HebbsError as error:
        key = str(getattr(error, "field", "")).rsplit(".", 1)[-1]
        key = "strategy" if key == "strategies" else key
        reason = f"{key}: {getattr(error, 'reason', '') or error}"
        if isinstance(error, InvalidTypeError):
            raise PydanticCustomError("hebbs_type", "{reason}", {"reason": reason}) from None
        raise bad_value(reason) from None


def _edge(value: object) -> Edge:
    if isinstance(value, Edge):
        return value
    if not isinstance(value, Mapping):
        raise wrong_type("an Edge or an object with target, edge_type and confidence")
    edge: Edge = _native(Edge, _checked(_EdgeForm, value))
    return edge


def _name_or(kind: type) -> BeforeValidator:
    def check(value: object) -> object:
        if isinstance(value, kind):
            return value
        if not isinstance(value, str):
            raise wrong_type(f"a {kind.__name__} or its name")
        return _encodable(value)

    return BeforeValidator(check)


def _strategies(value: object) -> object:
    return [value] if isinstance(value, (str, RecallStrategyConfig)) else value


def _strategy(value: object) -> str | RecallStrategyConfig:
    if isinstance(value, RecallStrategyConfig):
        return value
    if isinstance(value, Mapping):
        config: RecallStrategyConfig = _native(RecallStrategyConfig, _checked(_StrategyForm, value))
        return config
    if not isinstance(value, str):
        raise wrong_type("a strategy name, a RecallStrategyConfig or an object with strategy")
    return _encodable(value)


def _weights(value: object) -> object:
    if isinstance(value, (ScoringWeights, Mapping)):
        return value
    raise wrong_type("a ScoringWeights or a dict of its fields")


def _path(value: object) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise wrong_type("a path (str or os.PathLike)")
    path = os.fspath(value)
    if not isinstance(path, str):
        raise wrong_type("a str path")
    if not path:
        raise bad_value("must not be empty (the current directory is written as '.')")
    return _encodable(path)


_ID_SCHEMA: dict[str, Any] = {"type": "string", "pattern": ID_PATTERN}
_EDGE_TYPE_SCHEMA: dict[str, Any] = {"type": "string", "enum": list(EDGE_TYPE_NAMES)}
_VECTOR_SCHEMA: dict[str, Any] = {"type": "array", "items": {"type": "number"}}
_MATRIX_SCHEMA: dict[str, Any] = {"type": "array", "items": _VECTOR_SCHEMA}
_EDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "target": _ID_SCHEMA,
        "edge_type": _EDGE_TYPE_SCHEMA,
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["target", "edge_type"],
    "additionalProperties": False,
}
_STRATEGY_NAME_SCHEMA: dict[str, Any] = {"type": "string", "enum": list(STRATEGIES)}
_STRATEGY_SCHEMA: dict[str, Any] = {
    "anyOf": [
        _STRATEGY_NAME_SCHEMA,
        {
            "type": "object",
            "properties": {
                "strategy": _STRATEGY_NAME_SCHEMA,
                "entity_id": {"type": "string"},
                "top_k": {"type": "integer", "minimum": 1},
                "ef_search": {"type": "integer", "minimum": 1},
                "time_range": {
                    "type": "array",
                    "items": {"type": ["integer", "null"]},
                    "minItems": 2,
                    "maxItems": 2,
                },
                "seed_memory_id": _ID_SCHEMA,
                "edge_types": {"type": "array", "items": _EDGE_TYPE_SCHEMA},
                "max_depth": {"type": "integer", "minimum": 1},
                "direction": {"type": "string", "enum": list(DIRECTIONS)},
                "analogical_alpha": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "required": ["strategy"],
            "additionalProperties": False,
        },
    ]
}
_WEIGHTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{
            name: {"type": "number"}
            for name in ("w_relevance", "w_recency", "w_importance", "w_reinforcement")
        },
        "max_age_us": {"type": "integer", "minimum": 0},
        "reinforcement_cap": {"type": "integer", "minimum": 0},
    },
    "additionalProperties": False,
}

Text = Annotated[str, BeforeValidator(_text)]
Content = Annotated[str, BeforeValidator(_content)]
#: A caller's key for a memory (``remember(key=...)``).
Key = Annotated[str, BeforeValidator(_key)]
#: The start of caller keys (``list_memories(key_prefix=...)``); may be empty.
KeyPrefix = Annotated[str, BeforeValidator(_key_prefix)]
Number = Annotated[float, BeforeValidator(_number)]
#: A number in 0..=1 (a similarity threshold, a confidence).
Fraction = Annotated[float, BeforeValidator(_fraction)]
Flag = Annotated[bool, BeforeValidator(_flag)]
Micros = Annotated[int, BeforeValidator(_micros)]
TimeRange = Annotated[tuple[int, int], BeforeValidator(_time_range)]
Seconds = Annotated[float, BeforeValidator(_seconds)]
PathField = Annotated[str, BeforeValidator(_path)]
MemoryIdField = Annotated[bytes, BeforeValidator(_id), WithJsonSchema(_ID_SCHEMA)]
IdList = Annotated[list[MemoryIdField], _list("ids")]
KeyList = Annotated[list[Key], _list("keys")]
Vector = Annotated[Any, BeforeValidator(_vector), WithJsonSchema(_VECTOR_SCHEMA)]
Matrix = Annotated[Any, BeforeValidator(_matrix), WithJsonSchema(_MATRIX_SCHEMA)]
JsonObject = Annotated[dict[str, Any], BeforeValidator(_json_object)]
FilterObject = Annotated[dict[str, Any], BeforeValidator(_filter), WithJsonSchema(_FILTER_SCHEMA)]
EdgeTypeName = Annotated[Any, _name_or(EdgeType), WithJsonSchema(_EDGE_TYPE_SCHEMA)]
EdgeItem = Annotated[Any, BeforeValidator(_edge), WithJsonSchema(_EDGE_SCHEMA)]
EdgeList = Annotated[list[EdgeItem], _list("Edge")]
KindField = Annotated[
    Any,
    _name_or(MemoryKind),
    WithJsonSchema({"type": "string", "enum": list(MEMORY_KIND_NAMES)}),
]
EdgeTypeList = Annotated[list[EdgeTypeName], _list("edge types")]
StrategyList = Annotated[
    tuple[Annotated[Any, BeforeValidator(_strategy), WithJsonSchema(_STRATEGY_SCHEMA)], ...],
    _list("strategy names or RecallStrategyConfig"),
    BeforeValidator(_strategies),
]
#: ``scoring_weights``: a ScoringWeights as it is, or a dict checked by ``WeightsInput``.
WeightsLike = Annotated[Any, BeforeValidator(_weights), WithJsonSchema(_WEIGHTS_SCHEMA)]
#: A native ``usize`` / ``u64``.
Count = Annotated[int, _integer(0, U64_MAX)]
#: A native ``u32``.
Count32 = Annotated[int, _integer(0, U32_MAX)]
#: A count that must be at least 1.
Positive = Annotated[int, _integer(1, U64_MAX)]


class _EdgeForm(_JsonForm):
    """An edge in JSON (``Edge``'s arguments)."""

    target: MemoryIdField
    edge_type: EdgeTypeName
    confidence: Optional[Number] = None


class _StrategyForm(_JsonForm):
    """A per-strategy config in JSON (``RecallStrategyConfig``'s arguments)."""

    strategy: Text
    entity_id: Optional[Text] = None
    top_k: Optional[Count] = None
    ef_search: Optional[Count] = None
    time_range: Optional[TimeRange] = None
    seed_memory_id: Optional[MemoryIdField] = None
    edge_types: Optional[EdgeTypeList] = None
    max_depth: Optional[Count] = None
    direction: Optional[Text] = None
    analogical_alpha: Optional[Number] = None


__all__ = [
    "EDGE_TYPE_NAMES",
    "I64_MAX",
    "ID_PATTERN",
    "MAX_JSON_DEPTH",
    "MEMORY_KIND_NAMES",
    "U32_MAX",
    "U64_MAX",
    "Content",
    "Count",
    "Count32",
    "EdgeItem",
    "EdgeList",
    "EdgeTypeList",
    "EdgeTypeName",
    "FilterObject",
    "Flag",
    "IdList",
    "JsonObject",
    "KindField",
    "MemoryIdField",
    "Micros",
    "Number",
    "PathField",
    "Positive",
    "Seconds",
    "StrategyList",
    "Text",
    "TimeRange",
    "Vector",
    "WeightsLike",
]
