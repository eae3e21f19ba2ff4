"""Consolidation: near-duplicates and contradictions.

``remember(..., dedup=True)`` returns (and reinforces) an existing memory instead of storing a
near-duplicate (:mod:`.dedup`); ``find_contradictions`` surfaces candidate pairs and
``confirm_contradiction`` records a confirmed one (:mod:`.contradictions`), both on the cheap
text heuristics of :mod:`.text`.
"""

from .contradictions import ContradictionCandidate

__all__ = ["ContradictionCandidate"]
