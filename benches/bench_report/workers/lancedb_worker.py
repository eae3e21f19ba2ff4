"""``lancedb`` embedded (``lancedb.connect(path)``) at its documented defaults: a table of id,
text and vector, searched by brute force, as its docs recommend below about 100k rows (no
index is built unless asked for). ``search`` then builds its default vector index (IVF_PQ:
sqrt(n) partitions, dim/16 sub-vectors, l2; the build time is reported) and sweeps the query
knobs ``nprobes`` and ``refine_factor`` (PQ distances re-ranked on the full vectors)."""

from __future__ import annotations

from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from common import Job, main, probe, time_queries, timed_call, version, warm
from lancedb.index import IvfPq

TABLE = "bench"
#: (nprobes, refine_factor) points of the IVF_PQ sweep; None is no re-ranking.
SWEEP = ((10, None), (20, None), (50, None), (10, 10), (20, 10), (50, 10), (100, 10), (100, 50))
COLUMNS = ["id", "text", "_distance"]


def table(job: Job) -> Any:
    return lancedb.connect(str(job.store)).open_table(TABLE)


def build(job: Job) -> dict[str, Any]:
    dim = int(job.data.shape[1])
    schema = pa.schema(
        [("id", pa.int64()), ("text", pa.string()), ("vector", pa.list_(pa.float32(), dim))]
    )
    batches = [
        pa.record_batch(
            [
                pa.array(np.arange(lo, hi)),
                pa.array(job.texts[lo:hi]),
                pa.FixedSizeListArray.from_arrays(pa.array(np.ravel(job.data[lo:hi])), dim),
            ],
            schema=schema,
        )
        for lo, hi in job.batches()
    ]
    db = lancedb.connect(str(job.store))
    _, seconds = timed_call(
        lambda: db.create_table(TABLE, data=pa.RecordBatchReader.from_batches(schema, batches))
    )
    return {"ingest_s": seconds, "version": version("lancedb")}


def search(job: Job) -> dict[str, Any]:
    target = table(job)

    def flat(vector: np.ndarray) -> list[int]:
        # What a table without an index does; explicit, so a rerun after the index is built
        # still measures the default.
        query = target.search(vector).limit(10).bypass_vector_index()
        return query.select(COLUMNS).to_arrow()["id"].to_pylist()

    warm(job, flat)
    defaults = {"knob": "flat (no index)", **time_queries(job, flat, "lancedb flat")}
    _, index_s = timed_call(lambda: target.create_index("vector", config=IvfPq()))
    sweep = []
    for nprobes, refine in SWEEP:
        knob = f"IVF_PQ nprobes={nprobes}" + (f" refine={refine}" if refine else "")

        def ann(
            vector: np.ndarray, nprobes: int = nprobes, refine: int | None = refine
        ) -> list[int]:
            query = target.search(vector).limit(10).nprobes(nprobes)
            if refine:
                query = query.refine_factor(refine)
            return query.select(COLUMNS).to_arrow()["id"].to_pylist()

        if not sweep:
            warm(job, ann)
        sweep.append({"knob": knob, **time_queries(job, ann, f"lancedb {knob}")})
    return {"defaults": defaults, "sweep": sweep, "index_build_s": index_s}


def probe_phase(job: Job) -> dict[str, Any]:
    return probe(
        job,
        lambda: table(job),
        lambda target: target.search(job.queries[0]).limit(10).select(COLUMNS).to_arrow(),
    )


if __name__ == "__main__":
    main({"build": build, "search": search, "probe": probe_phase})
