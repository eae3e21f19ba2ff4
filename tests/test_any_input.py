"""Every parameter of every public method, given any Python value, either works or raises a
:class:`hebbs.HebbsError` whose ``field`` is set, never another exception, and an error leaves
the store unchanged.

The values are arbitrary, not only well typed: None, bools, huge and negative ints, NaN and
infinities, text with lone surrogates, bytes, nested lists and dicts, numpy arrays of any shape
and dtype, datetimes, native objects and plain objects. Each case replaces one argument of a
valid call with such a value.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import os
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hebbs
from hebbs.embedder import Embedder

DIM = 384
#: Examples per parameter: enough to meet every kind of value several times, bounded for CI,
#: where the examples are the same every run. ``HEBBS_FUZZ_EXAMPLES=5000`` runs a long, random
#: search on demand.
EXAMPLES = int(os.environ.get("HEBBS_FUZZ_EXAMPLES", "40"))

TEXT = st.text(st.characters(categories=["L", "N", "P", "Zs", "Cs", "Cc"]), max_size=12)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**32, 2**63, 2**64, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 1.5, 0.5, -0.0]),
    TEXT,
    st.sampled_from(["", " ", "\ud800", "similarity", "temporal", "acme", "0" * 32, "caused_by"]),
    st.binary(max_size=20),
    st.just(b"\x00" * 16),
    st.datetimes(timezones=st.just(timezone.utc)),
    st.just(datetime(1900, 1, 1)),
    st.just(timedelta(seconds=-1)),
    st.just(object()),
    st.sampled_from([hebbs.EdgeType.CAUSED_BY, hebbs.MemoryKind.INSIGHT]),
    st.just(hebbs.ScoringWeights()),
    hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.int64, np.bool_]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
    ),
    st.builds(lambda: np.full(DIM, np.nan, dtype=np.float32)),
    st.builds(lambda: np.ones(DIM, dtype=np.float32)),
)
ANY = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.one_of(TEXT, st.integers()), children, max_size=3),
        st.frozensets(st.integers(), max_size=2),
    ),
    max_leaves=6,
)

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize="HEBBS_FUZZ_EXAMPLES" not in os.environ,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def vector(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(DIM).astype(np.float32)
    return values / np.linalg.norm(values)


class Store:
    """One store for a whole test, with a memory to point at."""

    def __init__(self, mem: hebbs.Hebbs) -> None:
        self.mem = mem
        self.memory = mem.remember(
            "Acme signed the contract", entity_id="acme", embedding=vector(0), session_id="s1"
        )
        self.other = mem.remember("Acme paid the invoice", entity_id="acme", embedding=vector(1))

    def snapshot(self) -> tuple[Any, ...]:
        """What a failed call must not change: counts, the orphans, and the seeded memories'
        fields and access counts (read without a recall, which would bump them)."""
        mem = self.mem
        seeded = [mem.get(m.id) for m in (self.memory, self.other)]
        return (
            mem.health().memory_count,
            len(mem.tombstones(limit=1000)),
            sorted(m.id for m in mem.list_orphans(limit=1000)),
            [(m.content, m.importance, m.access_count, m.superseded) for m in seeded],
        )


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        yield Store(mem)


def valid_calls(store: Store) -> dict[str, tuple[Callable[..., Any], dict[str, Any]]]:
    """Each public method with a valid set of arguments (keyword names as the API spells them):
    the ones given here, and every other parameter at its default."""
    return {
        method: (call, {**signature_defaults(call), **given})
        for method, (call, given) in given_calls(store).items()
    }


def signature_defaults(call: Callable[..., Any]) -> dict[str, Any]:
    """The default of each of ``call``'s parameters that has one."""
    return {
        name: parameter.default
        for name, parameter in inspect.signature(call).parameters.items()
        if parameter.default is not inspect.Parameter.empty
    }


def given_calls(store: Store) -> dict[str, tuple[Callable[..., Any], dict[str, Any]]]:
    """The arguments of each method's valid call that are not its defaults, or not only."""
    mem, memory = store.mem, store.memory
    return {
        "remember": (
            mem.remember,
            {
                "content": "Globex asked about SSO",
                "importance": 0.5,
                "context": {"topic": "sso"},
                "entity_id": "globex",
                "edges": [hebbs.Edge(memory.id, "related_to", 0.5)],
                "created_at": 1_700_000_000_000_000,
                "embedding": vector(2),
                "session_id": "s2",
                "kind": "episode",
                "dedup": False,
                "dedup_threshold": 0.9,
                "key": "sso-question",
            },
        ),
        "reflect": (
            mem.reflect,
            {
                "entity_id": "acme",
                "since": None,
                "max_memories": 10,
                "min_cluster_size": 3,
                "min_confidence": 0.3,
            },
        ),
        "insights": (
            mem.insights,
            {"entity_id": None, "min_confidence": 0.0, "include_stale": False},
        ),
        "reflect_prepare": (
            mem.reflect_prepare,
            {"entity_id": "acme", "max_memories": 10, "min_cluster_size": 3, "ttl": 60.0},
        ),
        "reflect_commit": (
            mem.reflect_commit,
            {"session_id": mem.reflect_prepare(entity_id="acme").session_id, "insights": []},
        ),
        "find_contradictions": (
            mem.find_contradictions,
            {"entity_id": "acme", "threshold": 0.7, "limit": 10},
        ),
        "confirm_contradiction": (
            mem.confirm_contradiction,
            {"older_id": memory.id, "newer_id": store.other.id, "resolution": "link"},
        ),
        "index_documents": (mem.index_documents, {"paths": [], "progress": False}),
        "get": (mem.get, {"id": memory.id, "include_embedding": False}),
        "recall": (
            mem.recall,
            {
                "cue": "contract",
                "strategies": ["similarity"],
                "top_k": 5,
                "entity_id": "acme",
                "time_range": None,
                "ef_search": 50,
                "scoring_weights": {"w_relevance": 0.5},
                "cue_embedding": vector(0),
                "include_embedding": False,
                "seed_memory_id": None,
                "edge_types": None,
                "max_depth": 3,
                "direction": "both",
                "analogical_alpha": 0.5,
                "cue_context": None,
                "rrf_k": 60,
                "min_relevance": None,
                "graph_context": 0,
                "session_id": None,
                "force_regex": False,
                "include_superseded": False,
                "include_organization": False,
                "rerank": None,
                "rerank_top_n": 150,
                "cue_token_vectors": None,
                "quality": None,
                "filter": {"context.channel": "email"},
            },
        ),
        "prime": (
            mem.prime,
            {
                "entity_id": "acme",
                "cue": "contract",
                "max_memories": 5,
                "time_range": None,
                "ef_search": 50,
                "scoring_weights": None,
                "cue_embedding": vector(0),
                "include_embedding": False,
                "filter": {"context.priority": {"$gte": 1}},
            },
        ),
        "revise": (
            mem.revise,
            {
                "id": store.other.id,
                "content": None,
                "importance": 0.6,
                "context": None,
                "embedding": None,
                "entity_id": None,
            },
        ),
        "lineage": (mem.lineage, {"id": memory.id}),
        "add_edges": (mem.add_edges, {"id": memory.id, "edges": []}),
        "forget": (
            mem.forget,
            {
                "ids": None,
                "entity_id": "nobody",
                "older_than": None,
                "importance_below": None,
                "kind": None,
                "purge": False,
                "limit": 10,
                "filter": None,
                "keys": None,
            },
        ),
        "forget_decayed": (mem.forget_decayed, {"floor": 0.0, "limit": 10}),
        "tombstone": (mem.tombstone, {"id": memory.id}),
        "tombstones": (mem.tombstones, {"after": None, "limit": 10}),
        "get_chat_context": (mem.get_chat_context, {"session_id": "s1", "limit": 10}),
        "list_orphans": (mem.list_orphans, {"limit": 10}),
        "list_memories": (
            mem.list_memories,
            {
                "entity_id": "acme",
                "kind": "episode",
                "cursor": None,
                "limit": 10,
                "include_superseded": False,
                "filter": {"$not": {"kind": "insight"}},
                "key_prefix": None,
            },
        ),
        "get_token_vectors": (mem.get_token_vectors, {"ids": [memory.id]}),
        "reinforce": (mem.reinforce, {"ids": [memory.id]}),
        "subscribe": (
            mem.subscribe,
            {
                "cue": None,
                "embedding": vector(0),
                "entity_id": None,
                "confidence_threshold": 0.5,
                "queue_capacity": 8,
                "filter": {"context.channel": {"$in": ["email", "chat"]}},
            },
        ),
    }


#: The methods ``valid_calls`` gives, each a method of ``hebbs.Hebbs``.
METHODS = (
    "remember",
    "reflect",
    "insights",
    "reflect_prepare",
    "reflect_commit",
    "find_contradictions",
    "confirm_contradiction",
    "index_documents",
    "get",
    "recall",
    "prime",
    "revise",
    "lineage",
    "add_edges",
    "forget",
    "forget_decayed",
    "tombstone",
    "tombstones",
    "get_chat_context",
    "list_orphans",
    "list_memories",
    "get_token_vectors",
    "reinforce",
    "subscribe",
)
#: The parameters of a method that keep their valid value: any value as a path could name a real
#: folder (".") and index it; ``forget`` and ``subscribe`` keep their scope.
FIXED = {"forget": {"entity_id"}, "subscribe": {"cue"}, "index_documents": {"paths"}}
#: (method, parameter) for every parameter of every method in ``valid_calls``, read from its
#: signature, so a new parameter is fuzzed without a line here.
CASES = [
    (method, parameter)
    for method in METHODS
    for parameter in inspect.signature(getattr(hebbs.Hebbs, method)).parameters
    if parameter != "self" and parameter not in FIXED.get(method, set())
]


def outcome(call: Callable[..., Any], **kwargs: Any) -> hebbs.HebbsError | None:
    """Calls ``call``; its HebbsError, or None when it worked. Any other exception escapes."""
    try:
        result = call(**kwargs)
    except hebbs.HebbsError as error:
        return error
    if isinstance(result, hebbs.Subscription):
        result.close()
    return None


def assert_typed(error: hebbs.HebbsError | None) -> None:
    """An input error names its field and is a TypeError or ValueError too."""
    if isinstance(error, hebbs.InvalidInputError):
        assert isinstance(error.field, str), f"{error!r} has no field"
        assert error.field, f"{error!r} has an empty field"
        assert isinstance(error, (TypeError, ValueError)), repr(error)


def check_call(store: Store, call: Callable[..., Any], kwargs: dict[str, Any]) -> None:
    before = store.snapshot()
    error = outcome(call, **kwargs)
    assert_typed(error)
    if error is not None:
        assert store.snapshot() == before, f"{error!r} changed the store"


def test_every_parameter_is_covered(store: Store) -> None:
    """``CASES`` names every parameter of every method it tests."""
    calls = valid_calls(store)
    assert set(calls) == set(METHODS)
    for method, (call, kwargs) in calls.items():
        names = set(inspect.signature(call).parameters)
        assert names == set(kwargs), method
    covered = {(m, p) for m, p in CASES}
    for method, (_, kwargs) in calls.items():
        fixed = FIXED.get(method, set())
        assert {(method, p) for p in kwargs if p not in fixed} <= covered, method


def test_valid_calls_succeed(store: Store) -> None:
    for method, (call, kwargs) in valid_calls(store).items():
        result = call(**kwargs)
        if isinstance(result, hebbs.Subscription):
            result.close()
        assert method


@pytest.mark.parametrize(("method", "parameter"), CASES)
@FUZZ
@given(value=ANY)
def test_any_value(store: Store, method: str, parameter: str, value: Any) -> None:
    call, kwargs = valid_calls(store)[method]
    check_call(store, call, {**kwargs, parameter: value})


REMEMBER_ITEM_KEYS = ("content", "importance", "context", "entity_id", "created_at", "kind")


@pytest.mark.parametrize("key", REMEMBER_ITEM_KEYS)
@FUZZ
@given(value=ANY)
def test_any_value_in_remember_many(store: Store, key: str, value: Any) -> None:
    items = [
        {"content": "first of two", "embedding": vector(3)},
        {"content": "second of two", "embedding": vector(4), key: value},
    ]
    check_call(store, store.mem.remember_many, {"items": items})


@FUZZ
@given(value=ANY)
def test_any_value_as_remember_many_items(store: Store, value: Any) -> None:
    check_call(store, store.mem.remember_many, {"items": value})


OPEN_PARAMETERS = (
    "dimension", "m", "ef_construction", "ef_search", "sync_writes", "auto_forget_floor",
    "auto_forget_interval", "auto_forget_limit", "embedder", "llm", "reflect_after_memories",
    "reflect_interval",
)  # fmt: skip
_dirs = itertools.count()


@pytest.mark.parametrize("parameter", OPEN_PARAMETERS)
@settings(FUZZ, max_examples=EXAMPLES // 2)
@given(value=ANY)
def test_any_value_to_open(tmp_path: Path, parameter: str, value: Any) -> None:
    path = tmp_path / f"db{next(_dirs)}"
    error = outcome(lambda: hebbs.Hebbs.open(path, **{parameter: value}).close())
    assert error is None or isinstance(error, hebbs.InvalidInputError), repr(error)
    assert_typed(error)


@settings(FUZZ, max_examples=EXAMPLES // 2)
@given(value=ANY)
def test_any_value_as_organization_path(tmp_path: Path, value: Any) -> None:
    if isinstance(value, str) and value:
        value = tmp_path / f"org{next(_dirs)}"  # a real path: kept inside the test's directory
    error = outcome(
        lambda: hebbs.Hebbs.open(tmp_path / f"db{next(_dirs)}", organization=value).close()
    )
    assert error is None or isinstance(error, (hebbs.InvalidInputError, hebbs.HebbsIOError))
    assert_typed(error)
    if isinstance(error, hebbs.InvalidInputError):
        assert error.field == "organization"


@settings(FUZZ, max_examples=EXAMPLES // 2)
@given(value=ANY)
def test_any_value_as_open_path(tmp_path: Path, value: Any) -> None:
    if isinstance(value, str) and value:
        return  # a real relative path: would create a directory in the working directory
    error = outcome(lambda: hebbs.Hebbs.open(value).close())
    assert error is None or isinstance(error, (hebbs.InvalidInputError, hebbs.HebbsIOError))
    assert_typed(error)
    if isinstance(error, hebbs.InvalidInputError):
        assert error.field == "path"


@pytest.mark.parametrize(
    ("call", "error", "field"),
    [
        (lambda m: m.remember("x", context=[1, 2]), TypeError, "context"),
        (lambda m: m.recall("x", top_k=-1), ValueError, "top_k"),
        (lambda m: m.remember("\ud800"), ValueError, "content"),
        (lambda m: m.remember("x", importance="high"), TypeError, "importance"),
        (lambda m: m.remember("x", entity_id=5), TypeError, "entity_id"),
        (lambda m: m.recall("x", ef_search=1.5), TypeError, "ef_search"),
        (lambda m: m.remember("x", context={"k": "\udfff"}), ValueError, "context"),
        (lambda m: m.remember("x", created_at=2**64), ValueError, "created_at"),
        (lambda m: m.recall("x", time_range=(None, "now")), TypeError, "time_range"),
        (lambda m: m.recall("x", strategies=[b"similarity"]), TypeError, "strategies[0]"),
        (lambda m: m.recall("x", scoring_weights={"w_recency": "hi"}), TypeError,
         "scoring_weights.w_recency"),
        (lambda m: m.remember_many([{"content": "a"}, "b"]), TypeError, "items[1]"),
        (lambda m: m.remember("x", context={"a": [[[[]]]] * 2, "b": 10**20}), ValueError,
         "context"),
    ],
)  # fmt: skip
def test_issue_examples(
    store: Store, call: Callable[[hebbs.Hebbs], Any], error: type[Exception], field: str
) -> None:
    """The inputs a new user tried: each is an InvalidInputError that is also the builtin
    exception Python's convention expects, with the field named."""
    before = store.snapshot()
    with pytest.raises(hebbs.InvalidInputError) as caught:
        call(store.mem)
    assert isinstance(caught.value, error)
    assert caught.value.field == field
    assert field in str(caught.value)
    assert store.snapshot() == before


def test_deep_nesting_is_refused_not_a_crash(store: Store) -> None:
    deep: Any = "leaf"
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(hebbs.InvalidValueError) as caught:
        store.mem.remember("x", context={"deep": deep}, embedding=vector(5))
    assert caught.value.field == "context"


def test_async_api_raises_the_same_errors(tmp_path: Path, embedder: Embedder) -> None:
    async def run() -> None:
        async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
            with pytest.raises(hebbs.InvalidTypeError) as caught:
                await mem.remember("x", context=[1, 2])
            assert caught.value.field == "context"
            with pytest.raises(hebbs.InvalidValueError) as caught:
                await mem.recall("x", top_k=-1)
            assert caught.value.field == "top_k"
            assert (await mem.health()).memory_count == 0

    asyncio.run(run())
