"""One store at scale (default one million 384-d memories): ingest, disk, open, memory, search.

Ingests ``--n`` embedding-like vectors (``engine_bench.embedding_like``, passed in, so the engine
alone is timed) through ``remember_many`` in batches with a progress bar (tqdm, shown only on a
terminal), closes the store, then in a fresh child process opens it from its checkpoint and
reports the open time, the resident memory the open and one recall added, and similarity
latency and recall@10 against exact search over an ef sweep. Disk use is broken down by the
store's parts. Prints one table; the same figures are in docs/scale.md.

    python benches/scale_bench.py --n 1000000
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import hebbs
from engine_bench import LATENT_DIM, SEED, embedding_like

BATCH = 5000
#: Queries timed per ef in the child.
QUERIES = 300
EF_SWEEP = (10, 20, 50, 100)
PURE_RELEVANCE = hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0)


def rss_bytes() -> int:
    """This process's resident set size, from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def disk_breakdown(db: Path) -> dict[str, int]:
    """Bytes per part of the store directory: each subdirectory, and the files at the top."""
    parts = {entry.name: tree_bytes(entry) for entry in db.iterdir() if entry.is_dir()}
    parts["(top-level files)"] = sum(f.stat().st_size for f in db.iterdir() if f.is_file())
    return parts


def child(db: Path, queries_file: Path, truth_file: Path) -> None:
    """Opens the store, measures, prints one JSON line."""
    queries = np.load(queries_file)
    truth = np.load(truth_file)
    before = rss_bytes()
    start = time.perf_counter()
    mem = hebbs.Hebbs.open(db)
    open_s = time.perf_counter() - start
    mem.recall(cue_embedding=queries[0], top_k=10, scoring_weights=PURE_RELEVANCE)
    after_open = rss_bytes() - before
    ids = {m: i for i, m in enumerate(np.load(db.parent / "ids.npy", allow_pickle=True))}
    sweep = []
    for ef in EF_SWEEP:
        samples = []
        hits = 0
        for q, query in enumerate(queries):
            t = time.perf_counter()
            out = mem.recall(
                cue_embedding=query, top_k=10, ef_search=ef, scoring_weights=PURE_RELEVANCE
            )
            samples.append((time.perf_counter() - t) * 1e3)
            found = {ids[r.memory.id] for r in out.results}
            hits += len(found & set(truth[q].tolist()))
        sweep.append(
            {
                "ef": ef,
                "p50_ms": float(np.percentile(samples, 50)),
                "p99_ms": float(np.percentile(samples, 99)),
                "recall_at_10": hits / (10 * len(queries)),
            }
        )
    print(
        json.dumps(
            {
                "open_s": open_s,
                "rss_after_open_and_one_recall": after_open,
                "rss_after_sweep": rss_bytes() - before,
                "sweep": sweep,
            }
        )
    )
    mem.close()


def top10(scores: np.ndarray) -> np.ndarray:
    """Row numbers of the ten highest scores, highest first."""
    best = np.argpartition(-scores, 10)[:10]
    return best[np.argsort(-scores[best])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--dir", type=Path, help="work directory (default: a temporary one)")
    parser.add_argument("--child", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    rng = np.random.default_rng(SEED)
    projection = rng.standard_normal((LATENT_DIM, args.dim)).astype(np.float32)
    data = embedding_like(rng, args.n, args.dim, args.clusters, projection)
    queries = embedding_like(rng, QUERIES, args.dim, args.clusters, projection)
    truth = np.stack([top10(data @ query) for query in queries])
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="hebbs-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "db"
    if db.exists():
        shutil.rmtree(db)
    rows: list[tuple[str, str]] = []
    try:
        mem = hebbs.Hebbs.open(db)
        ids: list[bytes] = []
        start = time.perf_counter()
        with tqdm(total=args.n, unit="memories", disable=not sys.stderr.isatty()) as bar:
            for lo in range(0, args.n, BATCH):
                batch = [
                    {"content": f"memory {i} of cluster-like topic {i % 97}", "embedding": data[i]}
                    for i in range(lo, min(args.n, lo + BATCH))
                ]
                ids.extend(m.id for m in mem.remember_many(batch))
                bar.update(len(batch))
        ingest_s = time.perf_counter() - start
        start = time.perf_counter()
        mem.close()
        close_s = time.perf_counter() - start
        np.save(workdir / "ids.npy", np.array(ids, dtype=object), allow_pickle=True)
        np.save(workdir / "queries.npy", queries)
        np.save(workdir / "truth.npy", truth)
        rows.append(("memories", f"{args.n:,} x {args.dim}-d"))
        rows.append(
            ("ingest (remember_many)", f"{args.n / ingest_s:,.0f} memories/s, {ingest_s:.0f} s")
        )
        rows.append(("close (checkpoint)", f"{close_s:.1f} s"))
        parts = disk_breakdown(db)
        total = sum(parts.values())
        rows.append(("disk", f"{total / 2**30:.2f} GiB, {total / args.n:,.0f} B a memory"))
        for name, size in sorted(parts.items(), key=lambda item: -item[1]):
            rows.append((f"  {name}", f"{size / 2**20:,.0f} MiB"))
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                str(db),
                str(workdir / "queries.npy"),
                str(workdir / "truth.npy"),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        measured = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(("open from checkpoint", f"{measured['open_s']:.2f} s"))
        rss = measured["rss_after_open_and_one_recall"]
        rows.append(
            (
                "RSS after open + one recall",
                f"{rss / 2**30:.2f} GiB, {rss / args.n:,.0f} B a memory",
            )
        )
        vectors = args.n * args.dim * 4
        links = args.n * (1 + 2 * 16) * 4
        rows.append(("  of which vectors (one copy)", f"{vectors / 2**30:.2f} GiB"))
        rows.append(("  of which layer-0 lists", f"{links / 2**30:.2f} GiB"))
        rows.append(("RSS after the sweep", f"{measured['rss_after_sweep'] / 2**30:.2f} GiB"))
        for point in measured["sweep"]:
            latency = f"{point['p50_ms']:.3f} / {point['p99_ms']:.3f} ms"
            rows.append(
                (
                    f"similarity ef={point['ef']} p50 / p99, recall@10",
                    f"{latency}, {point['recall_at_10']:.3f}",
                )
            )
    finally:
        if not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nhebbs at scale: n={args.n:,}, dim={args.dim}")
    print("-" * 74)
    for name, value in rows:
        print(f"{name:<48}{value:>26}")


if __name__ == "__main__":
    main()
