"""The benchmark report by one command: hebbs against raw hnswlib, Chroma and LanceDB on the
same vectors and queries, at each store size, written as a Markdown page with PNG plots.

For each size (``--sizes``, default 10k and 100k; add 1000000 for the full report) it makes
the data set once (clustered embedding-like vectors, queries, exact neighbours, texts), then
runs each system's worker in a process of its own: ingest, similarity p50/p99 and recall@10 at
its defaults and over its search knob (hence at equal recall@10), every hebbs strategy alone,
and a fresh-process probe of open time, RSS after open plus one query and disk per memory.
Figures are kept per phase under ``--work-dir``, so a stopped run picks up where it was (an
interrupted hebbs ingest from its last batch); ``--fresh`` starts over and ``--redo
search,probe`` measures those phases again. Writes ``--markdown`` (default docs/benchmarks.md),
the plots into ``--plots`` (default docs/bench/) and every figure as ``results.json`` beside
them. Run ``python benches/report.py --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import sys
import time
from pathlib import Path

# tests.venvs, from the checkout's root (benches/ itself is on the path already).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_report import dataset, render, runner
from bench_report.workers.common import WARM_UP_QUERIES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SIZES = "10000,100000"
DEFAULT_WORK_DIR = Path.home() / ".cache" / "hebbs-bench-report"
#: Memories per ingest call (hebbs ``remember_many``, hnswlib ``add_items``, Chroma ``add``
#: up to its own maximum batch, LanceDB record batches).
BATCH = 2000


def sizes(text: str) -> list[int]:
    values = sorted({int(part) for part in text.split(",") if part.strip()})
    if not values or min(values) < 100:
        raise argparse.ArgumentTypeError("sizes are comma-separated counts of at least 100")
    return values


def peers(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip() and part.strip() != "none"]
    unknown = sorted(set(names) - set(runner.PEERS))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown peers {unknown}; known: {runner.PEERS}")
    return names


def phases(text: str) -> frozenset[str]:
    names = {part.strip() for part in text.split(",") if part.strip()}
    unknown = sorted(names - set(runner.PHASES))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown phases {unknown}; known: {runner.PHASES}")
    return frozenset(runner.PHASES if "build" in names else names)


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory_kb = int(Path("/proc/meminfo").read_text(encoding="ascii").split()[1])
    return f"{model}, {os.cpu_count()} cores, {memory_kb / 1024**2:.0f} GiB RAM"


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=sizes,
        default=sizes(DEFAULT_SIZES),
        help=f"store sizes, comma-separated (default {DEFAULT_SIZES})",
    )
    parser.add_argument(
        "--peers",
        type=peers,
        default=list(runner.PEERS),
        help=f"peers to run beside hebbs, or none (default {','.join(runner.PEERS)})",
    )
    parser.add_argument("--dim", type=int, default=384, help="vector dimension (default 384)")
    parser.add_argument("--queries", type=int, default=300, help="timed queries (default 300)")
    parser.add_argument("--clusters", type=int, default=1000, help="data clusters (default 1000)")
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=DEFAULT_WORK_DIR,
        help=f"data sets, stores and kept figures (default {DEFAULT_WORK_DIR})",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        default=ROOT / "docs" / "benchmarks.md",
        help="the page to write (default docs/benchmarks.md)",
    )
    parser.add_argument(
        "--plots",
        type=Path,
        default=ROOT / "docs" / "bench",
        help="the folder of the PNGs and results.json (default docs/bench)",
    )
    parser.add_argument("--fresh", action="store_true", help="discard kept figures and stores")
    parser.add_argument(
        "--redo",
        type=phases,
        default=frozenset(),
        help="phases to measure again though kept: build (and so all), search, probe",
    )
    args = parser.parse_args()
    if args.queries <= WARM_UP_QUERIES:
        parser.error(f"--queries must be more than the {WARM_UP_QUERIES} warm-up queries")

    if args.fresh:
        shutil.rmtree(args.work_dir, ignore_errors=True)
    started = load()
    results: dict[str, object] = {}
    versions: dict[str, str] = {}
    names = ["hebbs", *args.peers]
    per_size: dict[str, dict[str, object]] = {}
    for n in args.sizes:
        shape = dataset.Shape(n, args.dim, args.queries, args.clusters)
        size_dir = args.work_dir / f"n{n}-d{args.dim}-q{args.queries}-c{args.clusters}"
        print(f"[report] {n:,} memories: data set", file=sys.stderr, flush=True)
        files = dataset.make(size_dir / "data", shape)
        per_size[str(n)] = {}
        for name in names:
            print(f"[report] {n:,} memories: {name} (load {load()})", file=sys.stderr, flush=True)
            figures = runner.run_system(runner.SYSTEMS[name], size_dir, files, BATCH, args.redo)
            per_size[str(n)][name] = figures
            versions[name] = figures["build"]["version"]
    results = {
        "meta": {
            "command": shlex.join(["python", "benches/report.py", *sys.argv[1:]]),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": machine(),
            "load_before": started,
            "load_after": load(),
            "versions": versions,
            "dim": args.dim,
            "queries": args.queries,
            "clusters": args.clusters,
            "warm_up": WARM_UP_QUERIES,
            "batch": BATCH,
        },
        "sizes": per_size,
    }
    args.plots.mkdir(parents=True, exist_ok=True)
    (args.plots / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    plots = render.plot_all(results, args.plots)
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text(render.markdown(results, plots, args.markdown), encoding="utf-8")
    print(f"[report] wrote {args.markdown} and {len(plots)} plots in {args.plots}", file=sys.stderr)


if __name__ == "__main__":
    main()
