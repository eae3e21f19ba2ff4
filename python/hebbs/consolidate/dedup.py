"""``remember(..., dedup=True)``: before storing, the new memory's nearest memories of the same
entity (``DEDUP_CANDIDATES``, by ``NativeEngine.nearest``, which records no access) are
compared with it; the first live episode, revision or proposition whose cosine reaches
``dedup_threshold`` and whose content already holds every word and number of the new content is
returned instead, reinforced (one access recorded, as a recall returning it would), and nothing
is stored. "Acme wants 10% off" is a duplicate of "Acme asked for a 10% discount off the
annual plan"; "Acme wants 15% off" is not (a number it adds)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from hebbs._native import Memory, MemoryKind, NativeEngine

from .constants import DEDUP_CANDIDATES
from .text import adds_nothing

#: The kinds a new memory can duplicate.
DEDUP_KINDS = frozenset({MemoryKind.EPISODE, MemoryKind.REVISION, MemoryKind.PROPOSITION})


def duplicate_of(
    native: NativeEngine,
    vector: NDArray[np.float32],
    content: str,
    entity_id: str | None,
    threshold: float,
) -> Memory | None:
    """The memory ``content`` duplicates (see the module docs), reinforced, or None."""
    for memory_id, similarity in native.nearest(vector, DEDUP_CANDIDATES, entity_id=entity_id):
        if similarity < threshold:
            break
        memory = native.get(memory_id)
        if (
            memory.superseded
            or memory.kind not in DEDUP_KINDS
            or memory.entity_id != entity_id
            or not adds_nothing(content, memory.content)
        ):
            continue
        native.reinforce([memory_id])
        return native.get(memory_id)
    return None
