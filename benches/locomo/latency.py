"""End-to-end latency of dense recall + late-interaction re-ranking, and of the engine's hybrid
recall + :func:`hebbs.rerank.contextual_rerank`, at a given store size.

The store holds the LoCoMo turns plus synthetic fillers up to the size: filler ``k`` repeats
the text of a real turn and gets that turn's vector plus Gaussian noise (cosine about 0.9 to
it), so fillers compete as candidates like near-duplicate memories would. Vectors are passed to
``remember_many`` (embedding 100,000 texts would take most of an hour on this machine), and the
token-vector cache is filled from the source turn's vectors, as write-time indexing would. Each
timed query is a LoCoMo question: ``recall`` (embeds the cue, HNSW search, composite scoring)
then :func:`hebbs.rerank.rerank_recall` over the top-N, with the cache (query encoded once, no
candidate re-encoded) and without (every candidate encoded at query time).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

import hebbs
from hebbs.embedder import default_embedder
from hebbs.rerank import (
    LateInteractionReranker,
    TokenVectorCache,
    contextual_rerank,
    rerank_recall,
)

from .data import Conversation

#: Questions timed per store size (the first RE_ENCODING_QUERIES of them also without the
#: cache, which is slow), and untimed warm-up queries before them.
QUERIES = 200
RE_ENCODING_QUERIES = 30
WARMUP = 10
#: Memories per remember_many call while filling.
FILL_BATCH = 2_000
#: Standard deviation of the per-component noise of a filler vector (cosine ~0.9 to its
#: source at 384 dimensions).
FILLER_NOISE = 0.025
SEED = 7


def report(conversations: list[Conversation], sizes: list[int], top_ns: list[int]) -> None:
    embedder = default_embedder()
    turns = [turn for conversation in conversations for turn in conversation.turns]
    texts = [turn.content for turn in turns]
    questions = [q.text for c in conversations for q in c.questions]
    step = max(len(questions) // (QUERIES + WARMUP), 1)
    questions = questions[::step][: QUERIES + WARMUP]
    vectors = embedder.embed(texts)
    plain = LateInteractionReranker(embedder)
    token_vectors = plain.document_vectors(texts)
    rng = np.random.default_rng(SEED)
    print(f"\nlatency: recall top_k=N, then late interaction over those N; {QUERIES} LoCoMo")
    print(f"questions per row ({RE_ENCODING_QUERIES} without the cache); ms. The cache is int8.\n")
    print(
        "| memories | N | recall p50 | + rerank, cached p50 | p95 | + rerank, re-encoding p50 | "
        "hybrid + contextual_rerank, cached p50 | cache MB | cache bytes per memory |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in sizes:
        cache = TokenVectorCache()
        cached = LateInteractionReranker(embedder, cache=cache)
        with (
            tempfile.TemporaryDirectory(prefix="hebbs-latency-") as root,
            hebbs.Hebbs.open(Path(root) / "db", embedder=embedder) as mem,
        ):
            fill(mem, cache, texts, vectors, token_vectors, size, rng)
            for top_n in top_ns:
                recall_ms, cached_ms, encoding_ms = _time(mem, questions, top_n, cached, plain)
                hybrid_ms = time_hybrid(mem, questions, top_n, cached)
                print(
                    f"| {size:,} | {top_n} | {np.median(recall_ms):.1f} | "
                    f"{np.median(cached_ms):.1f} | {np.percentile(cached_ms, 95):.1f} | "
                    f"{np.median(encoding_ms):.1f} | {np.median(hybrid_ms):.1f} | "
                    f"{cache.nbytes / 1e6:.0f} | "
                    f"{cache.nbytes / len(cache):,.0f} |",
                    flush=True,
                )


def _time(
    mem: hebbs.Hebbs,
    questions: list[str],
    top_n: int,
    cached: LateInteractionReranker,
    plain: LateInteractionReranker,
) -> tuple[list[float], list[float], list[float]]:
    """Per question, ms of: recall; recall + cached re-rank; recall + re-encoding re-rank."""
    recall_ms: list[float] = []
    cached_ms: list[float] = []
    encoding_ms: list[float] = []
    for i, question in enumerate(questions):
        started = time.perf_counter()
        output = mem.recall(question, top_k=top_n)
        recalled = time.perf_counter()
        rerank_recall(question, output, cached, top_n=top_n)
        reranked = time.perf_counter()
        if i >= WARMUP:
            recall_ms.append(1e3 * (recalled - started))
            cached_ms.append(1e3 * (reranked - started))
        if WARMUP <= i < WARMUP + RE_ENCODING_QUERIES:
            started = time.perf_counter()
            output = mem.recall(question, top_k=top_n)
            rerank_recall(question, output, plain, top_n=top_n)
            encoding_ms.append(1e3 * (time.perf_counter() - started))
    return recall_ms, cached_ms, encoding_ms


def time_hybrid(
    mem: hebbs.Hebbs, questions: list[str], top_n: int, cached: LateInteractionReranker
) -> list[float]:
    """Per question, ms of the library's best path: hybrid recall with graph context, then
    ``contextual_rerank`` over the top-N with the cache."""
    elapsed: list[float] = []
    for i, question in enumerate(questions):
        started = time.perf_counter()
        output = mem.recall(question, strategies=["hybrid"], top_k=top_n, graph_context=2)
        contextual_rerank(question, output, cached, top_n=top_n)
        if i >= WARMUP:
            elapsed.append(1e3 * (time.perf_counter() - started))
    return elapsed


def fill(
    mem: hebbs.Hebbs,
    cache: TokenVectorCache,
    texts: list[str],
    vectors: np.ndarray,
    token_vectors: list[np.ndarray],
    size: int,
    rng: np.random.Generator,
) -> float:
    """Fills the store to ``size`` memories (turns, then fillers) and ``cache`` with their
    token vectors, one ``put_many`` per batch (one engine write if the cache has a store);
    returns the seconds spent in ``put_many``."""
    write_s = 0.0
    for start in range(0, size, FILL_BATCH):
        sources = [k % len(texts) for k in range(start, min(start + FILL_BATCH, size))]
        batch = vectors[sources]
        if start + len(sources) > len(texts):
            noisy = batch + rng.normal(0.0, FILLER_NOISE, batch.shape).astype(np.float32)
            fillers = np.array([k >= len(texts) for k in range(start, start + len(sources))])
            batch = np.where(fillers[:, None], noisy, batch)
            batch /= np.linalg.norm(batch, axis=1, keepdims=True)
        stored = mem.remember_many(
            {"content": texts[s], "embedding": batch[j]} for j, s in enumerate(sources)
        )
        started = time.perf_counter()
        cache.put_many([(m.id, token_vectors[s]) for m, s in zip(stored, sources)])
        write_s += time.perf_counter() - started
    mem.checkpoint()
    return write_s
