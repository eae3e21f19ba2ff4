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
from hebbs.engine import Hebbs
from hebbs.errors import (
    ClosedError,
    CorruptionError,
    EmbeddingError,
    HebbsError,
    HebbsIOError,
    InternalError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    NotFoundError,
    RerankError,
    StorageError,
    TextIndexError,
    VectorIndexError,
    _deprecated_alias,
)
from hebbs.subscription import AsyncSubscription, Subscription
from hebbs.types import (
    Edge,
    EdgeType,
    ExpansionEdge,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryKind,
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
    "AsyncSubscription",
    "ClosedError",
    "CorruptionError",
    "Edge",
    "EdgeType",
    "EmbeddingError",
    "ExpansionEdge",
    "ForgetResult",
    "HealthStatus",
    "Hebbs",
    "HebbsError",
    "HebbsIOError",
    "InternalError",
    "InvalidInputError",
    "InvalidTypeError",
    "InvalidValueError",
    "Memory",
    "MemoryKind",
    "NotFoundError",
    "PrimeOutput",
    "RecallOutput",
    "RecallResult",
    "RecallStrategyConfig",
    "RememberItem",
    "RerankError",
    "ScoringWeights",
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

if TYPE_CHECKING:
    # The deprecated alias of VectorIndexError, as type checkers see it (see hebbs.errors).
    IndexError = VectorIndexError
else:

    def __getattr__(name: str) -> type[VectorIndexError]:
        return _deprecated_alias(__name__, name)
