"""``chromadb``'s embedded ``PersistentClient`` at its documented defaults (l2 space, M=16,
ef_construction=100, ef_search=100, the default embedding function unused because the
vectors are passed in), each memory's text as its document. ``search`` sweeps the query-time
``ef_search`` through ``collection.modify(configuration=...)``, Chroma 1.x's form of the
``hnsw:search_ef`` metadata. On unit vectors l2 ranks exactly as inner product does."""

from __future__ import annotations

from typing import Any

import chromadb
import numpy as np
from chromadb.api.client import SharedSystemClient
from common import Job, main, probe, time_queries, timed_call, version, warm

COLLECTION = "bench"
DEFAULT_EF_SEARCH = 100
EF_SWEEP = (10, 16, 24, 32, 50, 100, 200)


def collection(job: Job) -> Any:
    return chromadb.PersistentClient(path=str(job.store)).get_collection(COLLECTION)


def with_ef_search(job: Job, ef: int) -> Any:
    """The collection reopened after its ``ef_search`` is set: a segment already loaded in this
    process keeps the value it was loaded with, so the client's cached system is dropped."""
    collection(job).modify(configuration={"hnsw": {"ef_search": ef}})
    SharedSystemClient.clear_system_cache()
    return collection(job)


def build(job: Job) -> dict[str, Any]:
    client = chromadb.PersistentClient(path=str(job.store))
    target = client.create_collection(COLLECTION)
    seconds = 0.0
    for lo, hi in job.batches(min(job.batch, client.get_max_batch_size())):
        ids = [str(i) for i in range(lo, hi)]
        rows = np.ascontiguousarray(job.data[lo:hi])
        documents = job.texts[lo:hi]
        seconds += timed_call(
            lambda ids=ids, rows=rows, documents=documents: target.add(
                ids=ids, embeddings=rows, documents=documents
            )
        )[1]
    return {"ingest_s": seconds, "version": version("chromadb")}


def search(job: Job) -> dict[str, Any]:
    def query_with(target: Any) -> Any:
        def query(vector: np.ndarray) -> list[int]:
            found = target.query(query_embeddings=vector[None, :], n_results=10)
            return [int(id) for id in found["ids"][0]]

        return query

    default = query_with(collection(job))
    warm(job, default)
    defaults = {"knob": f"ef_search={DEFAULT_EF_SEARCH}", **time_queries(job, default, "chroma")}
    sweep = []
    for ef in EF_SWEEP:
        query = query_with(with_ef_search(job, ef))
        warm(job, query)
        sweep.append({"knob": f"ef_search={ef}", **time_queries(job, query, f"chroma ef={ef}")})
    with_ef_search(job, DEFAULT_EF_SEARCH)
    return {"defaults": defaults, "sweep": sweep}


def probe_phase(job: Job) -> dict[str, Any]:
    return probe(
        job,
        lambda: collection(job),
        lambda target: target.query(query_embeddings=job.queries[:1], n_results=10),
    )


if __name__ == "__main__":
    main({"build": build, "search": search, "probe": probe_phase})
