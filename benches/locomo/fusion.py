"""Reciprocal-rank fusion: ``sum_i w_i / (k + rank_i)`` over ranked lists (ranks from 1)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

#: The RRF constant of Cormack et al. (2009), also the issue's default.
RRF_K = 60


def rrf(
    rankings: Sequence[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[int]:
    """Items of ``rankings`` ordered by fused score (ties by first appearance)."""
    scores: dict[int, float] = defaultdict(float)
    for position, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[position]
        for rank, item in enumerate(ranking, start=1):
            scores[item] += weight / (k + rank)
    return sorted(scores, key=lambda item: -scores[item])
