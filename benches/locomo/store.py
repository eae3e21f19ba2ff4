"""One hebbs store per conversation (in a temp dir) and what the settings ask of it.

Every turn is remembered with ``remember_many`` in batches: content ``Speaker: text``, the
session date as ``created_at``, the speaker as ``entity_id``, the turn id in the context. The
late-interaction cache is filled at write time, as an application would after
``remember_many``; both late-interaction re-rankers (uniform and IDF query weights) share it.
Dense search is hebbs ``similarity`` ranked by relevance alone (the other composite weights
set to 0), so recency and the access counts that each recall bumps do not move the ranking.
"""

from __future__ import annotations

import calendar
import re
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import hebbs
from hebbs.embedder import OnnxEmbedder
from hebbs.rerank import LateInteractionReranker, contextual_rerank

from .bm25 import Bm25
from .data import Conversation

#: Memories per remember_many call.
WRITE_BATCH = 64
#: HNSW search breadth for the evaluation (the store holds under 1,000 memories).
EF_SEARCH = 256
#: Candidates each first-stage search returns (the fused list holds up to twice as many).
POOL = 200
#: Month names (lower case) to their numbers, for time expressions in a cue.
MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_WORD = re.compile(r"[a-z]+")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
RELEVANCE_ONLY = hebbs.ScoringWeights(
    w_relevance=1.0, w_recency=0.0, w_importance=0.0, w_reinforcement=0.0
)


@dataclass
class ConversationStore:
    conversation: Conversation
    engine: hebbs.Hebbs
    ids: list[bytes]
    reranker: LateInteractionReranker
    idf_reranker: LateInteractionReranker
    index_of: dict[bytes, int] = field(init=False)

    def __post_init__(self) -> None:
        self.index_of = {memory_id: i for i, memory_id in enumerate(self.ids)}

    @cached_property
    def bm25(self) -> Bm25:
        return Bm25([turn.content for turn in self.conversation.turns])

    @cached_property
    def entities(self) -> tuple[str, ...]:
        return self.conversation.speakers

    def texts(self, indices: list[int]) -> list[str]:
        return [self.conversation.turns[i].content for i in indices]

    def dense(
        self, cue_vector: NDArray[np.float32], top_k: int = POOL, entity_id: str | None = None
    ) -> list[int]:
        output = self.engine.recall(
            None,
            top_k=top_k,
            cue_embedding=cue_vector,
            ef_search=EF_SEARCH,
            scoring_weights=RELEVANCE_ONLY,
            entity_id=entity_id,
        )
        return [self.index_of[result.memory.id] for result in output.results]

    def core(self, strategy: str, text: str, cue_vector: NDArray[np.float32]) -> list[int]:
        """The engine's ``keyword`` (tantivy BM25) or ``hybrid`` (dense + BM25, RRF) ranking."""
        output = self.engine.recall(
            text,
            strategies=[strategy],
            top_k=POOL,
            cue_embedding=cue_vector,
            ef_search=EF_SEARCH,
            scoring_weights=RELEVANCE_ONLY,
        )
        return [self.index_of[result.memory.id] for result in output.results]

    def library_contextual(
        self, text: str, cue_vector: NDArray[np.float32], top_n: int
    ) -> list[int]:
        """The library path end to end: the engine's hybrid recall with each result's graph
        neighbours attached, then :func:`hebbs.rerank.contextual_rerank` (IDF late interaction,
        neighbours, entity and time named in the cue)."""
        output = self.engine.recall(
            text,
            strategies=["hybrid"],
            top_k=POOL,
            cue_embedding=cue_vector,
            ef_search=EF_SEARCH,
            scoring_weights=RELEVANCE_ONLY,
            graph_context=2,
        )
        reranked = contextual_rerank(text, output, self.idf_reranker, top_n)
        return [self.index_of[result.memory.id] for result in reranked.results]

    def late_interaction(
        self, query: str, indices: list[int], *, idf: bool = False
    ) -> NDArray[np.float32]:
        reranker = self.idf_reranker if idf else self.reranker
        return reranker.rerank_memories(query, [self.ids[i] for i in indices], self.texts(indices))

    def neighbours(self, index: int, window: int) -> list[int]:
        """The turns up to ``window`` before and after turn ``index`` in its session."""
        turns = self.conversation.turns
        session = turns[index].session
        return [
            j
            for j in range(max(index - window, 0), min(index + window + 1, len(turns)))
            if j != index and turns[j].session == session
        ]

    def in_named_time(self, text: str, indices: list[int]) -> NDArray[np.bool_]:
        """Whether each memory was written in a month the text names (or the month after) and in
        a year it names; all False when it names neither."""
        words = _WORD.findall(text.lower())
        months = {MONTHS[word] for word in words if word in MONTHS}
        years = {int(year) for year in _YEAR.findall(text)}
        if not months and not years:
            return np.zeros(len(indices), dtype=bool)
        following = months | {month % 12 + 1 for month in months}
        turns = self.conversation.turns
        return np.array(
            [
                (not months or turns[i].created_at.month in following)
                and (not years or turns[i].created_at.year in years)
                for i in indices
            ],
            dtype=bool,
        )

    def named_entities(self, text: str) -> list[str]:
        """The stored entity ids (speakers) that ``text`` names as whole words."""
        return [name for name in self.entities if re.search(rf"\b{re.escape(name)}\b", text)]


def open_store(
    conversation: Conversation,
    embedder: OnnxEmbedder,
    reranker: LateInteractionReranker,
    idf_reranker: LateInteractionReranker,
    root: Path,
) -> ConversationStore:
    engine = hebbs.Hebbs.open(
        tempfile.mkdtemp(prefix=f"{conversation.sample_id}-", dir=root), embedder=embedder
    )
    ids: list[bytes] = []
    turns = conversation.turns
    for start in range(0, len(turns), WRITE_BATCH):
        batch = turns[start : start + WRITE_BATCH]
        stored = engine.remember_many(
            {
                "content": turn.content,
                "created_at": turn.created_at,
                "entity_id": turn.speaker,
                "context": {"dia_id": turn.dia_id, "session": turn.session},
            }
            for turn in batch
        )
        batch_ids = [memory.id for memory in stored]
        reranker.index_memories(batch_ids, [turn.content for turn in batch])
        ids.extend(batch_ids)
    for i in range(1, len(turns)):
        if turns[i].session == turns[i - 1].session:
            engine.add_edges(ids[i], [hebbs.Edge(ids[i - 1], hebbs.EdgeType.FOLLOWED_BY)])
    return ConversationStore(conversation, engine, ids, reranker, idf_reranker)
