"""The plot of ``scale_bench.py``'s figures against store size: memory and disk a memory, and
similarity latency at equal recall, for each vector format and hnswlib.

Reads the JSON that ``scale_bench.py --json`` merges each run into (``{system: {n: figures}}``)
and writes one PNG of three panels:

    python benches/scale_plot.py docs/bench/scale.json docs/bench/scale.png

"Equal recall" is each system's fastest point of the ef sweep whose recall@10 reaches
:data:`TARGET_RECALL` (the issue's bar), with the page cache warm (the second pass).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bench_report.render import DPI

#: The recall@10 at which the latency panel compares systems.
TARGET_RECALL = 0.95
STYLES = {
    "int8": ("tab:red", "hebbs int8"),
    "f32": ("tab:purple", "hebbs f32"),
    "hnswlib": ("tab:blue", "hnswlib (f32)"),
}


def equal_recall_p50(figures: dict[str, Any]) -> float | None:
    """The lowest p50 (ms) of a sweep point with recall@10 >= TARGET_RECALL, if any."""
    reaching = [p["p50_ms"] for p in figures["sweep"] if p["recall_at_10"] >= TARGET_RECALL]
    return min(reaching) if reaching else None


def plot(saved: dict[str, dict[str, Any]], out: Path) -> None:
    panels = [
        ("anonymous memory a memory, bytes", lambda f, n: f["anon_bytes"] / n),
        ("disk a memory, bytes", lambda f, n: f["disk_bytes"] / n),
        (f"similarity p50 at recall@10 >= {TARGET_RECALL}, ms", lambda f, n: equal_recall_p50(f)),
    ]
    figure, axes = plt.subplots(1, len(panels), figsize=(15, 4.2))
    for axis, (title, value) in zip(axes, panels, strict=True):
        for system, (colour, label) in STYLES.items():
            sizes = sorted(int(n) for n in saved.get(system, {}))
            points = [(n, value(saved[system][str(n)], n)) for n in sizes]
            points = [(n, v) for n, v in points if v is not None]
            if points:
                axis.plot(*zip(*points, strict=True), "o-", color=colour, label=label)
        axis.set_xscale("log")
        axis.set_xlabel("memories (384-d)")
        axis.set_title(title, fontsize=10)
        axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3)
    axes[0].legend()
    figure.tight_layout()
    figure.savefig(out, dpi=DPI)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("figures", type=Path, help="the JSON of scale_bench.py --json")
    parser.add_argument("out", type=Path, help="the PNG to write")
    args = parser.parse_args()
    plot(json.loads(args.figures.read_text()), args.out)


if __name__ == "__main__":
    main()
