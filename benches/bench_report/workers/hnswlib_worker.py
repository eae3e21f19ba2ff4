"""Raw ``hnswlib`` (M=16, ef_construction=200, inner product): the graph library without a
store around it, the floor a vector search can reach on this machine. Its default query ``ef``
is 10 (hnswlib's own default); ``search`` sweeps it."""

from __future__ import annotations

from typing import Any

import hnswlib
import numpy as np
from common import Job, main, probe, time_queries, timed_call, version, warm

M = 16
EF_CONSTRUCTION = 200
SEED = 7
#: hnswlib's default query ef (``Index.ef`` before any ``set_ef``).
DEFAULT_EF = 10
EF_SWEEP = (10, 16, 24, 32, 50, 100, 200)


def index_file(job: Job) -> str:
    return str(job.store / "index.bin")


def load(job: Job) -> hnswlib.Index:
    index = hnswlib.Index(space="ip", dim=job.data.shape[1])
    index.load_index(index_file(job))
    index.set_num_threads(1)
    return index


def build(job: Job) -> dict[str, Any]:
    job.store.mkdir(parents=True, exist_ok=True)
    index = hnswlib.Index(space="ip", dim=job.data.shape[1])
    index.init_index(max_elements=job.n, M=M, ef_construction=EF_CONSTRUCTION, random_seed=SEED)
    seconds = 0.0
    for lo, hi in job.batches():
        rows = np.ascontiguousarray(job.data[lo:hi])
        labels = np.arange(lo, hi)
        seconds += timed_call(lambda rows=rows, labels=labels: index.add_items(rows, labels))[1]
    index.save_index(index_file(job))
    return {"ingest_s": seconds, "version": version("hnswlib")}


def search(job: Job) -> dict[str, Any]:
    index = load(job)

    def knn(query: np.ndarray) -> list[int]:
        labels, _ = index.knn_query(query, k=10)
        return [int(x) for x in labels[0]]

    index.set_ef(DEFAULT_EF)
    warm(job, knn)
    defaults = {"knob": f"ef={DEFAULT_EF}", **time_queries(job, knn, "hnswlib default")}
    sweep = []
    for ef in EF_SWEEP:
        index.set_ef(ef)
        sweep.append({"knob": f"ef={ef}", **time_queries(job, knn, f"hnswlib ef={ef}")})
    return {"defaults": defaults, "sweep": sweep}


def probe_phase(job: Job) -> dict[str, Any]:
    return probe(job, lambda: load(job), lambda index: index.knn_query(job.queries[0], k=10))


if __name__ == "__main__":
    main({"build": build, "search": search, "probe": probe_phase})
