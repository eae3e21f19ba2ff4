"""The API suite run twice: on the embedded store and on a real server through the client.

``store`` (``conftest.py``, from ``remote.py``) is parametrized over ``embedded``
(``hebbs.Hebbs`` in this process) and ``remote`` (``hebbs.HebbsClient`` talking to ``hebbs
serve`` on a free loopback port, a tenant of its own per test). The tests keep to their own
entity and session ids all the same.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

import hebbs
from hebbs import Edge, EdgeType
from hebbs.embedder import Embedder
from remote import Store

#: Seconds to wait for a push.
PUSH_TIMEOUT_S = 15.0


@pytest.fixture
def entity() -> str:
    return f"acme-{uuid.uuid4().hex[:8]}"


def test_remember_and_get(store: Store, entity: str) -> None:
    memory = store.remember(
        "Acme asked for a discount", importance=0.8, context={"stage": "deal"}, entity_id=entity
    )
    assert isinstance(memory, hebbs.Memory)
    again = store.get(memory.id)
    assert (again.id, again.content, again.context, again.entity_id) == (
        memory.id,
        "Acme asked for a discount",
        {"stage": "deal"},
        entity,
    )
    assert again.importance == pytest.approx(0.8)
    assert again.embedding is None
    with_vector = store.get(memory.id_hex, include_embedding=True)
    assert with_vector.embedding is not None
    assert with_vector.embedding.dtype.name == "float32"


def test_remember_many_and_get_many(store: Store, entity: str) -> None:
    stored = store.remember_many([{"content": "one", "entity_id": entity}, {"content": "two"}])
    assert [memory.content for memory in stored] == ["one", "two"]
    if not hasattr(store, "get_many"):
        pytest.skip("Hebbs.get_many comes with the server branch")
    missing = bytes(16)
    found = store.get_many([stored[1].id, missing, stored[0].id_hex])
    assert [None if m is None else m.content for m in found] == ["two", None, "one"]


def test_recall_strategies_and_errors(store: Store, entity: str) -> None:
    first = store.remember("Acme wants 10% off the annual plan", entity_id=entity)
    second = store.remember(
        "We countered with 5% off", entity_id=entity, edges=[Edge(first.id, EdgeType.CAUSED_BY)]
    )
    output = store.recall("discount on the plan", entity_id=entity, top_k=5)
    assert isinstance(output, hebbs.RecallOutput)
    assert first.id in [result.memory.id for result in output.results]
    temporal = store.recall(strategies=["temporal"], entity_id=entity)
    assert [result.memory.id for result in temporal.results] == [second.id, first.id]
    causal = store.recall(
        strategies=["causal"], seed_memory_id=second.id, graph_context=2, direction="both"
    )
    assert first.id in [result.memory.id for result in causal.results]
    assert any(result.expansion_context for result in causal.results)
    partial = store.recall("discount", strategies=["similarity", "temporal"])
    assert [error.strategy for error in partial.strategy_errors] == ["temporal"]
    assert partial.strategy_errors[0].field == "entity_id"


def test_prime(store: Store, entity: str) -> None:
    store.remember("Acme renewed", entity_id=entity)
    primed = store.prime(entity, cue="renewal")
    assert isinstance(primed, hebbs.PrimeOutput)
    assert primed.temporal_count >= 1
    assert [result.memory.content for result in primed.results] == ["Acme renewed"]


def test_revise_and_lineage(store: Store, entity: str) -> None:
    original = store.remember("Budget is 10k", entity_id=entity)
    revision = store.revise(original.id, content="Budget is 12k")
    assert revision.kind == hebbs.MemoryKind.REVISION
    assert [memory.content for memory in store.lineage(revision.id)] == [
        "Budget is 10k",
        "Budget is 12k",
    ]


def test_edges_and_orphans(store: Store, entity: str) -> None:
    first = store.remember("orphan check one", entity_id=entity)
    second = store.remember("orphan check two", entity_id=entity)
    orphans = {memory.id for memory in store.list_orphans(limit=1000)}
    assert {first.id, second.id} <= orphans
    assert store.add_edges(second.id, [Edge(first.id, "related_to", 0.5)]) is None
    orphans = {memory.id for memory in store.list_orphans(limit=1000)}
    assert not {first.id, second.id} & orphans


def test_list_memories(store: Store, entity: str) -> None:
    made = [store.remember(f"listed {i}", entity_id=entity) for i in range(4)]
    made.append(store.remember("listed insight", entity_id=entity, kind="insight"))
    pages: list[hebbs.MemoryPage] = []
    cursor: bytes | None = None
    while True:
        page = store.list_memories(entity_id=entity, cursor=cursor, limit=2)
        assert isinstance(page, hebbs.MemoryPage)
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert [len(page.memories) for page in pages] == [2, 2, 1]
    assert [m.id for page in pages for m in page.memories] == [m.id for m in made]
    assert pages[0].next_cursor == made[1].id
    insights = store.list_memories(entity_id=entity, kind=hebbs.MemoryKind.INSIGHT)
    assert [m.id for m in insights.memories] == [made[-1].id]
    assert all(m.access_count == 0 for m in insights.memories), "a listing is not a recall"
    revision = store.revise(made[0].id, importance=0.9)
    current = store.list_memories(entity_id=entity).memories
    assert [m.id for m in current] == [m.id for m in made[1:]] + [revision.id]
    with_old = store.list_memories(entity_id=entity, include_superseded=True).memories
    assert with_old[0].id == made[0].id
    assert with_old[0].superseded
    everything = store.list_memories(limit=1000, cursor=made[0].id)
    assert made[0].id not in [m.id for m in everything.memories]
    with pytest.raises(hebbs.InvalidInputError) as bad:
        store.list_memories(limit=0)
    assert bad.value.field == "limit"
    with pytest.raises(hebbs.InvalidInputError) as bad:
        store.list_memories(entity_id=entity, cursor=b"\x01" * 16)
    assert bad.value.field == "cursor"


def test_forget_and_tombstones(store: Store, entity: str) -> None:
    memory = store.remember("to be forgotten", entity_id=entity)
    assert store.tombstone(memory.id) is None
    result = store.forget(entity_id=entity)
    assert isinstance(result, hebbs.ForgetResult)
    assert (result.forgotten_count, result.truncated) == (1, False)
    tombstone = store.tombstone(memory.id)
    assert tombstone is not None
    assert (tombstone.id, tombstone.entity_id) == (memory.id, entity)
    assert memory.id in [item.id for item in store.tombstones(limit=1000)]
    with pytest.raises(hebbs.NotFoundError):
        store.get(memory.id)
    decayed = store.forget_decayed(0.0)
    assert decayed.forgotten_count == 0


def test_chat_context(store: Store) -> None:
    session = f"chat-{uuid.uuid4().hex[:8]}"
    said = store.remember("the user likes tea", session_id=session)
    assert [memory.id for memory in store.get_chat_context(session)] == [said.id]


def test_health(store: Store) -> None:
    store.remember("count me")
    status = store.health()
    assert isinstance(status, hebbs.HealthStatus)
    assert status.serving
    assert status.memory_count >= 1
    assert status.version == hebbs.__version__


def test_subscribe(store: Store, entity: str) -> None:
    with store.subscribe("pricing question", entity_id=entity, confidence_threshold=0.0) as sub:
        assert isinstance(sub.id, int)
        assert sub.next(timeout=0) is None
        memory = store.remember("a question about pricing", entity_id=entity)
        push = sub.next(timeout=PUSH_TIMEOUT_S)
        assert push is not None
        assert isinstance(push, hebbs.SubscribePush)
        assert (push.memory.id, push.subscription_id, push.sequence_number) == (
            memory.id,
            sub.id,
            1,
        )
        assert sub.dropped == 0
    assert sub.closed
    assert sub.next(timeout=0) is None


@pytest.mark.parametrize(
    ("call", "error", "field"),
    [
        (lambda s: s.get(bytes(16)), hebbs.NotFoundError, None),
        (lambda s: s.remember("x", importance=1.5), hebbs.InvalidValueError, "importance"),
        (lambda s: s.recall("x", top_k=0), hebbs.InvalidValueError, "top_k"),
        (
            lambda s: s.recall("x", max_depth=99, strategies=["causal"]),
            hebbs.InvalidValueError,
            None,
        ),
        (lambda s: s.revise(bytes(16), content="y"), hebbs.NotFoundError, None),
        (lambda s: s.forget(), hebbs.InvalidValueError, None),
        (lambda s: s.get("not-hex"), hebbs.InvalidValueError, "id"),
    ],
)
def test_errors_map_to_the_embedded_classes(
    store: Store, call: Any, error: type[Exception], field: str | None
) -> None:
    with pytest.raises(error) as raised:
        call(store)
    if field is not None:
        assert getattr(raised.value, "field", None) == field


@pytest.fixture(params=["embedded", "remote"])
async def async_store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Any:
    if request.param == "embedded":
        engine = await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder)
        yield engine
        await engine.close()
    else:
        url, key = request.getfixturevalue("remote_key")
        client = hebbs.AsyncHebbsClient(url, key)
        yield client
        await client.close()


async def test_async_remember_recall_subscribe(async_store: Any, entity: str) -> None:
    async with await async_store.subscribe(
        "tea", entity_id=entity, confidence_threshold=0.0
    ) as sub:
        memory = await async_store.remember("the user likes tea", entity_id=entity)
        push = await sub.next(timeout=PUSH_TIMEOUT_S)
        assert push is not None
        assert push.memory.id == memory.id
    output = await async_store.recall("tea", entity_id=entity)
    assert output.results[0].memory.id == memory.id
