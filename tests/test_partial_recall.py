"""Partial success across strategies through the binding (seed 003 `StrategyError`): a strategy
missing its own input is reported with the field it names while the others answer; when every
strategy fails the call raises the first one's InvalidInputError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hebbs
from hebbs import _native

DIM = 4


def vector(axis: int) -> np.ndarray:
    v = np.full(DIM, 0.05, dtype=np.float32)
    v[axis] = 1.0
    return v


@pytest.fixture
def native(tmp_path: Path) -> _native.NativeEngine:
    engine = _native.NativeEngine(str(tmp_path / "db"), dimension=DIM)
    engine.remember({"content": "acme billing dispute", "entity_id": "acme"}, vector(0))
    engine.remember({"content": "acme renewed the contract", "entity_id": "acme"}, vector(1))
    return engine


def test_similarity_answers_while_temporal_without_entity_is_reported(
    native: _native.NativeEngine,
) -> None:
    output = native.recall(
        {"cue_embedding": vector(0), "strategies": ["similarity", "temporal"], "cue": "billing"}
    )
    assert output.results[0].memory.content == "acme billing dispute"
    [error] = output.strategy_errors
    assert (error.strategy, error.field) == ("temporal", "entity_id")
    assert "entity_id" in error.message
    assert "temporal" in repr(error)


def test_temporal_answers_while_similarity_without_cue_vector_is_reported(
    native: _native.NativeEngine,
) -> None:
    output = native.recall({"strategies": ["temporal", "similarity"], "entity_id": "acme"})
    assert [r.memory.content for r in output.results] == [
        "acme renewed the contract",
        "acme billing dispute",
    ]
    [error] = output.strategy_errors
    assert (error.strategy, error.field) == ("similarity", "cue")


def test_a_run_time_failure_has_no_field(native: _native.NativeEngine) -> None:
    output = native.recall(
        {
            "strategies": ["temporal", "causal"],
            "entity_id": "acme",
            "seed_memory_id": bytes(16),
        }
    )
    assert len(output.results) == 2
    [error] = output.strategy_errors
    assert (error.strategy, error.field) == ("causal", None)


def test_all_strategies_failing_raise_the_first_typed_error(
    native: _native.NativeEngine,
) -> None:
    with pytest.raises(hebbs.InvalidInputError) as caught:
        native.recall({"strategies": ["temporal", "similarity"]})
    assert caught.value.field == "entity_id"


def test_malformed_values_still_fail_the_call(native: _native.NativeEngine) -> None:
    with pytest.raises(hebbs.InvalidInputError) as caught:
        native.recall(
            {
                "cue_embedding": vector(0),
                "strategies": ["similarity", "temporal"],
                "time_range": (10, 5),
            }
        )
    assert caught.value.field == "time_range"


def test_the_issue_example_through_hebbs(mem: hebbs.Hebbs) -> None:
    """``recall("billing", strategies=["similarity", "temporal"])`` without an entity_id: the
    similarity results come back and temporal's missing input is reported, through Hebbs (the
    cue embedded by the bundled model) as through the binding."""
    mem.remember("Acme was billed twice for March", entity_id="acme")
    mem.remember("Globex renewed for three years", entity_id="globex")
    output = mem.recall("billing", strategies=["similarity", "temporal"])
    assert output.results[0].memory.content == "Acme was billed twice for March"
    [error] = output.strategy_errors
    assert (error.strategy, error.field) == ("temporal", "entity_id")
    timeline = mem.recall(strategies=["temporal", "similarity"], entity_id="acme")
    assert [r.memory.content for r in timeline.results] == ["Acme was billed twice for March"]
    assert [(e.strategy, e.field) for e in timeline.strategy_errors] == [("similarity", "cue")]
    with pytest.raises(hebbs.InvalidValueError) as caught:
        mem.recall(strategies=["temporal", "similarity"])
    assert caught.value.field == "entity_id"
