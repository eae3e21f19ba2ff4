"""hebbs: an embeddable cognitive memory engine for AI agents.

Open a database in one line, remember, and recall by meaning, by time, by cause and effect, by
analogy, by keyword or by both at once (seven strategies, run in parallel and ranked by one
composite score)::

    import hebbs

    with hebbs.Hebbs.open("./memory") as mem:
        mem.remember("Acme asked for a 10% discount", entity_id="acme", importance=0.8)
        for result in mem.recall("what did Acme want on price?").results:
            print(f"{result.score:.3f}", result.memory.content)
"""

from typing import TYPE_CHECKING

from hebbs._native import __version__
from hebbs.aio import AsyncHebbs
from hebbs.consolidate import ContradictionCandidate
from hebbs.engine import Hebbs
from hebbs.errors import (
    AuthError,
    ClosedError,
    ConflictError,
    CorruptionError,
    EmbeddingError,
    HebbsError,
    HebbsIOError,
    InternalError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    LLMError,
    NotFoundError,
    RateLimitedError,
    RemoteUnsupportedError,
    RerankError,
    ServerUnavailableError,
    StorageError,
    TextIndexError,
    VectorIndexError,
    _deprecated_alias,
)
from hebbs.ingest import IndexResult
from hebbs.reflect import CommitResult, Insight, PreparedCluster, ReflectResult, ReflectSession
from hebbs.subscription import AsyncSubscription, Subscription
from hebbs.types import (
    Edge,
    EdgeType,
    ExpansionEdge,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryKind,
    MemoryPage,
    PrimeOutput,
    RecallOutput,
    RecallResult,
    RecallStrategyConfig,
    RememberItem,
    ScoringWeights,
    StrategyDetail,
    StrategyError,
    SubscribePush,
    Tombstone,
)

__all__ = [
    "AsyncHebbs",
    "AsyncHebbsClient",
    "AsyncSubscription",
    "AuthError",
    "ClosedError",
    "CommitResult",
    "ConflictError",
    "ContradictionCandidate",
    "CorruptionError",
    "Edge",
    "EdgeType",
    "EmbeddingError",
    "ExpansionEdge",
    "ForgetResult",
    "HealthStatus",
    "Hebbs",
    "HebbsClient",
    "HebbsError",
    "HebbsIOError",
    "IndexResult",
    "Insight",
    "InternalError",
    "InvalidInputError",
    "InvalidTypeError",
    "InvalidValueError",
    "LLMError",
    "Memory",
    "MemoryKind",
    "MemoryPage",
    "NotFoundError",
    "PreparedCluster",
    "PrimeOutput",
    "RateLimitedError",
    "RecallOutput",
    "RecallResult",
    "RecallStrategyConfig",
    "ReflectResult",
    "ReflectSession",
    "RememberItem",
    "RemoteUnsupportedError",
    "RerankError",
    "ScoringWeights",
    "ServerUnavailableError",
    "StorageError",
    "StrategyDetail",
    "StrategyError",
    "SubscribePush",
    "Subscription",
    "TextIndexError",
    "Tombstone",
    "VectorIndexError",
    "__version__",
]

#: The names served from ``hebbs.client`` on first use, so ``import hebbs`` works without the
#: ``client`` extra (httpx).
_CLIENT_NAMES = ("HebbsClient", "AsyncHebbsClient")

if TYPE_CHECKING:
    from hebbs.client import AsyncHebbsClient, HebbsClient

    # The deprecated alias of VectorIndexError, as type checkers see it (see hebbs.errors).
    IndexError = VectorIndexError
else:

    def __getattr__(name: str) -> object:
        if name in _CLIENT_NAMES:
            import hebbs.client

            return getattr(hebbs.client, name)
        return _deprecated_alias(__name__, name)
