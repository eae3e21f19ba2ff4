"""The recall a user gets by default: a cue runs ``hybrid`` and the late-interaction stage, the
stage's calibrated score is the relevance signal, and seed 000's composite orders the results;
the presets ``fast`` and ``best``; the fallbacks when the stage cannot run; and, on the embedded
store and through the server alike (``store``), results in the order of the documented formula
over the signals they report."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hebbs
from hebbs import _native
from hebbs.api import DEFAULT_STRATEGIES, RecallRequest, resolve_quality

SIGNALS = ("relevance", "recency", "importance", "reinforcement")
DAY_US = 86_400_000_000
NOW_US = int(time.time() * 1_000_000)
FACTS = [
    ("Acme asked for a refund of the duplicate charge", "acme", 0.9, 2),
    ("Acme's invoice was sent twice in March", "acme", 0.7, 3),
    ("The Globex launch slipped to the second quarter", "globex", 0.6, 1),
    ("Globex wants the contract renewed for two years", "globex", 0.8, 20),
    ("The team offsite is booked in Lisbon", None, 0.3, 40),
    ("Initech reported a login outage on Monday", "initech", 0.5, 5),
]
PARAPHRASE = "did Acme want money back?"


def fill_items() -> list[dict[str, Any]]:
    return [
        {
            "content": content,
            "entity_id": entity,
            "importance": importance,
            "created_at": NOW_US - days * DAY_US,
            "session_id": "chat",
        }
        for content, entity, importance, days in FACTS
    ]


def fill(store: Any) -> list[bytes]:
    return [memory.id for memory in store.remember_many(fill_items())]


def weights_of(request_weights: Any) -> dict[str, float]:
    defaults = hebbs.ScoringWeights()
    given_weights = dict(request_weights or {})
    return {
        name: float(given_weights.get(f"w_{name}", getattr(defaults, f"w_{name}")))
        for name in SIGNALS
    }


def assert_composite_order(output: Any, weights: dict[str, float]) -> None:
    """Each result's score is the weighted sum of the signals it reports, best first."""
    for result in output.results:
        scores = result.scores
        formula = sum(weights[name] * scores[name] for name in SIGNALS)
        assert math.isclose(result.score, formula, abs_tol=1e-5), scores
        assert scores["final"] == result.score
        for name in SIGNALS:
            assert 0.0 <= scores[name] <= 1.0
    ordered = [result.score for result in output.results]
    assert ordered == sorted(ordered, reverse=True)


def test_the_default_is_hybrid_with_the_stage_and_finds_the_paraphrase(store: Any) -> None:
    ids = fill(store)
    output = store.recall(PARAPHRASE, top_k=3)
    top = output.results[0]
    assert top.memory.id == ids[0]
    assert [d.strategy for d in top.strategy_details] == list(DEFAULT_STRATEGIES) == ["hybrid"]
    for result in output.results:
        detail = result.strategy_details[0]
        assert detail.rerank_score is not None
        assert detail.late_interaction_score is not None
        assert detail.dense_score is not None, "the raw cosine stays in the details"
    by_stage = sorted(output.results, key=lambda r: r.strategy_details[0].rerank_score)
    relevances = [r.scores["relevance"] for r in by_stage]
    assert relevances == sorted(relevances), "relevance increases with the stage score"
    assert top.scores["relevance"] == 1.0, "the best stage score of the head"
    assert_composite_order(output, weights_of(None))


def test_presets_and_named_strategies(store: Any) -> None:
    fill(store)
    fast = store.recall(PARAPHRASE, quality="fast")
    assert all(r.strategy_details[0].strategy == "hybrid" for r in fast.results)
    assert all(r.strategy_details[0].rerank_score is None for r in fast.results)
    assert_composite_order(fast, weights_of(None))
    best = store.recall(PARAPHRASE, quality="best")
    assert all(r.strategy_details[0].rerank_score is not None for r in best.results)
    assert all(r.score == pytest.approx(r.scores["relevance"]) for r in best.results)
    similarity = store.recall(PARAPHRASE, strategies=["similarity"])
    for result in similarity.results:
        detail = result.strategy_details[0]
        assert detail.strategy == "similarity"
        assert detail.rerank_score is None
        assert result.scores["relevance"] == pytest.approx(detail.relevance)
    assert_composite_order(similarity, weights_of(None))


def test_a_recency_bias_and_the_best_relevance_together(store: Any) -> None:
    ids = fill(store)
    recent = {"w_relevance": 0.2, "w_recency": 0.8, "w_importance": 0.0, "w_reinforcement": 0.0}
    output = store.recall("Acme billing", scoring_weights=recent, top_k=6)
    assert all(r.strategy_details[0].rerank_score is not None for r in output.results)
    assert_composite_order(output, weights_of(recent))
    plain = store.recall("Acme billing", quality="best", top_k=6)
    assert [r.memory.id for r in output.results] != [r.memory.id for r in plain.results]
    assert ids[0] in {r.memory.id for r in plain.results[:2]}


def test_a_score_floor_leaves_out_what_scores_below_it(store: Any) -> None:
    fill(store)
    steady = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.5, "w_reinforcement": 0.0}
    everything = store.recall("Acme billing", scoring_weights=steady, top_k=6)
    scores = [r.score for r in everything.results]
    assert len(scores) >= 3
    assert scores[1] > scores[2]
    floor = (scores[1] + scores[2]) / 2
    kept = store.recall("Acme billing", scoring_weights=steady, top_k=6, min_score=floor)
    assert [r.memory.id for r in kept.results] == [r.memory.id for r in everything.results[:2]]
    assert all(r.score >= floor for r in kept.results)
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.recall("Acme billing", min_score=-0.1)
    assert caught.value.field == "min_score"


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    weights=st.fixed_dictionaries(
        {f"w_{name}": st.floats(0.0, 2.0) for name in SIGNALS},
    ),
    quality=st.sampled_from([None, "fast", "best"]),
    cue=st.sampled_from([PARAPHRASE, "Globex contract", "outage", "Lisbon offsite plans"]),
    top_k=st.integers(1, 6),
    rerank_top_n=st.integers(1, 8),
)
def test_results_are_in_the_order_of_the_formula_over_their_scores(
    populated: hebbs.Hebbs,
    weights: dict[str, float],
    quality: str | None,
    cue: str,
    top_k: int,
    rerank_top_n: int,
) -> None:
    given_weights = None if quality == "best" else weights
    output = populated.recall(
        cue,
        top_k=top_k,
        scoring_weights=given_weights,
        quality=quality,
        rerank_top_n=rerank_top_n,
    )
    relevance_only = {"relevance": 1.0, "recency": 0.0, "importance": 0.0, "reinforcement": 0.0}
    assert_composite_order(output, relevance_only if quality == "best" else weights_of(weights))


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from hebbs.embedder import default_embedder

    path = tmp_path_factory.mktemp("populated") / "db"
    with hebbs.Hebbs.open(path, embedder=default_embedder()) as engine:
        fill(engine)
        yield engine


def test_without_token_vectors_the_default_is_hybrid_alone(
    tmp_path: Path, hash_embed: Callable[[list[str]], np.ndarray]
) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=hash_embed) as mem:
        fill(mem)
        output = mem.recall("Acme refund")
        assert output.results[0].strategy_details[0].strategy == "hybrid"
        assert all(r.strategy_details[0].rerank_score is None for r in output.results)
        with pytest.raises(hebbs.InvalidInputError) as raised:
            mem.recall("Acme refund", quality="best")
        assert raised.value.field == "rerank"


def test_a_store_that_keeps_no_token_vectors_skips_the_stage(tmp_path: Path, embedder: Any) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder, token_vectors=False) as mem:
        fill(mem)
        output = mem.recall(PARAPHRASE)
        assert all(r.strategy_details[0].rerank_score is None for r in output.results)
        assert output.results[0].strategy_details[0].strategy == "hybrid"


def test_a_cue_given_as_a_vector_alone_runs_similarity(mem: hebbs.Hebbs) -> None:
    fill(mem)
    vector = mem.embedder.embed_query([PARAPHRASE])[0]
    output = mem.recall(cue_embedding=vector)
    assert output.results[0].strategy_details[0].strategy == "similarity"


@pytest.mark.parametrize(
    ("given", "token_cue", "strategies", "rerank", "best_weights"),
    [
        ({"cue": "x"}, True, DEFAULT_STRATEGIES, _native.DEFAULT_RERANK, False),
        ({"cue": "x"}, False, DEFAULT_STRATEGIES, None, False),
        ({"cue": "x", "quality": "fast"}, True, DEFAULT_STRATEGIES, None, False),
        ({"cue": "x", "quality": "best"}, False, DEFAULT_STRATEGIES, "late_interaction", True),
        ({"cue": "x", "strategies": ["keyword"]}, True, ("keyword",), None, False),
        (
            {"cue": "x", "strategies": ["keyword"], "quality": "best"},
            True,
            ("keyword",),
            "late_interaction",
            True,
        ),
        ({"cue_embedding": [1.0, 0.0]}, True, ("similarity",), None, False),
        ({"cue": "x", "force_regex": True}, True, DEFAULT_STRATEGIES, None, False),
        ({"cue": "x", "rerank": "none"}, True, DEFAULT_STRATEGIES, "none", False),
        ({"entity_id": "acme"}, True, DEFAULT_STRATEGIES, None, False),
    ],
)
def test_resolve_quality(
    given: dict[str, Any],
    token_cue: bool,
    strategies: tuple[str, ...],
    rerank: str | None,
    best_weights: bool,
) -> None:
    resolved = resolve_quality(RecallRequest(**given), token_cue)
    assert tuple(resolved.strategies or ()) == tuple(strategies)
    assert resolved.rerank == rerank
    assert (resolved.scoring_weights is not None) == best_weights


async def test_the_async_api_has_the_same_default(tmp_path: Path, embedder: Any) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        ids = [memory.id for memory in await mem.remember_many(fill_items())]
        output = await mem.recall(PARAPHRASE, top_k=3)
        assert output.results[0].memory.id == ids[0]
        detail = output.results[0].strategy_details[0]
        assert detail.strategy == "hybrid"
        assert detail.rerank_score is not None
        assert_composite_order(output, weights_of(None))


def test_a_result_without_signals_reads_without_them(mem: hebbs.Hebbs) -> None:
    fill(mem)
    wire = mem.recall(PARAPHRASE, top_k=2).to_dict()
    assert set(SIGNALS) <= set(wire["results"][0]["scores"])
    again = hebbs.RecallOutput.from_dict(wire)
    assert again.results[0].scores == pytest.approx(
        {k: v for k, v in wire["results"][0]["scores"].items()}
    )
    for result in wire["results"]:
        del result["scores"]
    older = hebbs.RecallOutput.from_dict(wire)
    assert not set(SIGNALS) & set(older.results[0].scores)
    assert older.results[0].scores["final"] == pytest.approx(wire["results"][0]["score"])
