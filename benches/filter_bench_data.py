"""The data of ``benches/filter_bench.py``: the vectors, the context fields of known selectivity
and the filters that select them, each in hebbs's language, in Chroma's ``where`` and as a row
mask (the truth is numpy's brute force over the rows a mask keeps).

Every memory has ``bucket``, its rank in one random permutation (so ``{"context.bucket":
{"$lt": s * n}}`` selects exactly the fraction ``s``: a range filter), and one boolean per
selectivity (``s50``, ``s10``, ``s1``, ``s01``) true on the first ``s * n`` of a second, independent
permutation (``{"context.s10": true}``: an equality filter). Neither is correlated with the
clusters the vectors come from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine_bench import LATENT_DIM, SEED, embedding_like

#: The fractions of the store the filters select.
SELECTIVITIES = (0.5, 0.1, 0.01, 0.001)
#: The boolean context key true on each selectivity's fraction.
FLAGS = {0.5: "s50", 0.1: "s10", 0.01: "s1", 0.001: "s01"}
#: The selectivities of the filter the index cannot plan (``$not``): the graph walk's case.
NOT_SELECTIVITIES = (0.1, 0.01)
TOP_K = 10


@dataclass(frozen=True)
class Case:
    """One filter: its label, kind (``none`` for the unfiltered baseline, ``eq``, ``range``,
    ``not``), the fraction it selects, its hebbs and Chroma forms and the rows it keeps."""

    label: str
    kind: str
    selectivity: float
    hebbs: dict[str, Any] | None
    chroma: dict[str, Any] | None
    mask: NDArray[np.bool_] | None

    @property
    def matches(self) -> int:
        return int(self.mask.sum()) if self.mask is not None else -1


@dataclass(frozen=True)
class Data:
    """The stored vectors, the timed and warm-up queries, the context columns and the cases."""

    vectors: NDArray[np.float32]
    queries: NDArray[np.float32]
    warm_up: NDArray[np.float32]
    columns: dict[str, NDArray[Any]]
    cases: list[Case]

    def context(self, row: int) -> dict[str, Any]:
        """Memory ``row``'s context (JSON types: an int and booleans)."""
        return {name: column[row].item() for name, column in self.columns.items()}


def percent(selectivity: float) -> str:
    return f"{selectivity * 100:g} %"


def make(n: int, dim: int, queries: int, warm_up: int, clusters: int) -> Data:
    """The data set of ``n`` vectors and its cases, the same for a seed and sizes."""
    rng = np.random.default_rng(SEED)
    projection = rng.standard_normal((LATENT_DIM, dim)).astype(np.float32)
    vectors = embedding_like(rng, n, dim, clusters, projection)
    timed = embedding_like(rng, queries, dim, clusters, projection)
    untimed = embedding_like(rng, warm_up, dim, clusters, projection)
    bucket = rng.permutation(n).astype(np.int64)
    rank = rng.permutation(n)
    columns: dict[str, NDArray[Any]] = {"bucket": bucket}
    for selectivity, flag in FLAGS.items():
        columns[flag] = rank < round(selectivity * n)
    cases = [Case("unfiltered", "none", 1.0, None, None, None)]
    for selectivity in SELECTIVITIES:
        flag = FLAGS[selectivity]
        cases.append(
            Case(
                f"eq {percent(selectivity)}",
                "eq",
                selectivity,
                {f"context.{flag}": True},
                {flag: True},
                columns[flag],
            )
        )
    for selectivity in SELECTIVITIES:
        bound = round(selectivity * n)
        cases.append(
            Case(
                f"range {percent(selectivity)}",
                "range",
                selectivity,
                {"context.bucket": {"$lt": bound}},
                {"bucket": {"$lt": bound}},
                bucket < bound,
            )
        )
    for selectivity in NOT_SELECTIVITIES:
        flag = FLAGS[selectivity]
        cases.append(
            Case(
                f"not {percent(selectivity)}",
                "not",
                selectivity,
                {"$not": {f"context.{flag}": False}},
                # Chroma's where has no $not: $ne selects the same rows.
                {flag: {"$ne": False}},
                columns[flag],
            )
        )
    return Data(vectors, timed, untimed, columns, cases)


def truth(data: Data, case: Case) -> list[list[int]]:
    """Per query, the rows of the exact filtered top 10, in no order (fewer when fewer rows
    match)."""
    scores = data.queries @ data.vectors.T
    if case.mask is not None:
        scores[:, ~case.mask] = -np.inf
    k = min(TOP_K, case.matches if case.mask is not None else len(data.vectors))
    best = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k > 0 else scores[:, :0]
    return [[int(row) for row in top] for top in best]


def recall_at_10(expected: list[list[int]], got: list[list[int]]) -> float:
    """Share of the exact filtered top 10 found (1.0 when the filter selects nothing)."""
    wanted = sum(len(t) for t in expected)
    if wanted == 0:
        return 1.0
    return sum(len(set(t) & set(g[:TOP_K])) for t, g in zip(expected, got)) / wanted
