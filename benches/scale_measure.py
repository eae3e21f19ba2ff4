"""The measuring child of ``scale_bench.py``, in two modes, each printing one JSON object.

- ``--open-only``: opens the one system given (a store, or the hnswlib index) in this fresh
  process and reports the open time and the resident memory the open and its first query
  added. One system a process: memory another one freed would otherwise be reused unseen (a
  scratch store opened and closed first, to leave out the process's one-time costs, made the
  int8 store's figure 40 % larger at 1M, not smaller).
- otherwise: opens every system given, runs each on the warm-up queries (untimed: the caches
  and page tables of a running service), then the similarity sweep twice, with every query
  through each system back to back (the order rotating from query to query), so machine load
  hits them alike and their p50s pair; then times each strategy on each store
  (:func:`time_strategies`). The first pass reads the f32 vectors an int8 store
  re-scores from disk where the OS has not cached them yet; the second finds them in the page
  cache, as a service that has run a while does.

Stores are opened without token vectors: the vectors are given, and a recall would otherwise
load the bundled embedder to check for them (tens of MB counted as the store's).

A hebbs store is queried with ``recall`` (relevance only), as an application would; the row
of a result is read back from its content (``memory <row> ...``), so no id map is needed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Callable

import hnswlib
import numpy as np
from numpy.typing import NDArray

import hebbs
from scale_bench import SEED, TOPICS
from strategies_bench import ENTITIES, SETTINGS, WORDS_PER_CUE, strategy_call, words

#: ef 30 is where an int8 walk starts at top_k 10 (`RESCORE_OVERSAMPLING` 3): equal recall is
#: then compared at equal walks too.
EF_SWEEP = (10, 20, 30, 50, 100, 150, 200, 300)
#: Times the sweep runs; the last pass is the steady state.
PASSES = 2
PURE_RELEVANCE = hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0)
#: Filtered similarity recalls timed (relevance only, ``top_k`` 10): a name and the filter of
#: a query's entity. One entity holds 1 / ``ENTITIES`` of the memories; an action is on a
#: twelfth of them (roles on half, six actions).
FILTERS: dict[str, Callable[[str], dict[str, object]]] = {
    "similarity, filter on one entity (0.1 %)": lambda entity: {"entity_id": entity},
    "similarity, filter on an action (8 %)": lambda _: {"context.action": "launch"},
}
#: Untimed calls of each setting before it is timed.
STRATEGY_WARM_UP = 20
#: The situation an analogical cue describes.
SITUATION: dict[str, object] = {"entities": ["e0", "e1"], "action": "launch", "outcome": "failure"}

#: One system's query: (vector, ef) -> the rows of its top 10.
Query = Callable[[NDArray[np.float32], int], list[int]]


def memory() -> dict[str, int]:
    """This process's resident set size in bytes, and its anonymous and file-backed parts (the
    latter is page cache of mapped files, RocksDB's tables read through mmap: reclaimable)."""
    fields = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file"}
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            found[fields[name]] = int(value.split()[0]) * 1024
    return found


def grown(before: dict[str, int]) -> dict[str, int]:
    """What each part of :func:`memory` grew by since ``before``."""
    return {name: value - before[name] for name, value in memory().items()}


def hebbs_query(mem: hebbs.Hebbs) -> Query:
    def query(vector: NDArray[np.float32], ef: int) -> list[int]:
        out = mem.recall(
            cue_embedding=vector, top_k=10, ef_search=ef, scoring_weights=PURE_RELEVANCE
        )
        return [int(r.memory.content.split()[1]) for r in out.results]

    return query


def hnswlib_query(index: hnswlib.Index) -> Query:
    def query(vector: NDArray[np.float32], ef: int) -> list[int]:
        index.set_ef(ef)
        labels, _ = index.knn_query(vector, k=10)
        return [int(x) for x in labels[0]]

    return query


def run_sweep(
    systems: dict[str, Query], queries: NDArray[np.float32], truth: NDArray[np.int64]
) -> dict[str, list[dict[str, float]]]:
    """p50, p99 and recall@10 of each system at each ef, the systems paired per query."""
    labels = list(systems)
    sweep: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
    for ef in EF_SWEEP:
        samples = {label: np.empty(len(queries)) for label in labels}
        hits = dict.fromkeys(labels, 0)
        for j, vector in enumerate(queries):
            for turn in range(len(labels)):
                label = labels[(j + turn) % len(labels)]
                start = time.perf_counter()
                rows = systems[label](vector, ef)
                samples[label][j] = (time.perf_counter() - start) * 1e3
                hits[label] += len(set(rows) & set(truth[j].tolist()))
        for label in labels:
            sweep[label].append(
                {
                    "ef": ef,
                    "p50_ms": float(np.percentile(samples[label], 50)),
                    "p99_ms": float(np.percentile(samples[label], 99)),
                    "recall_at_10": hits[label] / (10 * len(queries)),
                }
            )
    return sweep


def time_strategies(mem: hebbs.Hebbs, queries: NDArray[np.float32]) -> dict[str, dict[str, float]]:
    """p50 and p99 ms of each strategy alone, of the first four together and of keyword and
    hybrid, as ``strategies_bench.py`` calls them (the store's default weights), then of a
    relevance-only similarity recall under each of :data:`FILTERS`; one call a query after
    :data:`STRATEGY_WARM_UP` untimed ones, in :data:`PASSES` passes: the first reads what the
    OS has not cached yet (the records a large store keeps on disk), the last is reported with
    the first's p50 beside it. The seed of ``causal`` and ``analogical`` is the query's nearest
    memory; the entity and the keyword cue vary with the query."""
    rng = np.random.default_rng(SEED)
    seeds = [
        mem.recall(cue_embedding=vector, top_k=1, scoring_weights=PURE_RELEVANCE)
        .results[0]
        .memory.id
        for vector in queries
    ]
    entities = [f"entity-{int(j)}" for j in rng.integers(0, ENTITIES, len(queries))]
    texts = [f"topic {int(rng.integers(TOPICS))} {words(rng, WORDS_PER_CUE)}" for _ in queries]
    calls: dict[str, Callable[[int], object]] = {
        name: strategy_call(mem, strategies, texts, queries, seeds, entities, SITUATION)
        for name, strategies in SETTINGS.items()
    }
    for name, make_filter in FILTERS.items():

        def filtered(
            i: int, make_filter: Callable[[str], dict[str, object]] = make_filter
        ) -> object:
            return mem.recall(
                cue_embedding=queries[i],
                top_k=10,
                scoring_weights=PURE_RELEVANCE,
                filter=make_filter(entities[i]),
            )

        calls[name] = filtered
    timed: dict[str, dict[str, float]] = {}
    for name, call in calls.items():
        for i in range(STRATEGY_WARM_UP):
            call(i)
        passes = []
        for _ in range(PASSES):
            samples = np.empty(len(queries))
            for i in range(len(queries)):
                start = time.perf_counter()
                call(i)
                samples[i] = (time.perf_counter() - start) * 1e3
            passes.append(samples)
        timed[name] = {
            "first_pass_p50_ms": float(np.percentile(passes[0], 50)),
            "p50_ms": float(np.percentile(passes[-1], 50)),
            "p99_ms": float(np.percentile(passes[-1], 99)),
        }
    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", nargs=2, action="append", default=[], metavar=("LABEL", "DIR"))
    parser.add_argument("--hnswlib", type=Path, help="a saved hnswlib index")
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--dim", type=int, required=True)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--truth", type=Path, required=True)
    parser.add_argument("--warm-up", type=Path, required=True, help="untimed queries")
    parser.add_argument("--open-only", action="store_true")
    args = parser.parse_args()
    queries = np.load(args.queries)
    truth = np.load(args.truth)
    systems: dict[str, Query] = {}
    opened: dict[str, dict[str, float]] = {}
    keep: list[object] = []
    for label, path in args.store:
        before = memory()
        start = time.perf_counter()
        mem = hebbs.Hebbs.open(path, token_vectors=False)
        open_s = time.perf_counter() - start
        systems[label] = hebbs_query(mem)
        systems[label](queries[0], 50)
        opened[label] = {"open_s": open_s, **grown(before)}
        keep.append(mem)
    if args.hnswlib is not None:
        before = memory()
        start = time.perf_counter()
        index = hnswlib.Index(space="ip", dim=args.dim)
        index.load_index(str(args.hnswlib), max_elements=args.n)
        index.set_num_threads(1)
        open_s = time.perf_counter() - start
        systems["hnswlib"] = hnswlib_query(index)
        systems["hnswlib"](queries[0], 50)
        opened["hnswlib"] = {"open_s": open_s, **grown(before)}
    labels = list(systems)
    if args.open_only:
        print(json.dumps({"opened": opened}))
        return
    for vector in np.load(args.warm_up):
        for label in labels:
            systems[label](vector, 50)
    passes = [run_sweep(systems, queries, truth) for _ in range(PASSES)]
    strategies = {
        label: time_strategies(mem, queries)
        for label, mem in zip(labels, keep)
        if isinstance(mem, hebbs.Hebbs)
    }
    print(
        json.dumps({"rss_after_sweep": memory()["rss"], "passes": passes, "strategies": strategies})
    )
    for mem in keep:
        if isinstance(mem, hebbs.Hebbs):
            mem.close()


if __name__ == "__main__":
    main()
