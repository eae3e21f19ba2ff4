"""The evaluated settings: each maps (store, query) to turn indices, best first.

A setting is one function, registered by name in :func:`settings`. First stages are the
engine's own strategies (``similarity``, ``keyword`` = tantivy BM25, ``hybrid`` = dense + BM25
fused by RRF in the core) and, for comparison, a script-side BM25 and RRF.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from hebbs.rerank import Reranker

from .fusion import rrf
from .store import POOL, ConversationStore

Setting = Callable[[ConversationStore, "Query"], list[int]]


@dataclass
class Query:
    """One question and the first-stage rankings, computed once and shared by the settings."""

    text: str
    vector: NDArray[np.float32]
    store: ConversationStore
    _cache: dict[str, list[int]] = field(default_factory=dict)

    def ranking(self, name: str, compute: Callable[[], list[int]]) -> list[int]:
        if name not in self._cache:
            self._cache[name] = compute()
        return self._cache[name]

    @property
    def dense(self) -> list[int]:
        return self.ranking("dense", lambda: self.store.dense(self.vector))

    @property
    def bm25(self) -> list[int]:
        return self.ranking("bm25", lambda: self.store.bm25.search(self.text, POOL))

    @property
    def rrf(self) -> list[int]:
        return self.ranking("rrf", lambda: rrf([self.dense, self.bm25]))

    @property
    def keyword(self) -> list[int]:
        return self.ranking("keyword", lambda: self.store.core("keyword", self.text, self.vector))

    @property
    def hybrid(self) -> list[int]:
        return self.ranking("hybrid", lambda: self.store.core("hybrid", self.text, self.vector))


def _script_rrf(query: Query) -> list[int]:
    return query.rrf


def _core_hybrid(query: Query) -> list[int]:
    return query.hybrid


def reorder(head: list[int], scores: NDArray[np.float32], tail: list[int]) -> list[int]:
    """``head`` sorted by ``scores`` (best first, stable), then ``tail``."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    return [head[i] for i in order] + tail


def late_interaction(top_n: int, first: Callable[[Query], list[int]] = _script_rrf) -> Setting:
    def run(store: ConversationStore, query: Query) -> list[int]:
        ranking = first(query)
        head, tail = ranking[:top_n], ranking[top_n:]
        return reorder(head, store.late_interaction(query.text, head), tail)

    return run


def contextual(
    top_n: int,
    window: int,
    neighbour_weight: float,
    entity_bonus: float,
    time_bonus: float,
    first: Callable[[Query], list[int]] = _script_rrf,
) -> Setting:
    """Late interaction with IDF query weights on the RRF top-N, plus three general signals.

    - The session around a hit: a turn's score gains ``neighbour_weight`` times the best score
      among the turns up to ``window`` before and after it in its session (an answer often
      completes the turn before it; the neighbours are scored with the same re-ranker).
    - Entity names in the cue: when the cue names exactly one stored entity, that entity's
      memories gain ``entity_bonus``.
    - Time expressions in the cue: when it names months and/or years, memories written in a
      named month or the month after it (an event is often told a few weeks later), in a named
      year, gain ``time_bonus``.
    """

    def run(store: ConversationStore, query: Query) -> list[int]:
        ranking = first(query)
        head, tail = ranking[:top_n], ranking[top_n:]
        around = sorted({j for i in head for j in (i, *store.neighbours(i, window))})
        scored = dict(zip(around, store.late_interaction(query.text, around, idf=True).tolist()))
        scores = np.array(
            [
                scored[i]
                + neighbour_weight
                * max((scored[j] for j in store.neighbours(i, window)), default=0.0)
                for i in head
            ],
            dtype=np.float32,
        )
        named = store.named_entities(query.text)
        if entity_bonus and len(named) == 1:
            turns = store.conversation.turns
            scores += entity_bonus * np.array([turns[i].speaker == named[0] for i in head])
        if time_bonus:
            scores += time_bonus * store.in_named_time(query.text, head)
        return reorder(head, scores, tail)

    return run


def idf_late_interaction(top_n: int) -> Setting:
    def run(store: ConversationStore, query: Query) -> list[int]:
        head, tail = query.rrf[:top_n], query.rrf[top_n:]
        return reorder(head, store.late_interaction(query.text, head, idf=True), tail)

    return run


def external(reranker: Reranker, top_n: int) -> Setting:
    def run(store: ConversationStore, query: Query) -> list[int]:
        head, tail = query.rrf[:top_n], query.rrf[top_n:]
        return reorder(head, reranker.rerank(query.text, store.texts(head)), tail)

    return run


#: Re-ranked candidates of the best setting.
BEST_TOP_N = 150
#: Turns before and after a hit that count as its session context, and their weight.
CONTEXT_WINDOW = 2
NEIGHBOUR_WEIGHT = 0.25
#: Score bonus of the memories of the one entity a cue names.
ENTITY_BONUS = 0.05
#: Score bonus of the memories written in the months or years a cue names.
TIME_BONUS = 0.05


def settings(
    top_n: int,
    cross_encoder: Reranker | None = None,
    http: Reranker | None = None,
) -> dict[str, Setting]:
    best = BEST_TOP_N
    table: dict[str, Setting] = {
        "dense (hebbs similarity)": lambda store, query: query.dense,
        "BM25 (script-side baseline)": lambda store, query: query.bm25,
        "RRF dense+BM25 (script-side, k=60)": lambda store, query: query.rrf,
        "keyword (hebbs, tantivy BM25)": lambda store, query: query.keyword,
        "hybrid (hebbs, dense+BM25 RRF k=60)": lambda store, query: query.hybrid,
        f"hybrid (hebbs) + late interaction @{best}": late_interaction(best, _core_hybrid),
        f"RRF + late interaction @{top_n}": late_interaction(top_n),
        f"RRF + late interaction @{best}": late_interaction(best),
        f"RRF + late interaction, IDF query weights @{best}": idf_late_interaction(best),
        f"... + session neighbours ±{CONTEXT_WINDOW} (x{NEIGHBOUR_WEIGHT})": contextual(
            best, CONTEXT_WINDOW, NEIGHBOUR_WEIGHT, 0.0, 0.0
        ),
        f"... + entity named in the cue (+{ENTITY_BONUS})": contextual(
            best, CONTEXT_WINDOW, NEIGHBOUR_WEIGHT, ENTITY_BONUS, 0.0
        ),
        f"... + month/year named in the cue (+{TIME_BONUS}) [best]": contextual(
            best, CONTEXT_WINDOW, NEIGHBOUR_WEIGHT, ENTITY_BONUS, TIME_BONUS
        ),
        "best pipeline on hebbs hybrid (IDF LI, neighbours, entity, time)": contextual(
            best, CONTEXT_WINDOW, NEIGHBOUR_WEIGHT, ENTITY_BONUS, TIME_BONUS, _core_hybrid
        ),
        f"library: hybrid + contextual_rerank @{best} (followed_by neighbours ±1)": (
            lambda store, query: store.library_contextual(query.text, query.vector, best)
        ),
    }
    if cross_encoder is not None:
        table[f"RRF + cross-encoder @{top_n}"] = external(cross_encoder, top_n)
    if http is not None:
        table[f"RRF + HTTP re-ranker @{top_n}"] = external(http, top_n)
    return table
