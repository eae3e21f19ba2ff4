"""hebbs through its public Python API (``hebbs.Hebbs``) at its defaults (M=16,
ef_construction=200, ef_search=50), vectors passed in. Each memory has its text, one of
``ENTITIES`` entities, a timestamp spread over a year, role context (entities / action /
outcome) on a share of them and ``EDGES`` edges to earlier memories, as in
``benches/strategies_bench.py``, so that every strategy has what it reads. ``search`` sweeps
``ef_search`` for similarity and times each strategy alone with the inputs it needs."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import Job, main, probe, progress, summary_ms, time_queries, timed_call, version, warm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import hebbs
from strategies_bench import ENTITIES, START_US, YEAR_US, random_edges, role_context

SEED = 11
#: Edges from each memory to earlier ones (strategies_bench's default).
EDGES = 2
#: hebbs's default ef_search (``Hebbs.open``'s docstring).
DEFAULT_EF_SEARCH = 50
EF_SWEEP = (10, 16, 24, 32, 50, 100, 200)
#: The analogical cue's situation.
SITUATION = {"entities": ["e0", "e1"], "action": "launch", "outcome": "failure"}
IDS_FILE = "ids.npy"
#: While building: the ids stored so far (appended after each batch) and how far the build
#: got, so a build interrupted at 1M goes on from its last batch when rerun.
IDS_PART = "ids.part"
PROGRESS_FILE = "build-progress.json"
#: Relevance-only weights for the similarity comparison: the default composite score also
#: weighs recency, importance and reinforcement, so its top 10 are not the 10 nearest.
PURE_RELEVANCE = hebbs.ScoringWeights(1.0, 0.0, 0.0, 0.0)


def open_store(job: Job) -> hebbs.Hebbs:
    return hebbs.Hebbs.open(job.store / "db", dimension=int(job.data.shape[1]))


def items(
    job: Job, rng: np.random.Generator, lo: int, hi: int, ids: list[bytes]
) -> list[dict[str, Any]]:
    """The memories of rows ``lo..hi``, their edges pointing into ``ids`` (those stored)."""
    batch: list[dict[str, Any]] = []
    for i in range(lo, hi):
        context = role_context(rng)
        targets = [ids[int(j)] for j in rng.integers(0, len(ids), EDGES)] if ids else []
        edges = random_edges(rng, targets)
        batch.append(
            {
                "content": job.texts[i],
                "embedding": np.asarray(job.data[i]),
                "entity_id": f"entity-{i % ENTITIES}",
                "created_at": START_US + int(i * YEAR_US / job.n),
                "context": context,
                "edges": edges,
            }
        )
    return batch


def resume(job: Job) -> tuple[hebbs.Hebbs, list[bytes], float]:
    """The store, the ids stored so far (in row order) and the seconds their ``remember_many``
    calls took, from where an interrupted build stopped; a fresh store when what is on disk
    does not add up (the memory count, the ids file and the progress file disagree)."""
    job.store.mkdir(parents=True, exist_ok=True)
    mem = open_store(job)
    progress_file, ids_file = job.store / PROGRESS_FILE, job.store / IDS_PART
    if progress_file.exists() and ids_file.exists():
        state = json.loads(progress_file.read_text(encoding="utf-8"))
        raw = ids_file.read_bytes()
        width = int(state["id_bytes"])
        ids = [raw[k : k + width] for k in range(0, len(raw), width)]
        if len(ids) == state["rows"] == mem.health().memory_count and len(raw) % width == 0:
            return mem, ids, float(state["seconds"])
    mem.close()
    shutil.rmtree(job.store)
    job.store.mkdir(parents=True)
    return open_store(job), [], 0.0


def build(job: Job) -> dict[str, Any]:
    mem, ids, seconds = resume(job)
    with (job.store / IDS_PART).open("ab") as ids_file:
        for lo, hi in job.batches():
            if hi <= len(ids):
                continue
            batch = items(job, np.random.default_rng([SEED, lo]), lo, hi, ids)
            stored, took = timed_call(lambda batch=batch: mem.remember_many(batch))
            seconds += took
            ids.extend(memory.id for memory in stored)
            ids_file.write(b"".join(memory.id for memory in stored))
            ids_file.flush()
            state = {"rows": len(ids), "seconds": seconds, "id_bytes": len(ids[0])}
            (job.store / f"{PROGRESS_FILE}.part").write_text(json.dumps(state), encoding="utf-8")
            (job.store / f"{PROGRESS_FILE}.part").replace(job.store / PROGRESS_FILE)
    _, optimize_s = timed_call(mem.optimize)
    _, close_s = timed_call(mem.close)
    np.save(job.store / IDS_FILE, np.frombuffer(b"".join(ids), dtype=np.uint8).reshape(job.n, -1))
    return {
        "ingest_s": seconds + optimize_s,
        "remember_many_s": seconds,
        "optimize_s": optimize_s,
        "close_s": close_s,
        "version": version("hebbs"),
    }


def strategy_calls(job: Job, ids: list[bytes]) -> dict[str, Any]:
    """Each strategy alone, called with what it needs for query ``j``."""
    rng = np.random.default_rng(SEED + 1)
    entities = [f"entity-{int(e)}" for e in rng.integers(0, ENTITIES, len(job.queries))]
    seeds = [ids[int(j)] for j in rng.integers(0, len(ids), len(job.queries))]
    return {
        "similarity": lambda mem, j: mem.recall(cue_embedding=job.queries[j]),
        "temporal": lambda mem, j: mem.recall(strategies=["temporal"], entity_id=entities[j]),
        "causal": lambda mem, j: mem.recall(strategies=["causal"], seed_memory_id=seeds[j]),
        "analogical": lambda mem, j: mem.recall(
            strategies=["analogical"], cue_embedding=job.queries[j], cue_context=SITUATION
        ),
        "keyword": lambda mem, j: mem.recall(job.cue_texts[j], strategies=["keyword"]),
        "hybrid": lambda mem, j: mem.recall(
            job.cue_texts[j], strategies=["hybrid"], cue_embedding=job.queries[j]
        ),
    }


def search(job: Job) -> dict[str, Any]:
    mem = open_store(job)
    # What is timed is the store in use: the work an open leaves to background threads (the
    # flat search copy) is drained first, as the build's own optimize did.
    mem.optimize()
    ids = [bytes(row) for row in np.load(job.store / IDS_FILE)]
    row_of = {id: i for i, id in enumerate(ids)}

    def similarity(ef: int | None) -> Any:
        def run(query: np.ndarray) -> list[int]:
            out = mem.recall(cue_embedding=query, ef_search=ef, scoring_weights=PURE_RELEVANCE)
            return [row_of[r.memory.id] for r in out.results]

        return run

    warm(job, similarity(None))
    defaults = {
        "knob": f"ef_search={DEFAULT_EF_SEARCH}",
        **time_queries(job, similarity(None), "hebbs default"),
    }
    sweep = [
        {"knob": f"ef_search={ef}", **time_queries(job, similarity(ef), f"hebbs ef={ef}")}
        for ef in EF_SWEEP
    ]
    strategies: dict[str, Any] = {}
    for name, call in strategy_calls(job, ids).items():
        for j in range(min(len(job.queries), 20)):
            call(mem, j)
        samples = []
        for j in progress(range(len(job.queries)), len(job.queries), f"hebbs {name}"):
            start = time.perf_counter()
            call(mem, j)
            samples.append(time.perf_counter() - start)
        strategies[name] = summary_ms(samples)
    mem.close()
    return {"defaults": defaults, "sweep": sweep, "strategies": strategies}


def probe_phase(job: Job) -> dict[str, Any]:
    return probe(job, lambda: open_store(job), lambda mem: mem.recall(cue_embedding=job.queries[0]))


if __name__ == "__main__":
    main({"build": build, "search": search, "probe": probe_phase})
