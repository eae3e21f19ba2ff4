"""Reading what a reflect works on: the scope's memories after its cursor (episodes, live
revisions and indexed propositions, oldest first, at most ``max_memories``), their embeddings,
and the clusters they make, each as a :class:`~.prompts.ClusterView` with its members most
central first and the existing insights nearest to it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from hebbs._native import MAX_LIST_PAGE, Memory, MemoryKind, NativeEngine

from .constants import MAX_PROMPT_INSIGHTS, MAX_PROMPT_MEMORIES
from .kmeans import Clustering, cluster, normalise
from .prompts import ClusterView, ExistingInsight, Member
from .state import Cursor, read_cursor

#: The kinds a reflect reads: statements (what happened, what documents say), not what was
#: derived from them (insights) nor whole documents.
REFLECTED_KINDS = frozenset({MemoryKind.EPISODE, MemoryKind.REVISION, MemoryKind.PROPOSITION})


@dataclass(frozen=True)
class Batch:
    """The memories after the cursor, their unit embeddings, and where the cursor goes next."""

    memories: list[Memory]
    vectors: NDArray[np.float32]
    next_cursor: Cursor | None


def gather(
    native: NativeEngine, entity_id: str | None, since: int | None, max_memories: int
) -> Batch:
    """The scope's unreflected memories (see the module docs)."""
    start = read_cursor(native, entity_id)
    cursor: str | None = start.id if start is not None else None
    picked: list[Memory] = []
    last: Memory | None = None
    while len(picked) < max_memories:
        page = native.list_memories(
            {"entity_id": entity_id, "cursor": cursor, "limit": MAX_LIST_PAGE}
        )
        for memory in page.memories:
            last = memory
            if memory.kind in REFLECTED_KINDS and (since is None or memory.created_at >= since):
                picked.append(memory)
                if len(picked) >= max_memories:
                    break
        if page.next_cursor is None or len(picked) >= max_memories:
            break
        cursor = page.next_cursor.hex()
    vectors = [native.get(memory.id, include_embedding=True).embedding for memory in picked]
    matrix = (
        normalise(np.stack([v for v in vectors if v is not None]))
        if picked
        else np.zeros((0, 0), dtype=np.float32)
    )
    next_cursor = Cursor(last.id_hex, last.created_at) if last is not None else None
    return Batch(picked, matrix, next_cursor)


def cluster_views(
    batch: Batch,
    existing: list[tuple[Memory, NDArray[np.float32]]],
    *,
    min_size: int,
    label_ids: bool = False,
) -> tuple[Clustering, list[ClusterView]]:
    """The clustering of ``batch`` and a view of each cluster of at least ``min_size``
    memories. Members are labelled ``m1``, ``m2``, ... (or by their ids with ``label_ids``);
    existing insights ``i1``, ...; ``existing`` pairs each insight with its unit embedding."""
    found = cluster(batch.vectors, min_size=min_size)
    views = []
    insight_matrix = (
        np.stack([vector for _, vector in existing]) if existing else np.zeros((0, 0), np.float32)
    )
    for index in range(found.k):
        rows = np.flatnonzero(found.labels == index)
        if rows.size < min_size:
            continue
        centroid = found.centroids[index]
        similarity = batch.vectors[rows] @ centroid
        order = rows[np.argsort(-similarity, kind="stable")][:MAX_PROMPT_MEMORIES]
        members = [
            Member(
                label=batch.memories[i].id_hex if label_ids else f"m{rank + 1}",
                id=batch.memories[i].id_hex,
                content=batch.memories[i].content,
                importance=batch.memories[i].importance,
                created_at=batch.memories[i].created_at,
            )
            for rank, i in enumerate(order)
        ]
        near: list[ExistingInsight] = []
        if existing:
            scores = insight_matrix @ centroid
            for rank, j in enumerate(np.argsort(-scores)[:MAX_PROMPT_INSIGHTS]):
                memory = existing[j][0]
                near.append(
                    ExistingInsight(
                        label=memory.id_hex if label_ids else f"i{rank + 1}",
                        id=memory.id_hex,
                        content=memory.content,
                        similarity=float(scores[j]),
                    )
                )
        views.append(ClusterView(index, members, float(similarity.mean()), near))
    return found, views
