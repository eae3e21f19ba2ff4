"""What every system's worker shares (numpy and the standard library only, so it runs in the
peers' virtual environments too): the job file, timing a query sweep, recall@10, the process's
RSS, a directory's size on disk and the progress bar.

A worker is run as ``python WORKER.py PHASE JOB.json OUT.json``: ``build`` ingests the data set
into a store, ``search`` times the queries over the knob sweep, ``probe`` (always a fresh
process) measures open time and the RSS an open plus one query adds. The job names the data
set's files (:func:`load`) and the store's directory; the worker writes its figures as JSON."""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

#: Queries run through each system before anything is timed.
WARM_UP_QUERIES = 50
#: Neighbours a query asks for (what recall@10 is measured on).
TOP_K = 10


def version(distribution: str) -> str:
    """The installed version of ``distribution``."""
    return importlib.metadata.version(distribution)


def rss_bytes() -> int:
    """This process's resident set size, from ``/proc/self/status`` (``VmRSS``)."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def disk_bytes(path: Path) -> int:
    """Bytes of the files under ``path`` (or of the file ``path``)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def progress(items: Iterable[T], total: int, label: str) -> Iterator[T]:
    """``items`` with a progress bar (tqdm) on a terminal; plain otherwise, or without tqdm."""
    if not sys.stderr.isatty():
        return iter(items)
    try:
        from tqdm import tqdm
    except ImportError:
        return iter(items)
    return iter(tqdm(items, total=total, desc=label, leave=False, file=sys.stderr))


class Job:
    """One worker run: the data set's arrays (memory-mapped) and the store's directory."""

    def __init__(self, path: Path) -> None:
        spec = json.loads(path.read_text(encoding="utf-8"))
        self.spec: dict[str, Any] = spec
        self.store = Path(spec["store"])
        self.data = np.load(spec["data"], mmap_mode="r")
        self.queries = np.load(spec["queries"])
        self.truth = np.load(spec["truth"])
        self.texts: list[str] = Path(spec["texts"]).read_text(encoding="utf-8").splitlines()
        self.cue_texts: list[str] = Path(spec["cue_texts"]).read_text(encoding="utf-8").splitlines()
        self.batch = int(spec["batch"])

    @property
    def n(self) -> int:
        return int(self.data.shape[0])

    def batches(self, size: int | None = None) -> Iterator[tuple[int, int]]:
        """``(lo, hi)`` row ranges of the data set in ingest batches, with a progress bar."""
        step = size or self.batch
        ranges = [(lo, min(lo + step, self.n)) for lo in range(0, self.n, step)]
        return progress(ranges, len(ranges), f"{self.store.parent.name} ingest")


def recall_at_10(truth: np.ndarray, got: Sequence[Sequence[int]]) -> float:
    """Share of the true 10 nearest rows found in each query's first 10, over the queries."""
    hits = sum(len(set(t[:TOP_K].tolist()) & set(g[:TOP_K])) for t, g in zip(truth, got))
    return hits / (TOP_K * len(truth))


def summary_ms(samples_s: Sequence[float]) -> dict[str, float]:
    """p50 and p99 of latencies given in seconds, in milliseconds."""
    p50, p99 = np.percentile(np.asarray(samples_s) * 1e3, [50, 99])
    return {"p50_ms": float(p50), "p99_ms": float(p99)}


def warm(job: Job, search: Callable[[np.ndarray], object]) -> None:
    """Runs every query once, untimed: the first pass over a freshly opened store reads its
    pages and fills its caches (measured: hebbs's first 300 queries after open at 2.8x the p50
    of later passes), and what is compared is the store in use."""
    for query in progress(job.queries, len(job.queries), "warm-up pass"):
        search(query)


def time_queries(job: Job, search: Callable[[np.ndarray], list[int]], label: str) -> dict[str, Any]:
    """Runs every query through ``search`` (which returns the row numbers it found) after
    :data:`WARM_UP_QUERIES` untimed ones: p50 / p99 latency and recall@10."""
    for query in job.queries[:WARM_UP_QUERIES]:
        search(query)
    samples: list[float] = []
    found: list[list[int]] = []
    for query in progress(job.queries, len(job.queries), label):
        start = time.perf_counter()
        rows = search(query)
        samples.append(time.perf_counter() - start)
        found.append(rows)
    return {**summary_ms(samples), "recall_at_10": recall_at_10(job.truth, found)}


def timed_call(call: Callable[[], T]) -> tuple[T, float]:
    """``call()``'s result and the seconds it took."""
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def probe(
    job: Job, open_store: Callable[[], T], query_once: Callable[[T], object]
) -> dict[str, Any]:
    """Open time and the RSS that opening the store and running one query add to this (fresh)
    process, whose libraries are already imported; and the store's bytes on disk."""
    before = rss_bytes()
    store, open_s = timed_call(open_store)
    query_once(store)
    rss = rss_bytes() - before
    return {"open_s": open_s, "rss_increase_bytes": rss, "disk_bytes": disk_bytes(job.store)}


def main(phases: dict[str, Callable[[Job], dict[str, Any]]]) -> None:
    """Runs the phase named on the command line and writes its figures as JSON."""
    phase, job_path, out_path = sys.argv[1:4]
    job = Job(Path(job_path))
    figures = phases[phase](job)
    figures["load_average"] = os.getloadavg()
    Path(out_path).write_text(json.dumps(figures, indent=1), encoding="utf-8")
