"""Filtered recall from Python: the engine's answer against a naive evaluator of the filter
language written here from docs/filters.md and a numpy brute force (hypothesis), the same
filter through the embedded store, the server and the async API, and a bad filter named by its
path inside the filter on each."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hebbs
from hebbs.errors import InvalidTypeError, InvalidValueError

DIMENSION = 8
CHANNELS = ("email", "chat", "sms")
RELEVANCE_ONLY = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}
MISSING = object()


def field_value(memory: Any, field: str) -> Any:
    """What a filter's ``field`` reads of ``memory``, :data:`MISSING` when it has none."""
    if field.startswith("context."):
        value: Any = memory.context
        for key in field.removeprefix("context.").split("."):
            if not isinstance(value, dict) or key not in value:
                return MISSING
            value = value[key]
        return value
    value = {
        "kind": memory.kind.value,
        "entity_id": memory.entity_id,
        "created_at": memory.created_at,
        "importance": float(str(np.float32(memory.importance))),
    }[field]
    return MISSING if value is None else value


def equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def ordered(a: Any, b: Any) -> int | None:
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
    if numbers or (isinstance(a, str) and isinstance(b, str)):
        a_key = a.encode() if isinstance(a, str) else a
        b_key = b.encode() if isinstance(b, str) else b
        return (a_key > b_key) - (a_key < b_key)
    return None


def holds(op: str, value: Any, operand: Any) -> bool:
    """docs/filters.md's operator table, read literally."""
    present = value is not MISSING
    if op == "$eq":
        return present and equal(value, operand)
    if op == "$ne":
        return not holds("$eq", value, operand)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        order = ordered(value, operand) if present else None
        if order is None:
            return False
        return {"$gt": order > 0, "$gte": order >= 0, "$lt": order < 0, "$lte": order <= 0}[op]
    if op == "$in":
        return present and any(equal(value, option) for option in operand)
    if op == "$nin":
        return not holds("$in", value, operand)
    if op == "$exists":
        return present == operand
    assert op == "$contains"
    if isinstance(value, str):
        return isinstance(operand, str) and operand in value
    return isinstance(value, list) and any(equal(item, operand) for item in value)


def selects(filter_: dict[str, Any], memory: Any) -> bool:
    for key, condition in filter_.items():
        if key == "$and" and not all(selects(part, memory) for part in condition):
            return False
        if key == "$or" and not any(selects(part, memory) for part in condition):
            return False
        if key == "$not" and selects(condition, memory):
            return False
        if key.startswith("$"):
            continue
        operators = (
            condition
            if isinstance(condition, dict) and any(k.startswith("$") for k in condition)
            else {"$eq": condition}
        )
        value = field_value(memory, key)
        if not all(holds(op, value, operand) for op, operand in operators.items()):
            return False
    return True


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.0, 2.5]),
    st.sampled_from(["email", "chat", "a", "ab"]),
)
conditions = st.one_of(
    st.builds(lambda c: {"context.channel": c}, st.sampled_from(CHANNELS)),
    st.builds(
        lambda op, n: {"context.priority": {op: n}},
        st.sampled_from(["$gt", "$gte", "$lt", "$lte", "$eq", "$ne"]),
        st.integers(-1, 5),
    ),
    st.builds(lambda v: {"context.note": v}, scalars),
    st.builds(lambda v: {"context.tags": {"$contains": v}}, st.sampled_from(["a", "b", "c"])),
    st.builds(lambda vs: {"context.priority": {"$in": vs}}, st.lists(scalars, max_size=3)),
    st.builds(lambda vs: {"context.channel": {"$nin": vs}}, st.lists(scalars, max_size=3)),
    st.builds(lambda b: {"context.ticket.open": {"$exists": b}}, st.booleans()),
    st.builds(lambda e: {"entity_id": e}, st.sampled_from(["acme", "globex"])),
    st.builds(lambda x: {"importance": {"$gte": x}}, st.sampled_from([0.2, 0.5, 0.8])),
    st.builds(lambda k: {"kind": {"$in": k}}, st.lists(st.sampled_from(["episode", "insight"]))),
)
filters = st.recursive(
    conditions,
    lambda inner: st.one_of(
        st.builds(lambda parts: {"$and": parts}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda parts: {"$or": parts}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda part: {"$not": part}, inner),
    ),
    max_leaves=6,
)


def unit(rng: np.random.Generator) -> np.ndarray:
    vector = rng.normal(size=DIMENSION).astype(np.float32)
    return vector / np.linalg.norm(vector)


@pytest.fixture(scope="module")
def vectors_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """An embedded store of 400 memories with random vectors and contexts, and the vectors."""
    rng = np.random.default_rng(11)
    mem = hebbs.Hebbs.open(tmp_path_factory.mktemp("filters") / "db", embedder=None)
    items = []
    for i in range(400):
        context: dict[str, Any] = {"priority": int(rng.integers(0, 5)), "tags": ["a", "b"][: i % 3]}
        if i % 4:
            context["channel"] = CHANNELS[i % 3]
        if i % 5 == 0:
            context["note"] = [None, True, 2, 2.5, "ab"][i % 7 % 5]
        if i % 2:
            context["ticket"] = {"open": bool(i % 3)}
        items.append(
            {
                "content": f"memory {i}",
                "embedding": unit(rng),
                "context": context,
                "entity_id": "acme" if i % 2 else "globex",
                "importance": float(rng.integers(0, 11)) / 10,
            }
        )
    stored = mem.remember_many(items)
    matrix = np.stack([item["embedding"] for item in items])
    yield mem, stored, matrix
    mem.close()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(filter_=filters, seed=st.integers(0, 2**32 - 1), top_k=st.integers(1, 15))
def test_similarity_equals_the_brute_force_over_what_the_naive_evaluator_selects(
    vectors_store: Any, filter_: dict[str, Any], seed: int, top_k: int
) -> None:
    mem, stored, matrix = vectors_store
    cue = unit(np.random.default_rng(seed))
    output = mem.recall(
        cue_embedding=cue,
        strategies=["similarity"],
        top_k=top_k,
        ef_search=500,
        scoring_weights=RELEVANCE_ONLY,
        filter=filter_,
    )
    chosen = [i for i, memory in enumerate(stored) if selects(filter_, memory)]
    expected = sorted(chosen, key=lambda i: -float(matrix[i] @ cue))[:top_k]
    assert [result.memory.id for result in output.results] == [stored[i].id for i in expected]


def test_a_filtered_default_recall_on_every_surface(store: Any) -> None:
    store.remember_many(
        [
            {"content": "Acme asked for a refund by email", "context": {"channel": "email"}},
            {"content": "Acme asked for a refund on chat", "context": {"channel": "chat"}},
            {"content": "Globex wants a refund too", "context": {"channel": "email", "vip": True}},
        ]
    )
    output = store.recall("who wants a refund?", filter={"context.channel": "email"})
    assert {r.memory.content for r in output.results} == {
        "Acme asked for a refund by email",
        "Globex wants a refund too",
    }
    only = store.recall(
        "refund", filter={"$and": [{"context.channel": "email"}, {"context.vip": True}]}
    )
    assert [r.memory.content for r in only.results] == ["Globex wants a refund too"]
    with pytest.raises(InvalidValueError) as bad:
        store.recall("x", filter={"$or": [{"context.a": 1}, {"kind": {"$gt": 2}}]})
    assert bad.value.field == "filter.$or[1].kind.$gt"
    with pytest.raises(InvalidTypeError) as wrong:
        store.recall("x", filter=[{"context.a": 1}])  # type: ignore[arg-type]
    assert wrong.value.field == "filter"


async def test_the_async_api_takes_the_filter(tmp_path: Path, embedder: Any) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        await mem.remember("a note from the email channel", context={"channel": "email"})
        await mem.remember("a note from the chat channel", context={"channel": "chat"})
        output = await mem.recall("a note", filter={"context.channel": {"$ne": "email"}})
        assert [r.memory.context["channel"] for r in output.results] == ["chat"]


def test_numbers_compare_by_value_and_types_stay_apart(mem: hebbs.Hebbs) -> None:
    mem.remember("one as an int", context={"n": 1}, importance=0.7)
    mem.remember("one as a float", context={"n": 1.0})
    mem.remember("one as a string", context={"n": "1"})
    found = {r.memory.content for r in mem.recall("one", filter={"context.n": 1}).results}
    assert found == {"one as an int", "one as a float"}
    assert [r.memory.content for r in mem.recall("one", filter={"context.n": "1"}).results] == [
        "one as a string"
    ]
    important = mem.recall("one", filter={"importance": {"$gte": 0.7}}).results
    assert [r.memory.content for r in important] == ["one as an int"]
    assert not math.isnan(important[0].score)


def test_prime_forget_listing_and_subscribe_take_the_filter(store: Any) -> None:
    email = {"context.channel": "email"}
    store.remember_many(
        [
            {
                "content": "Acme emailed about the invoice",
                "entity_id": "acme",
                "context": {"channel": "email"},
            },
            {
                "content": "Acme called about the invoice",
                "entity_id": "acme",
                "context": {"channel": "phone"},
            },
            {
                "content": "Globex emailed about shipping",
                "entity_id": "globex",
                "context": {"channel": "email"},
            },
        ]
    )
    primed = store.prime("acme", cue="invoice", filter=email)
    assert [r.memory.content for r in primed.results] == ["Acme emailed about the invoice"]
    page = store.list_memories(filter=email)
    assert {m.content for m in page.memories} == {
        "Acme emailed about the invoice",
        "Globex emailed about shipping",
    }
    with pytest.raises(InvalidValueError) as bad:
        store.list_memories(filter={"context.channel": {"$in": "email"}})
    assert bad.value.field == "filter.context.channel.$in"
    with store.subscribe(
        "a message about the invoice", confidence_threshold=0.0, filter=email
    ) as sub:
        store.remember("Initech phoned about the invoice", context={"channel": "phone"})
        emailed = store.remember("Initech emailed about the invoice", context={"channel": "email"})
        push = sub.next(timeout=60.0)
        assert push is not None
        assert push.memory.id == emailed.id
    forgotten = store.forget(filter={"$and": [email, {"entity_id": "acme"}]})
    assert forgotten.forgotten_count == 1
    remaining = {m.content for m in store.list_memories().memories}
    assert "Acme emailed about the invoice" not in remaining
    assert "Acme called about the invoice" in remaining


def test_the_listing_route_reads_the_filter_as_json_text(remote_key: tuple[str, str]) -> None:
    url, key = remote_key
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, headers=headers) as http:
        http.post("/v1/memories", json={"content": "an email", "context": {"channel": "email"}})
        http.post("/v1/memories", json={"content": "a call", "context": {"channel": "phone"}})
        listed = http.get("/v1/memories", params={"filter": '{"context.channel": "email"}'})
        assert listed.status_code == 200
        assert [m["content"] for m in listed.json()["memories"]] == ["an email"]
        for text, field in (
            ("{bad", "filter"),
            ('{"context.channel": {"$in": 1}}', "filter.context.channel.$in"),
        ):
            bad = http.get("/v1/memories", params={"filter": text})
            assert bad.status_code == 400
            assert bad.json()["error_code"] == "invalid_input"
            assert bad.json()["field"] == field
