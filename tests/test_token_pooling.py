"""Token pooling (``token_pool_factor``): ``pool_tokens`` against a plain Ward's clustering over
every pair at every step (hypothesis), and a real store (``test_token_store``'s texts) that
keeps fewer token vectors a memory and still ranks the paraphrase first. Real store, real
model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

import hebbs
from hebbs.embedder import OnnxEmbedder
from hebbs.embedder.token_vectors import pool_tokens
from hebbs.errors import InvalidInputError
from test_token_store import DOCUMENTS, QUERY


def naive_ward(matrix: NDArray[np.float32], factor: int) -> NDArray[np.float32]:
    """Ward's clustering the long way: every pair's cost from its members, every step."""
    groups = [[i] for i in range(len(matrix))]
    target = -(-len(matrix) // factor)
    while len(groups) > target:
        costs = {}
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                first, second = matrix[groups[a]], matrix[groups[b]]
                gap = first.mean(axis=0, dtype=np.float64) - second.mean(axis=0, dtype=np.float64)
                weight = len(first) * len(second) / (len(first) + len(second))
                costs[a, b] = weight * float(gap @ gap)
        a, b = min(costs, key=lambda pair: costs[pair])
        groups[a] += groups.pop(b)
    means = np.array([matrix[group].mean(axis=0, dtype=np.float64) for group in groups])
    return (means / np.linalg.norm(means, axis=1, keepdims=True)).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 11),
    factor=st.integers(1, 4),
    dimension=st.sampled_from([2, 8, 24]),
)
def test_pooling_equals_wards_clustering_done_the_long_way(
    seed: int, count: int, factor: int, dimension: int
) -> None:
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(count, dimension)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    pooled = pool_tokens(matrix, factor)
    assert pooled.shape == (-(-count // factor), dimension)
    np.testing.assert_allclose(pooled, naive_ward(matrix, factor), atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(pooled, axis=1), 1.0, atol=1e-5)


def test_repeated_tokens_pool_back_into_themselves() -> None:
    rng = np.random.default_rng(7)
    tokens = rng.normal(size=(3, 16)).astype(np.float32)
    tokens /= np.linalg.norm(tokens, axis=1, keepdims=True)
    pooled = pool_tokens(np.repeat(tokens, 2, axis=0), 2)
    np.testing.assert_allclose(pooled, tokens, atol=1e-6)
    np.testing.assert_array_equal(pool_tokens(tokens, 1), tokens)


def test_a_pooled_store_keeps_fewer_token_vectors_and_ranks_the_paraphrase_first(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    kept = {}
    for factor in (1, 2, 3):
        path = tmp_path / f"pool-{factor}"
        with hebbs.Hebbs.open(path, embedder=embedder, token_pool_factor=factor) as mem:
            ids = [m.id for m in mem.remember_many([{"content": text} for text in DOCUMENTS])]
            stored = mem.get_token_vectors(ids)
            kept[factor] = [len(entry[0]) for entry in stored if entry is not None]
            top = mem.recall(QUERY, top_k=1).results[0]
            assert top.memory.id == ids[1], f"factor {factor}: {top.memory.content}"
    assert len(kept[1]) == len(DOCUMENTS)
    for factor in (2, 3):
        assert kept[factor] == [-(-n // factor) for n in kept[1]]


@pytest.mark.parametrize("factor", [0, -1, "two"])
def test_a_bad_factor_names_the_field(tmp_path: Path, factor: object) -> None:
    with pytest.raises(InvalidInputError) as raised:
        hebbs.Hebbs.open(tmp_path / "db", token_pool_factor=factor)  # type: ignore[arg-type]
    assert raised.value.field == "token_pool_factor"
    assert not (tmp_path / "db").exists()
