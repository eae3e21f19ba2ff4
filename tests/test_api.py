"""The Python API end to end on a real store with the real bundled embedder."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

import hebbs
from hebbs.embedder import Embedder
from remote import Store

FACTS = [
    ("Acme asked for a volume discount on the enterprise plan", "acme"),
    ("Globex reported that single sign-on fails for their admins", "globex"),
    ("Maya prefers to get meeting notes by email, never on chat", "maya"),
    ("The quarterly board meeting moved to the second Thursday", None),
    ("Acme's security team approved the data processing agreement", "acme"),
    ("Our Kubernetes cluster ran out of memory during the nightly batch", None),
]

PARAPHRASES = [
    ("Did Acme want a lower price for buying more seats?", 0),
    ("Login through SSO is broken for Globex administrators", 1),
    ("How does Maya like to receive notes from meetings?", 2),
    ("Why did the overnight job crash the cluster?", 5),
]


def remember_facts(store: Store) -> list[hebbs.Memory]:
    return store.remember_many(
        [{"content": text, "entity_id": entity, "importance": 0.5} for text, entity in FACTS]
    )


def test_paraphrase_recalls_its_memory_first(store: Store) -> None:
    stored = remember_facts(store)
    for cue, expected in PARAPHRASES:
        out = store.recall(cue, top_k=3)
        assert out.results[0].memory.id == stored[expected].id, cue
        detail = out.results[0].strategy_details[0]
        assert detail.strategy == "hybrid", "the default pipeline"
        assert detail.rerank_score is not None
        similar = store.recall(cue, strategies=["similarity"], top_k=3)
        assert similar.results[0].memory.id == stored[expected].id, cue
        detail = similar.results[0].strategy_details[0]
        assert detail.strategy == "similarity"
        assert detail.distance is not None
        assert detail.relevance == pytest.approx(1 - detail.distance, abs=1e-5)


@pytest.mark.embedded_only("optimize() runs in-process only")
def test_optimize_keeps_the_answers(mem: hebbs.Hebbs) -> None:
    stored = remember_facts(mem)
    before = [mem.recall(cue, top_k=1).results[0].memory.id for cue, _ in PARAPHRASES]
    mem.optimize()
    after = [mem.recall(cue, top_k=1).results[0].memory.id for cue, _ in PARAPHRASES]
    assert before == after == [stored[expected].id for _, expected in PARAPHRASES]


def test_remember_many_returns_input_order_and_get_round_trips(store: Store) -> None:
    stored = remember_facts(store)
    assert [m.content for m in stored] == [text for text, _ in FACTS]
    got = store.get(stored[2].id)
    assert got.content == FACTS[2][0]
    assert got.entity_id == "maya"
    assert got.kind == hebbs.MemoryKind.EPISODE
    assert store.get(stored[2].id_hex).id == stored[2].id
    assert store.health().memory_count == len(FACTS)


def test_fields_context_and_embedding_round_trip(store: Store, embedder: Embedder) -> None:
    when = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
    context = {"channel": "email", "score": 3, "ratio": 0.25, "tags": ["a", "b"], "x": None}
    memory = store.remember(
        "Refund issued to Acme", importance=0.9, context=context, created_at=when
    )
    got = store.get(memory.id, include_embedding=True)
    assert got.context == context
    assert got.importance == pytest.approx(0.9)
    assert got.created_at == int(when.timestamp() * 1_000_000)
    assert got.embedding is not None
    assert got.embedding.dtype == np.float32
    assert got.embedding.shape == (embedder.dimension,)
    assert float(np.linalg.norm(got.embedding)) == pytest.approx(1.0, abs=1e-4)


def test_temporal_recall_is_newest_first_within_range(store: Store) -> None:
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for day in range(10):
        store.remember(
            f"Acme standup notes, day {day}",
            entity_id="acme",
            created_at=start + timedelta(days=day),
        )
    store.remember("Globex note", entity_id="globex", created_at=start)
    weights = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}
    out = store.recall(strategies=["temporal"], entity_id="acme", top_k=4, scoring_weights=weights)
    assert [r.memory.content[-1] for r in out.results] == ["9", "8", "7", "6"]
    assert [r.strategy_details[0].rank for r in out.results] == [0, 1, 2, 3]
    window = (start + timedelta(days=2), start + timedelta(days=4))
    out = store.recall(
        strategies=["temporal"], entity_id="acme", time_range=window, scoring_weights=weights
    )
    assert [r.memory.content[-1] for r in out.results] == ["4", "3", "2"]


def test_composite_score_follows_the_seed_formula(store: Store) -> None:
    memory = store.remember("A brand new memory about pricing", importance=0.5)
    vector = store.get(memory.id, include_embedding=True).embedding
    out = store.recall(cue_embedding=vector, top_k=1)
    assert out.results[0].score == pytest.approx(0.80, abs=1e-3)
    out = store.recall(cue_embedding=vector, top_k=1)
    reinforcement = np.log2(2) / np.log2(101)
    assert out.results[0].score == pytest.approx(0.80 + 0.1 * reinforcement, abs=1e-3)
    assert out.results[0].memory.access_count == 2


def test_scoring_weights_reorder_results(store: Store) -> None:
    now = datetime.now(timezone.utc)
    old = store.remember("Acme pricing discussion, detailed", created_at=now - timedelta(days=25))
    new = store.remember("Acme call", created_at=now)
    cue = "Acme pricing discussion"
    by_relevance = store.recall(cue, scoring_weights=hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0))
    by_recency = store.recall(
        cue,
        scoring_weights={
            "w_relevance": 0.1,
            "w_recency": 0.9,
            "w_importance": 0.0,
            "w_reinforcement": 0.0,
        },
    )
    assert by_relevance.results[0].memory.id == old.id
    assert by_recency.results[0].memory.id == new.id


def test_multi_strategy_reports_both_details(store: Store) -> None:
    stored = remember_facts(store)
    out = store.recall("Acme discount", strategies=["similarity", "temporal"], entity_id="acme")
    ids = [r.memory.id for r in out.results]
    assert set(ids) == {stored[0].id, stored[4].id}
    strategies = {d.strategy for d in out.results[0].strategy_details}
    assert strategies == {"similarity", "temporal"}
    assert out.strategy_errors == []


def test_edges_accept_enum_or_name(store: Store) -> None:
    cause = store.remember("The invoice was sent twice")
    effect = store.remember(
        "Acme asked for a refund",
        edges=[
            hebbs.Edge(cause.id, hebbs.EdgeType.CAUSED_BY, 0.9),
            hebbs.Edge(cause.id_hex, "related_to"),
        ],
    )
    assert effect.content == "Acme asked for a refund"
    edge = hebbs.Edge(cause.id, "CausedBy")
    assert edge.edge_type == hebbs.EdgeType.CAUSED_BY
    assert edge.confidence == 1.0
    assert hebbs.EdgeType.CAUSED_BY.value == "caused_by"


@pytest.mark.embedded_only("reopens the store from disk")
def test_reopen_keeps_everything(tmp_path: Path, embedder: Embedder) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        stored = remember_facts(mem)
        before = [r.memory.id for r in mem.recall("Acme discount").results]
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        assert mem.health().memory_count == len(FACTS)
        assert mem.get(stored[0].id).content == FACTS[0][0]
        after = [r.memory.id for r in mem.recall("Acme discount").results]
    assert after[0] == before[0] == stored[0].id


@pytest.mark.embedded_only("the GIL of this process")
def test_calls_release_the_gil_and_run_concurrently(mem: hebbs.Hebbs) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((400, 384)).astype(np.float32)
    errors: list[BaseException] = []

    def writer(offset: int) -> None:
        try:
            for i in range(100):
                mem.remember(f"thread memory {offset + i}", embedding=vectors[offset + i])
        except BaseException as error:
            errors.append(error)

    def reader() -> None:
        try:
            for i in range(100):
                mem.recall(cue_embedding=vectors[i], top_k=5)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(k * 100,)) for k in range(4)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert mem.health().memory_count == 400
    for i in range(0, 400, 37):
        top = mem.recall(cue_embedding=vectors[i], top_k=1)
        assert top.results[0].memory.content == f"thread memory {i}"


@pytest.mark.embedded_only("an in-process embedder object")
def test_custom_callable_embedder(tmp_path: Path) -> None:
    def embed(texts: list[str]) -> np.ndarray:
        return np.array([[len(t), t.count("a") + 1.0, 1.0] for t in texts], dtype=np.float32)

    with hebbs.Hebbs.open(tmp_path / "db", embedder=embed) as mem:
        memory = mem.remember("banana")
        assert mem.recall("banana").results[0].memory.id == memory.id
        assert mem.embedder.dimension == 3


@pytest.mark.embedded_only("closes the store in-process")
def test_health_and_close(tmp_path: Path, embedder: Embedder) -> None:
    mem = hebbs.Hebbs.open(tmp_path / "db", embedder=embedder)
    health = mem.health()
    assert health.serving
    assert health.version == hebbs.__version__
    assert health.memory_count == 0
    assert health.uptime_seconds >= 0
    mem.close()
    mem.close()
    assert mem.closed
    with pytest.raises(hebbs.ClosedError):
        mem.health()
