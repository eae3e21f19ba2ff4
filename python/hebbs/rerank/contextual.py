"""``contextual_rerank``: re-ranking plus three general signals the recall output carries.

The fused top-N and their graph neighbours (from each result's ``expansion_context``: recall
with ``graph_context`` >= 1, and link conversation turns with ``followed_by`` edges) are scored
by the re-ranker in one call. Each candidate then gains:

- ``neighbour_weight`` times the best score of its neighbours: an answer often completes the
  turn next to it;
- ``entity_bonus`` when the cue names exactly one of the candidates' entities (as a whole word)
  and the candidate belongs to it;
- ``time_bonus`` when the cue names months and/or years and the candidate was created in a named
  month (or the month after: events are often told a few weeks later) of a named year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
from numpy.typing import NDArray

from hebbs.types import RecallOutput, RecallResult

from .apply import RerankedRecall, RerankedResult, check_rerank_args
from .constants import DEFAULT_RERANK_TOP_N
from .protocol import MemoryReranker, Reranker

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_WORD = re.compile(r"[a-z]+")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


@dataclass(frozen=True)
class ContextSignals:
    """Weights of the signals added to the re-ranker's scores (0 switches one off)."""

    neighbour_weight: float = 0.25
    entity_bonus: float = 0.05
    time_bonus: float = 0.05


def contextual_rerank(
    query: str,
    output: RecallOutput,
    reranker: Reranker,
    top_n: int = DEFAULT_RERANK_TOP_N,
    signals: ContextSignals = ContextSignals(),
) -> RerankedRecall:
    """Re-orders the first ``top_n`` results of ``output`` by the re-ranker's score plus the
    :class:`ContextSignals`; the rest follow in fused order. See the module docstring."""
    query = check_rerank_args(query, output, reranker, top_n)
    results = output.results
    head = results[:top_n]
    memories = [result.memory for result in head]
    ids = [memory.id for memory in memories]
    texts = {memory.id: memory.content for memory in memories}
    neighbours = [_neighbours(result) for result in head] if signals.neighbour_weight else []
    for found in neighbours:
        for neighbour_id, preview in found:
            texts.setdefault(neighbour_id, preview)
    every = list(texts)
    documents = [texts[memory_id] for memory_id in every]
    if isinstance(reranker, MemoryReranker):
        raw = reranker.rerank_memories(query, every, documents)
    else:
        raw = reranker.rerank(query, documents)
    score_of = dict(zip(every, np.asarray(raw, dtype=np.float32).tolist()))
    scores = np.array([score_of[memory_id] for memory_id in ids], dtype=np.float32)
    if signals.neighbour_weight:
        scores += signals.neighbour_weight * np.array(
            [max((score_of[n] for n, _ in found), default=0.0) for found in neighbours],
            dtype=np.float32,
        )
    if signals.entity_bonus:
        scores += signals.entity_bonus * _named_entity(query, head)
    if signals.time_bonus:
        scores += signals.time_bonus * _in_named_time(query, head)
    order = np.argsort(-scores, kind="stable")
    reranked = [RerankedResult(head[i], float(scores[i]), int(i)) for i in order]
    rest = [RerankedResult(r, None, len(head) + j) for j, r in enumerate(results[top_n:])]
    return RerankedRecall(reranked + rest, list(output.strategy_errors), len(head))


def _neighbours(result: RecallResult) -> list[tuple[bytes, str]]:
    return [(edge.neighbor_id, edge.preview) for edge in result.expansion_context]


def _named_entity(query: str, head: list[RecallResult]) -> NDArray[np.float32]:
    entities = {r.memory.entity_id for r in head if r.memory.entity_id}
    named = [e for e in entities if re.search(rf"\b{re.escape(e)}\b", query)]
    if len(named) != 1:
        return np.zeros(len(head), dtype=np.float32)
    return np.array([r.memory.entity_id == named[0] for r in head], dtype=np.float32)


def _in_named_time(query: str, head: list[RecallResult]) -> NDArray[np.float32]:
    months = {MONTHS[word] for word in _WORD.findall(query.lower()) if word in MONTHS}
    years = {int(year) for year in _YEAR.findall(query)}
    if not months and not years:
        return np.zeros(len(head), dtype=np.float32)
    following = months | {month % 12 + 1 for month in months}
    flags = []
    for result in head:
        created = datetime.fromtimestamp(result.memory.created_at / 1e6, tz=timezone.utc)
        flags.append(
            (not months or created.month in following) and (not years or created.year in years)
        )
    return np.array(flags, dtype=np.float32)
