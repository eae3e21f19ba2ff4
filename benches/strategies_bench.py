"""Recall strategies at scale: each of similarity, temporal, causal, analogical, keyword and
hybrid alone, and the first four in one call (they run in parallel), on a store with a
realistic edge graph.

Builds ``--n`` memories of ``--dim``-d clustered vectors passed in (the engine alone is timed),
spread over ``ENTITIES`` entities and a year of timestamps, each with ``--edges`` edges to
earlier memories (caused_by / followed_by / related_to, random confidences) and role context
(entities, action, outcome) on a share of them. Prints p50/p99 per setting and the ratio of
all four together to the slowest single strategy; run ``python benches/strategies_bench.py
--help``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import hebbs

SEED = 11
LATENT_DIM = 32
ENTITIES = 1000
YEAR_US = 365 * 86_400 * 1_000_000
START_US = 1_700_000_000_000_000
BULK_BATCH = 2000
EDGE_TYPES = ("caused_by", "followed_by", "related_to")
ACTIONS = ("launch", "migrate", "hire", "negotiate", "deploy", "refund")
OUTCOMES = ("success", "failure", "delay")
#: Share of memories that carry entity/action/outcome roles in their context.
ROLE_SHARE = 0.5
#: Synthetic vocabulary for content and keyword cues (Zipf-distributed word ranks).
VOCABULARY = 5000
WORDS_PER_MEMORY = 12
WORDS_PER_CUE = 3
#: The settings timed: a name and the strategies of one call (the first four alone, then
#: together).
SETTINGS = {
    "similarity": ["similarity"],
    "temporal": ["temporal"],
    "causal (depth 5, both ways)": ["causal"],
    "analogical": ["analogical"],
    "all four together": ["similarity", "temporal", "causal", "analogical"],
    "keyword (BM25)": ["keyword"],
    "hybrid (dense + BM25, RRF)": ["hybrid"],
}


def words(rng: np.random.Generator, count: int) -> str:
    ranks = np.minimum(rng.zipf(1.2, count), VOCABULARY)
    return " ".join(f"w{rank}" for rank in ranks)


def vectors(rng: np.random.Generator, n: int, dim: int) -> NDArray[np.float32]:
    """Clustered points in a low-dimensional latent space projected to ``dim``."""
    projection = rng.standard_normal((LATENT_DIM, dim)).astype(np.float32)
    centres = rng.standard_normal((max(n // 100, 1), LATENT_DIM))
    latent = centres[rng.integers(0, len(centres), n)] + 0.5 * rng.standard_normal((n, LATENT_DIM))
    points = (latent @ projection + 0.05 * rng.standard_normal((n, dim))).astype(np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    return points


def role_context(rng: np.random.Generator) -> dict[str, object]:
    """A memory's context: entity / action / outcome roles on a share ``ROLE_SHARE`` of them."""
    context: dict[str, object] = {"source": "bench"}
    if rng.random() < ROLE_SHARE:
        context.update(
            entities=[f"e{k}" for k in range(int(rng.integers(1, 4)))],
            action=ACTIONS[int(rng.integers(len(ACTIONS)))],
            outcome=OUTCOMES[int(rng.integers(len(OUTCOMES)))],
        )
    return context


def random_edges(rng: np.random.Generator, targets: list[bytes]) -> list[hebbs.Edge]:
    """One edge of a random type and confidence to each distinct target."""
    return [
        hebbs.Edge(
            target, EDGE_TYPES[int(rng.integers(len(EDGE_TYPES)))], float(rng.uniform(0.3, 1.0))
        )
        for target in dict.fromkeys(targets)
    ]


def build(mem: hebbs.Hebbs, rng: np.random.Generator, n: int, dim: int, edges: int) -> list[bytes]:
    data = vectors(rng, n, dim)
    ids: list[bytes] = []
    for start in range(0, n, BULK_BATCH):
        items = []
        for i in range(start, min(start + BULK_BATCH, n)):
            context = role_context(rng)
            targets = [ids[int(j)] for j in rng.integers(0, len(ids), edges)] if ids else []
            items.append(
                {
                    "content": f"memory {i} {words(rng, WORDS_PER_MEMORY)}",
                    "embedding": data[i],
                    "entity_id": f"entity-{i % ENTITIES}",
                    "created_at": START_US + int(i * YEAR_US / n),
                    "context": context,
                    "edges": random_edges(rng, targets),
                }
            )
        ids.extend(memory.id for memory in mem.remember_many(items))
    return ids


def strategy_call(
    mem: hebbs.Hebbs,
    strategies: list[str],
    texts: list[str],
    cues: NDArray[np.float32],
    seeds: list[bytes],
    entities: list[str],
    situation: dict[str, object],
) -> Callable[[int], object]:
    """The recall of query ``i`` with ``strategies``: its text, vector, seed memory and (for
    ``temporal``) entity, and the analogical cue ``situation``."""

    def run(i: int) -> object:
        configs = [
            hebbs.RecallStrategyConfig(name, entity_id=entities[i]) if name == "temporal" else name
            for name in strategies
        ]
        return mem.recall(
            texts[i],
            strategies=configs,
            cue_embedding=cues[i],
            seed_memory_id=seeds[i],
            cue_context=situation,
        )

    return run


def percentiles(call: Callable[[int], object], repeat: int) -> tuple[float, float]:
    samples = np.empty(repeat)
    for i in range(repeat):
        start = time.perf_counter()
        call(i)
        samples[i] = time.perf_counter() - start
    p50, p99 = np.percentile(samples * 1e3, [50, 99])
    return float(p50), float(p99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="memories (default 100000)")
    parser.add_argument("--dim", type=int, default=384, help="vector dimension (default 384)")
    parser.add_argument("--edges", type=int, default=2, help="edges per memory (default 2)")
    parser.add_argument("--queries", type=int, default=300, help="calls per setting")
    args = parser.parse_args()

    rng = np.random.default_rng(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        mem = hebbs.Hebbs.open(Path(tmp) / "db", dimension=args.dim)
        started = time.perf_counter()
        ids = build(mem, rng, args.n, args.dim, args.edges)
        built_s = time.perf_counter() - started
        cues = vectors(np.random.default_rng(SEED + 1), args.queries, args.dim)
        seeds = [ids[int(j)] for j in rng.integers(0, len(ids), args.queries)]
        entities = [f"entity-{int(j)}" for j in rng.integers(0, ENTITIES, args.queries)]
        situation = {"entities": ["a", "b"], "action": "launch", "outcome": "failure"}
        texts = [words(rng, WORDS_PER_CUE) for _ in range(args.queries)]

        def call(strategies: list[str]) -> Callable[[int], object]:
            return strategy_call(mem, strategies, texts, cues, seeds, entities, situation)

        for strategies in SETTINGS.values():
            percentiles(call(strategies), min(20, args.queries))
        rows = {name: percentiles(call(s), args.queries) for name, s in SETTINGS.items()}
        mem.close()

    print(f"\n{args.n} memories x {args.dim}-d, {args.edges} edges each (built in {built_s:.0f} s)")
    print(f"{'setting':<32}{'p50 ms':>10}{'p99 ms':>10}")
    for name, (p50, p99) in rows.items():
        print(f"{name:<32}{p50:>10.3f}{p99:>10.3f}")
    singles = [rows[name][0] for name in list(SETTINGS)[:4]]
    ratio = rows["all four together"][0] / max(singles)
    print(f"\nall four / slowest single strategy (p50): {ratio:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
