"""The memory lifecycle from Python: add_edges, revise and lineage, forget (ids, entity,
criteria, decay, cascade, tombstones, purge), the async API and the CLI commands, with typed
errors that name the field and leave the store unchanged."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hebbs
from hebbs.cli import main
from hebbs.cli.errors import EXIT_CONFLICT, EXIT_OK, EXIT_USAGE
from hebbs.embedder import Embedder
from remote import Store

DAY_US = 24 * 3600 * 1_000_000
PRICE_V1 = "Acme's list price for the pro plan is 40 dollars per seat."
PRICE_V2 = "Acme's list price for the pro plan went up to 55 dollars per seat."


def ids_of(output: hebbs.RecallOutput) -> list[bytes]:
    return [result.memory.id for result in output.results]


def now_us() -> int:
    return time.time_ns() // 1000


def test_add_edges_are_stored_and_bad_targets_are_typed(store: Store) -> None:
    cause = store.remember("The payment gateway timed out during checkout")
    effect = store.remember("Customers abandoned their carts")
    other = store.remember("The office plants were watered")
    store.add_edges(effect.id, [hebbs.Edge(cause.id, hebbs.EdgeType.CAUSED_BY, 0.9)])
    store.add_edges(effect.id_hex, [hebbs.Edge(other.id, "related_to")])

    with pytest.raises(hebbs.InvalidInputError) as bad_target:
        store.add_edges(
            other.id, [hebbs.Edge(cause.id, "related_to"), hebbs.Edge("0" * 32, "caused_by")]
        )
    assert bad_target.value.field == "edges[1].target"
    with pytest.raises(hebbs.InvalidInputError) as self_edge:
        store.add_edges(other.id, [hebbs.Edge(other.id, "related_to")])
    assert self_edge.value.field == "edges[0].target"
    with pytest.raises(hebbs.InvalidInputError) as not_edges:
        store.add_edges(other.id, ["caused_by"])  # type: ignore[list-item]
    assert not_edges.value.field == "edges[0]"
    with pytest.raises(hebbs.NotFoundError):
        store.add_edges("0" * 32, [hebbs.Edge(cause.id, "related_to")])

    result = store.forget([effect.id])
    assert (result.forgotten_count, result.cascade_count) == (1, 2), "both edges, nothing else"
    assert store.forget([other.id]).cascade_count == 0, "the rejected edge was never written"


def test_revise_supersedes_and_lineage_reads_back(store: Store) -> None:
    first = store.remember(PRICE_V1, entity_id="acme", importance=0.4, context={"topic": "pricing"})
    second = store.revise(first.id, content=PRICE_V2)
    assert second.kind == hebbs.MemoryKind.REVISION
    assert second.content == PRICE_V2
    assert (second.entity_id, second.importance, second.context) == (
        "acme",
        pytest.approx(0.4),
        {"topic": "pricing"},
    )
    third = store.revise(second.id, importance=0.9)
    assert third.content == PRICE_V2, "no new content keeps the text and its vector"

    found = store.recall("how much does the pro plan cost per seat?", top_k=5)
    assert ids_of(found) == [third.id]
    everything = store.recall("how much does the pro plan cost per seat?", include_superseded=True)
    assert set(ids_of(everything)) == {first.id, second.id, third.id}
    timeline = store.recall(strategies=["temporal"], entity_id="acme")
    assert ids_of(timeline) == [third.id]

    assert [m.id for m in store.lineage(first.id)] == [first.id, second.id, third.id]
    assert [m.superseded for m in store.lineage(first.id)] == [True, True, False]
    assert store.get(first.id).superseded
    assert [m.content for m in store.lineage(third.id_hex)] == [PRICE_V1, PRICE_V2, PRICE_V2]

    count = store.health().memory_count
    with pytest.raises(hebbs.ConflictError) as superseded:
        store.revise(first.id, importance=0.1)
    assert not isinstance(superseded.value, hebbs.InvalidInputError)
    assert superseded.value.field == "id"
    assert second.id_hex in superseded.value.reason
    assert str(superseded.value).startswith("conflict on id: ")
    assert store.health().memory_count == count, "the conflict wrote nothing"
    assert [m.id for m in store.lineage(first.id)] == [first.id, second.id, third.id]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("content", {}),
        ("content", {"content": "   "}),
        ("importance", {"importance": 2.0}),
        ("context", {"context": {"bad": object()}}),
        ("embedding", {"embedding": np.ones(7, dtype=np.float32)}),
        ("entity_id", {"entity_id": ""}),
    ]
    for field, kwargs in cases:
        with pytest.raises(hebbs.InvalidInputError) as error:
            store.revise(third.id, **kwargs)
        assert error.value.field == field, kwargs
    with pytest.raises(hebbs.NotFoundError):
        store.revise("0" * 32, importance=0.5)
    assert store.health().memory_count == count
    assert len(store.lineage(third.id)) == 3


def test_forget_by_ids_cascades_to_insights_and_leaves_a_tombstone(store: Store) -> None:
    source = store.remember("Globex churned after the price increase", entity_id="globex")
    insight = store.remember(
        "Price increases drive churn",
        kind="insight",
        edges=[hebbs.Edge(source.id, hebbs.EdgeType.INSIGHT_FROM)],
    )
    assert insight.kind == hebbs.MemoryKind.INSIGHT
    bystander = store.remember("Globex renewed its support plan", entity_id="globex")
    result = store.forget(ids=[source.id])
    assert (result.forgotten_count, result.tombstone_count, result.truncated) == (1, 2, False)
    assert result.cascade_count == 2, "the insight and its edge"
    for gone in (source, insight):
        with pytest.raises(hebbs.NotFoundError):
            store.get(gone.id)
    assert ids_of(store.recall("why did Globex leave?", top_k=10)) == [bystander.id]
    assert store.health().memory_count == 1

    tombstone = store.tombstone(source.id)
    assert tombstone is not None
    assert tombstone.entity_id == "globex"
    assert tombstone.kind == hebbs.MemoryKind.EPISODE
    assert tombstone.created_at == source.created_at
    assert tombstone.content_sha256 == hashlib.sha256(source.content.encode()).hexdigest()
    assert store.tombstone(bystander.id) is None
    page = store.tombstones(limit=1)
    assert len(page) == 1
    assert len(store.tombstones(after=page[0].id)) == 1
    assert store.forget(ids=[source.id, "f" * 32]).forgotten_count == 0


def test_entity_erasure_truncates_and_continues(store: Store) -> None:
    vectors = np.random.default_rng(7).normal(size=(30, 384)).astype(np.float32)
    store.remember_many(
        [
            {"content": f"acme note {i}", "entity_id": "acme", "embedding": vectors[i]}
            for i in range(25)
        ]
        + [{"content": "other", "entity_id": "initech", "embedding": vectors[29]}]
    )
    first = store.forget(entity_id="acme", limit=10)
    assert (first.forgotten_count, first.truncated) == (10, True)
    rest = [store.forget(entity_id="acme", limit=10) for _ in range(2)]
    assert [(r.forgotten_count, r.truncated) for r in rest] == [(10, True), (5, False)]
    assert store.recall(strategies=["temporal"], entity_id="acme").results == []
    assert store.health().memory_count == 1


def test_forget_by_criteria_and_decay(store: Store) -> None:
    old = now_us() - 200 * DAY_US
    faded = store.remember("an old trivial note", importance=0.2, created_at=old)
    old_important = store.remember("an old important note", importance=0.95, created_at=old)
    fresh = store.remember("a fresh trivial note", importance=0.2)
    result = store.forget(older_than=now_us() - 30 * DAY_US, importance_below=0.5, kind="episode")
    assert result.forgotten_count == 1
    with pytest.raises(hebbs.NotFoundError):
        store.get(faded.id)
    decayed = store.forget_decayed(0.05)
    assert decayed.forgotten_count == 1, "the old important note has decayed below 0.05"
    with pytest.raises(hebbs.NotFoundError):
        store.get(old_important.id)
    assert store.get(fresh.id).content == "a fresh trivial note"


BAD_FORGETS: list[tuple[str, dict[str, Any]]] = [
    ("ids", {}),
    ("ids", {"ids": "0" * 32}),
    ("ids[0]", {"ids": ["not hex"]}),
    ("entity_id", {"entity_id": ""}),
    ("importance_below", {"importance_below": 1.5}),
    ("importance_below", {"importance_below": float("nan")}),
    ("kind", {"kind": "memo"}),
    ("older_than", {"older_than": -1}),
    ("limit", {"entity_id": "acme", "limit": 0}),
    ("limit", {"entity_id": "acme", "limit": "ten"}),
]


@pytest.mark.parametrize(("field", "kwargs"), BAD_FORGETS)
def test_bad_forget_is_typed_and_changes_nothing(
    store: Store, field: str, kwargs: dict[str, Any]
) -> None:
    kept = store.remember("Acme signed the contract", entity_id="acme")
    with pytest.raises(hebbs.InvalidInputError) as error:
        store.forget(**kwargs)
    assert error.value.field == field
    assert store.health().memory_count == 1
    assert store.get(kept.id).content == "Acme signed the contract"
    assert store.tombstones() == []


def test_bad_decay_and_kind_inputs_are_typed(store: Store) -> None:
    for floor, field in ((1.5, "floor"), ("low", "floor")):
        with pytest.raises(hebbs.InvalidInputError) as error:
            store.forget_decayed(floor)  # type: ignore[arg-type]
        assert error.value.field == field
    with pytest.raises(hebbs.InvalidInputError) as revision:
        store.remember("made by hand", kind="revision")
    assert revision.value.field == "kind"
    with pytest.raises(hebbs.InvalidInputError) as unknown:
        store.remember_many([{"content": "x", "kind": "diary"}])
    assert unknown.value.field == "items[0].kind"
    assert store.health().memory_count == 0


@pytest.mark.embedded_only("reads the store's files")
def test_purge_removes_the_bytes_from_disk(tmp_path: Path, embedder: Embedder) -> None:
    secret = "pz-unique-erasure-marker-5d1e"
    path = tmp_path / "db"
    with hebbs.Hebbs.open(path, embedder=embedder) as mem:
        mem.remember(f"{secret} belongs to acme", entity_id="acme")
        mem.remember("unrelated memory")
    with hebbs.Hebbs.open(path, embedder=embedder) as mem:
        assert mem.forget(entity_id="acme", purge=True).forgotten_count == 1
    leaks = [p for p in path.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaks == []


@pytest.mark.embedded_only("an option of Hebbs.open")
def test_auto_forget_option_is_validated(tmp_path: Path, embedder: Embedder) -> None:
    with pytest.raises(hebbs.InvalidInputError) as error:
        hebbs.Hebbs.open(tmp_path / "db", embedder=embedder, auto_forget_interval=5.0)
    assert error.value.field == "auto_forget_floor"
    with pytest.raises(hebbs.InvalidInputError) as floor:
        hebbs.Hebbs.open(tmp_path / "db", embedder=embedder, auto_forget_floor=3.0)
    assert floor.value.field == "auto_forget.floor"


@pytest.mark.embedded_only("AsyncHebbs.open; the async client runs in test_client")
async def test_async_lifecycle(tmp_path: Path, embedder: Embedder) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        first = await mem.remember(PRICE_V1, entity_id="acme")
        other = await mem.remember("Acme's office moved to Denver", entity_id="acme")
        await mem.add_edges(other.id, [hebbs.Edge(first.id, "related_to")])
        second = await mem.revise(first.id, content=PRICE_V2)
        assert [m.id for m in await mem.lineage(second.id)] == [first.id, second.id]
        assert set(ids_of(await mem.recall("pro plan price", include_superseded=True))) >= {
            first.id,
            second.id,
        }
        result = await mem.forget(entity_id="acme")
        assert result.tombstone_count == 3
        assert len(await mem.tombstones()) == 3
        assert (await mem.forget_decayed(0.5)).forgotten_count == 0
        assert await mem.tombstone(first.id) is not None


def run_cli(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--db", str(db)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.embedded_only("the CLI on --db; --url runs in test_cli_remote")
def test_cli_revise_and_forget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "db"
    code, out, err = run_cli(capsys, db, "remember", PRICE_V1, "--entity-id", "acme", "--json")
    assert code == EXIT_OK, err
    first = json.loads(out)["id"]
    code, out, err = run_cli(capsys, db, "revise", first, "--content", PRICE_V2, "--json")
    assert code == EXIT_OK, err
    revision = json.loads(out)
    assert (revision["kind"], revision["revised_from"]) == ("revision", first)
    code, out, err = run_cli(capsys, db, "revise", first, "--importance", "0.3")
    assert code == EXIT_CONFLICT
    assert "conflict on ID" in err
    assert "superseded" in err
    code, out, err = run_cli(capsys, db, "forget")
    assert code == EXIT_USAGE
    assert out == ""
    code, out, err = run_cli(capsys, db, "forget", "--importance-below", "7")
    assert code == EXIT_USAGE
    code, out, err = run_cli(capsys, db, "forget", "--entity-id", "acme", "--limit", "1", "--json")
    assert code == EXIT_OK, err
    assert json.loads(out) == {
        "forgotten_count": 1,
        "cascade_count": 1,
        "tombstone_count": 1,
        "truncated": True,
    }
    code, out, err = run_cli(capsys, db, "forget", "--entity-id", "acme", "--purge")
    assert code == EXIT_OK, err
    assert "forgotten" in out
    assert "more memories match" not in out
    code, out, _ = run_cli(capsys, db, "health", "--json")
    assert json.loads(out)["memory_count"] == 0
