"""Every bad input of DESIGN section 8 answers a typed error that names the field and leaves the
store unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hebbs

DIM = 384


@pytest.fixture
def seeded(mem: hebbs.Hebbs) -> tuple[hebbs.Hebbs, hebbs.Memory]:
    return mem, mem.remember("Acme signed the contract", entity_id="acme")


def snapshot(mem: hebbs.Hebbs) -> tuple[int, list[bytes]]:
    out = mem.recall(strategies=["temporal"], entity_id="acme", top_k=100)
    return mem.health().memory_count, sorted(r.memory.id for r in out.results)


def vector(value: float = 0.1, dim: int = DIM) -> np.ndarray:
    return np.full(dim, value, dtype=np.float32)


REMEMBER_CASES: list[tuple[str, dict[str, Any]]] = [
    ("content", {"content": ""}),
    ("content", {"content": "   \n"}),
    ("content", {"content": "x" * 70_000}),
    ("importance", {"importance": 1.5}),
    ("importance", {"importance": -0.1}),
    ("importance", {"importance": float("nan")}),
    ("embedding", {"embedding": vector(float("nan"))}),
    ("embedding", {"embedding": vector(float("inf"))}),
    ("embedding", {"embedding": vector(0.0)}),
    ("embedding", {"embedding": vector(dim=DIM + 1)}),
    ("embedding", {"embedding": np.ones((2, DIM), dtype=np.float32)}),
    ("entity_id", {"entity_id": ""}),
    ("entity_id", {"entity_id": "a\x00b"}),
    ("entity_id", {"entity_id": "e" * 300}),
    ("context", {"context": {"bad": object()}}),
    ("context", {"context": {"nan": float("nan")}}),
    ("context", {"context": {1: "non-string key"}}),
    ("created_at", {"created_at": -5}),
    ("created_at", {"created_at": 2**62}),
]


@pytest.mark.parametrize(("field", "kwargs"), REMEMBER_CASES)
def test_remember_rejects(
    seeded: tuple[hebbs.Hebbs, hebbs.Memory], field: str, kwargs: dict[str, Any]
) -> None:
    mem, _ = seeded
    before = snapshot(mem)
    args = {"content": "valid content", "entity_id": "acme", **kwargs}
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember(**args)
    assert caught.value.field == field
    assert field in str(caught.value)
    assert snapshot(mem) == before


def test_edge_errors(seeded: tuple[hebbs.Hebbs, hebbs.Memory]) -> None:
    mem, good = seeded
    before = snapshot(mem)
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember("x", entity_id="acme", edges=[hebbs.Edge(good.id, "caused_by", 1.5)])
    assert caught.value.field == "edges[0].confidence"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember("x", entity_id="acme", edges=[hebbs.Edge(b"\x01" * 16, "caused_by")])
    assert caught.value.field == "edges[0].target"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        hebbs.Edge(good.id, "causes")
    assert caught.value.field == "edge.edge_type"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        hebbs.Edge(b"short", "caused_by")
    assert caught.value.field == "edge.target"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember("x", edges=["not an edge"])  # type: ignore[list-item]
    assert caught.value.field == "edges[0]"
    assert snapshot(mem) == before


def test_remember_many_is_all_or_nothing(seeded: tuple[hebbs.Hebbs, hebbs.Memory]) -> None:
    mem, _ = seeded
    before = snapshot(mem)
    items: list[dict[str, Any]] = [
        {"content": "fine", "entity_id": "acme"},
        {"content": "also fine", "entity_id": "acme", "importance": 2.0},
    ]
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember_many(items)
    assert caught.value.field == "items[1].importance"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember_many([{"content": "ok"}, {"content": "typo", "entitiy_id": "x"}])
    assert caught.value.field == "items[1]"
    assert snapshot(mem) == before


RECALL_CASES: list[tuple[str, dict[str, Any]]] = [
    ("top_k", {"top_k": 0}),
    ("top_k", {"top_k": 1001}),
    ("ef_search", {"ef_search": 0}),
    ("ef_search", {"ef_search": 501}),
    ("strategies", {"strategies": ["similarity", "psychic"]}),
    ("strategies", {"strategies": []}),
    ("strategies", {"strategies": ["similarity", "similarity"]}),
    ("entity_id", {"strategies": ["temporal"]}),
    ("entity_id", {"entity_id": "a\x00b"}),
    ("entity_id", {"entity_id": "e" * 300}),
    (
        "strategies[0].entity_id",
        {"strategies": [hebbs.RecallStrategyConfig("temporal", entity_id="a\nb")]},
    ),
    ("time_range", {"strategies": ["temporal"], "entity_id": "acme", "time_range": (10, 5)}),
    ("time_range", {"strategies": ["temporal"], "entity_id": "acme", "time_range": (1,)}),
    ("cue", {"cue": ""}),
    ("cue_embedding", {"cue_embedding": np.ones((2, 2), dtype=np.float32)}),
    ("cue_embedding", {"cue_embedding": vector(dim=DIM - 1)}),
    ("cue_embedding", {"cue_embedding": vector(float("nan"))}),
    ("cue_embedding", {"cue_embedding": []}),
    ("scoring_weights.w_recency", {"scoring_weights": {"w_recency": -1.0}}),
    ("scoring_weights", {"scoring_weights": {"w_speed": 1.0}}),
    ("scoring_weights.max_age_us", {"scoring_weights": {"max_age_us": 0}}),
]


@pytest.mark.parametrize(("field", "kwargs"), RECALL_CASES)
def test_recall_rejects(
    seeded: tuple[hebbs.Hebbs, hebbs.Memory], field: str, kwargs: dict[str, Any]
) -> None:
    mem, _ = seeded
    before = mem.get(seeded[1].id).access_count
    args: dict[str, Any] = {"cue": "contract", **kwargs}
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.recall(**args)
    assert caught.value.field == field
    assert mem.get(seeded[1].id).access_count == before


@pytest.mark.parametrize("ttl", [0, -1.0, 1.3e16, float("inf")])
def test_a_duration_beyond_a_century_is_refused(
    seeded: tuple[hebbs.Hebbs, hebbs.Memory], ttl: float
) -> None:
    mem, _ = seeded
    with pytest.raises(hebbs.InvalidValueError) as caught:
        mem.reflect_prepare(ttl=ttl)
    assert caught.value.field == "ttl"


@pytest.mark.parametrize(
    ("bad_id", "error"),
    [
        (b"\x00" * 15, hebbs.InvalidInputError),
        ("not-hex", hebbs.InvalidInputError),
        (12345, hebbs.InvalidInputError),
        (b"\x00" * 16, hebbs.NotFoundError),
    ],
)
def test_get_rejects_malformed_and_missing_ids(
    mem: hebbs.Hebbs, bad_id: Any, error: Callable[..., Exception]
) -> None:
    with pytest.raises(error) as caught:  # type: ignore[call-overload]
        mem.get(bad_id)
    assert isinstance(caught.value, hebbs.HebbsError)


def test_exception_hierarchy() -> None:
    for kind in (
        hebbs.InvalidInputError,
        hebbs.NotFoundError,
        hebbs.StorageError,
        hebbs.HebbsIOError,
        hebbs.CorruptionError,
        hebbs.VectorIndexError,
        hebbs.InternalError,
        hebbs.ClosedError,
        hebbs.EmbeddingError,
    ):
        assert issubclass(kind, hebbs.HebbsError)


def test_failing_embedder_is_an_embedding_error(tmp_path: Any) -> None:
    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("model server down")

    with hebbs.Hebbs.open(tmp_path / "db", embedder=broken) as mem:
        with pytest.raises(hebbs.EmbeddingError, match="model server down"):
            mem.remember("anything")
        assert mem.health().memory_count == 0
