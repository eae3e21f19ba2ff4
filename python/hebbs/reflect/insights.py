"""Reading insights back: every ``insight`` memory of a scope, its confidence (stored in its
context under ``INSIGHT_CONTEXT_KEY``), its sources (its ``insight_from`` edges) and whether it
is stale. Staleness is derived when read: an insight is stale when one of its sources has been
superseded by a revision, so it holds however the revision was made (embedded, server, CLI).
A forgotten source removes the insight itself (forget's cascade)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from hebbs._native import MAX_LIST_PAGE, EdgeType, Memory, MemoryKind, NativeEngine
from hebbs.errors import NotFoundError

from .constants import INSIGHT_CONTEXT_KEY
from .results import Insight


def insight_memories(native: NativeEngine, entity_id: str | None) -> list[Memory]:
    """The live insight memories of the scope (all insights when ``entity_id`` is None)."""
    found: list[Memory] = []
    cursor: bytes | None = None
    while True:
        page = native.list_memories(
            {
                "entity_id": entity_id,
                "kind": MemoryKind.INSIGHT,
                "cursor": cursor,
                "limit": MAX_LIST_PAGE,
            }
        )
        found.extend(page.memories)
        if page.next_cursor is None:
            return found
        cursor = page.next_cursor


def with_vectors(
    native: NativeEngine, memories: list[Memory]
) -> list[tuple[Memory, NDArray[np.float32]]]:
    """Each memory with its unit embedding."""
    pairs = []
    for memory in memories:
        vector = native.get(memory.id, include_embedding=True).embedding
        if vector is not None:
            norm = float(np.linalg.norm(vector))
            pairs.append((memory, (vector / norm if norm else vector).astype(np.float32)))
    return pairs


def confidence_of(memory: Memory) -> float:
    meta = memory.context.get(INSIGHT_CONTEXT_KEY)
    if isinstance(meta, dict) and isinstance(meta.get("confidence"), (int, float)):
        return float(meta["confidence"])
    return 1.0


def describe(native: NativeEngine, memory: Memory) -> Insight:
    """``memory`` (an insight) with its confidence, sources and staleness."""
    sources = [
        edge.target
        for edge in native.edges(memory.id, direction="out")
        if edge.edge_type == EdgeType.INSIGHT_FROM
    ]
    stale = False
    for source in sources:
        try:
            stale = native.get(source).superseded
        except NotFoundError:
            stale = True
        if stale:
            break
    return Insight(memory, confidence_of(memory), [s.hex() for s in sources], stale)


def list_insights(
    native: NativeEngine, entity_id: str | None, min_confidence: float, include_stale: bool
) -> list[Insight]:
    """The scope's insights at or above ``min_confidence``, oldest first; stale ones only with
    ``include_stale``."""
    described = (describe(native, memory) for memory in insight_memories(native, entity_id))
    return [
        insight
        for insight in described
        if insight.confidence >= min_confidence and (include_stale or not insight.stale)
    ]
