"""Engine benchmark at scale: hebbs against raw hnswlib on the same vectors, in one run.

Measures, at ``--n`` memories of ``--dim``-d vectors passed in (so the engine alone is timed):
remember p50/p99 (single calls on top of the bulk-loaded store), similarity recall p50/p99 and
recall@10 over an ef_search sweep against raw hnswlib on the same vectors (each query through
both, back to back), temporal recall p50/p99,
end-to-end remember and recall with the bundled embedder, and open time from the checkpoint
versus a full rebuild. Prints one table; run ``python benches/engine_bench.py --help``.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import hnswlib
import numpy as np
from numpy.typing import NDArray

import hebbs

SEED = 7
LATENT_DIM = 32
#: Pause between paced remembers: an agent's cadence, which lets the background graph insert
#: finish between calls (back-to-back calls measure the graph's insert throughput instead).
PACE_S = 0.005
ENTITIES = 1000
DAY_US = 86_400 * 1_000_000
BULK_BATCH = 2000
EF_SWEEP = (10, 20, 50, 100)
#: Queries (not the measured ones) run through both before the sweeps.
WARM_UP_QUERIES = 200
#: The recall@10 at which engine and hnswlib latencies are compared.
TARGET_RECALL = 0.95
PURE_RELEVANCE = hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0)


def embedding_like(
    rng: np.random.Generator, n: int, dim: int, clusters: int, projection: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Clustered points in a ``LATENT_DIM``-d space, projected to ``dim`` with a little noise:
    sentence embeddings have a low intrinsic dimension, unlike isotropic Gaussian noise."""
    latent_centres = np.random.default_rng(SEED).standard_normal((clusters, LATENT_DIM))
    latent = latent_centres[rng.integers(0, clusters, n)] + 0.5 * rng.standard_normal(
        (n, LATENT_DIM)
    )
    points = (latent @ projection + 0.05 * rng.standard_normal((n, dim))).astype(np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    return points


def timed(call: Callable[[], object], repeat: int) -> NDArray[np.float64]:
    samples = np.empty(repeat)
    for i in range(repeat):
        start = time.perf_counter()
        call()
        samples[i] = time.perf_counter() - start
    return samples * 1e3


def percentiles(samples_ms: NDArray[np.float64]) -> tuple[float, float]:
    return float(np.percentile(samples_ms, 50)), float(np.percentile(samples_ms, 99))


def recall_at_10(truth: NDArray[np.int64], got: list[list[int]]) -> float:
    hits = sum(len(set(t[:10]) & set(g[:10])) for t, g in zip(truth, got))
    return hits / (10 * len(truth))


def similarity_sweep(
    mem: hebbs.Hebbs,
    index: hnswlib.Index,
    queries: NDArray[np.float32],
    ef: int,
    index_of: dict[bytes, int],
) -> tuple[NDArray[np.float64], list[list[int]], NDArray[np.float64], list[list[int]]]:
    """Latencies (ms) and the row numbers found at ``ef``, for the engine and for hnswlib, each
    query through both back to back (alternating which goes first), so machine load hits the
    two alike."""
    index.set_ef(ef)
    engine_ms = np.empty(len(queries))
    hnswlib_ms = np.empty(len(queries))
    engine_got: list[list[int]] = []
    hnswlib_got: list[list[int]] = []
    for j, query in enumerate(queries):
        for turn in (j % 2, 1 - j % 2):
            start = time.perf_counter()
            if turn == 0:
                out = mem.recall(
                    cue_embedding=query, top_k=10, ef_search=ef, scoring_weights=PURE_RELEVANCE
                )
                engine_ms[j] = (time.perf_counter() - start) * 1e3
                engine_got.append([index_of[r.memory.id] for r in out.results])
            else:
                labels, _ = index.knn_query(query, k=10)
                hnswlib_ms[j] = (time.perf_counter() - start) * 1e3
                hnswlib_got.append([int(x) for x in labels[0]])
    return engine_ms, engine_got, hnswlib_ms, hnswlib_got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--single-writes", type=int, default=1000)
    args = parser.parse_args()

    rng = np.random.default_rng(SEED)
    projection = rng.standard_normal((LATENT_DIM, args.dim)).astype(np.float32)
    data = embedding_like(rng, args.n, args.dim, args.clusters, projection)
    queries = embedding_like(rng, args.queries, args.dim, args.clusters, projection)
    truth = np.argsort(-(queries @ data.T), axis=1)[:, :10]
    now_us = time.time_ns() // 1000
    rows: list[tuple[str, str]] = []

    warm_up = embedding_like(rng, WARM_UP_QUERIES, args.dim, args.clusters, projection)

    # hnswlib is built first, so the machine has settled from its two-thread build before
    # anything is timed (a search right after it measured up to 2x slower, engine and hnswlib).
    index = hnswlib.Index(space="ip", dim=args.dim)
    index.init_index(max_elements=args.n, M=16, ef_construction=200, random_seed=SEED)
    start = time.perf_counter()
    index.add_items(data, np.arange(args.n))
    rows.append(("hnswlib build", f"{args.n / (time.perf_counter() - start):,.0f} vectors/s"))
    index.set_num_threads(1)

    workdir = Path(tempfile.mkdtemp(prefix="hebbs-bench-"))
    try:
        db = workdir / "db"
        mem = hebbs.Hebbs.open(db)
        bulk = args.n - args.single_writes
        start = time.perf_counter()
        index_of: dict[bytes, int] = {}
        for lo in range(0, bulk, BULK_BATCH):
            hi = min(lo + BULK_BATCH, bulk)
            items = [
                {
                    "content": f"memory {i}",
                    "entity_id": f"entity-{i % ENTITIES}",
                    "created_at": now_us - int((args.n - i) * (60 * DAY_US / args.n)),
                    "embedding": data[i],
                }
                for i in range(lo, hi)
            ]
            for offset, memory in enumerate(mem.remember_many(items)):
                index_of[memory.id] = lo + offset
        bulk_s = time.perf_counter() - start
        rows.append(("bulk load (remember_many)", f"{bulk / bulk_s:,.0f} memories/s"))

        position = iter(range(bulk, args.n))

        def remember_one() -> None:
            i = next(position)
            memory = mem.remember(
                f"memory {i}", entity_id=f"entity-{i % ENTITIES}", embedding=data[i]
            )
            index_of[memory.id] = i

        half = args.single_writes // 2
        p50, p99 = percentiles(timed(remember_one, half))
        rows.append(("engine remember back-to-back p50 / p99", f"{p50:.3f} / {p99:.3f} ms"))

        def remember_paced() -> float:
            time.sleep(PACE_S)
            return float(timed(remember_one, 1)[0])

        paced = np.array([remember_paced() for _ in range(args.single_writes - half)])
        p50, p99 = percentiles(paced)
        rows.append(
            (f"engine remember paced {PACE_S * 1e3:.0f} ms p50 / p99", f"{p50:.3f} / {p99:.3f} ms")
        )

        start = time.perf_counter()
        mem.optimize()
        rows.append(("optimize (drain)", f"{time.perf_counter() - start:.2f} s"))

        for query in warm_up:
            mem.recall(cue_embedding=query, top_k=10, scoring_weights=PURE_RELEVANCE)
            index.knn_query(query, k=10)
        engine_p50: dict[int, float] = {}
        engine_recall: dict[int, float] = {}
        hnswlib_p50: dict[int, float] = {}
        hnswlib_recall: dict[int, float] = {}
        for ef in EF_SWEEP:
            engine_ms, engine_got, hnswlib_ms, hnswlib_got = similarity_sweep(
                mem, index, queries, ef, index_of
            )
            p50, p99 = percentiles(engine_ms)
            engine_p50[ef] = p50
            engine_recall[ef] = recall_at_10(truth, engine_got)
            rows.append((f"engine similarity ef={ef} p50 / p99", f"{p50:.3f} / {p99:.3f} ms"))
            rows.append((f"engine recall@10 ef={ef}", f"{engine_recall[ef]:.3f}"))
            p50, p99 = percentiles(hnswlib_ms)
            hnswlib_p50[ef] = p50
            hnswlib_recall[ef] = recall_at_10(truth, hnswlib_got)
            rows.append((f"hnswlib search ef={ef} p50 / p99", f"{p50:.3f} / {p99:.3f} ms"))
            rows.append((f"hnswlib recall@10 ef={ef}", f"{hnswlib_recall[ef]:.3f}"))
            rows.append((f"engine / hnswlib p50 ratio ef={ef}", f"{engine_p50[ef] / p50:.2f}x"))

        entities = rng.integers(0, ENTITIES, args.queries)
        samples = np.array(
            [
                timed(
                    lambda e=e: mem.recall(
                        strategies=["temporal"], entity_id=f"entity-{e}", top_k=10
                    ),
                    1,
                )[0]
                for e in entities
            ]
        )
        p50, p99 = percentiles(samples)
        rows.append(("engine temporal p50 / p99", f"{p50:.3f} / {p99:.3f} ms"))

        texts = [f"note {i}: the customer asked about invoice {i} and shipping" for i in range(50)]
        mem.embedder.embed(texts[:2])
        p50, _ = percentiles(
            np.array([timed(lambda t=t: mem.remember(t, entity_id="e2e"), 1)[0] for t in texts])
        )
        rows.append(("end-to-end remember p50 (bundled embedder)", f"{p50:.3f} ms"))
        cues = [f"what did the customer ask about shipping {i}?" for i in range(50)]
        p50, _ = percentiles(np.array([timed(lambda c=c: mem.recall(c), 1)[0] for c in cues]))
        rows.append(("end-to-end recall p50 (bundled embedder)", f"{p50:.3f} ms"))

        mem.close()
        start = time.perf_counter()
        hebbs.Hebbs.open(db).close()
        rows.append(("open from checkpoint", f"{time.perf_counter() - start:.2f} s"))
        shutil.rmtree(db / "hnsw")
        start = time.perf_counter()
        hebbs.Hebbs.open(db).close()
        rows.append(("open with full rebuild", f"{time.perf_counter() - start:.2f} s"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    engine_ef = min((ef for ef in EF_SWEEP if engine_recall[ef] >= TARGET_RECALL), default=None)
    hnswlib_ef = min((ef for ef in EF_SWEEP if hnswlib_recall[ef] >= TARGET_RECALL), default=None)
    if engine_ef is not None and hnswlib_ef is not None:
        ratio = engine_p50[engine_ef] / hnswlib_p50[hnswlib_ef]
        rows.append(
            (
                f"at recall@10 >= {TARGET_RECALL}: engine ef={engine_ef} / hnswlib ef={hnswlib_ef}",
                f"{ratio:.2f}x",
            )
        )

    width = max(len(name) for name, _ in rows)
    print(f"\nhebbs engine benchmark: n={args.n:,}, dim={args.dim}, queries={args.queries}")
    print("-" * (width + 24))
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
