"""The data set every system gets: clustered embedding-like unit vectors
(``engine_bench.embedding_like``), the queries, their exact 10 nearest rows (brute force inner
product), each memory's text and each query's keyword cue (``strategies_bench.words``). Written
once per size as ``.npy`` and text files under the work directory, and reused by later runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine_bench import LATENT_DIM, SEED, embedding_like
from strategies_bench import WORDS_PER_CUE, WORDS_PER_MEMORY, words

#: Rows generated (and searched for the truth) at a time, so 1M x 384 stays within memory.
CHUNK = 100_000
#: Marks a finished data set directory (written last).
DONE = "done"


@dataclass(frozen=True)
class Shape:
    """What a data set is made of."""

    n: int
    dim: int
    queries: int
    clusters: int


def files(folder: Path) -> dict[str, str]:
    """The data set's files, as a worker's job names them."""
    names = {
        "data": "data.npy",
        "queries": "queries.npy",
        "truth": "truth.npy",
        "texts": "texts.txt",
        "cue_texts": "cue_texts.txt",
    }
    return {key: str(folder / name) for key, name in names.items()}


def exact_top10(data: NDArray[np.float32], queries: NDArray[np.float32]) -> NDArray[np.int64]:
    """The rows of ``data`` with the 10 largest inner products with each query, best first."""
    rows = np.empty((len(queries), 0), dtype=np.int64)
    scores = np.empty((len(queries), 0), dtype=np.float32)
    for lo in range(0, len(data), CHUNK):
        chunk = queries @ np.asarray(data[lo : lo + CHUNK]).T
        rows = np.concatenate(
            [rows, np.broadcast_to(lo + np.arange(chunk.shape[1]), chunk.shape)], 1
        )
        scores = np.concatenate([scores, chunk], axis=1)
        keep = np.argsort(-scores, axis=1, kind="stable")[:, :10]
        rows = np.take_along_axis(rows, keep, axis=1)
        scores = np.take_along_axis(scores, keep, axis=1)
    return rows


def make(folder: Path, shape: Shape) -> dict[str, str]:
    """The data set of ``shape`` in ``folder``, generated unless a finished one is there."""
    paths = files(folder)
    if (folder / DONE).exists():
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    projection = rng.standard_normal((LATENT_DIM, shape.dim)).astype(np.float32)
    data = np.lib.format.open_memmap(
        paths["data"], mode="w+", dtype=np.float32, shape=(shape.n, shape.dim)
    )
    for lo in range(0, shape.n, CHUNK):
        hi = min(lo + CHUNK, shape.n)
        data[lo:hi] = embedding_like(rng, hi - lo, shape.dim, shape.clusters, projection)
    data.flush()
    queries = embedding_like(rng, shape.queries, shape.dim, shape.clusters, projection)
    np.save(paths["queries"], queries)
    np.save(paths["truth"], exact_top10(data, queries))
    texts = (f"memory {i} {words(rng, WORDS_PER_MEMORY)}" for i in range(shape.n))
    Path(paths["texts"]).write_text("\n".join(texts) + "\n", encoding="utf-8")
    cues = (words(rng, WORDS_PER_CUE) for _ in range(shape.queries))
    Path(paths["cue_texts"]).write_text("\n".join(cues) + "\n", encoding="utf-8")
    (folder / DONE).write_text("", encoding="utf-8")
    return paths
