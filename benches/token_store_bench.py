"""Re-ranking after a reopen: token vectors persisted in the engine against a warm in-memory
cache and against re-encoding, end to end (hybrid recall + ``contextual_rerank``), and their
size on disk.

The store is the one of ``locomo/latency.py``: the LoCoMo turns plus fillers up to each size
(a filler repeats a real turn's text and token vectors, with its vector plus noise), vectors
passed to ``remember_many``, token vectors written at fill time with
``TokenVectorCache(store=mem).put_many`` (one ``put_token_vectors`` per batch). Each timed query
is a LoCoMo question: ``recall(strategies=["hybrid"], top_k=N, graph_context=2)`` then
``contextual_rerank`` over the N, with

- warm: the cache that was filled, every candidate in memory;
- reopened: after close and reopen, a fresh cache on the same store: the first time a
  candidate comes up it is read from RocksDB (one multi-get per query), later from memory;
- RocksDB only: a cache of one entry, so every candidate of every query is read from RocksDB;
- re-encoding: no cache, every candidate encoded at query time;
- multi-get: after one more reopen, the ``get_token_vectors`` of each query's N candidates
  alone (the engine read and the numpy arrays, no scoring).

The on-disk size is the SST files of the ``token_vectors`` column family after the close
(which flushes), found by the column family name in each SST's properties block.

    .venv/bin/python benches/token_store_bench.py [--sizes 5000,100000] [--top-n 50]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import hebbs
from hebbs.embedder import default_embedder
from hebbs.rerank import (
    DEFAULT_RERANK_TOP_N,
    LateInteractionReranker,
    TokenVectorCache,
)
from locomo import data
from locomo.latency import SEED, WARMUP, fill, time_hybrid

#: Questions timed per row (RE_ENCODING_QUERIES of them for the slow re-encoding column).
QUERIES = 200
RE_ENCODING_QUERIES = 30
#: The column family's name, as it appears in the properties block of its SST files.
TOKEN_VECTORS_CF = b"token_vectors"


def main() -> None:
    args = _parse()
    conversations = data.load(args.data)
    embedder = default_embedder()
    texts = [turn.content for c in conversations for turn in c.turns]
    questions = [q.text for c in conversations for q in c.questions]
    step = max(len(questions) // (QUERIES + WARMUP), 1)
    questions = questions[::step][: QUERIES + WARMUP]
    vectors = embedder.embed(texts)
    token_vectors = LateInteractionReranker(embedder).document_vectors(texts)
    print(f"\nhybrid + contextual_rerank, top_k = N = {args.top_n}; p50 over {QUERIES} LoCoMo")
    print(f"questions ({RE_ENCODING_QUERIES} for re-encoding) after {WARMUP} warm-up; ms.\n")
    print(
        "| memories | warm cache p50 | reopened p50 | multi-get of the N after reopen p50 | "
        "RocksDB only p50 | re-encoding p50 | write us per memory | SST bytes per memory | "
        "SST MB |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rng = np.random.default_rng(SEED)
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="hebbs-token-store-") as root:
            path = Path(root) / "db"
            with hebbs.Hebbs.open(path, embedder=embedder) as mem:
                cache = TokenVectorCache(store=mem)
                write_s = fill(mem, cache, texts, vectors, token_vectors, size, rng)
                warm = time_hybrid(
                    mem, questions, args.top_n, LateInteractionReranker(embedder, cache=cache)
                )
                del cache
            sst = _sst_bytes(path, TOKEN_VECTORS_CF)
            with hebbs.Hebbs.open(path, embedder=embedder) as mem:
                fresh = TokenVectorCache(store=mem)
                reopened = time_hybrid(
                    mem, questions, args.top_n, LateInteractionReranker(embedder, cache=fresh)
                )
                single = TokenVectorCache(store=mem, max_entries=1)
                store_only = time_hybrid(
                    mem, questions, args.top_n, LateInteractionReranker(embedder, cache=single)
                )
                encoding = time_hybrid(
                    mem,
                    questions[: WARMUP + RE_ENCODING_QUERIES],
                    args.top_n,
                    LateInteractionReranker(embedder),
                )
            with hebbs.Hebbs.open(path, embedder=embedder) as mem:
                multi_get = _time_multi_get(mem, questions, args.top_n)
            print(
                f"| {size:,} | {np.median(warm):.1f} | {np.median(reopened):.1f} | "
                f"{np.median(multi_get):.2f} | "
                f"{np.median(store_only):.1f} | {np.median(encoding):,.0f} | "
                f"{1e6 * write_s / size:.0f} | {sst / size:,.0f} | {sst / 1e6:,.0f} |",
                flush=True,
            )


def _time_multi_get(mem: hebbs.Hebbs, questions: list[str], top_n: int) -> list[float]:
    """Per question after the warm-up, ms of the one ``get_token_vectors`` of its N hybrid
    candidates alone."""
    elapsed: list[float] = []
    for i, question in enumerate(questions):
        output = mem.recall(question, strategies=["hybrid"], top_k=top_n, graph_context=2)
        ids = [result.memory.id for result in output.results]
        started = time.perf_counter()
        mem.get_token_vectors(ids)
        if i >= WARMUP:
            elapsed.append(1e3 * (time.perf_counter() - started))
    return elapsed


def _sst_bytes(path: Path, column_family: bytes) -> int:
    """Total size of the SST files under ``path`` whose properties name ``column_family``."""
    return sum(
        sst.stat().st_size for sst in path.rglob("*.sst") if column_family in sst.read_bytes()
    )


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=data.DEFAULT_DATA)
    parser.add_argument("--sizes", default="5000", help="memory counts, e.g. 5000,100000")
    parser.add_argument("--top-n", type=int, default=DEFAULT_RERANK_TOP_N)
    args = parser.parse_args()
    args.sizes = [int(n) for n in args.sizes.split(",")]
    return args


if __name__ == "__main__":
    main()
