"""Reflection: clustering quality on synthetic topics (adjusted Rand index), the offline
provider end to end, the loop against the local fake LLM server, the cursor, stale marking on
revise and removal on forget, prepare/commit, and the background trigger."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hebbs
from fake_llm import FakeLLM, start
from hebbs import Hebbs
from hebbs.embedder import Embedder
from hebbs.errors import InvalidValueError, LLMError
from hebbs.llm import OpenAIProvider
from hebbs.reflect.kmeans import adjusted_rand_index, cluster, normalise, silhouette
from hebbs.reflect.pipeline import importance

pytestmark = pytest.mark.embedded_only(
    "the provider, the trigger and the engine state are in-process"
)

TOPICS = {
    "deploy": [
        "The Friday deploy of the billing service failed and was rolled back.",
        "Deploy pipeline broke again on Friday; the billing rollback took an hour.",
        "Friday deploys keep failing and the billing service needs a rollback.",
        "Another deploy failure late on Friday; the billing rollback worked.",
    ],
    "coffee": [
        "Alice prefers oat milk in her coffee.",
        "Alice asked for an oat milk latte again.",
        "Ordered oat milk coffee for Alice at the standup.",
        "Alice said oat milk coffee is the only coffee she drinks.",
    ],
}
MORE_COFFEE = [
    "Alice brought her own oat milk to the office coffee machine.",
    "The cafe ran out of oat milk and Alice skipped her coffee.",
    "Alice recommends the oat milk flat white at the corner cafe.",
]


def synthetic_topics(
    topics: int, per_topic: int, dim: int, spread: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = normalise(rng.normal(size=(topics, dim)))
    labels = np.repeat(np.arange(topics), per_topic)
    points = centres[labels] + spread * rng.normal(size=(labels.size, dim)) / np.sqrt(dim)
    return normalise(points), labels


def test_clustering_recovers_synthetic_topics() -> None:
    for topics, spread in ((3, 0.8), (6, 0.8), (12, 0.6)):
        points, truth = synthetic_topics(topics, 30, 64, spread, seed=topics)
        found = cluster(points, min_size=3)
        assert found.k == topics
        assert adjusted_rand_index(truth, found.labels) > 0.95


def _naive_ari(a: list[int], b: list[int]) -> float:
    pairs = list(itertools.combinations(range(len(a)), 2))
    both = sum(a[i] == a[j] and b[i] == b[j] for i, j in pairs)
    in_a = sum(a[i] == a[j] for i, j in pairs)
    in_b = sum(b[i] == b[j] for i, j in pairs)
    expected = in_a * in_b / len(pairs)
    maximum = (in_a + in_b) / 2
    return 1.0 if maximum == expected else (both - expected) / (maximum - expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=30))
def test_adjusted_rand_index_matches_pair_counting(pairs: list[tuple[int, int]]) -> None:
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    assert adjusted_rand_index(np.array(a), np.array(b)) == pytest.approx(_naive_ari(a, b))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 20))
def test_silhouette_matches_the_definition(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    x = normalise(rng.normal(size=(n, 5)))
    labels = rng.integers(0, 3, size=n)
    d = 1 - x @ x.T
    expected = []
    for i in range(n):
        own = [j for j in range(n) if labels[j] == labels[i] and j != i]
        if not own or len(set(labels)) < 2:
            expected.append(0.0)
            continue
        a = np.mean(d[i, own])
        b = min(np.mean(d[i, labels == c]) for c in set(labels) if c != labels[i])
        expected.append((b - a) / max(a, b))
    reference = float(np.mean(expected)) if len(set(labels)) > 1 else 0.0
    assert silhouette(x, labels) == pytest.approx(reference, abs=1e-5)


def test_importance_follows_the_documented_formula() -> None:
    assert importance([0.5] * 31, 1.0) == pytest.approx(
        0.5 * 0.5 + 0.3 + 0.2 * np.log2(32) / np.log2(33)
    )
    assert importance([1.0] * 40, 1.0) == 1.0
    assert importance([0.0], 0.0) == pytest.approx(0.2 * 1 / np.log2(33))


def _fill(
    engine: Hebbs, topics: dict[str, list[str]] = TOPICS, entity: str | None = None
) -> list[hebbs.Memory]:
    return [engine.remember(text, entity_id=entity) for texts in topics.values() for text in texts]


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = start()
    yield server
    server.close()


def test_offline_reflect_stores_insights_with_edges_and_honours_the_cursor(mem: Hebbs) -> None:
    sources = _fill(mem)
    result = mem.reflect()
    assert result == hebbs.ReflectResult(2, 2, 2, 8)
    insights = mem.insights()
    assert len(insights) == 2
    by_topic = {("coffee" if "milk" in i.memory.content else "deploy"): i for i in insights}
    coffee = by_topic["coffee"]
    assert coffee.memory.kind == hebbs.MemoryKind.INSIGHT
    assert "oat" in coffee.memory.content
    assert "milk" in coffee.memory.content
    assert set(coffee.source_ids) == {m.id_hex for m in sources[4:]}
    edges = mem._native.edges(coffee.memory.id)
    assert {e.edge_type for e in edges} == {hebbs.EdgeType.INSIGHT_FROM}
    assert {e.target.hex() for e in edges} == set(coffee.source_ids)
    assert 0 < coffee.confidence <= 1
    assert not coffee.stale
    assert coffee.memory.importance == pytest.approx(importance([0.5] * 4, coffee.confidence))
    assert mem.reflect() == hebbs.ReflectResult(0, 0, 0, 0), "the cursor skips what was read"
    for text in MORE_COFFEE:
        mem.remember(text)
    again = mem.reflect()
    assert again.memories_processed == 3
    assert again.clusters_processed == 1


def test_revising_a_source_marks_its_insight_stale_and_forgetting_removes_it(mem: Hebbs) -> None:
    sources = _fill(mem)
    mem.reflect()
    deploy = next(i for i in mem.insights() if "deploy" in i.memory.content.lower())
    mem.revise(sources[0].id, content="The Friday deploy succeeded after all.")
    assert deploy.memory.id not in {i.memory.id for i in mem.insights()}
    stale = [i for i in mem.insights(include_stale=True) if i.stale]
    assert [i.memory.id for i in stale] == [deploy.memory.id]
    coffee = mem.insights()[0]
    result = mem.forget(ids=[sources[5].id])
    assert result.cascade_count >= 1
    with pytest.raises(hebbs.NotFoundError):
        mem.get(coffee.memory.id)
    assert mem.insights() == []


def test_reflect_scopes_have_their_own_cursor(mem: Hebbs) -> None:
    _fill(mem, {"coffee": TOPICS["coffee"]}, entity="alice")
    _fill(mem, {"deploy": TOPICS["deploy"]}, entity="ops")
    assert mem.reflect(entity_id="alice").insights_created == 1
    [insight] = mem.insights(entity_id="alice")
    assert insight.memory.entity_id == "alice"
    assert mem.insights(entity_id="ops") == []
    assert mem.reflect(entity_id="ops").memories_processed == 4
    assert mem.reflect().memories_processed == 8, "the store-wide scope has its own cursor"


def test_reflect_checks_its_arguments(mem: Hebbs) -> None:
    with pytest.raises(InvalidValueError) as caught:
        mem.reflect(min_cluster_size=0)
    assert caught.value.field == "min_cluster_size"
    with pytest.raises(hebbs.InvalidTypeError) as caught:
        mem.insights(min_confidence="high")  # type: ignore[arg-type]
    assert caught.value.field == "min_confidence"


def test_reflect_with_a_provider_makes_two_calls_per_cluster(
    tmp_path: Path, embedder: Embedder, fake: FakeLLM
) -> None:
    provider = OpenAIProvider(base_url=fake.url, model="m", backoff=0.01)
    with Hebbs.open(tmp_path / "db", embedder=embedder, llm=provider) as engine:
        sources = _fill(engine)
        fake.script.append(("malformed",))
        result = engine.reflect()
        assert result.insights_created == 2
        assert provider.calls == 2 * result.clusters_processed + 1, "one repair"
        for insight in engine.insights():
            assert insight.memory.content.startswith("A pattern across 4 memories")
            assert insight.confidence == pytest.approx(0.8)
            assert len(insight.source_ids) == 4
        for text in MORE_COFFEE:
            engine.remember(text)
        fake.script.extend([("malformed",), ("malformed",)])
        with pytest.raises(LLMError, match="cursor left in place"):
            engine.reflect()
        assert engine.reflect().memories_processed == 3, "the failed pass is read again"
        assert {s.id_hex for s in sources} >= set(engine.insights()[0].source_ids)


def test_prepare_and_commit_round_trip(mem: Hebbs) -> None:
    sources = _fill(mem)
    session = mem.reflect_prepare()
    assert session.memories_processed == 8
    assert len(session.clusters) == 2
    cluster_ = session.clusters[0]
    ids = [m.id_hex for m in cluster_.memories]
    assert all(i in cluster_.prompt for i in ids), "the prompt cites memories by id"
    assert "insights" in cluster_.prompt
    assert cluster_.system
    with pytest.raises(InvalidValueError) as caught:
        mem.reflect_commit(
            session.session_id,
            [{"content": "x", "sources": [ids[0]]}, {"content": "y", "sources": ["ab" * 16]}],
        )
    assert caught.value.field == "insights[1].sources[0]"
    assert mem.insights() == [], "nothing half-written"
    with pytest.raises(InvalidValueError) as caught:
        mem.reflect_commit(
            session.session_id, [{"content": "x", "sources": [ids[0]], "confidence": 2}]
        )
    assert caught.value.field == "insights[0].confidence"
    done = mem.reflect_commit(
        session.session_id, [{"content": "Host insight", "sources": ids, "confidence": 0.7}]
    )
    assert done.insights_created == 1
    [insight] = mem.insights()
    assert insight.memory.content == "Host insight"
    assert set(insight.source_ids) == set(ids)
    assert mem.reflect().memories_processed == 0, "the commit moved the cursor"
    with pytest.raises(InvalidValueError, match="no such reflect session"):
        mem.reflect_commit(session.session_id, [])
    assert len(sources) == 8


def test_prepare_sessions_expire(mem: Hebbs) -> None:
    _fill(mem)
    session = mem.reflect_prepare(ttl=0.05)
    time.sleep(0.1)
    with pytest.raises(InvalidValueError, match="expired") as caught:
        mem.reflect_commit(session.session_id, [])
    assert caught.value.field == "session_id"


def test_the_background_trigger_reflects_off_the_write_path(
    tmp_path: Path, embedder: Embedder
) -> None:
    with Hebbs.open(tmp_path / "db", embedder=embedder, reflect_after_memories=8) as engine:
        trigger = engine.reflect_trigger
        assert trigger is not None
        _fill(engine)
        deadline = time.monotonic() + 20
        while trigger.runs == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert trigger.runs >= 1
        assert trigger.last_result is not None
        assert trigger.last_result.insights_created == 2
        assert len(engine.insights()) == 2
