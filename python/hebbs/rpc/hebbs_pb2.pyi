from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemoryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_KIND_UNSPECIFIED: _ClassVar[MemoryKind]
    MEMORY_KIND_EPISODE: _ClassVar[MemoryKind]
    MEMORY_KIND_INSIGHT: _ClassVar[MemoryKind]
    MEMORY_KIND_REVISION: _ClassVar[MemoryKind]
    MEMORY_KIND_DOCUMENT: _ClassVar[MemoryKind]
    MEMORY_KIND_PROPOSITION: _ClassVar[MemoryKind]

class EdgeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EDGE_TYPE_UNSPECIFIED: _ClassVar[EdgeType]
    EDGE_TYPE_CAUSED_BY: _ClassVar[EdgeType]
    EDGE_TYPE_RELATED_TO: _ClassVar[EdgeType]
    EDGE_TYPE_FOLLOWED_BY: _ClassVar[EdgeType]
    EDGE_TYPE_REVISED_FROM: _ClassVar[EdgeType]
    EDGE_TYPE_INSIGHT_FROM: _ClassVar[EdgeType]
    EDGE_TYPE_CONTRADICTS: _ClassVar[EdgeType]
    EDGE_TYPE_HAS_ENTITY: _ClassVar[EdgeType]
    EDGE_TYPE_ENTITY_RELATION: _ClassVar[EdgeType]
    EDGE_TYPE_PROPOSITION_OF: _ClassVar[EdgeType]

class RecallStrategyType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNSPECIFIED_STRATEGY: _ClassVar[RecallStrategyType]
    SIMILARITY: _ClassVar[RecallStrategyType]
    TEMPORAL: _ClassVar[RecallStrategyType]
    CAUSAL: _ClassVar[RecallStrategyType]
    ANALOGICAL: _ClassVar[RecallStrategyType]
    HYBRID: _ClassVar[RecallStrategyType]
    KEYWORD: _ClassVar[RecallStrategyType]
    REGEX: _ClassVar[RecallStrategyType]

class ContextMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTEXT_MODE_UNSPECIFIED: _ClassVar[ContextMode]
    CONTEXT_MODE_MERGE: _ClassVar[ContextMode]
    CONTEXT_MODE_REPLACE: _ClassVar[ContextMode]
MEMORY_KIND_UNSPECIFIED: MemoryKind
MEMORY_KIND_EPISODE: MemoryKind
MEMORY_KIND_INSIGHT: MemoryKind
MEMORY_KIND_REVISION: MemoryKind
MEMORY_KIND_DOCUMENT: MemoryKind
MEMORY_KIND_PROPOSITION: MemoryKind
EDGE_TYPE_UNSPECIFIED: EdgeType
EDGE_TYPE_CAUSED_BY: EdgeType
EDGE_TYPE_RELATED_TO: EdgeType
EDGE_TYPE_FOLLOWED_BY: EdgeType
EDGE_TYPE_REVISED_FROM: EdgeType
EDGE_TYPE_INSIGHT_FROM: EdgeType
EDGE_TYPE_CONTRADICTS: EdgeType
EDGE_TYPE_HAS_ENTITY: EdgeType
EDGE_TYPE_ENTITY_RELATION: EdgeType
EDGE_TYPE_PROPOSITION_OF: EdgeType
UNSPECIFIED_STRATEGY: RecallStrategyType
SIMILARITY: RecallStrategyType
TEMPORAL: RecallStrategyType
CAUSAL: RecallStrategyType
ANALOGICAL: RecallStrategyType
HYBRID: RecallStrategyType
KEYWORD: RecallStrategyType
REGEX: RecallStrategyType
CONTEXT_MODE_UNSPECIFIED: ContextMode
CONTEXT_MODE_MERGE: ContextMode
CONTEXT_MODE_REPLACE: ContextMode

class Memory(_message.Message):
    __slots__ = ("memory_id", "content", "importance", "context", "entity_id", "embedding", "created_at", "updated_at", "last_accessed_at", "access_count", "decay_score", "kind", "device_id", "logical_clock", "source_memory_ids")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACCESSED_AT_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    DECAY_SCORE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_CLOCK_FIELD_NUMBER: _ClassVar[int]
    SOURCE_MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    memory_id: bytes
    content: str
    importance: float
    context: _struct_pb2.Struct
    entity_id: str
    embedding: _containers.RepeatedScalarFieldContainer[float]
    created_at: int
    updated_at: int
    last_accessed_at: int
    access_count: int
    decay_score: float
    kind: MemoryKind
    device_id: str
    logical_clock: int
    source_memory_ids: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, memory_id: _Optional[bytes] = ..., content: _Optional[str] = ..., importance: _Optional[float] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., entity_id: _Optional[str] = ..., embedding: _Optional[_Iterable[float]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., last_accessed_at: _Optional[int] = ..., access_count: _Optional[int] = ..., decay_score: _Optional[float] = ..., kind: _Optional[_Union[MemoryKind, str]] = ..., device_id: _Optional[str] = ..., logical_clock: _Optional[int] = ..., source_memory_ids: _Optional[_Iterable[bytes]] = ...) -> None: ...

class Edge(_message.Message):
    __slots__ = ("target_id", "edge_type", "confidence")
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    EDGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    target_id: bytes
    edge_type: EdgeType
    confidence: float
    def __init__(self, target_id: _Optional[bytes] = ..., edge_type: _Optional[_Union[EdgeType, str]] = ..., confidence: _Optional[float] = ...) -> None: ...

class TimeRange(_message.Message):
    __slots__ = ("start_us", "end_us")
    START_US_FIELD_NUMBER: _ClassVar[int]
    END_US_FIELD_NUMBER: _ClassVar[int]
    start_us: int
    end_us: int
    def __init__(self, start_us: _Optional[int] = ..., end_us: _Optional[int] = ...) -> None: ...

class ScoringWeights(_message.Message):
    __slots__ = ("w_relevance", "w_recency", "w_importance", "w_reinforcement", "max_age_us", "reinforcement_cap")
    W_RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    W_RECENCY_FIELD_NUMBER: _ClassVar[int]
    W_IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    W_REINFORCEMENT_FIELD_NUMBER: _ClassVar[int]
    MAX_AGE_US_FIELD_NUMBER: _ClassVar[int]
    REINFORCEMENT_CAP_FIELD_NUMBER: _ClassVar[int]
    w_relevance: float
    w_recency: float
    w_importance: float
    w_reinforcement: float
    max_age_us: int
    reinforcement_cap: int
    def __init__(self, w_relevance: _Optional[float] = ..., w_recency: _Optional[float] = ..., w_importance: _Optional[float] = ..., w_reinforcement: _Optional[float] = ..., max_age_us: _Optional[int] = ..., reinforcement_cap: _Optional[int] = ...) -> None: ...

class RememberRequest(_message.Message):
    __slots__ = ("content", "importance", "context", "entity_id", "edges", "tenant_id", "kind")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    content: str
    importance: float
    context: _struct_pb2.Struct
    entity_id: str
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    tenant_id: str
    kind: MemoryKind
    def __init__(self, content: _Optional[str] = ..., importance: _Optional[float] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., entity_id: _Optional[str] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., tenant_id: _Optional[str] = ..., kind: _Optional[_Union[MemoryKind, str]] = ...) -> None: ...

class RememberResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("memory_id", "tenant_id")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    memory_id: bytes
    tenant_id: str
    def __init__(self, memory_id: _Optional[bytes] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class RecallStrategyConfig(_message.Message):
    __slots__ = ("strategy_type", "top_k", "ef_search", "entity_id", "time_range", "seed_memory_id", "edge_types", "max_depth", "analogical_alpha")
    STRATEGY_TYPE_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    EF_SEARCH_FIELD_NUMBER: _ClassVar[int]
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_RANGE_FIELD_NUMBER: _ClassVar[int]
    SEED_MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    EDGE_TYPES_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    ANALOGICAL_ALPHA_FIELD_NUMBER: _ClassVar[int]
    strategy_type: RecallStrategyType
    top_k: int
    ef_search: int
    entity_id: str
    time_range: TimeRange
    seed_memory_id: bytes
    edge_types: _containers.RepeatedScalarFieldContainer[EdgeType]
    max_depth: int
    analogical_alpha: float
    def __init__(self, strategy_type: _Optional[_Union[RecallStrategyType, str]] = ..., top_k: _Optional[int] = ..., ef_search: _Optional[int] = ..., entity_id: _Optional[str] = ..., time_range: _Optional[_Union[TimeRange, _Mapping]] = ..., seed_memory_id: _Optional[bytes] = ..., edge_types: _Optional[_Iterable[_Union[EdgeType, str]]] = ..., max_depth: _Optional[int] = ..., analogical_alpha: _Optional[float] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ("cue", "strategies", "top_k", "scoring_weights", "cue_context", "tenant_id")
    CUE_FIELD_NUMBER: _ClassVar[int]
    STRATEGIES_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    SCORING_WEIGHTS_FIELD_NUMBER: _ClassVar[int]
    CUE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    cue: str
    strategies: _containers.RepeatedCompositeFieldContainer[RecallStrategyConfig]
    top_k: int
    scoring_weights: ScoringWeights
    cue_context: _struct_pb2.Struct
    tenant_id: str
    def __init__(self, cue: _Optional[str] = ..., strategies: _Optional[_Iterable[_Union[RecallStrategyConfig, _Mapping]]] = ..., top_k: _Optional[int] = ..., scoring_weights: _Optional[_Union[ScoringWeights, _Mapping]] = ..., cue_context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class StrategyDetailMessage(_message.Message):
    __slots__ = ("strategy_type", "relevance", "distance", "timestamp", "rank", "depth", "causal_edge_type", "seed_id", "embedding_similarity", "structural_similarity")
    STRATEGY_TYPE_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    CAUSAL_EDGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SEED_ID_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    STRUCTURAL_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    strategy_type: RecallStrategyType
    relevance: float
    distance: float
    timestamp: int
    rank: int
    depth: int
    causal_edge_type: EdgeType
    seed_id: bytes
    embedding_similarity: float
    structural_similarity: float
    def __init__(self, strategy_type: _Optional[_Union[RecallStrategyType, str]] = ..., relevance: _Optional[float] = ..., distance: _Optional[float] = ..., timestamp: _Optional[int] = ..., rank: _Optional[int] = ..., depth: _Optional[int] = ..., causal_edge_type: _Optional[_Union[EdgeType, str]] = ..., seed_id: _Optional[bytes] = ..., embedding_similarity: _Optional[float] = ..., structural_similarity: _Optional[float] = ...) -> None: ...

class RecallResult(_message.Message):
    __slots__ = ("memory", "score", "strategy_details")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_DETAILS_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    score: float
    strategy_details: _containers.RepeatedCompositeFieldContainer[StrategyDetailMessage]
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., score: _Optional[float] = ..., strategy_details: _Optional[_Iterable[_Union[StrategyDetailMessage, _Mapping]]] = ...) -> None: ...

class StrategyErrorMessage(_message.Message):
    __slots__ = ("strategy", "message")
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    strategy: RecallStrategyType
    message: str
    def __init__(self, strategy: _Optional[_Union[RecallStrategyType, str]] = ..., message: _Optional[str] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ("results", "strategy_errors")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_ERRORS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[RecallResult]
    strategy_errors: _containers.RepeatedCompositeFieldContainer[StrategyErrorMessage]
    def __init__(self, results: _Optional[_Iterable[_Union[RecallResult, _Mapping]]] = ..., strategy_errors: _Optional[_Iterable[_Union[StrategyErrorMessage, _Mapping]]] = ...) -> None: ...

class PrimeRequest(_message.Message):
    __slots__ = ("entity_id", "context", "max_memories", "recency_window_us", "similarity_cue", "scoring_weights", "tenant_id")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    MAX_MEMORIES_FIELD_NUMBER: _ClassVar[int]
    RECENCY_WINDOW_US_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_CUE_FIELD_NUMBER: _ClassVar[int]
    SCORING_WEIGHTS_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    context: _struct_pb2.Struct
    max_memories: int
    recency_window_us: int
    similarity_cue: str
    scoring_weights: ScoringWeights
    tenant_id: str
    def __init__(self, entity_id: _Optional[str] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., max_memories: _Optional[int] = ..., recency_window_us: _Optional[int] = ..., similarity_cue: _Optional[str] = ..., scoring_weights: _Optional[_Union[ScoringWeights, _Mapping]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class PrimeResponse(_message.Message):
    __slots__ = ("results", "temporal_count", "similarity_count")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    TEMPORAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_COUNT_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[RecallResult]
    temporal_count: int
    similarity_count: int
    def __init__(self, results: _Optional[_Iterable[_Union[RecallResult, _Mapping]]] = ..., temporal_count: _Optional[int] = ..., similarity_count: _Optional[int] = ...) -> None: ...

class ReviseRequest(_message.Message):
    __slots__ = ("memory_id", "content", "importance", "context", "context_mode", "entity_id", "edges", "tenant_id")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_MODE_FIELD_NUMBER: _ClassVar[int]
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    memory_id: bytes
    content: str
    importance: float
    context: _struct_pb2.Struct
    context_mode: ContextMode
    entity_id: str
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    tenant_id: str
    def __init__(self, memory_id: _Optional[bytes] = ..., content: _Optional[str] = ..., importance: _Optional[float] = ..., context: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., context_mode: _Optional[_Union[ContextMode, str]] = ..., entity_id: _Optional[str] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class ReviseResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ("memory_ids", "entity_id", "staleness_threshold_us", "access_count_floor", "memory_kind", "decay_score_floor", "tenant_id")
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    STALENESS_THRESHOLD_US_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FLOOR_FIELD_NUMBER: _ClassVar[int]
    MEMORY_KIND_FIELD_NUMBER: _ClassVar[int]
    DECAY_SCORE_FLOOR_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    memory_ids: _containers.RepeatedScalarFieldContainer[bytes]
    entity_id: str
    staleness_threshold_us: int
    access_count_floor: int
    memory_kind: MemoryKind
    decay_score_floor: float
    tenant_id: str
    def __init__(self, memory_ids: _Optional[_Iterable[bytes]] = ..., entity_id: _Optional[str] = ..., staleness_threshold_us: _Optional[int] = ..., access_count_floor: _Optional[int] = ..., memory_kind: _Optional[_Union[MemoryKind, str]] = ..., decay_score_floor: _Optional[float] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class ForgetResponse(_message.Message):
    __slots__ = ("forgotten_count", "cascade_count", "truncated", "tombstone_count")
    FORGOTTEN_COUNT_FIELD_NUMBER: _ClassVar[int]
    CASCADE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TOMBSTONE_COUNT_FIELD_NUMBER: _ClassVar[int]
    forgotten_count: int
    cascade_count: int
    truncated: bool
    tombstone_count: int
    def __init__(self, forgotten_count: _Optional[int] = ..., cascade_count: _Optional[int] = ..., truncated: _Optional[bool] = ..., tombstone_count: _Optional[int] = ...) -> None: ...

class SetPolicyRequest(_message.Message):
    __slots__ = ("tenant_id", "max_snapshots_per_memory", "auto_forget_threshold", "decay_half_life_days")
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_SNAPSHOTS_PER_MEMORY_FIELD_NUMBER: _ClassVar[int]
    AUTO_FORGET_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    DECAY_HALF_LIFE_DAYS_FIELD_NUMBER: _ClassVar[int]
    tenant_id: str
    max_snapshots_per_memory: int
    auto_forget_threshold: float
    decay_half_life_days: float
    def __init__(self, tenant_id: _Optional[str] = ..., max_snapshots_per_memory: _Optional[int] = ..., auto_forget_threshold: _Optional[float] = ..., decay_half_life_days: _Optional[float] = ...) -> None: ...

class SetPolicyResponse(_message.Message):
    __slots__ = ("applied",)
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    applied: bool
    def __init__(self, applied: _Optional[bool] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ("entity_id", "kind_filter", "confidence_threshold", "time_scope_us", "output_buffer_size", "coarse_threshold", "tenant_id")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FILTER_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    TIME_SCOPE_US_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_BUFFER_SIZE_FIELD_NUMBER: _ClassVar[int]
    COARSE_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    kind_filter: _containers.RepeatedScalarFieldContainer[MemoryKind]
    confidence_threshold: float
    time_scope_us: int
    output_buffer_size: int
    coarse_threshold: float
    tenant_id: str
    def __init__(self, entity_id: _Optional[str] = ..., kind_filter: _Optional[_Iterable[_Union[MemoryKind, str]]] = ..., confidence_threshold: _Optional[float] = ..., time_scope_us: _Optional[int] = ..., output_buffer_size: _Optional[int] = ..., coarse_threshold: _Optional[float] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class SubscribePushMessage(_message.Message):
    __slots__ = ("subscription_id", "memory", "confidence", "push_timestamp_us", "sequence_number")
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    PUSH_TIMESTAMP_US_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    subscription_id: int
    memory: Memory
    confidence: float
    push_timestamp_us: int
    sequence_number: int
    def __init__(self, subscription_id: _Optional[int] = ..., memory: _Optional[_Union[Memory, _Mapping]] = ..., confidence: _Optional[float] = ..., push_timestamp_us: _Optional[int] = ..., sequence_number: _Optional[int] = ...) -> None: ...

class FeedRequest(_message.Message):
    __slots__ = ("subscription_id", "text", "tenant_id")
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    subscription_id: int
    text: str
    tenant_id: str
    def __init__(self, subscription_id: _Optional[int] = ..., text: _Optional[str] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class FeedResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CloseSubscriptionRequest(_message.Message):
    __slots__ = ("subscription_id", "tenant_id")
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    subscription_id: int
    tenant_id: str
    def __init__(self, subscription_id: _Optional[int] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class CloseSubscriptionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReflectScope(_message.Message):
    __slots__ = ("entity",)
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_FIELD_NUMBER: _ClassVar[int]
    entity: EntityScope
    def __init__(self, entity: _Optional[_Union[EntityScope, _Mapping]] = ..., **kwargs) -> None: ...

class EntityScope(_message.Message):
    __slots__ = ("entity_id", "since_us")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_US_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    since_us: int
    def __init__(self, entity_id: _Optional[str] = ..., since_us: _Optional[int] = ...) -> None: ...

class GlobalScope(_message.Message):
    __slots__ = ("since_us",)
    SINCE_US_FIELD_NUMBER: _ClassVar[int]
    since_us: int
    def __init__(self, since_us: _Optional[int] = ...) -> None: ...

class ReflectRequest(_message.Message):
    __slots__ = ("scope", "tenant_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    scope: ReflectScope
    tenant_id: str
    def __init__(self, scope: _Optional[_Union[ReflectScope, _Mapping]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class ReflectResponse(_message.Message):
    __slots__ = ("insights_created", "clusters_found", "clusters_processed", "memories_processed")
    INSIGHTS_CREATED_FIELD_NUMBER: _ClassVar[int]
    CLUSTERS_FOUND_FIELD_NUMBER: _ClassVar[int]
    CLUSTERS_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    insights_created: int
    clusters_found: int
    clusters_processed: int
    memories_processed: int
    def __init__(self, insights_created: _Optional[int] = ..., clusters_found: _Optional[int] = ..., clusters_processed: _Optional[int] = ..., memories_processed: _Optional[int] = ...) -> None: ...

class GetInsightsRequest(_message.Message):
    __slots__ = ("entity_id", "min_confidence", "max_results", "tenant_id")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    MIN_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    MAX_RESULTS_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    min_confidence: float
    max_results: int
    tenant_id: str
    def __init__(self, entity_id: _Optional[str] = ..., min_confidence: _Optional[float] = ..., max_results: _Optional[int] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class GetInsightsResponse(_message.Message):
    __slots__ = ("insights",)
    INSIGHTS_FIELD_NUMBER: _ClassVar[int]
    insights: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, insights: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class ReflectPrepareRequest(_message.Message):
    __slots__ = ("scope", "tenant_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    scope: ReflectScope
    tenant_id: str
    def __init__(self, scope: _Optional[_Union[ReflectScope, _Mapping]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class ClusterMemorySummary(_message.Message):
    __slots__ = ("memory_id", "content", "importance", "entity_id", "created_at")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    content: str
    importance: float
    entity_id: str
    created_at: int
    def __init__(self, memory_id: _Optional[str] = ..., content: _Optional[str] = ..., importance: _Optional[float] = ..., entity_id: _Optional[str] = ..., created_at: _Optional[int] = ...) -> None: ...

class ClusterPrompt(_message.Message):
    __slots__ = ("cluster_id", "member_count", "proposal_system_prompt", "proposal_user_prompt", "memory_ids", "validation_context", "memories")
    CLUSTER_ID_FIELD_NUMBER: _ClassVar[int]
    MEMBER_COUNT_FIELD_NUMBER: _ClassVar[int]
    PROPOSAL_SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    PROPOSAL_USER_PROMPT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    VALIDATION_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    cluster_id: int
    member_count: int
    proposal_system_prompt: str
    proposal_user_prompt: str
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    validation_context: str
    memories: _containers.RepeatedCompositeFieldContainer[ClusterMemorySummary]
    def __init__(self, cluster_id: _Optional[int] = ..., member_count: _Optional[int] = ..., proposal_system_prompt: _Optional[str] = ..., proposal_user_prompt: _Optional[str] = ..., memory_ids: _Optional[_Iterable[str]] = ..., validation_context: _Optional[str] = ..., memories: _Optional[_Iterable[_Union[ClusterMemorySummary, _Mapping]]] = ...) -> None: ...

class ReflectPrepareResponse(_message.Message):
    __slots__ = ("session_id", "memories_processed", "clusters", "existing_insight_count")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    CLUSTERS_FIELD_NUMBER: _ClassVar[int]
    EXISTING_INSIGHT_COUNT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    memories_processed: int
    clusters: _containers.RepeatedCompositeFieldContainer[ClusterPrompt]
    existing_insight_count: int
    def __init__(self, session_id: _Optional[str] = ..., memories_processed: _Optional[int] = ..., clusters: _Optional[_Iterable[_Union[ClusterPrompt, _Mapping]]] = ..., existing_insight_count: _Optional[int] = ...) -> None: ...

class ProducedInsightInput(_message.Message):
    __slots__ = ("content", "confidence", "source_memory_ids", "tags", "cluster_id")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_ID_FIELD_NUMBER: _ClassVar[int]
    content: str
    confidence: float
    source_memory_ids: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    cluster_id: int
    def __init__(self, content: _Optional[str] = ..., confidence: _Optional[float] = ..., source_memory_ids: _Optional[_Iterable[str]] = ..., tags: _Optional[_Iterable[str]] = ..., cluster_id: _Optional[int] = ...) -> None: ...

class ReflectCommitRequest(_message.Message):
    __slots__ = ("session_id", "insights", "tenant_id")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    INSIGHTS_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    insights: _containers.RepeatedCompositeFieldContainer[ProducedInsightInput]
    tenant_id: str
    def __init__(self, session_id: _Optional[str] = ..., insights: _Optional[_Iterable[_Union[ProducedInsightInput, _Mapping]]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class ReflectCommitResponse(_message.Message):
    __slots__ = ("insights_created",)
    INSIGHTS_CREATED_FIELD_NUMBER: _ClassVar[int]
    insights_created: int
    def __init__(self, insights_created: _Optional[int] = ...) -> None: ...

class ContradictionPrepareRequest(_message.Message):
    __slots__ = ("tenant_id",)
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    tenant_id: str
    def __init__(self, tenant_id: _Optional[str] = ...) -> None: ...

class PendingContradictionProto(_message.Message):
    __slots__ = ("pending_id", "memory_id_a", "memory_id_b", "content_a_snippet", "content_b_snippet", "classifier_score", "classifier_method", "similarity", "created_at")
    PENDING_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_A_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_B_FIELD_NUMBER: _ClassVar[int]
    CONTENT_A_SNIPPET_FIELD_NUMBER: _ClassVar[int]
    CONTENT_B_SNIPPET_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_SCORE_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_METHOD_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    pending_id: str
    memory_id_a: str
    memory_id_b: str
    content_a_snippet: str
    content_b_snippet: str
    classifier_score: float
    classifier_method: str
    similarity: float
    created_at: int
    def __init__(self, pending_id: _Optional[str] = ..., memory_id_a: _Optional[str] = ..., memory_id_b: _Optional[str] = ..., content_a_snippet: _Optional[str] = ..., content_b_snippet: _Optional[str] = ..., classifier_score: _Optional[float] = ..., classifier_method: _Optional[str] = ..., similarity: _Optional[float] = ..., created_at: _Optional[int] = ...) -> None: ...

class ContradictionPrepareResponse(_message.Message):
    __slots__ = ("candidates",)
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    candidates: _containers.RepeatedCompositeFieldContainer[PendingContradictionProto]
    def __init__(self, candidates: _Optional[_Iterable[_Union[PendingContradictionProto, _Mapping]]] = ...) -> None: ...

class ContradictionVerdictInput(_message.Message):
    __slots__ = ("pending_id", "verdict", "confidence", "reasoning")
    PENDING_ID_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    pending_id: str
    verdict: str
    confidence: float
    reasoning: str
    def __init__(self, pending_id: _Optional[str] = ..., verdict: _Optional[str] = ..., confidence: _Optional[float] = ..., reasoning: _Optional[str] = ...) -> None: ...

class ContradictionCommitRequest(_message.Message):
    __slots__ = ("verdicts", "tenant_id")
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    verdicts: _containers.RepeatedCompositeFieldContainer[ContradictionVerdictInput]
    tenant_id: str
    def __init__(self, verdicts: _Optional[_Iterable[_Union[ContradictionVerdictInput, _Mapping]]] = ..., tenant_id: _Optional[str] = ...) -> None: ...

class ContradictionCommitResponse(_message.Message):
    __slots__ = ("contradictions_confirmed", "revisions_created", "dismissed")
    CONTRADICTIONS_CONFIRMED_FIELD_NUMBER: _ClassVar[int]
    REVISIONS_CREATED_FIELD_NUMBER: _ClassVar[int]
    DISMISSED_FIELD_NUMBER: _ClassVar[int]
    contradictions_confirmed: int
    revisions_created: int
    dismissed: int
    def __init__(self, contradictions_confirmed: _Optional[int] = ..., revisions_created: _Optional[int] = ..., dismissed: _Optional[int] = ...) -> None: ...

class HealthCheckRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HealthCheckResponse(_message.Message):
    __slots__ = ("status", "version", "memory_count", "uptime_seconds")
    class ServingStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[HealthCheckResponse.ServingStatus]
        SERVING: _ClassVar[HealthCheckResponse.ServingStatus]
        NOT_SERVING: _ClassVar[HealthCheckResponse.ServingStatus]
    UNKNOWN: HealthCheckResponse.ServingStatus
    SERVING: HealthCheckResponse.ServingStatus
    NOT_SERVING: HealthCheckResponse.ServingStatus
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MEMORY_COUNT_FIELD_NUMBER: _ClassVar[int]
    UPTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    status: HealthCheckResponse.ServingStatus
    version: str
    memory_count: int
    uptime_seconds: int
    def __init__(self, status: _Optional[_Union[HealthCheckResponse.ServingStatus, str]] = ..., version: _Optional[str] = ..., memory_count: _Optional[int] = ..., uptime_seconds: _Optional[int] = ...) -> None: ...
