"""The data types of the API (seed 003), defined natively and re-exported here, plus the input
shapes that only exist on the Python side."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Union

import numpy as np
from numpy.typing import NDArray

from hebbs._native import (
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
    ScoringWeights,
    StrategyDetail,
    StrategyError,
    SubscribePush,
    Tombstone,
)

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:
    from typing_extensions import NotRequired, TypedDict

#: A memory id: the 16 raw bytes, or 32 hex digits with or without the UUID hyphens.
MemoryIdLike = Union[bytes, str]
#: A timestamp: microseconds since the Unix epoch, or a timezone-aware datetime.
TimestampLike = Union[int, datetime]
#: The stored token vectors of one memory: int8 codes ``[tokens, dimension]`` and one float32
#: scale per token (token ``t`` is ``codes[t] * scales[t]``).
TokenVectors = tuple[NDArray[np.int8], NDArray[np.float32]]
#: One entry of ``put_token_vectors``: a memory id, its codes and its scales.
TokenVectorsItem = tuple[MemoryIdLike, NDArray[np.int8], NDArray[np.float32]]


class RememberItem(TypedDict):
    """One item of :meth:`hebbs.Hebbs.remember_many`: the keyword arguments of ``remember``."""

    content: str
    importance: NotRequired[float]
    context: NotRequired[dict[str, Any] | None]
    entity_id: NotRequired[str | None]
    edges: NotRequired[Sequence[Edge]]
    created_at: NotRequired[TimestampLike | None]
    embedding: NotRequired[Any]
    session_id: NotRequired[str | None]
    kind: NotRequired[MemoryKind | str | None]
    key: NotRequired[str | None]


__all__ = [
    "Edge",
    "EdgeType",
    "ExpansionEdge",
    "ForgetResult",
    "HealthStatus",
    "Memory",
    "MemoryIdLike",
    "MemoryKind",
    "MemoryPage",
    "PrimeOutput",
    "RecallOutput",
    "RecallResult",
    "RecallStrategyConfig",
    "RememberItem",
    "ScoringWeights",
    "StrategyDetail",
    "StrategyError",
    "SubscribePush",
    "TimestampLike",
    "Tombstone",
]
