"""Between the protocol's messages (:mod:`hebbs.rpc.hebbs_pb2`) and the engine: native results
to messages (``memory_message``, ``recall_response``, ...) and request messages to the keyword
arguments of :class:`hebbs.Hebbs`' methods (``remember_arguments``, ...), which then check them
with the shared request models as for any other caller.

The protocol's enums name strategies, memory kinds and edge types by number; a number hebbs has
no meaning for (``EDGE_TYPE_CONTRADICTS``, ``MEMORY_KIND_DOCUMENT``, an unspecified strategy)
is an :class:`~hebbs.InvalidValueError` naming the field, never silently dropped. Optional
fields the message does not carry are left out, so the engine's defaults apply.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

from google.protobuf import struct_pb2

from hebbs._inputs import conflict, invalid
from hebbs._native import (
    Edge,
    ForgetResult,
    HealthStatus,
    Memory,
    PrimeOutput,
    RecallOutput,
    RecallResult,
    RecallStrategyConfig,
    ScoringWeights,
)
from hebbs.api.fields import MAX_JSON_DEPTH
from hebbs.errors import ConflictError
from hebbs.rpc import hebbs_pb2 as pb

#: Strategy names by protocol number (the reference four, then hebbs' additions).
STRATEGY_NAMES: Final = {
    pb.SIMILARITY: "similarity",
    pb.TEMPORAL: "temporal",
    pb.CAUSAL: "causal",
    pb.ANALOGICAL: "analogical",
    pb.HYBRID: "hybrid",
    pb.KEYWORD: "keyword",
    pb.REGEX: "regex",
}
STRATEGY_NUMBERS: Final = {name: number for number, name in STRATEGY_NAMES.items()}
#: Memory kinds hebbs stores, by protocol number.
KIND_NAMES: Final = {
    pb.MEMORY_KIND_EPISODE: "episode",
    pb.MEMORY_KIND_INSIGHT: "insight",
    pb.MEMORY_KIND_REVISION: "revision",
}
KIND_NUMBERS: Final = {name: number for number, name in KIND_NAMES.items()}
#: Edge types hebbs stores, by protocol number.
EDGE_NAMES: Final = {
    pb.EDGE_TYPE_CAUSED_BY: "caused_by",
    pb.EDGE_TYPE_RELATED_TO: "related_to",
    pb.EDGE_TYPE_FOLLOWED_BY: "followed_by",
    pb.EDGE_TYPE_REVISED_FROM: "revised_from",
    pb.EDGE_TYPE_INSIGHT_FROM: "insight_from",
}


def _name(table: Mapping[Any, str], number: int, field: str) -> str:
    found = table.get(number)
    if found is None:
        raise invalid(field, f"value {number} is not one hebbs supports")
    return found


def struct_dict(value: struct_pb2.Struct) -> dict[str, Any]:
    """A ``google.protobuf.Struct`` as a dict (numbers are JSON numbers: floats). Values JSON
    has no form for (NaN, the infinities) are kept, for the request models to refuse naming
    the field; the nesting is bounded by the protobuf decoder's own depth limit."""
    return {key: _value(item) for key, item in value.fields.items()}


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return struct_dict(value.struct_value)
    if kind == "list_value":
        return [_value(item) for item in value.list_value.values]
    if kind is None or kind == "null_value":
        return None
    return getattr(value, kind)


def _struct(value: Mapping[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(dict(value))
    return message


def json_depth(value: Any) -> int:
    """How deeply ``value`` nests, counted as the request models count it: an object or list
    is one level deeper than what holds it, a value inside the deepest one level more."""
    if isinstance(value, dict):
        return 1 + max((json_depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((json_depth(item) for item in value), default=0)
    return 1


def too_deep_for_grpc(memory: Memory) -> ConflictError:
    """The answer for a memory whose context was stored deeper than ``MAX_JSON_DEPTH`` (before
    the limit was lowered to what a ``Struct`` carries): protobuf's decoders could not read the
    answer, so it is a conflict naming ``context`` (``FAILED_PRECONDITION``), never ``UNKNOWN``."""
    reason = (
        f"memory {memory.id.hex()} holds a context nested deeper than the {MAX_JSON_DEPTH} levels "
        "gRPC carries (stored before that limit): read it over REST or /mcp, or revise it"
    )
    return conflict("context", reason)


def _edges(edges: Any, field: str = "edges") -> list[Edge]:
    return [
        Edge(
            bytes(edge.target_id),
            _name(EDGE_NAMES, edge.edge_type, f"{field}[{index}].edge_type"),
            edge.confidence if edge.HasField("confidence") else None,
        )
        for index, edge in enumerate(edges)
    ]


def _weights(message: Any) -> ScoringWeights:
    extra = {
        name: getattr(message, name)
        for name in ("max_age_us", "reinforcement_cap")
        if getattr(message, name)
    }
    return ScoringWeights(
        w_relevance=message.w_relevance,
        w_recency=message.w_recency,
        w_importance=message.w_importance,
        w_reinforcement=message.w_reinforcement,
        **extra,
    )


def _optional(message: Any, *names: str) -> dict[str, Any]:
    """The proto3 ``optional`` fields among ``names`` that ``message`` carries."""
    return {name: getattr(message, name) for name in names if message.HasField(name)}


def now_us() -> int:
    return time.time_ns() // 1000


def remember_arguments(request: Any) -> dict[str, Any]:
    arguments = {"content": request.content, **_optional(request, "importance", "entity_id")}
    if request.HasField("context"):
        arguments["context"] = struct_dict(request.context)
    if request.edges:
        arguments["edges"] = _edges(request.edges)
    if request.HasField("kind"):
        arguments["kind"] = _name(KIND_NAMES, request.kind, "kind")
    return arguments


def _time_range(message: Any) -> tuple[int | None, int | None]:
    return (message.start_us or None, message.end_us or None)


def _strategy(config: Any, index: int) -> RecallStrategyConfig:
    field = f"strategies[{index}]"
    name = _name(STRATEGY_NAMES, config.strategy_type, f"{field}.strategy_type")
    given = _optional(
        config, "top_k", "ef_search", "entity_id", "seed_memory_id", "max_depth", "analogical_alpha"
    )
    if "seed_memory_id" in given:
        given["seed_memory_id"] = bytes(given["seed_memory_id"])
    if config.HasField("time_range"):
        start, end = _time_range(config.time_range)
        given["time_range"] = (start or 0, end if end is not None else now_us())
    if config.edge_types:
        given["edge_types"] = [
            _name(EDGE_NAMES, edge, f"{field}.edge_types[{i}]")
            for i, edge in enumerate(config.edge_types)
        ]
    return RecallStrategyConfig(name, **given)


#: What a gRPC recall that names no strategy runs: the reference product's default.
GRPC_DEFAULT_STRATEGIES: Final = ("similarity",)


def recall_arguments(request: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    if request.cue:
        arguments["cue"] = request.cue
    # The reference protocol names its strategies; a request that names none gets the
    # reference's similarity recall, not the default pipeline (docs/integrations.md).
    arguments["strategies"] = [
        _strategy(config, index) for index, config in enumerate(request.strategies)
    ] or list(GRPC_DEFAULT_STRATEGIES)
    if request.HasField("top_k"):
        arguments["top_k"] = request.top_k
    if request.HasField("scoring_weights"):
        arguments["scoring_weights"] = _weights(request.scoring_weights)
    if request.HasField("cue_context"):
        arguments["cue_context"] = struct_dict(request.cue_context)
    return arguments


def prime_arguments(request: Any) -> dict[str, Any]:
    if request.HasField("context") and request.context.fields:
        raise invalid("context", "prime takes no context here: give similarity_cue")
    arguments: dict[str, Any] = {"entity_id": request.entity_id}
    arguments.update(_optional(request, "max_memories"))
    if request.HasField("similarity_cue"):
        arguments["cue"] = request.similarity_cue
    if request.HasField("recency_window_us"):
        arguments["time_range"] = (max(now_us() - request.recency_window_us, 0), None)
    if request.HasField("scoring_weights"):
        arguments["scoring_weights"] = _weights(request.scoring_weights)
    return arguments


def revise_arguments(request: Any, old_context: dict[str, Any] | None) -> dict[str, Any]:
    """The revision's arguments; ``old_context`` is the revised memory's context, merged
    under the new one with ``CONTEXT_MODE_MERGE``."""
    arguments: dict[str, Any] = {"id": bytes(request.memory_id)}
    arguments.update(_optional(request, "content", "importance", "entity_id"))
    if request.HasField("context"):
        context = struct_dict(request.context)
        if request.context_mode == pb.CONTEXT_MODE_MERGE and old_context is not None:
            context = {**old_context, **context}
        arguments["context"] = context
    return arguments


def revise_edges(request: Any) -> list[Edge]:
    return _edges(request.edges)


def forget_arguments(request: Any) -> dict[str, Any]:
    """``forget``'s selectors. ``staleness_threshold_us`` selects memories created longer ago
    than it; ``access_count_floor`` and ``decay_score_floor`` have no forget selector in hebbs
    (the decay floor is :meth:`hebbs.Hebbs.forget_decayed`, called without other selectors)."""
    if request.HasField("access_count_floor"):
        raise invalid("access_count_floor", "hebbs forgets by ids, entity, age, importance or kind")
    arguments: dict[str, Any] = {}
    if request.memory_ids:
        arguments["ids"] = [bytes(id) for id in request.memory_ids]
    arguments.update(_optional(request, "entity_id"))
    if request.HasField("staleness_threshold_us"):
        arguments["older_than"] = max(now_us() - request.staleness_threshold_us, 0)
    if request.HasField("memory_kind"):
        arguments["kind"] = _name(KIND_NAMES, request.memory_kind, "memory_kind")
    return arguments


def memory_message(memory: Memory) -> Any:
    message = pb.Memory(
        memory_id=memory.id,
        content=memory.content,
        importance=memory.importance,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
        last_accessed_at=memory.last_accessed_at,
        access_count=memory.access_count,
        decay_score=memory.decay_score,
        kind=KIND_NUMBERS.get(memory.kind.value, pb.MEMORY_KIND_UNSPECIFIED),
    )
    if memory.context:
        if json_depth(memory.context) > MAX_JSON_DEPTH:
            raise too_deep_for_grpc(memory)
        message.context.CopyFrom(_struct(memory.context))
    if memory.entity_id is not None:
        message.entity_id = memory.entity_id
    if memory.embedding is not None:
        message.embedding.extend(memory.embedding.tolist())
    return message


#: The optional strategy-detail fields both sides have.
_DETAIL_FIELDS: Final = (
    "distance",
    "timestamp",
    "rank",
    "depth",
    "embedding_similarity",
    "structural_similarity",
)


def _detail(detail: Any) -> Any:
    message = pb.StrategyDetailMessage(
        strategy_type=STRATEGY_NUMBERS.get(detail.strategy, pb.UNSPECIFIED_STRATEGY),
        relevance=detail.relevance,
    )
    for name in _DETAIL_FIELDS:
        value = getattr(detail, name)
        if value is not None:
            setattr(message, name, value)
    return message


def _result(result: RecallResult) -> Any:
    return pb.RecallResult(
        memory=memory_message(result.memory),
        score=result.score,
        strategy_details=[_detail(detail) for detail in result.strategy_details],
    )


def recall_response(output: RecallOutput) -> Any:
    return pb.RecallResponse(
        results=[_result(result) for result in output.results],
        strategy_errors=[
            pb.StrategyErrorMessage(
                strategy=STRATEGY_NUMBERS.get(error.strategy, pb.UNSPECIFIED_STRATEGY),
                message=error.message,
            )
            for error in output.strategy_errors
        ],
    )


def prime_response(output: PrimeOutput) -> Any:
    return pb.PrimeResponse(
        results=[_result(result) for result in output.results],
        temporal_count=output.temporal_count,
        similarity_count=output.similarity_count,
    )


def forget_response(result: ForgetResult) -> Any:
    return pb.ForgetResponse(
        forgotten_count=result.forgotten_count,
        cascade_count=result.cascade_count,
        truncated=result.truncated,
        tombstone_count=result.tombstone_count,
    )


def health_response(status: HealthStatus) -> Any:
    serving = (
        pb.HealthCheckResponse.SERVING if status.serving else pb.HealthCheckResponse.NOT_SERVING
    )
    return pb.HealthCheckResponse(
        status=serving,
        version=status.version,
        memory_count=status.memory_count,
        uptime_seconds=status.uptime_seconds,
    )
