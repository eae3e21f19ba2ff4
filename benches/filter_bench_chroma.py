"""The Chroma side of ``benches/filter_bench.py``, run by the interpreter of Chroma's own virtual
environment (chromadb is too large for the project's extras; see ``tests/venvs.py``).

    python filter_bench_chroma.py JOB.json OUT.json

The job names the ``.npy`` files of the vectors, the queries and the context columns, the store
directory, the HNSW parameters, the query counts and the ``where`` filters to time (each a name
and a Chroma ``where``, or null for the unfiltered search). The worker builds a persistent
collection of the same vectors with the same metadata (the vectors given, so no embedding model
runs; a complete store of an earlier run is reused), then, per filter, runs the warm-up queries
untimed and the queries timed, and writes the latencies (ms) and the row numbers each query
found as JSON. numpy and the standard library only besides chromadb."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import chromadb
import numpy as np

COLLECTION = "filter_bench"
TOP_K = 10
#: The file beside a complete store holding its ingest seconds.
INGEST_FILE = "ingest_seconds.txt"


def build(job: dict[str, Any]) -> tuple[Any, float, bool]:
    """The collection holding every vector and its metadata, the seconds its ``add`` took, and
    whether it was reused: a store a run left complete in the work directory (its ingest time
    kept beside it) is opened instead of built again."""
    data = np.load(job["data"])
    columns = {name: np.load(path) for name, path in job["columns"].items()}
    client = chromadb.PersistentClient(path=job["store"])
    timing = Path(job["store"]) / INGEST_FILE
    if timing.exists():
        collection = client.get_collection(COLLECTION)
        if collection.count() == len(data):
            return collection, float(timing.read_text(encoding="utf-8")), True
        client.delete_collection(COLLECTION)
    collection = client.create_collection(
        COLLECTION,
        embedding_function=None,
        configuration={
            "hnsw": {
                "space": "ip",
                "max_neighbors": job["m"],
                "ef_construction": job["ef_construction"],
                "ef_search": job["ef_search"],
            }
        },
    )
    batch = min(job["batch"], client.get_max_batch_size())
    start = time.perf_counter()
    for lo in range(0, len(data), batch):
        hi = min(lo + batch, len(data))
        metadatas: list[dict[str, Any]] = [
            {name: column[i].item() for name, column in columns.items()} for i in range(lo, hi)
        ]
        collection.add(
            ids=[str(i) for i in range(lo, hi)],
            embeddings=np.ascontiguousarray(data[lo:hi]),
            metadatas=metadatas,  # type: ignore[arg-type]
        )
    seconds = time.perf_counter() - start
    timing.write_text(f"{seconds}", encoding="utf-8")
    return collection, seconds, False


def timed_filter(
    collection: Any, queries: np.ndarray, warm_up: np.ndarray, where: dict[str, Any] | None
) -> dict[str, Any]:
    """Latencies (ms) and found rows of each query under ``where``, after the warm-up ones."""

    def query(vector: np.ndarray) -> list[int]:
        found = collection.query(query_embeddings=vector[None, :], n_results=TOP_K, where=where)
        return [int(id) for id in found["ids"][0]]

    for vector in warm_up:
        query(vector)
    latencies = []
    rows = []
    for vector in queries:
        start = time.perf_counter()
        got = query(vector)
        latencies.append((time.perf_counter() - start) * 1e3)
        rows.append(got)
    return {"ms": latencies, "rows": rows}


def main() -> None:
    job_file, out_file = sys.argv[1:3]
    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    collection, ingest_s, reused = build(job)
    queries = np.load(job["queries"])[: job["query_count"]]
    warm_up = np.load(job["warm_up"])
    results = {}
    for name, where in job["filters"]:
        results[name] = timed_filter(collection, queries, warm_up, where)
        print(f"[filter_bench chroma] {name} done", file=sys.stderr, flush=True)
    figures = {
        "ingest_s": ingest_s,
        "reused": reused,
        "version": chromadb.__version__,
        "filters": results,
    }
    Path(out_file).write_text(json.dumps(figures), encoding="utf-8")


if __name__ == "__main__":
    main()
