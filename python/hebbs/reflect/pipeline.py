"""``reflect``: the scope's new memories clustered, each cluster of at least
``min_cluster_size`` proposed on and validated (clusters concurrently, on
``DEFAULT_REFLECT_WORKERS`` threads; the provider's own concurrency limit still applies), the
accepted insights stored in one atomic write as ``insight`` memories with an ``insight_from``
edge to every source, then the scope's cursor moved past what was read.

The importance of an insight is
``w_s * mean(source importance) + w_c * confidence + w_n * min(1, log2(1 + n) / log2(1 + cap))``
with ``(w_s, w_c, w_n) = IMPORTANCE_WEIGHTS`` (0.5, 0.3, 0.2), n its sources and
``cap = INSIGHT_SUPPORT_CAP`` (32): an insight matters as much as what it summarises, more when
it is sure and widely supported.

If a cluster's provider calls fail (:class:`~hebbs.errors.LLMError`), the other clusters'
insights are stored, the cursor stays where it was (the next reflect reads the same memories
again; its validation merges what is already known), and the first error is raised.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hebbs._native import Edge, EdgeType, Memory, MemoryKind, NativeEngine
from hebbs.errors import LLMError
from hebbs.llm import LLMProvider

from .constants import (
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_WORKERS,
    IMPORTANCE_WEIGHTS,
    INSIGHT_CONTEXT_KEY,
    INSIGHT_SUPPORT_CAP,
)
from .gather import Batch, cluster_views, gather
from .insights import insight_memories, with_vectors
from .prompts import ClusterView, propose_task, validate_task
from .results import ReflectResult
from .schemas import Proposals, Verdicts
from .state import advance_cursor

if TYPE_CHECKING:
    from hebbs.engine import Hebbs


@dataclass(frozen=True)
class NewInsight:
    """An insight to store: its content, confidence and source ids (hex)."""

    content: str
    confidence: float
    sources: list[str]


@dataclass(frozen=True)
class Merge:
    """Sources to add to an existing insight (a ``merged`` verdict)."""

    insight: str
    sources: list[str]


def importance(source_importances: list[float], confidence: float) -> float:
    """The importance of an insight (formula in the module docs)."""
    w_sources, w_confidence, w_support = IMPORTANCE_WEIGHTS
    n = len(source_importances)
    mean = sum(source_importances) / n if n else 0.0
    support = min(1.0, math.log2(1 + n) / math.log2(1 + INSIGHT_SUPPORT_CAP))
    return min(1.0, max(0.0, w_sources * mean + w_confidence * confidence + w_support * support))


def think(
    provider: LLMProvider, view: ClusterView, min_confidence: float
) -> list[NewInsight | Merge]:
    """The proposal and validation calls of one cluster, turned into decisions. Labels the
    model invents are dropped; a proposal left without sources, without a verdict, rejected or
    below ``min_confidence`` is not stored."""
    shown = view.members
    ids = view.label_to_id()
    proposals = provider.complete(propose_task(view, shown), Proposals).insights
    kept: list[dict[str, Any]] = []
    for offered in proposals:
        sources = list(dict.fromkeys(label for label in offered.sources if label in ids))
        if sources:
            kept.append(
                {"content": offered.content, "sources": sources, "confidence": offered.confidence}
            )
    if not kept:
        return []
    verdicts = provider.complete(validate_task(view, shown, kept), Verdicts).verdicts
    existing = {insight.label: insight.id for insight in view.existing}
    decisions: list[NewInsight | Merge] = []
    for verdict in {v.index: v for v in verdicts if v.index < len(kept)}.values():
        proposal = kept[verdict.index]
        sources = [ids[label] for label in proposal["sources"]]
        confidence = (
            verdict.confidence if verdict.confidence is not None else proposal["confidence"]
        )
        if verdict.verdict == "merged" and verdict.merge_with in existing:
            decisions.append(Merge(existing[verdict.merge_with], sources))
        elif verdict.verdict in ("accepted", "revised") and confidence >= min_confidence:
            content = verdict.content if verdict.verdict == "revised" and verdict.content else None
            decisions.append(NewInsight(content or proposal["content"], confidence, sources))
    return decisions


def store(
    engine: Hebbs,
    entity_id: str | None,
    insights: Sequence[NewInsight],
    members: Mapping[str, Memory],
    merges: Sequence[Merge] = (),
) -> list[Memory]:
    """Stores ``insights`` in one atomic write (and adds the ``merges``' edges); returns them."""
    native: NativeEngine = engine._native
    for merge in merges:
        native.add_edges(merge.insight, [Edge(s, EdgeType.INSIGHT_FROM) for s in merge.sources])
    items = []
    for insight in insights:
        sources = [members[s] for s in insight.sources]
        entities = {m.entity_id for m in sources}
        items.append(
            {
                "content": insight.content,
                "importance": importance([m.importance for m in sources], insight.confidence),
                "context": {
                    INSIGHT_CONTEXT_KEY: {
                        "confidence": insight.confidence,
                        "source_count": len(sources),
                    }
                },
                "entity_id": entity_id if entity_id is not None else _single(entities),
                "edges": [Edge(m.id, EdgeType.INSIGHT_FROM, insight.confidence) for m in sources],
                "kind": MemoryKind.INSIGHT,
            }
        )
    return engine.remember_many(items) if items else []


def _single(values: set[str | None]) -> str | None:
    return next(iter(values)) if len(values) == 1 else None


def reflect(
    engine: Hebbs,
    provider: LLMProvider,
    *,
    entity_id: str | None,
    since: int | None,
    max_memories: int,
    min_cluster_size: int,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> ReflectResult:
    """One reflection pass over the scope (see the module docs)."""
    native: NativeEngine = engine._native
    batch: Batch = gather(native, entity_id, since, max_memories)
    if len(batch.memories) < min_cluster_size:
        if batch.next_cursor is not None and not batch.memories:
            advance_cursor(native, entity_id, batch.next_cursor)
        return ReflectResult(0, 0, 0, len(batch.memories))
    existing = with_vectors(native, insight_memories(native, entity_id))
    found, views = cluster_views(batch, existing, min_size=min_cluster_size)
    with ThreadPoolExecutor(DEFAULT_REFLECT_WORKERS, thread_name_prefix="hebbs-reflect") as pool:
        futures = [pool.submit(think, provider, view, min_confidence) for view in views]
    outcomes: list[list[NewInsight | Merge] | LLMError] = []
    for future in futures:
        try:
            outcomes.append(future.result())
        except LLMError as error:
            outcomes.append(error)
    decisions = [d for outcome in outcomes if not isinstance(outcome, LLMError) for d in outcome]
    by_id = {memory.id_hex: memory for memory in batch.memories}
    stored = store(
        engine,
        entity_id,
        [d for d in decisions if isinstance(d, NewInsight)],
        by_id,
        [d for d in decisions if isinstance(d, Merge)],
    )
    errors = [outcome for outcome in outcomes if isinstance(outcome, LLMError)]
    if errors:
        first = errors[0]
        raise LLMError(
            f"{len(errors)} of {len(views)} clusters failed ({len(stored)} insights stored, "
            f"the cursor left in place): {first}",
            provider=first.provider,
            status=first.status,
        ) from first
    if batch.next_cursor is not None:
        advance_cursor(native, entity_id, batch.next_cursor)
    processed = len(views)
    return ReflectResult(len(stored), found.k, processed, len(batch.memories))
