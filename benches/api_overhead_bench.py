"""What the Python API adds to an engine call: each operation through ``Hebbs`` (the request
model's checks, then the native call) against the same native call made directly, query by
query in alternating order, in one process. Vectors are passed in, so no embedding is timed.

Prints p50 and p99 of both, the ratio and the microseconds added. Run
``python benches/api_overhead_bench.py --n 10000``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import hebbs

SEED = 11
DIM = 384
BATCH = 2000


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    values = rng.standard_normal((n, DIM)).astype(np.float32)
    return values / np.linalg.norm(values, axis=1, keepdims=True)


def paired(
    api: Callable[[int], Any], native: Callable[[int], Any], runs: int
) -> tuple[list[float], list[float]]:
    """Microseconds of ``api(i)`` and ``native(i)`` for each i, alternating which goes first."""
    api_us: list[float] = []
    native_us: list[float] = []
    for i in range(runs):
        order = (
            ((api, api_us), (native, native_us)) if i % 2 else ((native, native_us), (api, api_us))
        )
        for call, sink in order:
            start = time.perf_counter()
            call(i)
            sink.append((time.perf_counter() - start) * 1e6)
    return api_us, native_us


def row(name: str, api_us: list[float], native_us: list[float]) -> str:
    a50, a99 = np.percentile(api_us, [50, 99])
    n50, n99 = np.percentile(native_us, [50, 99])
    return (
        f"| {name:<22} | {n50:8.1f} | {n99:8.1f} | {a50:8.1f} | {a99:8.1f} "
        f"| {a50 / n50:5.2f}x | {a50 - n50:+7.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10_000, help="memories in the store")
    parser.add_argument("--runs", type=int, default=2000, help="calls of each operation")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    vectors = unit_vectors(rng, args.n)
    queries = unit_vectors(rng, args.runs)
    fresh = unit_vectors(rng, 2 * args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        mem = hebbs.Hebbs.open(
            Path(tmp) / "db", embedder=lambda texts: unit_vectors(rng, len(texts))
        )
        for start in range(0, args.n, BATCH):
            end = min(start + BATCH, args.n)
            mem.remember_many(
                [
                    {"content": f"memory {i}", "entity_id": f"e{i % 100}", "embedding": vectors[i]}
                    for i in range(start, end)
                ]
            )
        mem.optimize()
        native = mem._native
        ids = [r.memory.id for r in mem.recall(cue_embedding=queries[0], top_k=100).results]
        weights = {"w_relevance": 0.7, "w_recency": 0.3}
        native_weights = hebbs.ScoringWeights(w_relevance=0.7, w_recency=0.3)
        table = [
            (
                "recall",
                lambda i: mem.recall(cue_embedding=queries[i], top_k=10),
                lambda i: native.recall({"cue_embedding": queries[i], "top_k": 10}),
            ),
            (
                "recall, 6 parameters",
                lambda i: mem.recall(
                    cue_embedding=queries[i], top_k=10, entity_id="e1", ef_search=64,
                    scoring_weights=weights, min_relevance=0.0,
                ),
                lambda i: native.recall(
                    {
                        "cue_embedding": queries[i], "strategies": ["similarity"], "top_k": 10,
                        "entity_id": "e1", "ef_search": 64, "scoring_weights": native_weights,
                        "min_relevance": 0.0,
                    }
                ),
            ),
            (
                "remember",
                lambda i: mem.remember(f"new {i}", entity_id="e1", embedding=fresh[2 * i]),
                lambda i: native.remember(f"new {i}", fresh[2 * i + 1], entity_id="e1"),
            ),
            (
                "get",
                lambda i: mem.get(ids[i % len(ids)]),
                lambda i: native.get(ids[i % len(ids)]),
            ),
        ]  # fmt: skip
        print(f"n={args.n}, {args.runs} calls each, microseconds")
        print("| operation              | native p50 | p99 | Hebbs p50 | p99 | ratio | added |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, api, direct in table:
            paired(api, direct, min(200, args.runs))
            print(row(name, *paired(api, direct, args.runs)))
        mem.close()


if __name__ == "__main__":
    main()
