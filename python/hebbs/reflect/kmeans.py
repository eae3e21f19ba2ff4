"""Clustering for reflection: spherical k-means (cosine on L2-normalised embeddings, k-means++
seeding) with k chosen by the silhouette on a fixed-seed sample, and the adjusted Rand index
that measures it against known groups.

Spherical k-means rather than a density method: the embeddings are unit vectors where cosine is
the natural distance, every memory gets a cluster (a density method leaves noise points that
would never be reflected on), and it is a few numpy matrix products. The silhouette decides k
among ``2..MAX_CLUSTERS`` (every k to 24, a geometric grid past it), searched on a sample of
``SILHOUETTE_SAMPLE`` memories, then fitted on all of them; its measured quality on synthetic
topics is in ``docs/reflection.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .constants import (
    CLUSTER_SEED,
    KMEANS_MAX_ITERATIONS,
    KMEANS_RESTARTS,
    MAX_CLUSTERS,
    MIN_SILHOUETTE,
    SILHOUETTE_SAMPLE,
)

Matrix = NDArray[np.float32]
Labels = NDArray[np.int64]


@dataclass(frozen=True)
class Clustering:
    """``labels[i]`` is the cluster of row i; ``centroids`` are unit vectors; ``silhouette`` the
    score of the chosen k (None when k was 1 or given)."""

    labels: Labels
    centroids: Matrix
    silhouette: float | None

    @property
    def k(self) -> int:
        return int(self.centroids.shape[0])


def normalise(vectors: NDArray[np.floating]) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: Matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def spherical_kmeans(x: Matrix, k: int, rng: np.random.Generator) -> tuple[Labels, Matrix]:
    """Spherical k-means of unit rows ``x`` into ``k`` clusters: k-means++ seeds, then Lloyd
    steps that assign by highest cosine and re-normalise the means."""
    n = x.shape[0]
    centroids = np.empty((k, x.shape[1]), dtype=np.float32)
    centroids[0] = x[rng.integers(n)]
    closest = 1.0 - x @ centroids[0]
    for i in range(1, k):
        weights = np.clip(closest, 0.0, None) ** 2
        total = float(weights.sum())
        pick = rng.integers(n) if total <= 0 else rng.choice(n, p=weights / total)
        centroids[i] = x[pick]
        closest = np.minimum(closest, 1.0 - x @ centroids[i])
    return lloyd(x, centroids)


def lloyd(x: Matrix, centroids: Matrix) -> tuple[Labels, Matrix]:
    """Lloyd steps from ``centroids``: assign each row to its highest-cosine centroid, then
    re-normalise the means, until the assignment settles."""
    labels = np.full(x.shape[0], -1, dtype=np.int64)
    for _ in range(KMEANS_MAX_ITERATIONS):
        new = np.argmax(x @ centroids.T, axis=1).astype(np.int64)
        if np.array_equal(new, labels):
            break
        labels = new
        sums = np.zeros_like(centroids)
        np.add.at(sums, labels, x)
        empty = ~sums.any(axis=1)
        sums[empty] = centroids[empty]
        centroids = normalise(sums)
    return labels, centroids


def silhouette(x: Matrix, labels: Labels) -> float:
    """Mean silhouette of rows ``x`` (cosine distance); 0 when fewer than two clusters."""
    clusters = np.unique(labels)
    if clusters.size < 2:
        return 0.0
    distance = 1.0 - x @ x.T
    index = np.searchsorted(clusters, labels)
    sums = np.zeros((x.shape[0], clusters.size), dtype=np.float64)
    np.add.at(sums.T, index, distance)
    sizes = np.bincount(index, minlength=clusters.size).astype(np.float64)
    own = sizes[index]
    rows = np.arange(x.shape[0])
    a = np.where(own > 1, sums[rows, index] / np.maximum(own - 1, 1), 0.0)
    others = sums / sizes
    others[rows, index] = np.inf
    b = others.min(axis=1)
    score = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(score.mean())


def _candidate_ks(n: int, min_size: int) -> list[int]:
    """k from 2 up to ``min(MAX_CLUSTERS, n // min_size)``: every k to 24, then x1.25 steps."""
    top = min(MAX_CLUSTERS, n // max(min_size, 1))
    ks = list(range(2, min(top, 24) + 1))
    k = 24
    while True:
        k = int(k * 1.25)
        if k > top:
            break
        ks.append(k)
    return ks


def cluster(
    vectors: NDArray[np.floating], *, min_size: int, k: int | None = None, seed: int = CLUSTER_SEED
) -> Clustering:
    """Clusters ``vectors`` (one row per memory): with ``k`` given, into k; else into the k of
    the best silhouette, or one cluster when no k reaches ``MIN_SILHOUETTE``. The k search runs
    on a fixed-seed sample of ``SILHOUETTE_SAMPLE`` rows; the best sample clustering's
    centroids then seed Lloyd steps over all rows."""
    x = normalise(vectors)
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    if k is None:
        sample = x[rng.choice(n, size=min(n, SILHOUETTE_SAMPLE), replace=False)]
        best: tuple[float, Matrix] | None = None
        for candidate in _candidate_ks(sample.shape[0], min_size):
            labels, centroids = _best_run(sample, candidate, rng)
            score = silhouette(sample, labels)
            if score >= MIN_SILHOUETTE and (best is None or score > best[0]):
                best = (score, centroids)
        if best is None:
            centroid = normalise(x.mean(axis=0, keepdims=True))
            return Clustering(np.zeros(n, dtype=np.int64), centroid, None)
        labels, centroids = lloyd(x, best[1])
        return Clustering(labels, centroids, best[0])
    labels, centroids = _best_run(x, min(k, n), rng)
    return Clustering(labels, centroids, None)


def _best_run(x: Matrix, k: int, rng: np.random.Generator) -> tuple[Labels, Matrix]:
    """The most cohesive of ``KMEANS_RESTARTS`` runs (highest total cosine to the centroids)."""
    runs = [spherical_kmeans(x, k, rng) for _ in range(KMEANS_RESTARTS)]
    return max(runs, key=lambda run: float(np.einsum("ij,ij->", x, run[1][run[0]])))


def adjusted_rand_index(truth: NDArray[np.integer], found: NDArray[np.integer]) -> float:
    """The adjusted Rand index of two labelings (1 identical partitions, about 0 chance)."""
    _, a = np.unique(truth, return_inverse=True)
    _, b = np.unique(found, return_inverse=True)
    table = np.zeros((a.max() + 1, b.max() + 1), dtype=np.int64)
    np.add.at(table, (a, b), 1)

    def pairs(counts: NDArray[np.int64]) -> float:
        return float((counts * (counts - 1) // 2).sum())

    index = pairs(table)
    rows, cols = pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    total = pairs(np.array([a.size]))
    expected = rows * cols / total if total else 0.0
    maximum = (rows + cols) / 2
    if maximum == expected:
        return 1.0
    return (index - expected) / (maximum - expected)
