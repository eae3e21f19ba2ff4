"""The request fields accept their JSON forms (what the server receives): an edge as an object,
a strategy as an object, a vector as a list; each bad form raises an input error naming its
field; the models' JSON schemas describe those forms. ``Hebbs.get_many`` reads many ids."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hebbs
from hebbs.api import RecallRequest, RememberRequest, parse

DIM = 8


def _embed(texts: list[str]) -> np.ndarray:
    return np.ones((len(texts), DIM), dtype=np.float32)


@pytest.fixture
def small(tmp_path: Path) -> hebbs.Hebbs:
    return hebbs.Hebbs.open(tmp_path / "db", embedder=_embed)


def test_an_edge_object_builds_an_edge(small: hebbs.Hebbs) -> None:
    cause = small.remember("cause")
    edge = {"target": cause.id_hex, "edge_type": "caused_by", "confidence": 0.9}
    effect = small.remember("effect", edges=[edge])  # type: ignore[list-item]
    output = small.recall(strategies=["causal"], seed_memory_id=effect.id, direction="causes")
    assert [r.memory.id for r in output.results] == [cause.id]


@pytest.mark.parametrize(
    ("edge", "reason"),
    [
        ({"target": "zz", "edge_type": "caused_by"}, "target"),
        ({"target": "0" * 32, "edge_type": "bogus"}, "edge_type"),
        ({"target": "0" * 32}, "edge_type"),
        ({"target": "0" * 32, "edge_type": "caused_by", "weight": 1}, "weight"),
        ({"target": "0" * 32, "edge_type": "caused_by", "confidence": "high"}, "confidence"),
        (5, "Edge"),
    ],
)
def test_a_bad_edge_object_names_the_edge(edge: object, reason: str) -> None:
    with pytest.raises(hebbs.InvalidInputError) as caught:
        parse(RememberRequest, {"content": "x", "edges": [edge]})
    assert caught.value.field == "edges[0]"
    assert reason in caught.value.reason


def test_a_strategy_object_builds_a_config() -> None:
    given = {"strategy": "temporal", "entity_id": "acme", "top_k": 3, "time_range": [None, 9]}
    request = parse(RecallRequest, {"strategies": [given, "similarity"]})
    config, name = request.strategies
    assert isinstance(config, hebbs.RecallStrategyConfig)
    assert (config.strategy, config.entity_id, config.top_k, config.time_range) == (
        "temporal",
        "acme",
        3,
        (0, 9),
    )
    assert name == "similarity"


@pytest.mark.parametrize(
    ("strategy", "reason"),
    [
        ({"strategy": "bogus"}, "unknown strategy"),
        ({"strategy": "temporal", "top_k": "3"}, "top_k"),
        ({"strategy": "temporal", "top_k": -1}, "top_k"),
        ({"strategy": "temporal", "colour": "red"}, "colour"),
        ({"top_k": 1}, "strategy"),
        ({"strategy": "causal", "edge_types": ["bogus"]}, "edge_types"),
        ({"strategy": "temporal", "time_range": [1, 2, 3]}, "time_range"),
    ],
)
def test_a_bad_strategy_object_names_the_strategy(strategy: object, reason: str) -> None:
    with pytest.raises(hebbs.InvalidInputError) as caught:
        parse(RecallRequest, {"strategies": [strategy]})
    assert caught.value.field == "strategies[0]"
    assert reason in caught.value.reason


def test_the_json_schemas_describe_the_json_forms() -> None:
    recall = RecallRequest.model_json_schema()["properties"]
    # Left out (null, the default), the store picks the default pipeline.
    listed, unset = recall["strategies"]["anyOf"]
    assert unset == {"type": "null"}
    assert recall["strategies"]["default"] is None
    strategy = listed["items"]["anyOf"]
    assert strategy[0]["enum"] == list(hebbs._native.STRATEGIES)
    assert strategy[1]["required"] == ["strategy"]
    assert recall["cue_embedding"]["anyOf"][0] == {"type": "array", "items": {"type": "number"}}
    remember = RememberRequest.model_json_schema()["properties"]
    assert remember["edges"]["items"]["required"] == ["target", "edge_type"]
    assert "insight" in remember["kind"]["anyOf"][0]["enum"]


def test_get_many_answers_in_order_with_none_for_missing(small: hebbs.Hebbs) -> None:
    first, second = small.remember("one"), small.remember("two")
    missing = "0" * 32
    found = small.get_many([second.id_hex, missing, first.id], include_embedding=True)
    assert [m.id if m else None for m in found] == [second.id, None, first.id]
    assert found[0] is not None
    assert found[0].embedding is not None
    with pytest.raises(hebbs.InvalidInputError) as caught:
        small.get_many([first.id, "nothex"])
    assert caught.value.field == "ids[1]"
    assert small.get_many([]) == []
