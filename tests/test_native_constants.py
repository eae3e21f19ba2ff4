"""What the native module exports for the Python layer to read instead of copying: the strategy
names, the strategies that read the cue vector, the input limits and the tombstone page size,
each checked against the engine's behaviour."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hebbs
from hebbs import _native

DIM = 4


def vector(axis: int = 0) -> np.ndarray:
    v = np.full(DIM, 0.05, dtype=np.float32)
    v[axis] = 1.0
    return v


@pytest.fixture
def native(tmp_path: Path) -> _native.NativeEngine:
    return _native.NativeEngine(str(tmp_path / "db"), dimension=DIM)


def test_strategies_in_core_order() -> None:
    assert _native.STRATEGIES == (
        "similarity",
        "temporal",
        "causal",
        "analogical",
        "hybrid",
        "keyword",
        "regex",
    )
    for name in _native.STRATEGIES:
        assert _native.RecallStrategyConfig(name).strategy == name


def test_vector_strategies_are_those_that_read_the_cue_vector() -> None:
    assert _native.VECTOR_STRATEGIES == ("similarity", "causal", "analogical", "hybrid")
    assert set(_native.VECTOR_STRATEGIES) <= set(_native.STRATEGIES)


def test_vector_strategies_report_a_missing_cue_vector(native: _native.NativeEngine) -> None:
    """Without a cue vector (but with an entity and a cue text) exactly the vector strategies
    fail; causal names its seed, which it could start from instead."""
    native.remember({"content": "billing dispute", "entity_id": "acme"}, vector())
    for name in _native.STRATEGIES:
        other = "keyword" if name == "temporal" else "temporal"
        output = native.recall({"strategies": [name, other], "entity_id": "acme", "cue": "billing"})
        failed = {e.strategy: e.field for e in output.strategy_errors}
        if name in _native.VECTOR_STRATEGIES:
            assert failed == {name: "seed_memory_id" if name == "causal" else "cue"}
        else:
            assert failed == {}, name


def test_limits_match_the_core() -> None:
    assert _native.MAX_TOP_K == 1000
    assert _native.MAX_EF_SEARCH == 500
    assert _native.MAX_CAUSAL_DEPTH == 10
    assert _native.MAX_CONTENT_BYTES == 64 * 1024
    assert _native.MAX_CONTEXT_BYTES == 64 * 1024
    assert _native.MAX_ENTITY_ID_BYTES == 256
    assert _native.MAX_EDGES_PER_MEMORY == 256
    assert _native.MAX_VECTOR_DIMENSION == 4096


def test_the_limits_are_the_ones_enforced(native: _native.NativeEngine) -> None:
    longest = "e" * _native.MAX_ENTITY_ID_BYTES
    native.remember({"content": "fits", "entity_id": longest}, vector())
    with pytest.raises(hebbs.InvalidInputError) as caught:
        native.remember({"content": "too long", "entity_id": longest + "e"}, vector())
    assert caught.value.field == "entity_id"
    native.remember({"content": "x" * _native.MAX_CONTENT_BYTES}, vector())
    with pytest.raises(hebbs.InvalidInputError) as caught:
        native.remember({"content": "x" * (_native.MAX_CONTENT_BYTES + 1)}, vector())
    assert caught.value.field == "content"
    native.recall(
        {"cue_embedding": vector(), "top_k": _native.MAX_TOP_K, "ef_search": _native.MAX_EF_SEARCH}
    )
    with pytest.raises(hebbs.InvalidInputError):
        native.recall({"cue_embedding": vector(), "top_k": _native.MAX_TOP_K + 1})
    with pytest.raises(hebbs.InvalidInputError):
        native.recall({"cue_embedding": vector(), "ef_search": _native.MAX_EF_SEARCH + 1})


def test_tombstones_page_defaults_to_the_core_constant(native: _native.NativeEngine) -> None:
    assert _native.DEFAULT_TOMBSTONE_PAGE == 100
    for i in range(_native.DEFAULT_TOMBSTONE_PAGE + 5):
        native.remember({"content": f"memory {i}", "entity_id": "gone"}, vector(i % DIM))
    assert (
        native.forget({"entity_id": "gone"}).tombstone_count == _native.DEFAULT_TOMBSTONE_PAGE + 5
    )
    first = native.tombstones()
    assert len(first) == _native.DEFAULT_TOMBSTONE_PAGE
    rest = native.tombstones(after=first[-1].id)
    assert len(rest) == 5


def test_a_remember_item_field_the_binding_does_not_read_is_refused(
    native: _native.NativeEngine,
) -> None:
    """The native ``remember`` and ``remember_many`` read their items field by field; a field
    they do not read is an error naming it, never dropped silently."""
    with pytest.raises(_native.InvalidTypeError) as caught:
        native.remember({"content": "x", "bogus": 1}, vector())
    assert caught.value.field == "bogus"
    rows = [{"content": "a"}, {"content": "b", "dedup": True}]
    with pytest.raises(_native.InvalidTypeError) as caught:
        native.remember_many(rows, np.stack([vector(), vector()]))
    assert caught.value.field == "items[1].dedup"
    assert native.health().memory_count == 0


def test_a_revise_or_subscribe_field_the_binding_does_not_read_is_refused(
    native: _native.NativeEngine,
) -> None:
    """The native ``revise`` and ``subscribe`` take their request model's fields as one dict,
    read field by field: a field they do not read is an error naming it, and the store is
    unchanged."""
    memory = native.remember({"content": "before"}, vector())
    with pytest.raises(_native.InvalidTypeError) as caught:
        native.revise({"id": memory.id, "content": "after", "embedding": vector(1), "bogus": 1})
    assert caught.value.field == "bogus"
    assert native.health().memory_count == 1
    revised = native.revise({"id": memory.id, "content": "after", "embedding": vector(1)})
    assert revised.content == "after"
    assert revised.importance == memory.importance
    with pytest.raises(_native.InvalidTypeError) as caught:
        native.subscribe({"embedding": vector(), "cue": "a text the binding never reads"})
    assert caught.value.field == "cue"
    subscription = native.subscribe({"embedding": vector(), "confidence_threshold": 0.5})
    subscription.unsubscribe()
