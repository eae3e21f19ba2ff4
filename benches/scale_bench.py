"""One store at scale (default one million 384-d memories): ingest, disk, open, memory, search,
in one vector format, beside other formats and hnswlib on the same vectors if asked.

Ingests ``--n`` embedding-like vectors (``engine_bench.embedding_like``, passed in, so the engine
alone is timed) through ``remember_many`` in batches with a progress bar (tqdm, shown only on a
terminal), each memory with a text, an entity, a timestamp, role context on half of them and one
edge (``batch_items``), closes the store, then in one fresh child process (``scale_measure.py``)
opens it from its checkpoint and reports the open time, the resident memory the open and one
recall added, similarity latency and recall@10 against exact search over an ef sweep, and each
other strategy's p50 / p99 and a filtered similarity recall's. Disk use is broken down by the
store's parts. Prints one table; the same figures are in docs/scale.md. ``--ef-construction``
sets every store's and hnswlib's build-time candidate list (default 200, the engine's).

    python benches/scale_bench.py --n 1000000 --vector-format int8 --compare f32,hnswlib

``--compare`` builds the same vectors into stores of the other formats and into raw hnswlib
(M=16, ef_construction=200, as the engine's defaults), and the child queries every system back
to back per query, so the table's ratios (to the ``--vector-format`` store) are paired.

The vectors are generated a batch at a time from a seed per batch, never all at once, so ten
million of them need no 15 GB array; the exact top 10 of each query is merged batch by batch.
With ``--dir`` the run is resumable: a store already in it continues from the memories it holds
(each batch is one atomic ``remember_many``), the exact answers and the hnswlib index are kept
in files and reused. The 10M run of docs/scale.md:

    python benches/scale_bench.py --n 10000000 --vector-format int8 --dir /data/hebbs-10m
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hnswlib
import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

import hebbs
from engine_bench import LATENT_DIM, SEED, embedding_like
from strategies_bench import (
    ACTIONS,
    EDGE_TYPES,
    ENTITIES,
    OUTCOMES,
    ROLE_SHARE,
    VOCABULARY,
)

BATCH = 5000
#: Queries timed per ef in the child.
QUERIES = 300
#: Untimed queries each system answers first in the child.
WARM_UP_QUERIES = 100
FORMATS = ("f32", "int8")
#: Links per node per layer of hnswlib and of the engine (hebbs' DEFAULT_M).
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
#: Topics named in the memories' texts (a keyword cue names one).
TOPICS = 97
#: Extra Zipf-ranked words in each memory's text (drawn as ``strategies_bench.words`` draws them).
WORDS = 6
#: Timestamp of row 0 and the step between rows (one a second).
START_US = 1_700_000_000_000_000
STEP_US = 1_000_000


class Vectors:
    """The benchmark's vectors, batch ``b`` from its own seed, and its queries."""

    def __init__(self, n: int, dim: int, clusters: int) -> None:
        self.n, self.dim, self.clusters = n, dim, clusters
        rng = np.random.default_rng(SEED)
        self.projection = rng.standard_normal((LATENT_DIM, dim)).astype(np.float32)
        self.queries = self._points(np.random.default_rng([SEED, 2]), QUERIES)
        self.warm_up = self._points(np.random.default_rng([SEED, 3]), WARM_UP_QUERIES)

    def _points(self, rng: np.random.Generator, count: int) -> NDArray[np.float32]:
        return embedding_like(rng, count, self.dim, self.clusters, self.projection)

    def batches(self, start: int = 0) -> Iterator[tuple[int, NDArray[np.float32]]]:
        """``(first row, vectors)`` of each batch from row ``start`` (a multiple of BATCH)."""
        for lo in range(start, self.n, BATCH):
            rng = np.random.default_rng([SEED, 1, lo // BATCH])
            yield lo, self._points(rng, min(BATCH, self.n - lo))


def exact_top10(vectors: Vectors) -> NDArray[np.int64]:
    """Rows of each query's ten nearest vectors (inner product), nearest first."""
    best_rows = np.zeros((QUERIES, 0), dtype=np.int64)
    best_scores = np.zeros((QUERIES, 0), dtype=np.float32)
    for lo, batch in vectors.batches():
        rows = np.concatenate(
            [best_rows, np.broadcast_to(lo + np.arange(len(batch)), (QUERIES, len(batch)))], axis=1
        )
        scores = np.concatenate([best_scores, vectors.queries @ batch.T], axis=1)
        keep = (
            np.argpartition(-scores, 10, axis=1)[:, :10]
            if scores.shape[1] > 10
            else np.argsort(-scores, axis=1)
        )
        best_rows = np.take_along_axis(rows, keep, axis=1)
        best_scores = np.take_along_axis(scores, keep, axis=1)
    order = np.argsort(-best_scores, axis=1)
    return np.take_along_axis(best_rows, order, axis=1)


def allocated(path: Path) -> int:
    """Bytes ``path`` takes on disk (a sparse file's unwritten tail takes none)."""
    return path.stat().st_blocks * 512


def tree_bytes(path: Path) -> int:
    return sum(allocated(f) for f in path.rglob("*") if f.is_file())


def disk_breakdown(db: Path) -> dict[str, int]:
    """Bytes on disk per part of the store directory: each subdirectory, each file at the top
    of at least a MiB (the int8 index's exact rows), and the other files at the top."""
    parts = {entry.name: tree_bytes(entry) for entry in db.iterdir() if entry.is_dir()}
    files = [entry for entry in db.iterdir() if entry.is_file()]
    parts.update({f.name: allocated(f) for f in files if allocated(f) >= 2**20})
    parts["(other top-level files)"] = sum(allocated(f) for f in files if allocated(f) < 2**20)
    return parts


def batch_items(lo: int, batch: NDArray[np.float32], previous: list[bytes]) -> list[dict[str, Any]]:
    """The memories of the batch from row ``lo``: each with its row in its text, an entity, a
    timestamp, role context on half of them and one edge to a memory of the batch before
    (``previous``, empty for the first batch of a run), so that every strategy has what it
    reads (``scale_measure.py`` times them), drawn as ``strategies_bench.py`` draws them but a
    batch at a time. Row ``r`` has the same text, entity, time and context in every run."""
    n = len(batch)
    rng = np.random.default_rng([SEED, 4, lo // BATCH])
    ranks = np.minimum(rng.zipf(1.2, (n, WORDS)), VOCABULARY)
    roles = rng.random(n) < ROLE_SHARE
    entities = rng.integers(1, 4, n)
    actions = rng.integers(len(ACTIONS), size=n)
    outcomes = rng.integers(len(OUTCOMES), size=n)
    targets = rng.integers(max(len(previous), 1), size=n)
    kinds = rng.integers(len(EDGE_TYPES), size=n)
    confidences = rng.uniform(0.3, 1.0, n)
    items = []
    for i, vector in enumerate(batch):
        row = lo + i
        text = " ".join(f"w{rank}" for rank in ranks[i])
        context: dict[str, object] = {"source": "bench"}
        if roles[i]:
            context.update(
                entities=[f"e{k}" for k in range(entities[i])],
                action=ACTIONS[actions[i]],
                outcome=OUTCOMES[outcomes[i]],
            )
        item: dict[str, Any] = {
            "content": f"memory {row} of cluster-like topic {row % TOPICS} {text}",
            "embedding": vector,
            "entity_id": f"entity-{row % ENTITIES}",
            "created_at": START_US + row * STEP_US,
            "context": context,
        }
        if previous:
            item["edges"] = [
                hebbs.Edge(previous[targets[i]], EDGE_TYPES[kinds[i]], float(confidences[i]))
            ]
        items.append(item)
    return items


def ingest(
    db: Path, vector_format: str, vectors: Vectors, ef_construction: int
) -> dict[str, float]:
    """Stores the vectors not yet in ``db`` (resuming); the rate of this run and the close."""
    mem = hebbs.Hebbs.open(
        db, vector_format=vector_format, token_vectors=False, ef_construction=ef_construction
    )
    done = mem.health().memory_count
    start = time.perf_counter()
    with tqdm(
        total=vectors.n,
        initial=done,
        unit="memories",
        desc=vector_format,
        disable=not sys.stderr.isatty(),
    ) as bar:
        previous: list[bytes] = []
        for lo, batch in vectors.batches(done):
            items = batch_items(lo, batch, previous)
            previous = [memory.id for memory in mem.remember_many(items)]
            bar.update(len(items))
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    mem.close()
    return {
        "added": vectors.n - done,
        "rate": (vectors.n - done) / seconds if vectors.n > done else 0.0,
        "seconds": seconds,
        "close_s": time.perf_counter() - start,
    }


def build_hnswlib(path: Path, vectors: Vectors, ef_construction: int) -> dict[str, float]:
    """Builds and saves raw hnswlib on the same vectors, unless ``path`` exists."""
    if path.exists():
        return {"added": 0, "rate": 0.0, "seconds": 0.0, "close_s": 0.0}
    index = hnswlib.Index(space="ip", dim=vectors.dim)
    index.init_index(
        max_elements=vectors.n, M=HNSW_M, ef_construction=ef_construction, random_seed=SEED
    )
    start = time.perf_counter()
    for lo, batch in vectors.batches():
        index.add_items(batch, lo + np.arange(len(batch)))
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    index.save_index(str(path))
    return {
        "added": vectors.n,
        "rate": vectors.n / seconds,
        "seconds": seconds,
        "close_s": time.perf_counter() - start,
    }


def measure(arguments: list[str]) -> dict[str, Any]:
    """The JSON object ``scale_measure.py`` prints, run in a fresh process."""
    script = str(Path(__file__).with_name("scale_measure.py"))
    command = [sys.executable, script, *arguments]
    out = subprocess.run(command, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def cell(value: float, first: float, unit: str, digits: int) -> str:
    """``value`` with its ratio to ``first``."""
    ratio = f" ({value / first:.2f}x)" if first > 0 and value != first else ""
    return f"{value:,.{digits}f}{unit}{ratio}"


def report(
    args: argparse.Namespace,
    labels: list[str],
    built: dict[str, dict[str, float]],
    disk: dict[str, dict[str, int]],
    measured: dict[str, Any],
) -> None:
    opened, first_pass, sweep = measured["opened"], measured["passes"][0], measured["passes"][-1]
    first = labels[0]
    rows: list[list[str]] = [["", *labels]]

    def row(name: str, values: dict[str, float], unit: str = "", digits: int = 2) -> None:
        rows.append([name, *(cell(values[label], values[first], unit, digits) for label in labels)])

    row("ingest, memories/s (this run)", {label: built[label]["rate"] for label in labels}, "", 0)
    row("disk, GiB", {label: sum(disk[label].values()) / 2**30 for label in labels})
    row("open, s", {label: opened[label]["open_s"] for label in labels})
    row("RSS after open + 1 query, GiB", {label: opened[label]["rss"] / 2**30 for label in labels})
    row("  B a memory", {label: opened[label]["rss"] / args.n for label in labels}, "", 0)
    row(
        "  anonymous, B a memory",
        {label: opened[label]["anon"] / args.n for label in labels},
        "",
        0,
    )
    row(
        "  file pages, B a memory",
        {label: opened[label]["file"] / args.n for label in labels},
        "",
        0,
    )
    for i, ef in enumerate(sweep[first]):
        point = {label: sweep[label][i] for label in labels}
        cold = {label: first_pass[label][i]["p50_ms"] for label in labels}
        row(f"ef {ef['ef']}: p50, ms, first pass", cold, "", 3)
        row(f"ef {ef['ef']}: p50, ms", {label: p["p50_ms"] for label, p in point.items()}, "", 3)
        row(f"ef {ef['ef']}: p99, ms", {label: p["p99_ms"] for label, p in point.items()}, "", 3)
        row(
            f"ef {ef['ef']}: recall@10",
            {label: p["recall_at_10"] for label, p in point.items()},
            "",
            3,
        )
    print(f"\nhebbs at scale: n={args.n:,}, dim={args.dim}, ratios to {first}")
    print("(latencies of the second pass, the page cache warm, unless marked first pass)")
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        print(
            "  ".join(
                text.ljust(widths[0]) if c == 0 else text.rjust(widths[c])
                for c, text in enumerate(r)
            )
        )
    print(
        f"RSS of the measuring process after the sweep: "
        f"{measured['rss_after_sweep'] / 2**30:.2f} GiB"
    )
    for label, timed in measured["strategies"].items():
        print(f"each strategy on {label} (default weights, one call a query), ms:")
        for name, figures in timed.items():
            print(
                f"  {name:<42} p50 {figures['p50_ms']:8.3f}  p99 {figures['p99_ms']:8.3f}  "
                f"first pass p50 {figures['first_pass_p50_ms']:8.3f}"
            )
    for label in labels:
        print(f"disk of {label} by part:")
        for name, size in sorted(disk[label].items(), key=lambda item: -item[1]):
            print(f"  {name:<24}{size / 2**20:>12,.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--vector-format", choices=FORMATS, default="f32")
    parser.add_argument("--compare", default="", help="comma-separated: the other format, hnswlib")
    parser.add_argument(
        "--ef-construction",
        type=int,
        default=HNSW_EF_CONSTRUCTION,
        help="every store's and hnswlib's build-time candidate list",
    )
    parser.add_argument(
        "--dir", type=Path, help="work directory, kept and resumed (default: a temporary one)"
    )
    parser.add_argument(
        "--json",
        type=Path,
        help="merge this run's figures into this file, by system and size (scale_plot.py reads it)",
    )
    args = parser.parse_args()
    others = [name for name in args.compare.split(",") if name and name != args.vector_format]
    if any(name not in (*FORMATS, "hnswlib") for name in others):
        parser.error(f"--compare takes {', '.join(FORMATS)} and hnswlib")
    labels = [args.vector_format, *others]
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="hebbs-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    vectors = Vectors(args.n, args.dim, args.clusters)
    try:
        built: dict[str, dict[str, float]] = {}
        disk: dict[str, dict[str, int]] = {}
        for label in labels:
            if label == "hnswlib":
                path = workdir / f"hnswlib-{args.n}.bin"
                built[label] = build_hnswlib(path, vectors, args.ef_construction)
                disk[label] = {"index file": path.stat().st_size}
            else:
                db = workdir / f"db-{label}-{args.n}"
                built[label] = ingest(db, label, vectors, args.ef_construction)
                disk[label] = disk_breakdown(db)
        truth_path = workdir / f"truth-{args.n}.npy"
        if not truth_path.exists():
            np.save(truth_path, exact_top10(vectors))
        np.save(workdir / "queries.npy", vectors.queries)
        np.save(workdir / "warm_up.npy", vectors.warm_up)
        common = [f"--n={args.n}", f"--dim={args.dim}", f"--truth={truth_path}"]
        common += [f"--queries={workdir / 'queries.npy'}", f"--warm-up={workdir / 'warm_up.npy'}"]
        systems = {
            label: ["--hnswlib", str(workdir / f"hnswlib-{args.n}.bin")]
            if label == "hnswlib"
            else ["--store", label, str(workdir / f"db-{label}-{args.n}")]
            for label in labels
        }
        opened: dict[str, Any] = {}
        for system in systems.values():
            opened.update(measure([*system, *common, "--open-only"])["opened"])
        measured: dict[str, Any] = {"opened": opened}
        measured.update(measure([*(a for s in systems.values() for a in s), *common]))
    finally:
        if not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)
    report(args, labels, built, disk, measured)
    if args.json:
        save_figures(args.json, args.n, labels, built, disk, measured, args.ef_construction)


def save_figures(
    path: Path,
    n: int,
    labels: list[str],
    built: dict[str, dict[str, float]],
    disk: dict[str, dict[str, int]],
    measured: dict[str, Any],
    ef_construction: int,
) -> None:
    """Merges each system's figures at size ``n`` into the JSON file at ``path``: ``{system:
    {n: figures}}``. A resumed run's ingest rate is of its own part; a rate of 0 (nothing
    ingested) keeps the rate already saved."""
    saved: dict[str, dict[str, Any]] = json.loads(path.read_text()) if path.exists() else {}
    opened, first_pass, sweep = measured["opened"], measured["passes"][0], measured["passes"][-1]
    for label in labels:
        previous = saved.get(label, {}).get(str(n), {})
        rate = built[label]["rate"] or previous.get("ingest_per_s", 0.0)
        saved.setdefault(label, {})[str(n)] = {
            "ingest_per_s": rate,
            "disk_bytes": sum(disk[label].values()),
            "disk_parts": disk[label],
            "open_s": opened[label]["open_s"],
            "rss_bytes": opened[label]["rss"],
            "anon_bytes": opened[label]["anon"],
            "rss_after_sweep_bytes": measured["rss_after_sweep"] if len(labels) == 1 else None,
            "sweep": [
                {**point, "first_pass_p50_ms": cold["p50_ms"]}
                for point, cold in zip(sweep[label], first_pass[label], strict=True)
            ],
            "strategies": measured["strategies"].get(label),
            "ef_construction": ef_construction,
        }
    path.write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
