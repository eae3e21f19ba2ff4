"""``find_contradictions``: candidate pairs for an LLM or an agent to judge, and
``confirm_contradiction``: what a confirmed one does.

Candidates: the scope's live memories (episodes, revisions, propositions; oldest first, at
most ``DEFAULT_CONTRADICTION_SCAN``), each with its ``CONTRADICTION_NEIGHBOURS`` nearest of the
same entity (``NativeEngine.nearest``, no access recorded); a pair whose cosine reaches the
threshold and whose texts look opposed (:func:`hebbs.consolidate.text.opposition`: one negated,
an antonym pair, the same words with other numbers) is a candidate, reported once, older first.

Confirmed, a pair is either linked (``resolution="link"``: a ``contradicts`` edge from the
newer memory to the older) or folded into the older memory's lineage (``"revise"``: a revision
of the older memory with the newer one's content, importance and context, after which the newer
memory is forgotten, so the lineage holds both statements in order and recall returns the
revision only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hebbs._native import Edge, EdgeType, Memory, MemoryKind, NativeEngine

from .constants import CONTRADICTION_NEIGHBOURS
from .text import opposition

#: The kinds that state facts that can contradict each other.
STATEMENT_KINDS = frozenset({MemoryKind.EPISODE, MemoryKind.REVISION, MemoryKind.PROPOSITION})


@dataclass(frozen=True)
class ContradictionCandidate:
    """Two memories of one entity that are similar and look opposed: ``older`` was created
    first; ``reason`` is ``negation``, ``antonym:x/y`` or ``numbers``."""

    older: Memory
    newer: Memory
    similarity: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "older": self.older.to_dict(),
            "newer": self.newer.to_dict(),
            "similarity": self.similarity,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContradictionCandidate:
        return cls(
            Memory.from_dict(data["older"]),
            Memory.from_dict(data["newer"]),
            float(data["similarity"]),
            str(data["reason"]),
        )


def _statements(native: NativeEngine, entity_id: str | None, scan: int) -> list[Memory]:
    found: list[Memory] = []
    cursor: bytes | None = None
    while len(found) < scan:
        page = native.list_memories({"entity_id": entity_id, "cursor": cursor, "limit": 1000})
        found.extend(m for m in page.memories if m.kind in STATEMENT_KINDS)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    return found[:scan]


def find(
    native: NativeEngine, entity_id: str | None, threshold: float, scan: int, limit: int
) -> list[ContradictionCandidate]:
    """The candidate pairs of the scope (see the module docs), most similar first."""
    candidates: dict[tuple[bytes, bytes], ContradictionCandidate] = {}
    for memory in _statements(native, entity_id, scan):
        vector = native.get(memory.id, include_embedding=True).embedding
        if vector is None:
            continue
        hits = native.nearest(vector, CONTRADICTION_NEIGHBOURS + 1, entity_id=memory.entity_id)
        for other_id, similarity in hits:
            if other_id == memory.id or similarity < threshold:
                continue
            other = native.get(other_id)
            if (
                other.superseded
                or other.kind not in STATEMENT_KINDS
                or other.entity_id != memory.entity_id
            ):
                continue
            older, newer = sorted((memory, other), key=lambda m: (m.created_at, m.id))
            key = (older.id, newer.id)
            reason = opposition(older.content, newer.content)
            if reason is not None and key not in candidates:
                candidates[key] = ContradictionCandidate(older, newer, float(similarity), reason)
    ranked = sorted(candidates.values(), key=lambda c: -c.similarity)
    return ranked[:limit]


def link(native: NativeEngine, older: bytes | str, newer: bytes | str) -> Memory:
    """``newer`` with a ``contradicts`` edge to ``older``."""
    native.add_edges(newer, [Edge(older, EdgeType.CONTRADICTS)])
    return native.get(newer)
