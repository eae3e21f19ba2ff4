"""Filtered recall benchmark (issue 30, item 4): hebbs's ``recall(filter=...)`` against hnswlib's
filter callback and Chroma's ``where`` on the same data, in one run.

At ``--n`` memories of ``--dim``-d vectors passed in (the engine alone is timed), each with
context fields of known selectivity (``benches/filter_bench_data.py``: an equality filter and a
range filter at 50 %, 10 %, 1 % and 0.1 %, and a ``$not`` the index cannot plan at 10 % and
1 %), per filter: recall@10 against the exact filtered answer (numpy brute force over the
matching rows), p50/p99 latency and the ratio of p50 to the same system's unfiltered p50 in this
run, for hebbs (similarity, relevance-only scoring, ``ef_search`` 50/100/200), hnswlib (M=16,
ef_construction=200 like hebbs; ``knn_query(filter=...)`` at ef 50, raised until recall@10
reaches 0.95, up to 400) and Chroma (a persistent collection with the same M and
ef_construction, its default ef_search 100, run in its own virtual environment by
``benches/filter_bench_chroma.py``). hebbs and hnswlib take each query back to back
(alternating which goes first). Prints the tables and the issue's goals, met or not;
``--markdown`` writes them into docs/benchmarks.md's "Filtered recall" section and ``--plot``
draws p50 against selectivity. Last, each filtered recall is timed right after a write and
again at once. Run ``python benches/filter_bench.py --help``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import hnswlib
import numpy as np

import hebbs
from engine_bench import PURE_RELEVANCE, percentiles
from filter_bench_data import Case, Data, make, recall_at_10, truth
from filter_bench_report import Point, Run, markdown_section, plot, tables, write_section

# tests.venvs (which bench_report.runner and report import), from the checkout's root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.venvs import cached_venv

from bench_report.runner import CHROMA_VENV, CHROMADB
from report import load, machine

CHROMA_WORKER = Path(__file__).with_name("filter_bench_chroma.py")

#: hebbs's graph defaults, which hnswlib and Chroma are built with too.
M = 16
EF_CONSTRUCTION = 200
HEBBS_EF = (50, 100, 200)
HNSWLIB_EF = (50, 100, 200, 400)
#: Chroma's own default ``ef_search``.
CHROMA_EF_SEARCH = 100
TARGET_RECALL = 0.95
BULK_BATCH = 2000
#: Timed Chroma queries per filter: its filtered queries take 0.1 to 1 s each at 100k.
CHROMA_QUERIES = 50
#: Seconds Chroma's worker may take (ingest included: about an hour at 1M).
CHROMA_TIMEOUT_S = 4 * 3600


def load_hebbs(mem: hebbs.Hebbs, data: Data) -> dict[bytes, int]:
    """Every vector as a memory with its context; the row of each memory id."""
    row_of: dict[bytes, int] = {}
    for lo in range(0, len(data.vectors), BULK_BATCH):
        hi = min(lo + BULK_BATCH, len(data.vectors))
        items = [
            {"content": f"memory {i}", "context": data.context(i), "embedding": data.vectors[i]}
            for i in range(lo, hi)
        ]
        for offset, memory in enumerate(mem.remember_many(items)):
            row_of[memory.id] = lo + offset
    mem.optimize()
    return row_of


Found = tuple[np.ndarray, list[list[int]]]


def measure_pair(
    mem: hebbs.Hebbs,
    index: hnswlib.Index,
    data: Data,
    case: Case,
    hebbs_ef: int | None,
    hnswlib_ef: int | None,
    row_of: dict[bytes, int],
) -> tuple[Found | None, Found | None]:
    """Latencies (ms) and rows found per query, hebbs at ``hebbs_ef`` and hnswlib at
    ``hnswlib_ef`` (either None: not run), one system's queries after the other's, each after
    its warm-up queries. Not query by query back to back: a filtered hnswlib query at 0.1 %
    walks most of the graph and leaves the CPU caches cold for the hebbs query after it (that
    doubled hebbs's p50 at 0.1 % in a first run)."""
    allowed = case.mask.tolist() if case.mask is not None else None
    keep = allowed.__getitem__ if allowed is not None else None
    k = min(10, case.matches) if case.mask is not None else 10
    if hnswlib_ef is not None:
        index.set_ef(hnswlib_ef)

    def through_hebbs(query: np.ndarray) -> list[int]:
        out = mem.recall(
            cue_embedding=query,
            strategies=["similarity"],
            top_k=10,
            ef_search=hebbs_ef,
            scoring_weights=PURE_RELEVANCE,
            filter=case.hebbs,
        )
        return [row_of[r.memory.id] for r in out.results]

    def through_hnswlib(query: np.ndarray) -> list[int]:
        labels, _ = index.knn_query(query, k=k, filter=keep)
        return [int(x) for x in labels[0]]

    systems = [
        (through, ef)
        for through, ef in ((through_hebbs, hebbs_ef), (through_hnswlib, hnswlib_ef))
        if ef is not None and k > 0
    ]
    found: list[Found] = []
    for through, _ in systems:
        for query in data.warm_up:
            through(query)
        latencies = np.empty(len(data.queries))
        rows = []
        for j, query in enumerate(data.queries):
            start = time.perf_counter()
            rows.append(through(query))
            latencies[j] = (time.perf_counter() - start) * 1e3
        found.append((latencies, rows))
    answers = iter(found)
    return (
        next(answers) if hebbs_ef is not None else None,
        next(answers) if hnswlib_ef is not None else None,
    )


def point(system: str, setting: str, ms: np.ndarray, recall: float) -> Point:
    p50, p99 = percentiles(ms)
    return Point(system, setting, recall, p50, p99)


def measure_case(
    mem: hebbs.Hebbs,
    index: hnswlib.Index,
    data: Data,
    case: Case,
    row_of: dict[bytes, int],
) -> list[Point]:
    """hebbs at every ``HEBBS_EF``; hnswlib from the first ``HNSWLIB_EF`` up until it reaches
    the target recall (timed beside hebbs where both run the same ef)."""
    expected = truth(data, case)
    points: list[Point] = []
    reached = False
    for ef in sorted(set(HEBBS_EF) | set(HNSWLIB_EF)):
        hebbs_ef = ef if ef in HEBBS_EF else None
        hnswlib_ef = ef if ef in HNSWLIB_EF and not reached else None
        if hebbs_ef is None and hnswlib_ef is None:
            continue
        ours, peer = measure_pair(mem, index, data, case, hebbs_ef, hnswlib_ef, row_of)
        if ours is not None:
            recall = recall_at_10(expected, ours[1])
            points.append(point("hebbs", f"ef_search={ef}", ours[0], recall))
        if peer is not None:
            recall = recall_at_10(expected, peer[1])
            points.append(point("hnswlib", f"ef={ef}", peer[0], recall))
            reached = recall >= TARGET_RECALL
    return points


def after_write(mem: hebbs.Hebbs, data: Data) -> str:
    """A table of each filtered recall at ``ef_search`` 50 made right after a write, so its
    index lookups start cold (a write empties the store's lookup cache), beside the same recall
    made again at once (the lookups remembered): p50 / p99 in ms. Each write is a memory with
    the context of a row of the data, so it falls in a filter's index range as often as a row
    does. Run last: the writes are not in the truths of the other measurements."""
    lines = [
        "| filter | matches | after a write p50 | p99 | again at once p50 | p99 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for case in data.cases:
        if case.hebbs is None:
            continue
        after = np.empty(len(data.queries))
        again = np.empty(len(data.queries))
        for j, query in enumerate(data.queries):
            mem.remember(f"write {j}", embedding=query, context=data.context(j))
            for times in (after, again):
                start = time.perf_counter()
                mem.recall(
                    cue_embedding=query,
                    strategies=["similarity"],
                    top_k=10,
                    scoring_weights=PURE_RELEVANCE,
                    filter=case.hebbs,
                )
                times[j] = (time.perf_counter() - start) * 1e3
        cold, warm = percentiles(after), percentiles(again)
        lines.append(
            f"| {case.label} | {case.matches:,} | {cold[0]:.3f} | {cold[1]:.3f} "
            f"| {warm[0]:.3f} | {warm[1]:.3f} |"
        )
    return "\n".join(lines)


def run_chroma(data: Data, work: Path, query_count: int) -> dict[str, Any]:
    """Chroma's figures per case label, from its worker in its own environment."""
    python = cached_venv(CHROMA_VENV, CHROMADB, "import chromadb")
    np.save(work / "vectors.npy", data.vectors)
    np.save(work / "queries.npy", data.queries)
    np.save(work / "warm_up.npy", data.warm_up)
    columns = {}
    for name, column in data.columns.items():
        np.save(work / f"column_{name}.npy", column)
        columns[name] = str(work / f"column_{name}.npy")
    job = {
        "data": str(work / "vectors.npy"),
        "queries": str(work / "queries.npy"),
        "warm_up": str(work / "warm_up.npy"),
        "columns": columns,
        "store": str(work / "chroma"),
        "m": M,
        "ef_construction": EF_CONSTRUCTION,
        "ef_search": CHROMA_EF_SEARCH,
        "batch": BULK_BATCH,
        "query_count": query_count,
        "filters": [[case.label, case.chroma] for case in data.cases],
    }
    (work / "chroma_job.json").write_text(json.dumps(job), encoding="utf-8")
    out = work / "chroma_out.json"
    subprocess.run(
        [str(python), str(CHROMA_WORKER), str(work / "chroma_job.json"), str(out)],
        check=True,
        timeout=CHROMA_TIMEOUT_S,
    )
    figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return figures


def chroma_points(data: Data, figures: dict[str, Any], query_count: int) -> dict[str, Point]:
    found = {}
    for case in data.cases:
        timed = figures["filters"][case.label]
        expected = truth(data, case)[:query_count]
        recall = recall_at_10(expected, timed["rows"])
        found[case.label] = point(
            "chroma", f"ef_search={CHROMA_EF_SEARCH}", np.array(timed["ms"]), recall
        )
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warm-up", type=int, default=20, help="untimed queries per setting")
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument(
        "--chroma-queries",
        type=int,
        default=CHROMA_QUERIES,
        help="timed Chroma queries per filter",
    )
    parser.add_argument("--no-chroma", action="store_true", help="leave Chroma out")
    parser.add_argument("--markdown", type=Path, help="the page whose section to (re)write")
    parser.add_argument("--plot", type=Path, help="the PNG of p50 against selectivity")
    parser.add_argument("--work-dir", type=Path, help="kept; a temporary directory by default")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    data = make(args.n, args.dim, args.queries, args.warm_up, args.clusters)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="hebbs-filter-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    notes: dict[str, str] = {}
    try:
        index = hnswlib.Index(space="ip", dim=args.dim)
        index.init_index(max_elements=args.n, M=M, ef_construction=EF_CONSTRUCTION, random_seed=7)
        index.add_items(data.vectors, np.arange(args.n))
        index.set_num_threads(1)

        start = time.perf_counter()
        mem = hebbs.Hebbs.open(work / "hebbs")
        row_of = load_hebbs(mem, data)
        notes["hebbs ingest"] = f"{time.perf_counter() - start:.1f} s"
        points: dict[str, list[Point]] = {}
        for case in data.cases:
            points[case.label] = measure_case(mem, index, data, case, row_of)
            print(f"[filter_bench] {case.label} done", file=sys.stderr)
        writes = after_write(mem, data)
        mem.close()

        if args.no_chroma:
            notes["chroma"] = "not run (--no-chroma)"
        else:
            chroma_count = min(args.chroma_queries, args.queries)
            figures = run_chroma(data, work, chroma_count)
            reused = " (the store of an earlier run in --work-dir)" if figures["reused"] else ""
            notes["chroma"] = (
                f"chromadb {figures['version']}, ingest {figures['ingest_s']:.1f} s{reused}"
            )
            for label, found in chroma_points(data, figures, chroma_count).items():
                points[label].append(found)
    finally:
        if args.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)

    run = Run(
        n=args.n,
        dim=args.dim,
        queries=args.queries,
        chroma_queries=0 if args.no_chroma else min(args.chroma_queries, args.queries),
        cases=data.cases,
        points=points,
        command="python benches/filter_bench.py " + shlex.join(argv or sys.argv[1:]),
        machine=f"{machine()}; load average {load()} at the end",
        notes=notes,
        target=TARGET_RECALL,
        seconds=time.perf_counter() - started,
    )
    print(tables(run))
    print(f"\nhebbs, each filtered recall right after a write (ms):\n\n{writes}")
    if args.markdown:
        write_section(args.markdown, markdown_section(run, args.plot))
    if args.plot:
        plot(run, args.plot)


if __name__ == "__main__":
    main()
