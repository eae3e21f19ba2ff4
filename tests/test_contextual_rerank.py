"""``contextual_rerank`` on a real store: each signal checked against the plain sum it adds,
with a re-ranker whose scores are known, and end to end with the late-interaction re-ranker."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

import numpy as np
import pytest
from numpy.typing import NDArray

import hebbs
from hebbs.rerank import ContextSignals, LateInteractionReranker, contextual_rerank

SCORES = {
    "Caroline: What did you paint last week?": 0.9,
    "Melanie: A lake at sunrise.": 0.2,
    "Melanie: I went running.": 0.5,
    "Caroline: I adopted a dog in May 2023.": 0.4,
}


class KnownScores:
    """A re-ranker that scores each document by a fixed table (unknown texts score 0)."""

    def rerank(self, query: str, documents: Sequence[str]) -> NDArray[np.float32]:
        return np.array([SCORES.get(text, 0.0) for text in documents], dtype=np.float32)


def stamp(year: int, month: int) -> datetime:
    return datetime(year, month, 10, tzinfo=timezone.utc)


@pytest.fixture
def chat(mem: hebbs.Hebbs) -> dict[str, hebbs.Memory]:
    question = mem.remember(
        "Caroline: What did you paint last week?",
        entity_id="Caroline",
        created_at=stamp(2023, 3),
    )
    answer = mem.remember(
        "Melanie: A lake at sunrise.",
        entity_id="Melanie",
        created_at=stamp(2023, 3),
        edges=[hebbs.Edge(question.id, hebbs.EdgeType.FOLLOWED_BY)],
    )
    running = mem.remember(
        "Melanie: I went running.", entity_id="Melanie", created_at=stamp(2023, 1)
    )
    dog = mem.remember(
        "Caroline: I adopted a dog in May 2023.", entity_id="Caroline", created_at=stamp(2023, 6)
    )
    return {"question": question, "answer": answer, "running": running, "dog": dog}


def scores(mem: hebbs.Hebbs, cue: str, signals: ContextSignals) -> dict[str, float]:
    output = mem.recall(cue, top_k=10, graph_context=2)
    reranked = contextual_rerank(cue, output, KnownScores(), top_n=10, signals=signals)
    return {
        r.memory.content: r.rerank_score for r in reranked.results if r.rerank_score is not None
    }


def test_neighbours_lift_the_turn_next_to_a_strong_one(
    mem: hebbs.Hebbs, chat: dict[str, hebbs.Memory]
) -> None:
    only = ContextSignals(neighbour_weight=0.25, entity_bonus=0.0, time_bonus=0.0)
    got = scores(mem, "what did Melanie paint", only)
    assert got["Melanie: A lake at sunrise."] == pytest.approx(0.2 + 0.25 * 0.9)
    assert got["Caroline: What did you paint last week?"] == pytest.approx(0.9 + 0.25 * 0.2)
    assert got["Melanie: I went running."] == pytest.approx(0.5)


def test_entity_and_time_named_in_the_cue(mem: hebbs.Hebbs, chat: dict[str, hebbs.Memory]) -> None:
    entity = ContextSignals(neighbour_weight=0.0, entity_bonus=0.05, time_bonus=0.0)
    got = scores(mem, "what did Caroline adopt", entity)
    assert got["Caroline: I adopted a dog in May 2023."] == pytest.approx(0.45)
    assert got["Melanie: I went running."] == pytest.approx(0.5)
    time = ContextSignals(neighbour_weight=0.0, entity_bonus=0.0, time_bonus=0.05)
    got = scores(mem, "what happened in May 2023", time)
    assert got["Caroline: I adopted a dog in May 2023."] == pytest.approx(0.45), "June follows May"
    assert got["Melanie: I went running."] == pytest.approx(0.5)


def test_end_to_end_with_late_interaction(mem: hebbs.Hebbs, chat: dict[str, hebbs.Memory]) -> None:
    cue = "What did Melanie paint?"
    output = mem.recall(cue, strategies=["hybrid"], graph_context=2)
    reranked = contextual_rerank(cue, output, LateInteractionReranker(embedder=mem.embedder))
    top_two = {r.memory.id for r in reranked.results[:2]}
    assert chat["answer"].id in top_two
    with pytest.raises(hebbs.InvalidInputError) as caught:
        contextual_rerank(cue, output, KnownScores(), top_n=0)
    assert caught.value.field == "top_n"
