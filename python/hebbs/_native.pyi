"""Type stubs of the native module `hebbs._native` (the PyO3 bindings of hebbs-core)."""

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar, final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DEFAULT_ANALOGICAL_ALPHA",
    "DEFAULT_CAUSAL_DEPTH",
    "DEFAULT_CONFIDENCE_THRESHOLD",
    "DEFAULT_DIRECTION",
    "DEFAULT_EF_SEARCH",
    "DEFAULT_FORGET_LIMIT",
    "DEFAULT_GRAPH_CONTEXT",
    "DEFAULT_IMPORTANCE",
    "DEFAULT_LIST_LIMIT",
    "DEFAULT_LIST_PAGE",
    "DEFAULT_PRIME_MAX_MEMORIES",
    "DEFAULT_QUEUE_CAPACITY",
    "DEFAULT_RERANK",
    "DEFAULT_RERANK_TOP_N",
    "DEFAULT_RRF_K",
    "DEFAULT_STRATEGIES",
    "DEFAULT_TOMBSTONE_PAGE",
    "DEFAULT_TOP_K",
    "DIRECTIONS",
    "EXACT_SCAN_MAX_MATCHES",
    "MAX_CAUSAL_DEPTH",
    "MAX_CONTENT_BYTES",
    "MAX_CONTEXT_BYTES",
    "MAX_EDGES_PER_MEMORY",
    "MAX_EF_SEARCH",
    "MAX_ENTITY_ID_BYTES",
    "MAX_FILTER_CONDITIONS",
    "MAX_FILTER_DEPTH",
    "MAX_LIST_PAGE",
    "MAX_QUEUE_CAPACITY",
    "MAX_RERANK_TOP_N",
    "MAX_TOP_K",
    "MAX_VECTOR_DIMENSION",
    "STRATEGIES",
    "VECTOR_STRATEGIES",
    "ClosedError",
    "ConflictError",
    "CorruptionError",
    "Edge",
    "EdgeType",
    "ExpansionEdge",
    "ForgetResult",
    "HealthStatus",
    "HebbsError",
    "HebbsIOError",
    "InternalError",
    "InvalidInputError",
    "InvalidTypeError",
    "InvalidValueError",
    "Memory",
    "MemoryKind",
    "MemoryPage",
    "NativeEngine",
    "NativeSubscription",
    "NotFoundError",
    "PrimeOutput",
    "RecallOutput",
    "RecallResult",
    "RecallStrategyConfig",
    "ScoringWeights",
    "StorageError",
    "StrategyDetail",
    "StrategyError",
    "SubscribePush",
    "TextIndexError",
    "Tombstone",
    "VectorIndexError",
    "__version__",
    "check_filter",
]

__version__: str
DEFAULT_CAUSAL_DEPTH: int
DIRECTIONS: tuple[str, ...]
DEFAULT_DIRECTION: str
MAX_CAUSAL_DEPTH: int
DEFAULT_ANALOGICAL_ALPHA: float
DEFAULT_PRIME_MAX_MEMORIES: int
DEFAULT_RRF_K: int
DEFAULT_RERANK_TOP_N: int
MAX_RERANK_TOP_N: int
DEFAULT_STRATEGIES: tuple[str, ...]
"""The strategies of the default recall of a cue (seed 004's pipeline)."""
DEFAULT_RERANK: str
"""The re-rank stage of the default recall of a cue."""
DEFAULT_GRAPH_CONTEXT: int
DEFAULT_LIST_LIMIT: int
DEFAULT_EF_SEARCH: int
MAX_EF_SEARCH: int
DEFAULT_TOP_K: int
MAX_TOP_K: int
DEFAULT_IMPORTANCE: float
MAX_CONTENT_BYTES: int
MAX_CONTEXT_BYTES: int
MAX_ENTITY_ID_BYTES: int
MAX_EDGES_PER_MEMORY: int
MAX_VECTOR_DIMENSION: int
DEFAULT_CONFIDENCE_THRESHOLD: float
DEFAULT_QUEUE_CAPACITY: int
MAX_QUEUE_CAPACITY: int
DEFAULT_FORGET_LIMIT: int
DEFAULT_TOMBSTONE_PAGE: int
DEFAULT_LIST_PAGE: int
MAX_LIST_PAGE: int
MAX_FILTER_DEPTH: int
MAX_FILTER_CONDITIONS: int
EXACT_SCAN_MAX_MATCHES: int

def check_filter(filter: dict[str, Any]) -> None:
    """Checks a filter; raises ``InvalidValueError`` / ``InvalidTypeError`` naming the path of
    its first fault (``filter.$and[1].context.priority.$gte``)."""

STRATEGIES: tuple[str, ...]
"""Every recall strategy name, in the core's order."""
VECTOR_STRATEGIES: tuple[str, ...]
"""The strategies that read the cue vector (causal only when it has no seed)."""

class HebbsError(Exception): ...

class InvalidInputError(HebbsError):
    field: str
    reason: str

class InvalidValueError(InvalidInputError, ValueError): ...
class InvalidTypeError(InvalidInputError, TypeError): ...

class ConflictError(HebbsError):
    field: str
    reason: str

class NotFoundError(HebbsError): ...
class StorageError(HebbsError): ...
class HebbsIOError(HebbsError, OSError): ...
class CorruptionError(HebbsError): ...
class VectorIndexError(HebbsError): ...
class TextIndexError(HebbsError): ...
class ClosedError(HebbsError): ...
class InternalError(HebbsError): ...

@final
class MemoryKind:
    EPISODE: ClassVar[MemoryKind]
    INSIGHT: ClassVar[MemoryKind]
    REVISION: ClassVar[MemoryKind]
    DOCUMENT: ClassVar[MemoryKind]
    PROPOSITION: ClassVar[MemoryKind]
    @property
    def value(self) -> str: ...
    def __int__(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class EdgeType:
    CAUSED_BY: ClassVar[EdgeType]
    RELATED_TO: ClassVar[EdgeType]
    FOLLOWED_BY: ClassVar[EdgeType]
    REVISED_FROM: ClassVar[EdgeType]
    INSIGHT_FROM: ClassVar[EdgeType]
    CONTRADICTS: ClassVar[EdgeType]
    @property
    def value(self) -> str: ...
    def __int__(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Edge:
    def __new__(
        cls, target: bytes | str, edge_type: EdgeType | str, confidence: float | None = None
    ) -> Edge: ...
    @property
    def target(self) -> bytes: ...
    @property
    def edge_type(self) -> EdgeType: ...
    @property
    def confidence(self) -> float: ...

@final
class Memory:
    @property
    def id(self) -> bytes: ...
    @property
    def id_hex(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def importance(self) -> float: ...
    @property
    def context(self) -> dict[str, Any]: ...
    @property
    def entity_id(self) -> str | None: ...
    @property
    def created_at(self) -> int: ...
    @property
    def updated_at(self) -> int: ...
    @property
    def last_accessed_at(self) -> int: ...
    @property
    def access_count(self) -> int: ...
    @property
    def decay_score(self) -> float: ...
    @property
    def kind(self) -> MemoryKind: ...
    @property
    def superseded(self) -> bool: ...
    @property
    def embedding(self) -> NDArray[np.float32] | None: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory: ...

@final
class ScoringWeights:
    """Defaults: 0.5 / 0.2 / 0.2 / 0.1, max age 30 days, reinforcement cap 100."""

    def __new__(
        cls,
        w_relevance: float = ...,
        w_recency: float = ...,
        w_importance: float = ...,
        w_reinforcement: float = ...,
        max_age_us: int = ...,
        reinforcement_cap: int = ...,
    ) -> ScoringWeights: ...
    @property
    def w_relevance(self) -> float: ...
    @property
    def w_recency(self) -> float: ...
    @property
    def w_importance(self) -> float: ...
    @property
    def w_reinforcement(self) -> float: ...
    @property
    def max_age_us(self) -> int: ...
    @property
    def reinforcement_cap(self) -> int: ...

@final
class StrategyDetail:
    @property
    def strategy(self) -> str: ...
    @property
    def relevance(self) -> float: ...
    @property
    def distance(self) -> float | None: ...
    @property
    def timestamp(self) -> int | None: ...
    @property
    def rank(self) -> int | None: ...
    @property
    def depth(self) -> int | None: ...
    @property
    def embedding_similarity(self) -> float | None: ...
    @property
    def structural_similarity(self) -> float | None: ...
    @property
    def dense_score(self) -> float | None: ...
    @property
    def bm25_score(self) -> float | None: ...
    @property
    def rrf_score(self) -> float | None: ...
    @property
    def late_interaction_score(self) -> float | None: ...
    @property
    def rerank_score(self) -> float | None: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StrategyDetail: ...

@final
class RecallResult:
    @property
    def memory(self) -> Memory: ...
    @property
    def score(self) -> float: ...
    @property
    def strategy_details(self) -> list[StrategyDetail]: ...
    @property
    def expansion_context(self) -> list[ExpansionEdge]: ...
    @property
    def scores(self) -> dict[str, float]: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RecallResult: ...

@final
class ExpansionEdge:
    @property
    def edge_type(self) -> EdgeType: ...
    @property
    def direction(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def preview(self) -> str: ...
    @property
    def neighbor_id(self) -> bytes: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExpansionEdge: ...

@final
class StrategyError:
    @property
    def strategy(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def field(self) -> str | None: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StrategyError: ...

@final
class RecallOutput:
    @property
    def results(self) -> list[RecallResult]: ...
    @property
    def strategy_errors(self) -> list[StrategyError]: ...
    @property
    def below_threshold(self) -> int: ...
    @property
    def organization_memory(self) -> RecallOutput | None: ...
    def __len__(self) -> int: ...
    def with_organization_memory(self, organization: RecallOutput) -> RecallOutput: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RecallOutput: ...

@final
class RecallStrategyConfig:
    def __new__(
        cls,
        strategy: str,
        *,
        entity_id: str | None = None,
        top_k: int | None = None,
        ef_search: int | None = None,
        time_range: tuple[int, int] | None = None,
        seed_memory_id: bytes | str | None = None,
        edge_types: Sequence[EdgeType | str] | None = None,
        max_depth: int | None = None,
        direction: str | None = None,
        analogical_alpha: float | None = None,
    ) -> RecallStrategyConfig: ...
    @property
    def strategy(self) -> str: ...
    @property
    def entity_id(self) -> str | None: ...
    @property
    def top_k(self) -> int | None: ...
    @property
    def ef_search(self) -> int | None: ...
    @property
    def time_range(self) -> tuple[int, int] | None: ...
    @property
    def seed_memory_id(self) -> bytes | None: ...
    @property
    def edge_types(self) -> list[EdgeType] | None: ...
    @property
    def max_depth(self) -> int | None: ...
    @property
    def direction(self) -> str | None: ...
    @property
    def analogical_alpha(self) -> float | None: ...

@final
class PrimeOutput:
    @property
    def results(self) -> list[RecallResult]: ...
    @property
    def temporal_count(self) -> int: ...
    @property
    def similarity_count(self) -> int: ...
    def __len__(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PrimeOutput: ...

@final
class HealthStatus:
    @property
    def serving(self) -> bool: ...
    @property
    def version(self) -> str: ...
    @property
    def memory_count(self) -> int: ...
    @property
    def uptime_seconds(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HealthStatus: ...

@final
class SubscribePush:
    @property
    def subscription_id(self) -> int: ...
    @property
    def memory(self) -> Memory: ...
    @property
    def confidence(self) -> float: ...
    @property
    def push_timestamp_us(self) -> int: ...
    @property
    def sequence_number(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SubscribePush: ...

@final
class NativeSubscription:
    def recv(self, timeout: float | None = None) -> SubscribePush | None: ...
    def __iter__(self) -> Iterator[SubscribePush]: ...
    def __next__(self) -> SubscribePush: ...
    def unsubscribe(self) -> None: ...
    @property
    def id(self) -> int: ...
    @property
    def dropped(self) -> int: ...
    @property
    def closed(self) -> bool: ...

@final
class ForgetResult:
    @property
    def forgotten_count(self) -> int: ...
    @property
    def cascade_count(self) -> int: ...
    @property
    def tombstone_count(self) -> int: ...
    @property
    def truncated(self) -> bool: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ForgetResult: ...

@final
class MemoryPage:
    @property
    def memories(self) -> list[Memory]: ...
    @property
    def next_cursor(self) -> bytes | None: ...
    def __len__(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryPage: ...

@final
class Tombstone:
    @property
    def id(self) -> bytes: ...
    @property
    def id_hex(self) -> str: ...
    @property
    def entity_id(self) -> str | None: ...
    @property
    def kind(self) -> MemoryKind: ...
    @property
    def created_at(self) -> int: ...
    @property
    def forgotten_at(self) -> int: ...
    @property
    def content_sha256(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tombstone: ...

@final
class NativeEngine:
    def __new__(
        cls,
        path: str,
        dimension: int | None = None,
        m: int | None = None,
        ef_construction: int | None = None,
        ef_search: int | None = None,
        sync_writes: bool = False,
        auto_forget_floor: float | None = None,
        auto_forget_interval: float | None = None,
        auto_forget_limit: int | None = None,
        vector_format: str | None = None,
    ) -> NativeEngine: ...
    def remember(
        self,
        content: str,
        embedding: NDArray[np.float32],
        importance: float = ...,
        context: dict[str, Any] | None = None,
        entity_id: str | None = None,
        edges: Iterable[Edge] | None = None,
        created_at: int | None = None,
        session_id: str | None = None,
        kind: MemoryKind | str | None = None,
        token_vectors: tuple[NDArray[np.int8], NDArray[np.float32]] | None = None,
    ) -> Memory: ...
    def remember_many(
        self, items: list[dict[str, Any]], embeddings: NDArray[np.float32]
    ) -> list[Memory]: ...
    def get(self, id: bytes | str, include_embedding: bool = False) -> Memory: ...
    def recall(
        self,
        cue_embedding: NDArray[np.float32] | None = None,
        strategies: Sequence[str | RecallStrategyConfig] | None = None,
        top_k: int = ...,
        entity_id: str | None = None,
        time_range: tuple[int, int] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | None = None,
        include_embedding: bool = False,
        seed_memory_id: bytes | str | None = None,
        edge_types: Sequence[EdgeType | str] | None = None,
        max_depth: int = ...,
        direction: str | None = None,
        analogical_alpha: float = ...,
        cue_context: dict[str, Any] | None = None,
        cue_text: str | None = None,
        rrf_k: int = ...,
        min_relevance: float | None = None,
        graph_context: int = ...,
        session_id: str | None = None,
        include_superseded: bool = False,
        rerank: str | None = None,
        rerank_top_n: int = ...,
        cue_token_vectors: NDArray[np.float32] | None = None,
        filter: dict[str, Any] | None = None,
        record_access: bool = True,
    ) -> RecallOutput: ...
    def chat_context(self, session_id: str, limit: int = ...) -> list[Memory]: ...
    def list_orphans(self, limit: int = ...) -> list[Memory]: ...
    def list_memories(
        self,
        entity_id: str | None = None,
        kind: MemoryKind | str | None = None,
        cursor: bytes | str | None = None,
        limit: int = ...,
        include_superseded: bool = False,
        filter: dict[str, Any] | None = None,
    ) -> MemoryPage: ...
    def prime(
        self,
        entity_id: str,
        cue_embedding: NDArray[np.float32] | None = None,
        max_memories: int = ...,
        time_range: tuple[int, int] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | None = None,
        include_embedding: bool = False,
        filter: dict[str, Any] | None = None,
    ) -> PrimeOutput: ...
    def subscribe(
        self,
        cue_embedding: NDArray[np.float32],
        entity_id: str | None = None,
        confidence_threshold: float | None = None,
        queue_capacity: int | None = None,
        filter: dict[str, Any] | None = None,
    ) -> NativeSubscription: ...
    def health(self) -> HealthStatus: ...
    def optimize(self) -> None: ...
    def checkpoint(self) -> None: ...
    def opened_from_checkpoint(self) -> bool: ...
    def vector_format(self) -> str | None: ...
    def dimension(self) -> int | None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def add_edges(self, id: bytes | str, edges: Iterable[Edge]) -> None: ...
    @staticmethod
    def new_ids(count: int) -> list[bytes]: ...
    def write_atomic(
        self,
        items: list[dict[str, Any]],
        embeddings: NDArray[np.float32],
        ids: Iterable[bytes | str] | None = None,
        item_edges: Iterable[tuple[int, int, EdgeType | str, float]] | None = None,
        forget: Iterable[bytes | str] | None = None,
        state: Iterable[tuple[str, bytes | None]] | None = None,
    ) -> tuple[list[Memory], ForgetResult]: ...
    def restore_many(
        self, items: list[dict[str, Any]], embeddings: NDArray[np.float32]
    ) -> None: ...
    def restore_tombstones(self, tombstones: Sequence[Tombstone]) -> None: ...
    def edges_out(self, ids: Sequence[bytes | str]) -> list[list[Edge]]: ...
    def put_token_vectors(
        self, items: Iterable[tuple[bytes | str, NDArray[np.int8], NDArray[np.float32]]]
    ) -> None: ...
    def get_token_vectors(
        self, ids: Iterable[bytes | str]
    ) -> list[tuple[NDArray[np.int8], NDArray[np.float32]] | None]: ...
    def conversation_turns(self, ids: Iterable[bytes | str]) -> list[tuple[str, int] | None]: ...
    def revise(
        self,
        id: bytes | str,
        content: str | None = None,
        embedding: NDArray[np.float32] | None = None,
        importance: float | None = None,
        context: dict[str, Any] | None = None,
        entity_id: str | None = None,
        token_vectors: tuple[NDArray[np.int8], NDArray[np.float32]] | None = None,
    ) -> Memory: ...
    def lineage(self, id: bytes | str) -> list[Memory]: ...
    def edges(self, id: bytes | str, direction: str = "out") -> list[Edge]: ...
    def nearest(
        self, embedding: NDArray[np.float32], k: int, entity_id: str | None = None
    ) -> list[tuple[bytes, float]]: ...
    def reinforce(self, ids: Iterable[bytes | str]) -> None: ...
    def state_get(self, name: str) -> bytes | None: ...
    def state_put(self, name: str, value: bytes | None) -> None: ...
    def state_scan(self, prefix: str) -> list[tuple[str, bytes]]: ...
    def forget(
        self,
        ids: Iterable[bytes | str] | None = None,
        entity_id: str | None = None,
        older_than: int | None = None,
        importance_below: float | None = None,
        kind: MemoryKind | str | None = None,
        purge: bool = False,
        limit: int = ...,
        filter: dict[str, Any] | None = None,
    ) -> ForgetResult: ...
    def forget_decayed(self, floor: float, limit: int = ...) -> ForgetResult: ...
    def tombstone(self, id: bytes | str) -> Tombstone | None: ...
    def tombstones(self, after: bytes | str | None = None, limit: int = ...) -> list[Tombstone]: ...
