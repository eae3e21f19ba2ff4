"""Recall@k per question category and overall, and the printed table."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from .data import CATEGORIES

CUTOFFS = (5, 10)


@dataclass
class Tally:
    """Sums of per-question recall at each cutoff, by category."""

    sums: dict[tuple[int, int], float] = field(default_factory=lambda: defaultdict(float))
    counts: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, category: int, gold: frozenset[str], ranked: Sequence[str]) -> None:
        self.counts[category] += 1
        for cutoff in CUTOFFS:
            hits = len(gold.intersection(ranked[:cutoff]))
            self.sums[(category, cutoff)] += hits / len(gold)

    def recall(self, category: int | None, cutoff: int) -> float:
        if category is None:
            total = sum(self.counts.values())
            return sum(self.sums[(c, cutoff)] for c in self.counts) / max(total, 1)
        return self.sums[(category, cutoff)] / max(self.counts[category], 1)


def table(rows: list[tuple[str, Tally]]) -> str:
    """A markdown table: one row per setting, R@5 and R@10 overall then per category."""
    columns = [("overall", None), *((name, cat) for cat, name in CATEGORIES.items())]
    head = "| setting | " + " | ".join(f"{name} R@5 | {name} R@10" for name, _ in columns) + " |"
    rule = "| --- |" + " ---: | ---: |" * len(columns)
    lines = [head, rule]
    for name, tally in rows:
        cells = " | ".join(
            f"{tally.recall(cat, 5):.3f} | {tally.recall(cat, 10):.3f}" for _, cat in columns
        )
        lines.append(f"| {name} | {cells} |")
    return "\n".join(lines)
