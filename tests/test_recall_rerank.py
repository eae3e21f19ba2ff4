"""The late-interaction re-rank stage inside ``recall``: ``quality="best"`` and ``rerank=`` on
the embedded store and on a real server; token vectors that ``remember`` stores from its own
embedding pass (equal to what ``index_memories`` computes, replaced by ``revise``, off with
``token_vectors=False``); the core's max-sim checked against numpy's ``maxsim_scores``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hebbs
from hebbs.embedder import Embedder
from hebbs.embedder.token_vectors import dequantize_int8, quantize_int8
from hebbs.errors import InvalidInputError
from hebbs.rerank import LateInteractionReranker, TokenVectorCache, maxsim_scores
from remote import Store

CONVERSATION = [
    ("Caroline", "Caroline: I went to the LGBTQ support group yesterday and it was powerful."),
    ("Melanie", "Melanie: That's great! What happened there?"),
    ("Caroline", "Caroline: People shared their transgender stories, I felt accepted."),
    ("Melanie", "Melanie: I painted a lake sunrise last week, it calms me."),
    ("Caroline", "Caroline: I'm thinking about adoption agencies for the future."),
    ("Melanie", "Melanie: My kids love the beach; we went camping in June."),
]
CUE = "When did Caroline go to the LGBTQ support group?"
RELEVANCE_ONLY = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}


def remember_conversation(
    store: Store, session_id: str | None = "conv-1:session-1"
) -> list[hebbs.Memory]:
    return store.remember_many(
        {
            "content": text,
            "entity_id": speaker,
            "created_at": 1_683_504_000_000_000 + i,
            "session_id": session_id,
        }
        for i, (speaker, text) in enumerate(CONVERSATION)
    )


def test_quality_best_reranks_inside_recall(store: Store) -> None:
    memories = remember_conversation(store)
    output = store.recall(CUE, quality="best")
    assert output.results[0].memory.id == memories[0].id
    for result in output.results:
        assert set(result.scores) >= {"late_interaction", "rerank", "rrf", "final"}
        detail = result.strategy_details[0]
        assert detail.strategy == "hybrid"
        assert detail.rerank_score == result.scores["rerank"]
    ranks = [r.scores["rerank"] for r in output.results]
    assert ranks == sorted(ranks, reverse=True)


def test_rerank_options_reorder_only_the_head(store: Store) -> None:
    # Memories in no conversation: no neighbour joins the head.
    remember_conversation(store, session_id=None)
    weights = RELEVANCE_ONLY
    plain = store.recall(CUE, strategies=["hybrid"], top_k=6, scoring_weights=weights)
    output = store.recall(
        CUE,
        strategies=["hybrid"],
        top_k=6,
        scoring_weights=weights,
        rerank="late_interaction",
        rerank_top_n=3,
    )
    head = {r.memory.id for r in plain.results[:3]}
    assert {r.memory.id for r in output.results[:3]} == head
    assert {r.memory.id for r in output.results[3:]} == {r.memory.id for r in plain.results[3:]}
    assert all("rerank" in r.scores for r in output.results[:3])
    assert not any("rerank" in r.scores for r in output.results[3:])
    # The tail keeps its first-stage relevance capped at the weakest the stage gave; ties of
    # the composite score go to the better first-stage relevance, then the newest memory.
    first_stage = {r.memory.id: r.scores["relevance"] for r in plain.results}
    weakest = min(r.scores["relevance"] for r in output.results[:3])
    for result in output.results[3:]:
        assert result.scores["relevance"] == pytest.approx(
            min(first_stage[result.memory.id], weakest)
        )
        assert result.score == pytest.approx(result.scores["relevance"])
    tail = [(-r.score, -first_stage[r.memory.id], -r.memory.created_at) for r in output.results[3:]]
    assert tail == sorted(tail)
    assert [r.memory.id for r in output.results[3:]] == [r.memory.id for r in plain.results[3:]]


def test_conversation_neighbours_of_the_best_head_candidates_join_the_head(store: Store) -> None:
    memories = remember_conversation(store)
    order = [m.id for m in memories]
    output = store.recall(
        CUE,
        strategies=["hybrid"],
        top_k=6,
        scoring_weights=RELEVANCE_ONLY,
        rerank="late_interaction",
        rerank_top_n=1,
    )
    # The head of one and the turns within two of it in its conversation are re-scored, and
    # lead the results; the rest follow unscored.
    scored = [r for r in output.results if "rerank" in r.scores]
    assert len(scored) > 1
    places = sorted(order.index(r.memory.id) for r in scored)
    assert places[-1] - places[0] <= 4
    assert [r.memory.id for r in output.results[: len(scored)]] == [r.memory.id for r in scored]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"rerank": "colbert"}, "rerank"),
        ({"rerank": "late_interaction", "rerank_top_n": 0}, "rerank_top_n"),
        ({"quality": "good"}, "quality"),
        ({"rerank": "late_interaction", "cue_token_vectors": [1.0, 2.0]}, "cue_token_vectors"),
    ],
)
def test_bad_rerank_options_name_their_field(
    store: Store, arguments: dict[str, object], field: str
) -> None:
    remember_conversation(store)
    with pytest.raises(InvalidInputError) as raised:
        store.recall(CUE, strategies=["hybrid"], **arguments)  # type: ignore[arg-type]
    assert raised.value.field == field


@pytest.mark.embedded_only("reads the stored token vectors and the embedder in process")
def test_remember_stores_what_index_memories_computes(mem: hebbs.Hebbs, embedder: Embedder) -> None:
    memories = remember_conversation(mem)
    ids = [m.id for m in memories]
    stored = mem.get_token_vectors(ids)
    cache = TokenVectorCache()
    reranker = LateInteractionReranker(embedder, cache=cache)  # type: ignore[arg-type]
    reranker.index_memories(ids, [m.content for m in memories])
    for memory_id, pair in zip(ids, stored):
        assert pair is not None
        expected = cache.get(memory_id)
        assert expected is not None
        np.testing.assert_array_equal(dequantize_int8(*pair), expected)
    revised = mem.revise(ids[3], content="Melanie: I painted a mountain at dusk.")
    ((codes, scales),) = mem.get_token_vectors([revised.id])
    fresh = reranker.document_vectors([revised.content])[0]
    np.testing.assert_allclose(dequantize_int8(codes, scales), fresh, atol=5e-3)
    assert codes.shape != stored[3][0].shape or not np.array_equal(codes, stored[3][0])


@pytest.mark.embedded_only("opens a store with token vectors off")
def test_token_vectors_off_stores_none(tmp_path: Path, embedder: Embedder) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder, token_vectors=False) as engine:
        memories = remember_conversation(engine)
        assert engine.get_token_vectors([m.id for m in memories]) == [None] * len(memories)
        output = engine.recall(CUE, quality="best")
        assert all("rerank" not in r.scores for r in output.results)


DIM = 8


@pytest.mark.embedded_only("compares the core with numpy on a store of its own")
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_core_maxsim_matches_numpy(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    count = data.draw(st.integers(1, 12))
    query = rng.normal(size=(data.draw(st.integers(1, 6)), DIM)).astype(np.float32)
    query /= np.linalg.norm(query, axis=1, keepdims=True)
    path = tmp_path_factory.mktemp("maxsim")
    with hebbs.Hebbs.open(path, embedder=lambda texts: np.ones((len(texts), DIM))) as engine:
        vectors = rng.normal(size=(count, DIM)).astype(np.float32)
        memories = engine.remember_many(
            {"content": f"m{i}", "embedding": vectors[i]} for i in range(count)
        )
        documents = []
        items = []
        for memory in memories:
            # Token vectors are quantised unit vectors, as `remember` stores them (the core
            # caps a best match at a cosine's 1).
            rows = rng.normal(size=(int(rng.integers(1, 6)), DIM)).astype(np.float32)
            codes, scales = quantize_int8(rows / np.linalg.norm(rows, axis=1, keepdims=True))
            items.append((memory.id, codes, scales))
            documents.append(dequantize_int8(codes, scales))
        engine.put_token_vectors(items)
        output = engine.recall(
            cue_embedding=vectors[0],
            top_k=count,
            rerank="late_interaction",
            rerank_top_n=count,
            cue_token_vectors=query,
        )
    # The core matches the cue's tokens quantised like the stored ones (int8 x int8).
    expected = maxsim_scores(dequantize_int8(*quantize_int8(query)), documents, "idf")
    by_id = {m.id: i for i, m in enumerate(memories)}
    assert len(output.results) == count
    for result in output.results:
        got = result.scores["late_interaction"]
        assert got == pytest.approx(float(expected[by_id[result.memory.id]]), abs=1e-4)
