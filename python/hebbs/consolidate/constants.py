"""Named defaults of consolidation (``docs/reflection.md`` quotes them)."""

from __future__ import annotations

from typing import Final

#: Cosine at or above which ``remember(dedup=True)`` treats a memory of the same entity as the
#: same memory (when the new content also adds no word to it).
DEFAULT_DEDUP_THRESHOLD: Final = 0.9
#: Nearest memories ``remember(dedup=True)`` compares the new content with.
DEDUP_CANDIDATES: Final = 5
#: Cosine at or above which two memories of one entity can be a contradiction.
DEFAULT_CONTRADICTION_SIMILARITY: Final = 0.7
#: Neighbours of each memory ``find_contradictions`` looks at.
CONTRADICTION_NEIGHBOURS: Final = 5
#: Most memories ``find_contradictions`` reads (oldest first) and most pairs it returns.
DEFAULT_CONTRADICTION_SCAN: Final = 2000
DEFAULT_CONTRADICTION_LIMIT: Final = 100
#: How a confirmed contradiction is recorded.
RESOLUTIONS: Final = ("link", "revise")
