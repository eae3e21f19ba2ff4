"""The late-interaction re-rank stage at 100k memories against plain ``hybrid``, paired.

Issue 14 asks for the stage's p50 at 100k memories with the vectors and the cue's token
vectors passed in (the embedder is not timed). The machine is shared and noisy, so every
question runs each call back to back (``hybrid``; the preset's first stage alone, ``hybrid``
with ``top_k = rerank_top_n`` and relevance-only weights; ``quality="best"`` at each
``rerank_top_n``), in a rotating order, and the table gives each call's wall-clock p50 / p99,
its CPU time (``getrusage``, so the rayon threads count) and both as ratios to ``hybrid`` of
the same questions.

The store is the one ``benches/locomo/stage_latency.py`` fills (LoCoMo turns plus fillers,
each with the source turn's int8 token vectors). ``--store DIR`` keeps it between runs: a
directory holding a filled store of that size is reopened, not filled again.

    .venv/bin/python benches/rerank_bench.py --size 100000 --store /tmp/hebbs-rerank-100k
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import hebbs
from hebbs.embedder import default_embedder
from hebbs.embedder.token_vectors import quantize_int8
from locomo import data
from locomo.latency import SEED
from locomo.stage_latency import fill

#: Questions timed, after the warm-up ones.
QUERIES = 300
WARMUP = 20
#: Re-ranked head sizes timed.
TOP_NS = (150,)
#: File in a kept store's directory recording how many memories it was filled with.
SIZE_MARK = "filled-size"
RELEVANCE_ONLY = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}


def main() -> None:
    args = _parse()
    conversations = data.load(args.data)
    embedder = default_embedder()
    questions = [q.text for c in conversations for q in c.questions]
    step = max(len(questions) // (args.queries + WARMUP), 1)
    questions = questions[::step][: args.queries + WARMUP]
    cues, cue_tokens = embedder.embed_with_tokens(questions, query=True)
    with tempfile.TemporaryDirectory(prefix="hebbs-rerank-bench-") as scratch:
        root = args.store or Path(scratch)
        mem = _open_filled(root, args.size, conversations, embedder)
        with mem:
            calls = _calls(mem, questions, cues, cue_tokens, args.top_ns)
            wall, cpu = _run(calls, len(questions))
    _print(args.size, wall, cpu)


def _open_filled(
    root: Path, size: int, conversations: list[data.Conversation], embedder: object
) -> hebbs.Hebbs:
    mark = root / SIZE_MARK
    if mark.exists() and int(mark.read_text()) == size:
        return hebbs.Hebbs.open(root / "db", embedder=embedder)  # type: ignore[arg-type]
    root.mkdir(parents=True, exist_ok=True)
    mem = hebbs.Hebbs.open(root / "db", embedder=embedder)  # type: ignore[arg-type]
    turns = [(c.sample_id, turn) for c in conversations for turn in c.turns]
    vectors, tokens = embedder.embed_with_tokens([turn.content for _, turn in turns])  # type: ignore[attr-defined]
    pairs = [quantize_int8(matrix) for matrix in tokens]
    fill(mem, turns, vectors, pairs, size, np.random.default_rng(SEED))
    mem.optimize()
    mark.write_text(str(size))
    return mem


def _calls(
    mem: hebbs.Hebbs,
    questions: list[str],
    cues: np.ndarray,
    cue_tokens: list[np.ndarray],
    top_ns: list[int],
) -> dict[str, Callable[[int], object]]:
    calls: dict[str, Callable[[int], object]] = {
        'recall(q, strategies=["hybrid"])': lambda i: mem.recall(
            questions[i], strategies=["hybrid"], cue_embedding=cues[i]
        ),
    }
    for top_n in top_ns:
        calls[f"first stage alone (hybrid, top_k={top_n}, relevance-only)"] = lambda i, n=top_n: (
            mem.recall(
                questions[i],
                strategies=["hybrid"],
                top_k=n,
                scoring_weights=RELEVANCE_ONLY,
                cue_embedding=cues[i],
            )
        )
        calls[f'recall(q, quality="best", rerank_top_n={top_n})'] = lambda i, n=top_n: mem.recall(
            questions[i],
            quality="best",
            rerank_top_n=n,
            cue_embedding=cues[i],
            cue_token_vectors=cue_tokens[i],
        )
    return calls


def _run(
    calls: dict[str, Callable[[int], object]], count: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per call, wall and CPU ms of each question past the warm-up, the calls of a question
    back to back in an order rotating by question."""
    names = list(calls)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for i in range(count):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            cpu_start = _cpu()
            started = time.perf_counter()
            calls[name](i)
            elapsed = 1e3 * (time.perf_counter() - started)
            if i >= WARMUP:
                wall[name].append(elapsed)
                cpu[name].append(1e3 * (_cpu() - cpu_start))
    return wall, cpu


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _print(size: int, wall: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    names = list(wall)
    base_wall = float(np.median(wall[names[0]]))
    base_cpu = float(np.mean(cpu[names[0]]))
    questions = len(wall[names[0]])
    print(f"\n{size:,} memories, {questions} questions, each call back to back per question\n")
    print("| call | p50 ms | p99 ms | p50 / hybrid | CPU ms (mean) | CPU / hybrid |")
    print("| :--- | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        p50 = float(np.median(wall[name]))
        print(
            f"| {name} | {p50:.2f} | {np.percentile(wall[name], 99):.2f} | "
            f"{p50 / base_wall:.2f} | {np.mean(cpu[name]):.2f} | "
            f"{np.mean(cpu[name]) / base_cpu:.2f} |",
            flush=True,
        )


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=data.DEFAULT_DATA)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--top-ns", type=lambda s: [int(n) for n in s.split(",")], default=TOP_NS)
    parser.add_argument("--store", type=Path, help="keep the filled store in this directory")
    return parser.parse_args()


if __name__ == "__main__":
    main()
