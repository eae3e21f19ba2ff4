"""``hebbs.integrations.langgraph.HebbsStore`` against LangGraph's own reference store:
hypothesis writes sequences of puts, deletes, gets, searches (with and without a query, a
filter, a limit and an offset) and namespace listings, run one by one through the store's
methods and in batches through ``batch`` / ``abatch``, against ``InMemoryStore`` and a real
hebbs store; the answers must be equal, except the order of a search (hebbs' recall ranks a
query, a listing is in the order of the last put: checked against a model of it). Then a real
``StateGraph`` compiled with the store shares a memory between two threads, the store reopened
from disk, and docs/integrations/langgraph.md's example runs."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

import hebbs
from hebbs._native import MAX_CONTEXT_BYTES, MAX_ENTITY_ID_BYTES, MAX_KEY_BYTES
from hebbs.embedder import Embedder
from hebbs.integrations._langgraph_mapping import (
    escape,
    memory_key,
    split_memory_key,
    translate_filter,
    unescape,
)
from hebbs.integrations.langgraph import HebbsStore
from remote import Store

DOC = Path(__file__).resolve().parents[1] / "docs" / "integrations" / "langgraph.md"

# The generated operations: few namespaces and keys, so that operations meet; labels and keys
# holding the characters the key encoding escapes.
NAMESPACES = [("a",), ("a", "b"), ("a", "b", "c"), ("b",), ("a/b",), ("%2F", "x y"), ("é",)]
KEYS = ["k", "k/1", "", "%", "é ü"]
WORDS = ["cats", "dogs", "tea", "rain", "jazz"]

values = st.fixed_dictionaries(
    {"n": st.integers(-3, 3) | st.sampled_from([0.5, -1.5, 2.0])},
    optional={
        "s": st.sampled_from(WORDS) | st.none(),
        "t": st.booleans(),
        "tags": st.lists(st.sampled_from(WORDS), max_size=2),
        "o": st.fixed_dictionaries({"p": st.integers(0, 2)}),
        "text": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    },
)
numbers = st.integers(-3, 3) | st.sampled_from([0.5, 1.5])
comparisons = st.dictionaries(
    st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]), numbers, min_size=1, max_size=2
)
conditions = st.one_of(
    st.tuples(st.just("n"), numbers | comparisons),
    st.tuples(
        st.just("s"),
        st.sampled_from(WORDS) | st.none() | st.sampled_from([{"$ne": "cats"}, {"$ne": None}]),
    ),
    st.tuples(st.just("t"), st.booleans()),
    st.tuples(st.just("tags"), st.lists(st.sampled_from(WORDS), max_size=2)),
    st.tuples(st.just("o"), st.fixed_dictionaries({"p": st.integers(0, 2)})),
)
filters = st.none() | st.lists(conditions, max_size=2).map(dict)
prefixes = st.sampled_from([(), ("a",), ("a", "b"), ("b",), ("a/b",), ("%2F",), ("zz",)])
paths = st.lists(st.sampled_from(["a", "b", "c", "*", "x y", "a/b"]), max_size=2).map(tuple)

puts = st.tuples(
    st.just("put"),
    st.sampled_from(NAMESPACES),
    st.sampled_from(KEYS),
    values,
    st.none() | st.just(False) | st.just(["text"]),
)
deletes = st.tuples(st.just("delete"), st.sampled_from(NAMESPACES), st.sampled_from(KEYS))
gets = st.tuples(st.just("get"), st.sampled_from([*NAMESPACES, ("zz",)]), st.sampled_from(KEYS))
searches = st.tuples(
    st.just("search"),
    prefixes,
    filters,
    st.integers(0, 6),
    st.integers(0, 3),
    st.none() | st.sampled_from(WORDS),
)
listings = st.tuples(
    st.just("list"),
    st.none() | paths,
    st.none() | paths,
    st.none() | st.integers(1, 3),
    st.integers(1, 5),
    st.integers(0, 2),
)
operations = st.one_of(puts, puts, deletes, gets, searches, listings)
steps = st.lists(
    st.tuples(
        st.sampled_from(["method", "batch", "abatch"]), st.lists(operations, min_size=1, max_size=3)
    ),
    min_size=1,
    max_size=14,
)

_prefixes = itertools.count()
#: Sequences hypothesis tries (each a few seconds' worth of hebbs calls at most).
EXAMPLES = int(os.environ.get("HEBBS_LANGGRAPH_EXAMPLES", "60"))


def reference() -> InMemoryStore:
    """LangGraph's store, without an index: what a search matches is compared, not a query's
    ranking. (With an index, langgraph 1.2.22's ``InMemoryStore.batch`` fails on two puts of
    the same indexed text: "Number of embeddings (1) does not match number of indices (2)",
    langchain-ai/langgraph#8822.)"""
    return InMemoryStore()


def as_op(operation: tuple[Any, ...]) -> Op:
    kind = operation[0]
    if kind == "put":
        _, namespace, key, value, index = operation
        return PutOp(namespace, key, value, index=index)
    if kind == "delete":
        return PutOp(operation[1], operation[2], None)
    if kind == "get":
        return GetOp(operation[1], operation[2])
    if kind == "search":
        _, prefix, filter, limit, offset, query = operation
        return SearchOp(prefix, filter, limit, offset, query)
    _, prefix, suffix, max_depth, limit, offset = operation
    conditions = [MatchCondition("prefix", prefix)] if prefix is not None else []
    conditions += [MatchCondition("suffix", suffix)] if suffix is not None else []
    return ListNamespacesOp(tuple(conditions), max_depth, limit, offset)


def call(store: BaseStore, operation: tuple[Any, ...]) -> Any:
    """One operation through the store's public method."""
    kind = operation[0]
    if kind == "put":
        _, namespace, key, value, index = operation
        return store.put(namespace, key, value, index=index)
    if kind == "delete":
        return store.delete(operation[1], operation[2])
    if kind == "get":
        return store.get(operation[1], operation[2])
    if kind == "search":
        _, prefix, filter, limit, offset, query = operation
        return store.search(prefix, query=query, filter=filter, limit=limit, offset=offset)
    _, prefix, suffix, max_depth, limit, offset = operation
    return store.list_namespaces(
        prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
    )


def run(store: BaseStore, how: str, ops: list[tuple[Any, ...]]) -> list[Any]:
    if how == "method":
        return [call(store, operation) for operation in ops]
    batch = [as_op(operation) for operation in ops]
    if how == "batch":
        return store.batch(batch)
    return asyncio.run(store.abatch(batch))


def forget_empty_namespaces(store: InMemoryStore) -> None:
    """InMemoryStore keeps a namespace once a get or a delete has named it, holding no item;
    PostgresStore and hebbs list the namespaces that hold items."""
    for namespace in [namespace for namespace, items in store._data.items() if not items]:
        del store._data[namespace]


def plain(item: Item) -> tuple[tuple[str, ...], str, dict[str, Any]]:
    return item.namespace, item.key, item.value


def exact(value: Any) -> Any:
    """A JSON value with its types spelled out, so that ``1 == 1.0 == True`` cannot hide a type
    changed on the way through hebbs."""
    if isinstance(value, dict):
        return {key: exact(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [exact(inner) for inner in value]
    return (type(value).__name__, value)


class Model:
    """The order in which hebbs lists items: a put moves an item to the end, the writes of a
    batch applied in the order their keys first appear in it."""

    def __init__(self) -> None:
        self.order: list[tuple[tuple[str, ...], str]] = []

    def apply(self, ops: list[tuple[Any, ...]]) -> None:
        writes: dict[tuple[tuple[str, ...], str], bool] = {}
        for operation in ops:
            if operation[0] in ("put", "delete"):
                writes[(operation[1], operation[2])] = operation[0] == "put"
        for where in writes:
            if where in self.order:
                self.order.remove(where)
        self.order += [where for where, put in writes.items() if put]


def check_search(
    operation: tuple[Any, ...], got: list[Any], every: list[Any], model: Model
) -> None:
    """``every``: what the reference store matches, unpaged."""
    _, _, _, limit, offset, query = operation
    matching = {(ns, key): exact(value) for ns, key, value in map(plain, every)}
    assert len(got) == min(limit, max(0, len(matching) - offset))
    assert len({(item.namespace, item.key) for item in got}) == len(got)
    for item in got:
        assert exact(item.value) == matching[(item.namespace, item.key)]
        assert item.created_at <= item.updated_at
    if query is None:
        ordered = [where for where in model.order if where in matching]
        assert [(item.namespace, item.key) for item in got] == ordered[offset : offset + limit]
        assert all(item.score is None for item in got)
    else:
        assert all(item.score is None or isinstance(item.score, float) for item in got)
        scored = [item.score is not None for item in got]
        assert scored == sorted(scored, reverse=True), "recall's answers come first"


def compare(
    ops: list[tuple[Any, ...]],
    mine: list[Any],
    theirs: list[Any],
    before: InMemoryStore,
    model: Model,
) -> None:
    for operation, got, expected in zip(ops, mine, theirs, strict=True):
        kind = operation[0]
        if kind in ("put", "delete"):
            assert got is None
            assert expected is None
        elif kind == "get":
            assert (got is None) == (expected is None), operation
            if got is not None:
                assert (got.namespace, got.key) == (expected.namespace, expected.key)
                assert exact(got.value) == exact(expected.value)
        elif kind == "search":
            every = before.search(operation[1], filter=operation[2], limit=10**6)
            check_search(operation, got, every, model)
        else:
            # Asked of the store as it was before the batch, where no namespace without an
            # item is left (a get earlier in the batch made one in ``InMemoryStore``).
            assert got == before.batch([as_op(operation)])[0], operation


@pytest.mark.embedded_only("hundreds of operation sequences: on the embedded store, for time")
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=steps)
def test_same_answers_as_in_memory_store(mem: hebbs.Hebbs, steps: list[Any]) -> None:
    # One hebbs store for every example, each example under a key prefix of its own.
    store = HebbsStore(mem, key_prefix=f"t{next(_prefixes)}/")
    ref = reference()
    model = Model()
    # Each method call is a batch of one: a batch's reads see the store as it was before it.
    batches = [
        (how, part)
        for how, ops in steps
        for part in ([[op] for op in ops] if how == "method" else [ops])
    ]
    for how, ops in batches:
        forget_empty_namespaces(ref)
        before = InMemoryStore()
        before._data = {ns: dict(items) for ns, items in ref._data.items()}
        theirs = run(ref, how, ops)
        mine = run(store, how, ops)
        compare(ops, mine, theirs, before, model)
        model.apply(ops)
    forget_empty_namespaces(ref)
    assert store.list_namespaces(limit=1000) == ref.list_namespaces(limit=1000)


def test_key_encoding_is_one_to_one() -> None:
    for label in ["a", "a/b", "%2F", "%", "x\ny", "é", ""]:
        assert unescape(escape(label)) == label
        assert "/" not in escape(label)
    for namespace, key in [(("a", "b"), "c"), (("a/b",), "c"), (("a",), "b/c"), (("%2F",), "")]:
        assert split_memory_key("p/", memory_key("p/", namespace, key)) == (namespace, key)
    written = {memory_key("p/", ns, k) for ns in NAMESPACES for k in KEYS}
    assert len(written) == len(NAMESPACES) * len(KEYS)


def test_namespaces_that_share_a_text_prefix_stay_apart(store: Store) -> None:
    lg = HebbsStore(store)
    lg.put(("a",), "k", {"n": 1})
    lg.put(("ab",), "k", {"n": 2})
    lg.put(("a/b",), "k", {"n": 3})
    lg.put(("a", "b"), "k", {"n": 4})
    assert [item.value["n"] for item in lg.search(("a",))] == [1, 4]
    assert [item.value["n"] for item in lg.search(("a",), query="k")] in ([1, 4], [4, 1])
    assert lg.list_namespaces(prefix=("a",)) == [("a",), ("a", "b")]
    assert lg.list_namespaces(max_depth=1) == [("a",), ("a/b",), ("ab",)]


def test_values_keep_their_json_types(store: Store) -> None:
    value: dict[str, Any] = {
        "i": 1,
        "f": 1.0,
        "b": True,
        "z": None,
        "s": "1",
        "l": [1, "x", None],
        "o": {"p": [{}]},
    }
    lg = HebbsStore(store)
    lg.put(("t",), "k", value)
    got = lg.get(("t",), "k")
    assert got is not None
    assert exact(got.value) == exact(value)
    assert exact(lg.search(("t",), query="x")[0].value) == exact(value)


def test_put_replaces_the_memory_and_moves_the_timestamps(store: Store) -> None:
    lg = HebbsStore(store)
    lg.put(("t",), "k", {"v": 1})
    first = lg.get(("t",), "k")
    assert first is not None
    # A query reinforces what recall finds (an access counted), which is no update of the item.
    assert [item.updated_at for item in lg.search(("t",), query="v")] == [first.updated_at]
    assert lg.get(("t",), "k") == first
    lg.put(("t",), "k", {"v": 2})
    second = lg.get(("t",), "k")
    assert second is not None
    assert second.value == {"v": 2}
    assert second.updated_at >= first.updated_at
    assert store.count_memories() == 1
    lg.delete(("t",), "k")
    assert lg.get(("t",), "k") is None
    assert store.count_memories() == 0


def test_the_embedded_text_follows_the_index_fields(store: Store) -> None:
    lg = HebbsStore(store, index={"fields": ["text"]})
    lg.put(("t",), "a", {"text": "the cat sleeps on the sofa", "n": 1})
    lg.put(("t",), "b", {"text": "quarterly revenue grew", "n": 2}, index=["n"])
    lg.put(("t",), "c", {"other": 1})
    contents = {memory.key: memory.content for memory in store.list_memories().memories}
    assert contents == {
        "langgraph/t/a": "the cat sleeps on the sofa",
        "langgraph/t/b": "2",
        "langgraph/t/c": '{"other": 1}',
    }
    assert lg.search(("t",), query="a cat on a couch", limit=1)[0].key == "a"


def test_langgraphs_embed_function_replaces_the_model(mem: hebbs.Hebbs) -> None:
    """A made-up embedding that puts "canines" beside "cats", which hebbs' model would not."""
    axis = {"cats": 0, "canines": 0, "dogs": 1}

    def embed(texts: Sequence[str]) -> list[list[float]]:
        vectors = [[0.0] * mem.embedder.dimension for _ in texts]
        for vector, text in zip(vectors, texts, strict=True):
            vector[axis.get(text, 2)] = 1.0
        return vectors

    lg = HebbsStore(mem, index={"embed": embed, "dims": mem.embedder.dimension, "fields": ["t"]})
    lg.put(("z",), "a", {"t": "cats"})
    lg.put(("z",), "b", {"t": "dogs"})
    memory = mem.get_many(keys=["langgraph/z/b"], include_embedding=True)[0]
    assert memory is not None
    assert memory.embedding is not None
    assert memory.embedding.tolist() == embed(["dogs"])[0]
    assert [item.key for item in lg.search(("z",), query="canines")] == ["a", "b"]


def test_other_memories_of_the_store_are_left_alone(store: Store) -> None:
    store.remember("the cat sleeps on the sofa", context={"n": 1})
    # As an insight reflection derives from the namespace's items: its entity, no key.
    store.remember("cats sleep on sofas", context={"n": 1}, entity_id="langgraph/t/")
    lg = HebbsStore(store)
    lg.put(("t",), "k", {"n": 1, "text": "a cat"})
    assert [item.key for item in lg.search((), query="cat sofa")] == ["k"]
    assert [item.key for item in lg.search((), filter={"n": 1})] == ["k"]
    assert lg.list_namespaces() == [("t",)]


def test_filters_hebbs_cannot_say_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"filter\.a\.b: a field name"):
        translate_filter({"a.b": 1})
    with pytest.raises(ValueError, match=r"filter\.n\.\$in: unsupported operator"):
        translate_filter({"n": {"$in": [1]}})
    with pytest.raises(ValueError, match=r"filter\.o: an empty object"):
        translate_filter({"o": {}})
    assert translate_filter({"s": None}) == [
        {"$or": [{"context.s": None}, {"context.s": {"$exists": False}}]}
    ]


def test_what_langgraph_refuses_is_refused(store: Store) -> None:
    lg = HebbsStore(store)
    with pytest.raises(NotImplementedError, match="TTL"):
        lg.put(("t",), "k", {}, ttl=5)
    with pytest.raises(ValueError, match="periods"):
        lg.put(("a.b",), "k", {})
    with pytest.raises(ValueError, match="periods"):
        lg.batch([GetOp(("a.b",), "k")])
    unknown: Any = {"model": "x", "fields": ["$"]}
    with pytest.raises(ValueError, match=r"index: \['model'\] not supported"):
        HebbsStore(store, index=unknown)
    with pytest.raises(ValueError, match="key_prefix: must not be empty"):
        HebbsStore(store, key_prefix="")
    assert store.count_memories() == 0


def test_names_and_values_larger_than_hebbs_keeps(store: Store) -> None:
    """A put is refused naming the field, its batch unwritten; a read of a name too long finds
    nothing, as no item has it."""
    lg = HebbsStore(store)
    long_key, long_label = "k" * (MAX_KEY_BYTES + 1), "n" * MAX_ENTITY_ID_BYTES
    with pytest.raises(hebbs.InvalidValueError, match="invalid key: namespace and key are") as key:
        lg.put(("t",), long_key, {})
    assert key.value.field == "key"
    with pytest.raises(hebbs.InvalidValueError, match="invalid namespace: ") as namespace:
        lg.put((long_label,), "k", {})
    assert namespace.value.field == "namespace"
    too_big = {"v": "x" * MAX_CONTEXT_BYTES}
    with pytest.raises(hebbs.InvalidValueError, match=r"items\[1\]\.content") as value:
        lg.batch([PutOp(("t",), "a", {"v": 1}), PutOp(("t",), "b", too_big)])
    assert value.value.field == "items[1].content"  # the whole value is its text, by default
    with pytest.raises(hebbs.InvalidValueError, match=r"context: \d+ bytes of JSON exceeds"):
        HebbsStore(store, index={"fields": ["w"]}).put(("t",), "b", {"w": "a", **too_big})
    assert store.count_memories() == 0
    lg.put(("t",), "k", {"v": 1})
    assert lg.get(("t",), long_key) is None
    lg.delete(("t",), long_key)
    got = lg.batch([GetOp(("t",), long_key), GetOp(("t",), "k"), GetOp(("t",), long_key)])
    assert [None if item is None else item.key for item in got] == [None, "k", None]  # type: ignore[union-attr]
    assert lg.search((long_key,)) == []
    assert lg.search((long_key,), query="v") == []
    assert lg.list_namespaces(prefix=(long_key,)) == []
    assert store.count_memories() == 1


class Turn(TypedDict):
    user: str
    said: str
    recalled: list[str]


def remember_and_recall(state: Turn, runtime: Runtime[None]) -> dict[str, Any]:
    """A node: files what the user said under the user's namespace, answers with what it
    finds there about it."""
    assert runtime.store is not None
    namespace = ("memories", state["user"])
    found = runtime.store.search(namespace, query=state["said"], limit=3)
    runtime.store.put(namespace, f"m{len(found)}", {"text": state["said"]})
    return {"recalled": [item.value["text"] for item in found]}


def graph(store: BaseStore, checkpointer: InMemorySaver) -> Any:
    builder = StateGraph(Turn)
    builder.add_node("remember_and_recall", remember_and_recall)
    builder.add_edge(START, "remember_and_recall")
    return builder.compile(store=store, checkpointer=checkpointer)


def test_a_graph_shares_memories_across_threads(tmp_path: Path, embedder: Embedder) -> None:
    saver = InMemorySaver()
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as engine:
        app = graph(HebbsStore(engine), saver)
        one = {"configurable": {"thread_id": "1"}}
        two = {"configurable": {"thread_id": "2"}}
        said = "my cat Miso only eats salmon"
        assert app.invoke({"user": "ana", "said": said, "recalled": []}, one)["recalled"] == []
        later = app.invoke({"user": "ana", "said": "what does my cat eat?", "recalled": []}, two)
        assert later["recalled"] == [said]
        other = app.invoke({"user": "bo", "said": "what does my cat eat?", "recalled": []}, two)
        assert other["recalled"] == []
        assert app.get_state(one).values["said"] == said
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as engine:
        app = graph(HebbsStore(engine), saver)
        third = app.invoke(
            {"user": "ana", "said": "cat food", "recalled": []},
            {"configurable": {"thread_id": "3"}},
        )
        assert said in third["recalled"]
        assert HebbsStore(engine).list_namespaces() == [("memories", "ana"), ("memories", "bo")]


def doc_example() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Example", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "docs/integrations/langgraph.md has no example"
    return match.group(1)


def test_the_docs_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(doc_example(), str(DOC), "exec"), {"__name__": "docs_example"})


FILTER_ITEMS: dict[str, dict[str, Any]] = {
    "plain": {"n": 1},
    "float": {"n": 1.5, "s": "cats"},
    "null": {"n": 2, "s": None},
    "dogs": {"n": -1, "s": "dogs", "t": True, "tags": ["tea"]},
    "two-tags": {"n": 0, "t": False, "tags": ["tea", "jazz"], "o": {"p": 1, "q": "x"}},
    "deep": {"n": 3.0, "o": {"p": 2, "r": {"u": [1, 2]}}},
}
FILTERS: list[dict[str, Any]] = [
    {"n": 1},
    {"n": 3},
    {"n": {"$gt": 1}},
    {"n": {"$gte": 1, "$lt": 3}},
    {"n": {"$lte": 0}},
    {"n": {"$ne": 1}},
    {"n": {"$eq": 1.5}},
    {"s": None},
    {"s": {"$eq": None}},
    {"s": {"$ne": None}},
    {"s": {"$ne": "cats"}},
    {"s": "dogs", "t": True},
    {"t": False},
    {"tags": ["tea"]},
    {"tags": ["tea", "jazz"]},
    {"o": {"p": 1}},
    {"o": {"p": {"$gte": 1}}},
    {"o": {"r": {"u": [1, 2]}}},
    {"missing": None},
    {"missing": {"$ne": 1}},
]


@pytest.mark.parametrize("filter", FILTERS, ids=[repr(f) for f in FILTERS])
def test_each_filter_form_selects_what_in_memory_store_selects(
    store: Store, filter: dict[str, Any]
) -> None:
    lg, ref = HebbsStore(store), reference()
    for key, value in FILTER_ITEMS.items():
        lg.put(("f",), key, value)
        ref.put(("f",), key, value)
    expected = {item.key for item in ref.search(("f",), filter=filter, limit=100)}
    assert {item.key for item in lg.search(("f",), filter=filter, limit=100)} == expected
    found = lg.search(("f",), query="tea", filter=filter, limit=100)
    assert {item.key for item in found} == expected
