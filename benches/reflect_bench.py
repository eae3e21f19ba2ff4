"""Reflection figures for docs/reflection.md: clustering quality (adjusted Rand index and the
k the silhouette picks on synthetic topics), offline reflect time on 1k and 10k episodes (each
phase, and 10k as a ratio of 1k), and LLM calls per 100 episodes with an HTTP provider against
the tests' local fake server (tests/fake_llm.py).

Episodes are topic templates with synthetic embeddings (topic centre plus noise, passed as
``embedding=``) so the figures measure reflection, not the embedder. Run:
``.venv/bin/python benches/reflect_bench.py``; prints tables.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_llm import start
from hebbs import Hebbs
from hebbs.llm import OfflineProvider, OpenAIProvider
from hebbs.reflect import pipeline
from hebbs.reflect.gather import cluster_views, gather
from hebbs.reflect.kmeans import adjusted_rand_index, cluster, normalise

DIM = 384
SUBJECTS = [
    "billing",
    "deploy",
    "coffee",
    "invoice",
    "onboarding",
    "latency",
    "backup",
    "pricing",
    "hiring",
    "travel",
    "security",
    "refund",
    "roadmap",
    "support",
    "database",
    "mobile",
    "search",
    "budget",
    "vendor",
    "outage",
]
VERBS = ["failed", "improved", "was discussed", "was delayed", "needed review", "came up again"]


def episodes(n: int, topics: int, seed: int) -> tuple[list[dict[str, object]], np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = normalise(rng.normal(size=(topics, DIM)))
    labels = rng.integers(0, topics, size=n)
    vectors = normalise(centres[labels] + 0.9 * rng.normal(size=(n, DIM)) / np.sqrt(DIM))
    items = []
    for i, (label, vector) in enumerate(zip(labels, vectors)):
        subject = SUBJECTS[label % len(SUBJECTS)]
        other = SUBJECTS[(label * 7 + 3) % len(SUBJECTS)]
        text = f"The {subject} {other} work {VERBS[i % len(VERBS)]} in week {i % 52}."
        items.append({"content": text, "embedding": vector})
    return items, labels


def ari_table() -> None:
    print("| topics | per topic | spread | k chosen | ARI |")
    print("| --- | --- | --- | --- | --- |")
    for topics, per, spread in (
        (5, 40, 0.8),
        (10, 40, 0.8),
        (20, 50, 0.8),
        (10, 40, 1.2),
        (40, 25, 0.7),
    ):
        rng = np.random.default_rng(topics)
        centres = normalise(rng.normal(size=(topics, 64)))
        truth = np.repeat(np.arange(topics), per)
        points = normalise(centres[truth] + spread * rng.normal(size=(truth.size, 64)) / 8)
        found = cluster(points, min_size=3)
        ari = adjusted_rand_index(truth, found.labels)
        print(f"| {topics} | {per} | {spread} | {found.k} | {ari:.3f} |")


def reflect_timing(n: int, topics: int) -> dict[str, float]:
    items, _ = episodes(n, topics, seed=n)
    with tempfile.TemporaryDirectory() as tmp, Hebbs.open(Path(tmp) / "db") as engine:
        for start_at in range(0, n, 1000):
            engine.remember_many(items[start_at : start_at + 1000])
        native = engine._native
        t0 = time.perf_counter()
        batch = gather(native, None, None, n)
        t1 = time.perf_counter()
        found, views = cluster_views(batch, [], min_size=3)
        t2 = time.perf_counter()
        provider = OfflineProvider()
        decisions = [d for view in views for d in pipeline.think(provider, view, 0.3)]
        t3 = time.perf_counter()
        by_id = {m.id_hex: m for m in batch.memories}
        stored = pipeline.store(
            engine, None, [d for d in decisions if isinstance(d, pipeline.NewInsight)], by_id
        )
        t4 = time.perf_counter()
    return {
        "gather": t1 - t0,
        "cluster": t2 - t1,
        "think": t3 - t2,
        "store": t4 - t3,
        "total": t4 - t0,
        "k": found.k,
        "insights": len(stored),
    }


def calls_per_100() -> tuple[int, int, int]:
    fake = start()
    try:
        items, _ = episodes(100, 8, seed=100)
        provider = OpenAIProvider(base_url=fake.url, model="fake", backoff=0.01)
        with (
            tempfile.TemporaryDirectory() as tmp,
            Hebbs.open(Path(tmp) / "db", llm=provider) as engine,
        ):
            engine.remember_many(items)
            result = engine.reflect()
        return provider.calls, result.clusters_processed, result.insights_created
    finally:
        fake.close()


def main() -> None:
    print("## Clustering quality (synthetic topics, dim 64)\n")
    ari_table()
    print("\n## Offline reflect time\n")
    small = reflect_timing(1000, 20)
    large = reflect_timing(10_000, 20)
    print("| episodes | k | insights | gather s | cluster s | think s | store s | total s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, row in ((1000, small), (10_000, large)):
        print(
            f"| {n} | {row['k']:.0f} | {row['insights']:.0f} | {row['gather']:.2f} | "
            f"{row['cluster']:.2f} | {row['think']:.2f} | {row['store']:.2f} | "
            f"{row['total']:.2f} |"
        )
    print(f"\n10k / 1k total: {large['total'] / small['total']:.1f}x for 10x the episodes")
    calls, clusters, insights = calls_per_100()
    print("\n## LLM calls per 100 episodes (OpenAI-compatible provider, local fake server)\n")
    print(f"{calls} calls for {clusters} clusters ({insights} insights): 2 per cluster")


if __name__ == "__main__":
    main()
