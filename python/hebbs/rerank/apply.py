"""``rerank_recall``: applies any :class:`Reranker` to the fused top-N of a ``RecallOutput``.

The first ``top_n`` results are scored by the re-ranker and re-ordered by that score (ties keep
their fused order); the rest follow in their fused order with no re-rank score. Each result
keeps the engine's :class:`~hebbs.types.RecallResult` (memory, composite score, strategy
details) and shows its re-rank score and its rank before re-ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hebbs._inputs import invalid
from hebbs.errors import RerankError
from hebbs.types import Memory, RecallOutput, RecallResult, StrategyError

from .constants import DEFAULT_RERANK_TOP_N, MAX_RERANK_TOP_N
from .protocol import MemoryReranker, Reranker, check_query


@dataclass(frozen=True)
class RerankedResult:
    """One recall result after re-ranking.

    ``rerank_score`` is the re-ranker's score (None past the re-ranked top-N);
    ``fused_rank`` is the 0-based position the result had in the recall output.
    """

    result: RecallResult
    rerank_score: float | None
    fused_rank: int

    @property
    def memory(self) -> Memory:
        """The recalled memory."""
        return self.result.memory

    @property
    def score(self) -> float:
        """The engine's composite score, from before re-ranking."""
        return self.result.score


@dataclass(frozen=True)
class RerankedRecall:
    """A recall output re-ordered by a re-ranker; ``reranked`` results carry a score."""

    results: list[RerankedResult]
    strategy_errors: list[StrategyError]
    reranked: int

    def __len__(self) -> int:
        return len(self.results)


def check_rerank_args(query: str, output: object, reranker: object, top_n: object) -> str:
    """Checks the arguments shared by the re-ranking functions; returns the stripped query."""
    query = check_query(query)
    if not isinstance(output, RecallOutput):
        raise invalid("output", f"must be a RecallOutput, got {type(output).__name__}")
    if not isinstance(reranker, Reranker):
        raise invalid("reranker", f"{type(reranker).__name__} has no rerank(query, documents)")
    if isinstance(top_n, bool) or not isinstance(top_n, int) or not 1 <= top_n <= MAX_RERANK_TOP_N:
        raise invalid("top_n", f"must be an int in 1..{MAX_RERANK_TOP_N}, got {top_n!r}")
    return query


def rerank_recall(
    query: str,
    output: RecallOutput,
    reranker: Reranker,
    top_n: int = DEFAULT_RERANK_TOP_N,
) -> RerankedRecall:
    """Re-orders the first ``top_n`` results of ``output`` by ``reranker``'s scores for
    ``query`` (the cue of the recall). A :class:`MemoryReranker` is given the memory ids too,
    so it can reuse cached work. The re-ranker's errors propagate
    (:class:`~hebbs.errors.RerankError` for a failing model or service)."""
    query = check_rerank_args(query, output, reranker, top_n)
    results = output.results
    head = results[:top_n]
    memories = [result.memory for result in head]  # each access builds a new Memory object
    documents = [memory.content for memory in memories]
    if isinstance(reranker, MemoryReranker):
        scores = reranker.rerank_memories(query, [memory.id for memory in memories], documents)
    else:
        scores = reranker.rerank(query, documents)
    scores = np.asarray(scores, dtype=np.float32)
    if scores.shape != (len(head),):
        raise RerankError(f"the re-ranker returned shape {scores.shape} for {len(head)} documents")
    order = np.argsort(-scores, kind="stable")
    reranked = [RerankedResult(head[i], float(scores[i]), int(i)) for i in order]
    rest = [RerankedResult(r, None, len(head) + j) for j, r in enumerate(results[top_n:])]
    return RerankedRecall(reranked + rest, list(output.strategy_errors), len(head))
