"""What the figures mean: each system's setting at equal recall@10 (the cheapest point of its
sweep at or above the target), ingest rates and per-memory costs. ``Results`` is the JSON the
report keeps: ``{"meta": {...}, "sizes": {"10000": {"hebbs": {"build", "search", "probe"}}}}``."""

from __future__ import annotations

from typing import Any

from engine_bench import TARGET_RECALL

Results = dict[str, Any]
Point = dict[str, Any]

__all__ = ["TARGET_RECALL", "Point", "Results", "at_equal_recall", "ingest_rate", "sizes"]


def sizes(results: Results) -> list[int]:
    return sorted(int(n) for n in results["sizes"])


def systems(results: Results, n: int) -> dict[str, dict[str, Any]]:
    """The figures of each system measured at size ``n``, hebbs first."""
    figures: dict[str, dict[str, Any]] = results["sizes"][str(n)]
    return figures


def at_equal_recall(search: dict[str, Any], target: float = TARGET_RECALL) -> Point | None:
    """The fastest (p50) of the defaults and the sweep points whose recall@10 reaches
    ``target``; None when none does."""
    points = [search["defaults"], *search["sweep"]]
    reached = [p for p in points if p["recall_at_10"] >= target]
    return min(reached, key=lambda p: p["p50_ms"]) if reached else None


def ingest_rate(n: int, build: dict[str, Any]) -> float:
    """Memories (vectors) ingested per second, until searchable."""
    return n / float(build["ingest_s"])
