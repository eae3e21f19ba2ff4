"""Recall p50 / p99 of the default recall, ``quality="fast"`` and ``quality="best"`` at a given
store size, end to end with the bundled embedder (the cue embedded in every call), next to
``strategies=["similarity"]`` and plain ``hybrid`` in the same run; and the stage alone, with
the cue's vector and token vectors passed in (the embedder not timed).

The store holds the LoCoMo turns plus fillers up to the size: filler ``k`` repeats a real
turn's text, its vector is that turn's plus Gaussian noise (cosine about 0.9), and its token
vectors are the turn's (int8, as ``remember`` stores them), so fillers compete as candidates.
Real turns keep their conversation (``session_id``); fillers come in conversations of
:data:`FILLER_SESSION` memories, so every candidate has neighbours to score.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import hebbs
from hebbs.embedder import default_embedder
from hebbs.embedder.token_vectors import quantize_int8

from .data import Conversation
from .latency import FILL_BATCH, FILLER_NOISE, QUERIES, SEED, WARMUP

#: Memories per filler conversation.
FILLER_SESSION = 20
#: Re-ranked head sizes timed.
TOP_NS = (150, 300)
#: The calls timed end to end with the bundled embedder: a row's name and ``recall``'s
#: keyword arguments besides the question.
END_TO_END: dict[str, dict[str, Any]] = {
    "recall(q), the default": {},
    'recall(q, quality="fast")': {"quality": "fast"},
    'recall(q, quality="best")': {"quality": "best"},
    'recall(q, strategies=["similarity"])': {"strategies": ["similarity"]},
}


def report(conversations: list[Conversation], sizes: list[int]) -> None:
    embedder = default_embedder()
    turns = [(c.sample_id, turn) for c in conversations for turn in c.turns]
    texts = [turn.content for _, turn in turns]
    vectors, tokens = embedder.embed_with_tokens(texts)
    pairs = [quantize_int8(matrix) for matrix in tokens]
    questions = [q.text for c in conversations for q in c.questions]
    step = max(len(questions) // (QUERIES + WARMUP), 1)
    questions = questions[::step][: QUERIES + WARMUP]
    cues, cue_tokens = embedder.embed_with_tokens(questions, query=True)
    rng = np.random.default_rng(SEED)
    print(f"\nrecall p50 / p99 in ms, {QUERIES} LoCoMo questions a row after {WARMUP} warm-up\n")
    print("| memories | call | p50 | p99 | p50 / hybrid p50 |")
    print("| ---: | :--- | ---: | ---: | ---: |")
    for size in sizes:
        with (
            tempfile.TemporaryDirectory(prefix="hebbs-stage-latency-") as root,
            hebbs.Hebbs.open(Path(root) / "db", embedder=embedder) as mem,
        ):
            fill(mem, turns, vectors, pairs, size, rng)
            mem.optimize()
            base = _time(
                lambda i: mem.recall(questions[i], strategies=["hybrid"], cue_embedding=cues[i]),
                len(questions),
            )
            rows = [('recall(q, strategies=["hybrid"]), vector given', base)]
            for top_n in TOP_NS:
                name = f"recall(q, rerank_top_n={top_n}), vector and tokens given"
                rows.append((name, _time_default(mem, questions, cues, cue_tokens, top_n)))
            for name, kwargs in END_TO_END.items():
                rows.append(
                    (
                        f"{name} end to end",
                        _time(
                            lambda i, kw=kwargs: mem.recall(questions[i], **kw),
                            len(questions),
                        ),
                    )
                )
            for name, times in rows:
                print(
                    f"| {size:,} | {name} | {np.median(times):.1f} | "
                    f"{np.percentile(times, 99):.1f} | {np.median(times) / np.median(base):.2f} |",
                    flush=True,
                )


def _time_default(
    mem: hebbs.Hebbs,
    questions: list[str],
    cues: np.ndarray,
    cue_tokens: list[np.ndarray],
    top_n: int,
) -> list[float]:
    """Per question, ms of the default recall with the cue's vector and token vectors given."""

    def call(i: int) -> object:
        return mem.recall(
            questions[i],
            rerank_top_n=top_n,
            cue_embedding=cues[i],
            cue_token_vectors=cue_tokens[i],
        )

    return _time(call, len(questions))


def _time(call: object, count: int) -> list[float]:
    elapsed: list[float] = []
    for i in range(count):
        started = time.perf_counter()
        call(i)  # type: ignore[operator]
        if i >= WARMUP:
            elapsed.append(1e3 * (time.perf_counter() - started))
    return elapsed


def fill(
    mem: hebbs.Hebbs,
    turns: list[tuple[str, object]],
    vectors: np.ndarray,
    pairs: list[tuple[np.ndarray, np.ndarray]],
    size: int,
    rng: np.random.Generator,
) -> None:
    """Fills the store to ``size`` memories: the turns, then fillers (see the module docs)."""
    for start in range(0, size, FILL_BATCH):
        items = []
        sources = []
        for k in range(start, min(start + FILL_BATCH, size)):
            source = k % len(turns)
            sample, turn = turns[source]
            vector = vectors[source]
            if k >= len(turns):
                vector = vector + rng.normal(0.0, FILLER_NOISE, vector.shape).astype(np.float32)
                session = f"filler-{k // FILLER_SESSION}"
            else:
                session = f"{sample}:{turn.session}"  # type: ignore[attr-defined]
            items.append(
                {
                    "content": turn.content,  # type: ignore[attr-defined]
                    "embedding": vector.astype(np.float32),
                    "entity_id": turn.speaker,  # type: ignore[attr-defined]
                    "created_at": int(turn.created_at.timestamp() * 1e6) + k,  # type: ignore[attr-defined]
                    "session_id": session,
                }
            )
            sources.append(source)
        stored = mem.remember_many(items)
        mem.put_token_vectors(
            (memory.id, *pairs[source]) for memory, source in zip(stored, sources)
        )
