"""``Hebbs.open(path, vector_format="int8")``: the store round-trips remember and recall on the
bundled embedder, a recall's relevance is the exact cosine of the stored f32 embedding (the
int8 candidates are re-scored), the store keeps its format across a reopen, and a bad value is
a typed error naming ``vector_format``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hebbs
from hebbs import Hebbs
from hebbs._native import NativeEngine
from hebbs.embedder import Embedder

TEXTS = [
    "The deploy to production failed because the database migration timed out.",
    "Alice prefers dark roast coffee in the morning.",
    "The quarterly report is due on Friday.",
    "Bob is allergic to peanuts.",
    "The staging cluster runs on three nodes in Frankfurt.",
    "Our cat sleeps on the radiator all winter.",
]
CUE = "why did the production deploy fail?"


def _relevance_and_cosines(mem: Hebbs, embedder: Embedder) -> list[tuple[str, float, float]]:
    query = embedder.embed([CUE])[0]
    out = mem.recall(CUE, top_k=3, strategies=["similarity"])
    rows = []
    for result in out.results:
        stored = mem.get(result.memory.id, include_embedding=True).embedding
        assert stored is not None
        cosine = float(np.dot(query, stored) / (np.linalg.norm(query) * np.linalg.norm(stored)))
        rows.append((result.memory.content, result.strategy_details[0].relevance, cosine))
    return rows


def test_an_int8_store_recalls_with_exact_cosines_and_keeps_its_format(
    tmp_path: Path, embedder: Embedder
) -> None:
    path = tmp_path / "db"
    with Hebbs.open(path, embedder=embedder, vector_format="int8") as mem:
        mem.remember_many([{"content": text} for text in TEXTS])
        assert mem._native.vector_format() == "int8"
        first = _relevance_and_cosines(mem, embedder)
    assert first[0][0] == TEXTS[0]
    for _, relevance, cosine in first:
        assert relevance == pytest.approx(cosine, abs=1e-5)
    with Hebbs.open(path, embedder=embedder) as mem:
        assert mem._native.vector_format() == "int8"
        assert mem._native.opened_from_checkpoint()
        assert _relevance_and_cosines(mem, embedder) == first
    with Hebbs.open(path, embedder=embedder, vector_format="f32") as mem:
        assert mem._native.vector_format() == "f32"
        assert not mem._native.opened_from_checkpoint()
        again = _relevance_and_cosines(mem, embedder)
    assert [row[0] for row in again] == [row[0] for row in first]
    for (_, relevance, _), (_, before, _) in zip(again, first):
        assert relevance == pytest.approx(before, abs=1e-5)


@pytest.mark.parametrize("value", ["int4", "F32", ""])
def test_a_bad_vector_format_names_the_field(tmp_path: Path, value: str) -> None:
    with pytest.raises(hebbs.InvalidValueError) as caught:
        Hebbs.open(tmp_path / "db", vector_format=value)
    assert caught.value.field == "vector_format"
    with pytest.raises(hebbs.InvalidValueError) as native:
        NativeEngine(str(tmp_path / "native"), vector_format=value)
    assert native.value.field == "vector_format"
    assert "vector_format" in str(native.value)
