"""Causal and analogical recall, per-strategy configs, multi-strategy recall and prime through
the Python API, on the bundled embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

import hebbs
from hebbs.embedder import Embedder
from remote import Store


@pytest.fixture
def incident(store: Store) -> list[hebbs.Memory]:
    """outage <- alert <- rollback <- postmortem, and an unrelated memory."""
    outage = store.remember("The payments database ran out of disk space.", entity_id="ops")
    alert = store.remember(
        "The on-call engineer was paged about failing payments.",
        entity_id="ops",
        edges=[hebbs.Edge(outage.id, hebbs.EdgeType.CAUSED_BY, 0.9)],
    )
    rollback = store.remember(
        "The team rolled back Friday's release.",
        entity_id="ops",
        edges=[hebbs.Edge(alert.id, "caused_by", 0.8)],
    )
    postmortem = store.remember(
        "A postmortem was written about the outage.",
        entity_id="ops",
        edges=[hebbs.Edge(rollback.id, "followed_by")],
    )
    other = store.remember("The office plants were watered.", entity_id="facilities")
    return [outage, alert, rollback, postmortem, other]


def test_causal_walk_from_a_seed(store: Store, incident: list[hebbs.Memory]) -> None:
    outage, alert, rollback, postmortem, _ = incident
    output = store.recall(strategies=["causal"], seed_memory_id=postmortem.id, direction="causes")
    depths = {r.memory.id: r.strategy_details[0].depth for r in output.results}
    assert depths == {rollback.id: 1, alert.id: 2, outage.id: 3}
    only_caused_by = store.recall(
        strategies=["causal"],
        seed_memory_id=outage.id,
        direction="effects",
        edge_types=[hebbs.EdgeType.CAUSED_BY],
    )
    assert {r.memory.id for r in only_caused_by.results} == {alert.id, rollback.id}
    shallow = store.recall(
        strategies=["causal"], seed_memory_id=outage.id, direction="effects", max_depth=1
    )
    assert [r.memory.id for r in shallow.results] == [alert.id]


def test_causal_walk_from_the_cue(store: Store, incident: list[hebbs.Memory]) -> None:
    outage, alert, rollback, postmortem, _ = incident
    output = store.recall("why did we roll back the release?", strategies=["causal"])
    found = {r.memory.id for r in output.results}
    assert rollback.id not in found, "the seed is the memory nearest the cue"
    assert {alert.id, outage.id, postmortem.id} <= found


def test_analogical_prefers_structure_over_words(store: Store) -> None:
    lookalike = store.remember(
        "Checklist for the database migration launch.",
        entity_id="project-a",
        context={"pages": 4, "owner": "ana"},
    )
    analogue = store.remember(
        "The bakery replaced its oven and the first batch burned.",
        entity_id="bakery",
        context={"entities": ["baker", "oven"], "action": "replace", "outcome": "failure"},
    )
    situation = {"entities": ["team", "database"], "action": "migrate", "outcome": "failure"}
    output = store.recall(
        "the database migration launch failed",
        strategies=["analogical"],
        cue_context=situation,
        entity_id="project-a",
        analogical_alpha=0.3,
    )
    assert output.results[0].memory.id == analogue.id
    by_id = {r.memory.id: r.strategy_details[0] for r in output.results}
    assert by_id[lookalike.id].embedding_similarity > by_id[analogue.id].embedding_similarity
    assert by_id[analogue.id].structural_similarity > by_id[lookalike.id].structural_similarity
    words = store.recall(
        "the database migration launch failed",
        strategies=["analogical"],
        cue_context=situation,
        analogical_alpha=1.0,
    )
    assert words.results[0].memory.id == lookalike.id


def test_all_four_strategies_with_per_strategy_configs(
    store: Store, incident: list[hebbs.Memory]
) -> None:
    outage, alert, *_ = incident
    output = store.recall(
        "payments failing",
        strategies=[
            "similarity",
            hebbs.RecallStrategyConfig("temporal", entity_id="facilities", top_k=1),
            hebbs.RecallStrategyConfig("causal", seed_memory_id=outage.id, max_depth=1),
            "analogical",
        ],
        top_k=10,
    )
    assert output.strategy_errors == []
    ids = [r.memory.id for r in output.results]
    assert len(ids) == len(set(ids))
    alert_result = next(r for r in output.results if r.memory.id == alert.id)
    strategies = {d.strategy for d in alert_result.strategy_details}
    assert {"similarity", "causal"} <= strategies
    temporal = [
        r for r in output.results if any(d.strategy == "temporal" for d in r.strategy_details)
    ]
    assert len(temporal) == 1
    assert temporal[0].memory.entity_id == "facilities"
    config = hebbs.RecallStrategyConfig("causal", edge_types=["caused_by"], direction="causes")
    assert config.edge_types == [hebbs.EdgeType.CAUSED_BY]
    assert config.direction == "causes"


def test_a_failing_strategy_is_reported(store: Store, incident: list[hebbs.Memory]) -> None:
    output = store.recall(
        "payments failing",
        strategies=["similarity", hebbs.RecallStrategyConfig("causal", seed_memory_id="ab" * 16)],
    )
    assert output.results
    assert [e.strategy for e in output.strategy_errors] == ["causal"]
    with pytest.raises(hebbs.NotFoundError):
        store.recall(strategies=["causal"], seed_memory_id="ab" * 16)


def test_prime(store: Store) -> None:
    base = 1_700_000_000_000_000
    for i, text in enumerate(
        [
            "Acme asked about the enterprise pricing tier.",
            "Acme's CTO joined the weekly call.",
            "Acme reported a bug in the export.",
        ]
    ):
        store.remember(text, entity_id="acme", created_at=base + i * 1_000_000)
    store.remember("Globex asked about pricing.", entity_id="globex")
    recent = store.prime("acme", max_memories=2)
    assert [r.memory.content for r in recent.results] == [
        "Acme reported a bug in the export.",
        "Acme's CTO joined the weekly call.",
    ]
    assert (recent.temporal_count, recent.similarity_count) == (2, 0)
    primed = store.prime("acme", "how much does it cost?", max_memories=3)
    assert all(r.memory.entity_id == "acme" for r in primed.results)
    assert primed.similarity_count == 3
    assert primed.temporal_count == 3
    assert len(primed) == 3


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"strategies": ["causal"], "max_depth": 11}, "max_depth"),
        ({"strategies": ["causal"], "direction": "sideways"}, "direction"),
        ({"strategies": ["analogical"], "analogical_alpha": -0.1}, "analogical_alpha"),
        ({"strategies": ["causal"], "edge_types": ["causes"]}, "edge_types[0]"),
        ({"strategies": ["causal"], "seed_memory_id": "xyz"}, "seed_memory_id"),
        ({"strategies": ["analogical"], "cue_context": [1, 2]}, "cue_context"),
        (
            {"strategies": [hebbs.RecallStrategyConfig("similarity", top_k=0)]},
            "strategies[0].top_k",
        ),
        ({"strategies": [3]}, "strategies[0]"),
    ],
)
def test_bad_strategy_input_names_the_field(
    store: Store, incident: list[hebbs.Memory], kwargs: dict[str, object], field: str
) -> None:
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.recall("payments", **kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_bad_prime_input(store: Store) -> None:
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.prime("", "x")
    assert caught.value.field == "entity_id"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.prime("acme", max_memories=0)
    assert caught.value.field == "max_memories"


@pytest.mark.embedded_only("AsyncHebbs.open; the async client runs in test_client")
async def test_async_prime_and_causal(tmp_path: Path, embedder: Embedder) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        cause = await mem.remember("The build server's disk filled up.", entity_id="ci")
        effect = await mem.remember(
            "Every build failed overnight.",
            entity_id="ci",
            edges=[hebbs.Edge(cause.id, "caused_by")],
        )
        walked = await mem.recall(strategies=["causal"], seed_memory_id=effect.id)
        assert [r.memory.id for r in walked.results] == [cause.id]
        primed = await mem.prime("ci", "build failures")
        assert {r.memory.id for r in primed.results} == {cause.id, effect.id}
