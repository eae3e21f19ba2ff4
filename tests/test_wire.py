"""The wire shape of the result types: ``T.from_dict(x.to_dict())`` gives back ``x``, field by
field, for values a real store produced; the dicts are JSON; bad dicts name the bad field."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hebbs
from hebbs import (
    Edge,
    EdgeType,
    ExpansionEdge,
    ForgetResult,
    HealthStatus,
    Memory,
    PrimeOutput,
    RecallOutput,
    RecallResult,
    StrategyDetail,
    StrategyError,
    SubscribePush,
    Tombstone,
)

#: Every type with a wire shape.
WIRE_TYPES = (
    Memory,
    Edge,
    StrategyDetail,
    RecallResult,
    ExpansionEdge,
    StrategyError,
    RecallOutput,
    PrimeOutput,
    HealthStatus,
    SubscribePush,
    ForgetResult,
    Tombstone,
)
#: The signals a recall result's composite score combines, written under ``scores``.
SIGNALS = ("relevance", "recency", "importance", "reinforcement")
#: The scores a recall result's ``scores`` takes from its strategy details, by detail field.
DETAIL_SCORES = {
    "dense": "dense_score",
    "bm25": "bm25_score",
    "rrf": "rrf_score",
    "late_interaction": "late_interaction_score",
    "rerank": "rerank_score",
}


def properties(kind: type) -> list[str]:
    """The public properties of native type ``kind`` (its methods left out)."""
    return [
        name for name in dir(kind) if not name.startswith("_") and not callable(getattr(kind, name))
    ]


def assert_same(left: object, right: object, path: str = "") -> None:
    """``left`` and ``right`` agree on every public property, recursively."""
    if isinstance(left, WIRE_TYPES):
        assert type(left) is type(right), path
        for name in properties(type(left)):
            assert_same(getattr(left, name), getattr(right, name), f"{path}.{name}")
    elif isinstance(left, list):
        assert isinstance(right, list), path
        assert len(left) == len(right), path
        for i, (a, b) in enumerate(zip(left, right)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(left, np.ndarray):
        assert isinstance(right, np.ndarray), path
        assert right.dtype == np.float32, path
        np.testing.assert_array_equal(left, right, err_msg=path)
    else:
        assert left == right, path
        assert type(left) is type(right), path


def round_trip(value: Any) -> None:
    data = value.to_dict()
    assert set(data) == set(properties(type(value)))
    text = json.dumps(data)
    again = type(value).from_dict(json.loads(text))
    assert_same(value, again)
    assert again.to_dict() == data


@pytest.fixture
def stored(mem: hebbs.Hebbs) -> dict[str, Any]:
    """Memories with context, entities, edges both ways, and one with its embedding."""
    first = mem.remember(
        "Acme asked for a 10% discount on the annual plan",
        importance=0.8,
        context={
            "stage": "negotiation",
            "amount": 0.1,
            "tags": ["price", 3],
            "nested": {"a": None},
        },
        entity_id="acme",
        session_id="s1",
    )
    second = mem.remember(
        "We offered Acme 5% off instead",
        entity_id="acme",
        edges=[Edge(first.id, EdgeType.CAUSED_BY, 0.9)],
    )
    third = mem.remember("Globex renewed without a discount", entity_id="globex")
    mem.add_edges(third.id, [Edge(second.id, "related_to", 0.4)])
    return {"first": first, "second": second, "third": third}


def test_memory_round_trips(mem: hebbs.Hebbs, stored: dict[str, Any]) -> None:
    for memory in stored.values():
        round_trip(memory)
    with_vector = mem.get(stored["first"].id, include_embedding=True)
    assert with_vector.embedding is not None
    round_trip(with_vector)
    assert with_vector.to_dict()["id"] == with_vector.id_hex
    assert with_vector.to_dict()["kind"] == "episode"


def test_edges_round_trip(stored: dict[str, Any]) -> None:
    edge = Edge(stored["first"].id, EdgeType.CAUSED_BY, 0.9)
    round_trip(edge)
    assert edge.to_dict() == {
        "target": stored["first"].id_hex,
        "edge_type": "caused_by",
        "confidence": pytest.approx(0.9),
    }
    with pytest.raises(hebbs.InvalidInputError) as caught:
        Edge.from_dict({"target": stored["first"].id_hex, "edge_type": "caused", "confidence": 1})
    assert caught.value.field == "edge_type"


def test_memory_context_is_copied(stored: dict[str, Any]) -> None:
    data = stored["first"].to_dict()
    data["context"]["stage"] = "changed"
    assert stored["first"].context["stage"] == "negotiation"


def test_recall_outputs_round_trip(mem: hebbs.Hebbs, stored: dict[str, Any]) -> None:
    outputs = [
        mem.recall("discount", strategies=["similarity", "hybrid", "keyword"], graph_context=3),
        mem.recall("discount", strategies=["temporal"], entity_id="acme", include_embedding=True),
        mem.recall(
            "discount",
            strategies=["causal", "analogical"],
            seed_memory_id=stored["second"].id,
            direction="both",
        ),
        # temporal without entity_id fails alone: a strategy error beside similarity's results
        mem.recall("discount", strategies=["similarity", "temporal"], min_relevance=0.3),
        # the default pipeline: the re-rank stage's scores and the signals of the composite
        mem.recall("discount"),
    ]
    seen_details: set[str] = set()
    for output in outputs:
        assert len(output) > 0
        round_trip(output)
        for result in output.results:
            round_trip(result)
            for detail in result.strategy_details:
                seen_details.add(detail.strategy)
                round_trip(detail)
            for edge in result.expansion_context:
                round_trip(edge)
    assert seen_details >= {"similarity", "temporal", "causal", "analogical", "hybrid", "keyword"}
    assert any(result.expansion_context for result in outputs[0].results)
    assert all("rerank" in result.scores for result in outputs[4].results)
    errors = outputs[3].strategy_errors
    assert [error.strategy for error in errors] == ["temporal"]
    round_trip(errors[0])


def test_prime_forget_tombstones_health_round_trip(
    mem: hebbs.Hebbs, stored: dict[str, Any]
) -> None:
    prime = mem.prime("acme", cue="discount")
    assert prime.temporal_count > 0
    round_trip(prime)
    forgotten = mem.forget(entity_id="globex")
    assert forgotten.forgotten_count == 1
    round_trip(forgotten)
    tombstone = mem.tombstone(stored["third"].id)
    assert tombstone is not None
    round_trip(tombstone)
    for page_item in mem.tombstones():
        round_trip(page_item)
    round_trip(mem.health())


def test_subscribe_push_round_trips(mem: hebbs.Hebbs) -> None:
    with mem.subscribe("pricing", confidence_threshold=0.0) as subscription:
        mem.remember("a question about pricing", context={"k": 1})
        push = subscription.next(timeout=10)
    assert push is not None
    round_trip(push)


def test_from_dict_names_the_bad_field(stored: dict[str, Any]) -> None:
    data = stored["first"].to_dict()
    with pytest.raises(hebbs.InvalidTypeError) as missing:
        Memory.from_dict({k: v for k, v in data.items() if k != "content"})
    assert missing.value.field == "content"
    with pytest.raises(hebbs.InvalidValueError) as bad_id:
        Memory.from_dict({**data, "id": "xyz"})
    assert bad_id.value.field == "id"
    with pytest.raises(hebbs.InvalidValueError) as bad_kind:
        Memory.from_dict({**data, "kind": "dream"})
    assert bad_kind.value.field == "kind"
    with pytest.raises(hebbs.InvalidTypeError) as bad_count:
        Memory.from_dict({**data, "access_count": True})
    assert bad_count.value.field == "access_count"
    with pytest.raises(hebbs.InvalidValueError):
        Memory.from_dict({**data, "access_count": -1})
    with pytest.raises(hebbs.InvalidTypeError) as not_dict:
        Memory.from_dict([])  # type: ignore[arg-type]
    assert not_dict.value.field == "data"
    output = {
        "results": [{"memory": {**data, "kind": 3}, "score": 0.5}],
        "strategy_errors": [],
        "below_threshold": 0,
    }
    with pytest.raises(hebbs.InvalidTypeError) as nested:
        RecallOutput.from_dict(output)
    assert nested.value.field == "results[0].memory.kind"
    with pytest.raises(hebbs.InvalidInputError) as vector:
        Memory.from_dict({**data, "embedding": [0.5, "x"]})
    assert vector.value.field == "embedding[1]"


def test_from_dict_ignores_unknown_keys(stored: dict[str, Any]) -> None:
    data = stored["first"].to_dict()
    again = Memory.from_dict({**data, "id_hex": data["id"], "added_later": 1})
    assert_same(stored["first"], again)


# Hypothesis: any value of the wire shape survives from_dict then to_dict unchanged.

f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
u64 = st.integers(0, 2**64 - 1)
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
hex_id = st.binary(min_size=16, max_size=16).map(bytes.hex)
json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


def with_id_hex(data: dict[str, Any]) -> dict[str, Any]:
    """A memory or tombstone dict with the ``id_hex`` it writes (its id's one spelling)."""
    return {**data, "id_hex": data["id"]}


memory_dict = st.fixed_dictionaries(
    {
        "id": hex_id,
        "content": text.filter(str.strip),
        "importance": f32,
        "context": st.dictionaries(text, json_value, max_size=4),
        "entity_id": st.none() | text,
        "created_at": u64,
        "updated_at": u64,
        "last_accessed_at": u64,
        "access_count": u64,
        "decay_score": f32,
        "kind": st.sampled_from(["episode", "insight", "revision"]),
        "superseded": st.booleans(),
        "key": st.none() | text.filter(bool),
        "embedding": st.none() | st.lists(f32, max_size=8),
    }
).map(with_id_hex)
detail_dict = st.fixed_dictionaries(
    {
        "strategy": st.sampled_from(list(hebbs._native.STRATEGIES)),
        "relevance": f32,
        "distance": st.none() | f32,
        "timestamp": st.none() | u64,
        "rank": st.none() | st.integers(0, 2**32 - 1),
        "depth": st.none() | st.integers(0, 2**32 - 1),
        "embedding_similarity": st.none() | f32,
        "structural_similarity": st.none() | f32,
        "dense_score": st.none() | f32,
        "bm25_score": st.none() | f32,
        "rrf_score": st.none() | f32,
        "late_interaction_score": st.none() | f32,
        "rerank_score": st.none() | f32,
    }
)
edge_dict = st.fixed_dictionaries(
    {
        "edge_type": st.sampled_from(
            [kind.value for kind in EdgeType.__dict__.values() if isinstance(kind, EdgeType)]
        ),
        "direction": st.sampled_from(["outgoing", "incoming"]),
        "confidence": f32,
        "preview": text,
        "neighbor_id": hex_id,
    }
)


def with_scores(result: dict[str, Any]) -> dict[str, Any]:
    """The result dict with the ``scores`` it writes: ``final`` (its score), its ``signals`` and
    each score its strategy details set (the last detail's where several do)."""
    scores = {"final": result["score"], **result.pop("signals")}
    for detail in result["strategy_details"]:
        for name, field in DETAIL_SCORES.items():
            if detail[field] is not None:
                scores[name] = detail[field]
    return {**result, "scores": scores}


result_dict = st.fixed_dictionaries(
    {
        "memory": memory_dict,
        "score": f32,
        "signals": st.fixed_dictionaries({name: f32 for name in SIGNALS}),
        "strategy_details": st.lists(detail_dict, max_size=3),
        "expansion_context": st.lists(edge_dict, max_size=3),
    }
).map(with_scores)
tombstone_dict = st.fixed_dictionaries(
    {
        "id": hex_id,
        "entity_id": st.none() | text,
        "kind": st.sampled_from(["episode", "insight", "revision"]),
        "created_at": u64,
        "forgotten_at": u64,
        "content_sha256": st.binary(min_size=32, max_size=32).map(bytes.hex),
    }
).map(with_id_hex)


def same_json(left: object, right: object) -> bool:
    """Equal, with floats compared as equal floats (an int context value stays an int)."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    return type(left) is type(right) and left == right


@settings(max_examples=60, deadline=None)
@given(memory_dict)
def test_memory_dicts_round_trip(data: dict[str, Any]) -> None:
    assert same_json(Memory.from_dict(data).to_dict(), data)


def recall_output_dicts(organization: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Recall answers as dicts, their ``organization_memory`` drawn from ``organization``."""
    return st.fixed_dictionaries(
        {
            "results": st.lists(result_dict, max_size=2),
            "strategy_errors": st.lists(
                st.fixed_dictionaries(
                    {
                        "strategy": st.sampled_from(list(hebbs._native.STRATEGIES)),
                        "message": text,
                        "field": st.none() | text,
                    }
                ),
                max_size=2,
            ),
            "below_threshold": u64,
            "organization_memory": organization,
        }
    )


@settings(max_examples=40, deadline=None)
@given(recall_output_dicts(st.none() | recall_output_dicts(st.none())))
def test_recall_output_dicts_round_trip(data: dict[str, Any]) -> None:
    assert same_json(RecallOutput.from_dict(data).to_dict(), data)


@settings(max_examples=40, deadline=None)
@given(tombstone_dict)
def test_tombstone_dicts_round_trip(data: dict[str, Any]) -> None:
    assert same_json(Tombstone.from_dict(data).to_dict(), data)
