"""The tables, the goals of issue 30 and the plot of ``benches/filter_bench.py``'s figures, and
its section of docs/benchmarks.md.

The section lives at the end of the page, from ``bench_report.render.KEPT_SECTIONS`` on
(``benches/report.py`` keeps it when it rewrites the page); a run rewrites what lies between
:data:`BLOCK_START` and :data:`BLOCK_END` and leaves the notes after them alone."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bench_report.render import COLOURS, DPI, KEPT_SECTIONS, table
from filter_bench_data import Case, percent

BLOCK_START = "<!-- filter_bench: generated, start -->"
BLOCK_END = "<!-- filter_bench: generated, end -->"
#: Each system's first setting, which ``p50 / unfiltered`` divides by (its unfiltered p50).
BASELINE = {"hebbs": "ef_search=50", "hnswlib": "ef=50", "chroma": "ef_search=100"}
#: The selectivity at which the issue bounds the slowdown, and the bound.
SLOWDOWN_SELECTIVITY = 0.01
MAX_SLOWDOWN = 3.0
#: How much faster than Chroma at equal recall the issue asks hebbs to be.
CHROMA_SPEEDUP = 5.0


@dataclass(frozen=True)
class Point:
    """One system at one setting under one filter."""

    system: str
    setting: str
    recall: float
    p50: float
    p99: float


@dataclass
class Run:
    """A run's parameters and its points per case label."""

    n: int
    dim: int
    queries: int
    chroma_queries: int
    cases: list[Case]
    points: dict[str, list[Point]]
    command: str
    machine: str
    target: float
    seconds: float
    notes: dict[str, str] = field(default_factory=dict)

    def baseline(self, system: str) -> Point | None:
        return next(
            (
                p
                for p in self.points["unfiltered"]
                if p.system == system and p.setting == BASELINE[system]
            ),
            None,
        )

    def at(self, label: str, system: str, setting: str) -> Point | None:
        return next(
            (p for p in self.points[label] if p.system == system and p.setting == setting), None
        )

    def equal_recall(self, label: str, system: str) -> Point | None:
        """``system``'s first setting (the lowest ef) under ``label`` reaching the target
        recall."""
        return next(
            (p for p in self.points[label] if p.system == system and p.recall >= self.target),
            None,
        )

    def best_recall(self, label: str, system: str) -> float:
        return max((p.recall for p in self.points[label] if p.system == system), default=0.0)

    def systems(self) -> list[str]:
        return [s for s in BASELINE if any(p.system == s for p in self.points["unfiltered"])]


def matches(case: Case, n: int) -> str:
    return f"{n:,}" if case.mask is None else f"{case.matches:,}"


def slowdown(run: Run, point: Point) -> str:
    base = run.baseline(point.system)
    return f"{point.p50 / base.p50:.2f}x" if base else ""


def every_point(run: Run) -> str:
    header = ["filter", "matches", "system", "setting", "recall@10", "p50 ms", "p99 ms"]
    header.append("p50 / unfiltered")
    rows = [
        [
            case.label,
            matches(case, run.n),
            p.system,
            p.setting,
            f"{p.recall:.3f}",
            f"{p.p50:.3f}",
            f"{p.p99:.3f}",
            slowdown(run, p),
        ]
        for case in run.cases
        for p in run.points[case.label]
    ]
    return table(header, rows)


def cell(run: Run, label: str, system: str) -> list[str]:
    """Setting and p50 of ``system``'s lowest ef at the target recall, or its best recall."""
    found = run.equal_recall(label, system)
    if found is None:
        return [f"not reached (best {run.best_recall(label, system):.3f})", ""]
    return [found.setting, f"{found.p50:.3f}"]


def at_equal_recall(run: Run) -> str:
    systems = run.systems()
    header = ["filter", "matches"]
    for system in systems:
        header += [f"{system} setting", f"{system} p50 ms"]
    if "chroma" in systems:
        header.append("chroma / hebbs p50")
    rows = []
    for case in run.cases:
        row = [case.label, matches(case, run.n)]
        for system in systems:
            row += cell(run, case.label, system)
        if "chroma" in systems:
            ours = run.equal_recall(case.label, "hebbs")
            theirs = run.equal_recall(case.label, "chroma")
            row.append(f"{theirs.p50 / ours.p50:.1f}x" if ours and theirs else "")
        rows.append(row)
    return table(header, rows)


def goals(run: Run) -> list[str]:
    """The issue's three goals, each met or not, with the figures that decide it."""
    filtered = [case for case in run.cases if case.mask is not None]
    default = BASELINE["hebbs"]
    lines = []
    worst_default = min(
        (run.at(c.label, "hebbs", default) for c in filtered),
        key=lambda p: p.recall if p else 2.0,
    )
    worst_label = next(
        c.label for c in filtered if run.at(c.label, "hebbs", default) is worst_default
    )
    missing = [c.label for c in filtered if run.equal_recall(c.label, "hebbs") is None]
    recall_at_default = worst_default.recall if worst_default else 0.0
    lines.append(
        f"- recall@10 >= {run.target} at every selectivity: at {default} "
        f"{'met' if recall_at_default >= run.target else 'NOT met'} (lowest "
        f"{recall_at_default:.3f}, {worst_label}); within ef_search 50/100/200 "
        + ("met" if not missing else f"NOT met ({', '.join(missing)})")
        + "."
    )
    ratios = []
    unplanned = []
    for case in filtered:
        found = run.at(case.label, "hebbs", default)
        base = run.baseline("hebbs")
        if case.selectivity == SLOWDOWN_SELECTIVITY and found and base:
            group = unplanned if case.kind == "not" else ratios
            group.append((case.label, found.p50 / base.p50))
    met = all(ratio <= MAX_SLOWDOWN for _, ratio in ratios)
    lines.append(
        f"- p50 at {percent(SLOWDOWN_SELECTIVITY)} no worse than {MAX_SLOWDOWN:g}x unfiltered "
        f"(both at {default}), filters the index plans: {'met' if met else 'NOT met'} ("
        + ", ".join(f"{label} {ratio:.2f}x" for label, ratio in ratios)
        + "); the $not filter it cannot plan: "
        + ", ".join(
            f"{label} {ratio:.2f}x ({'within' if ratio <= MAX_SLOWDOWN else 'over'})"
            for label, ratio in unplanned
        )
        + "."
    )
    if "chroma" not in run.systems():
        lines.append(
            f"- at least {CHROMA_SPEEDUP:g}x faster than Chroma: not measured in this run."
        )
        return lines
    speedups = []
    for case in filtered:
        ours = run.equal_recall(case.label, "hebbs")
        theirs = run.equal_recall(case.label, "chroma")
        if ours and theirs:
            speedups.append((case.label, theirs.p50 / ours.p50))
    short = [label for label, speedup in speedups if speedup < CHROMA_SPEEDUP]
    lowest = min(speedups, key=lambda pair: pair[1], default=None)
    lines.append(
        f"- at least {CHROMA_SPEEDUP:g}x faster than Chroma at equal recall: "
        + ("met" if not short and speedups else f"NOT met ({', '.join(short)})")
        + (f" (lowest {lowest[1]:.2f}x, {lowest[0]})" if lowest else "")
        + "."
    )
    return lines


def tables(run: Run) -> str:
    notes = "; ".join(f"{name}: {value}" for name, value in run.notes.items())
    return f"""
Filtered recall: n={run.n:,}, dim={run.dim}, {run.queries} queries ({run.chroma_queries} for
Chroma), {run.machine}; {notes}; {run.seconds / 60:.1f} min in all.

{every_point(run)}

At recall@10 >= {run.target} (each system's lowest ef reaching it):

{at_equal_recall(run)}

Goals of issue 30:
{chr(10).join(goals(run))}
"""


def markdown_section(run: Run, plot_path: Path | None) -> str:
    """The generated block of the page's "Filtered recall" section."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    image = f"\n![p50 against selectivity](bench/{plot_path.name})\n" if plot_path else ""
    notes = "; ".join(f"{name}: {value}" for name, value in run.notes.items())
    return f"""{BLOCK_START}
Made by `{run.command}`, {date} ({run.machine}); {notes}.
{run.n:,} memories of {run.dim}-d clustered unit vectors (`embedding_like`, as above), passed
in; {run.queries} queries per setting ({run.chroma_queries} for Chroma) after untimed ones.
Each memory's context holds `bucket` (its rank in a random permutation: the range filter
`{{"context.bucket": {{"$lt": s·n}}}}`) and `s50`, `s10`, `s1`, `s01` (true on a fraction of
another permutation: the equality filter `{{"context.s1": true}}`); `not` is
`{{"$not": {{"context.s10": false}}}}`, which the planner cannot index (Chroma: `$ne`). The
truth is the exact top 10 of the matching rows (numpy). hebbs: `recall(cue_embedding=q,
strategies=["similarity"], top_k=10, scoring_weights=relevance only, filter=...)`; hnswlib
0.8 with `knn_query(filter=callback)` (a Python callable per visited node), M=16,
ef_construction=200 like hebbs; Chroma's embedded `PersistentClient`, `where`, space ip,
M=16, ef_construction=200, its default ef_search 100, run in its own environment
(`benches/filter_bench_chroma.py`). `p50 / unfiltered` divides by the same system's
unfiltered p50 at its first setting in this run.

{every_point(run)}

At recall@10 >= {run.target}, each system's lowest ef reaching it:

{at_equal_recall(run)}

Goals of issue 30:

{chr(10).join(goals(run))}
{image}{BLOCK_END}"""


def write_section(page: Path, block: str) -> None:
    """Puts ``block`` into the page's "Filtered recall" section (made at its end if missing),
    replacing the block an earlier run wrote."""
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    if KEPT_SECTIONS not in text:
        text = (
            text.rstrip("\n")
            + f"\n\n{KEPT_SECTIONS}\n## Filtered recall\n\n{BLOCK_START}\n{BLOCK_END}\n"
        )
    head, rest = text.split(BLOCK_START, 1)
    _, tail = rest.split(BLOCK_END, 1)
    page.write_text(head + block + tail, encoding="utf-8")


def plot(run: Run, path: Path) -> None:
    """p50 against selectivity for each system (its lowest ef at the target recall, else
    its best-recall one; equality solid, range dashed), hebbs's unfiltered p50 as a line."""
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for system in run.systems():
        for kind, style in (("eq", "-"), ("range", "--"), ("not", ":")):
            cases = [c for c in run.cases if c.kind == kind]
            xs, ys = [], []
            for case in cases:
                found = run.equal_recall(case.label, system) or max(
                    (p for p in run.points[case.label] if p.system == system),
                    key=lambda p: p.recall,
                )
                xs.append(case.selectivity * 100)
                ys.append(found.p50)
            axes.plot(xs, ys, style, marker="o", color=COLOURS[system], label=f"{system} {kind}")
        base = run.baseline(system)
        if base:
            axes.axhline(base.p50, color=COLOURS[system], linewidth=0.8, alpha=0.5)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("selectivity (% of the store the filter selects)")
    axes.set_ylabel("p50 latency (ms)")
    axes.set_title(
        f"Filtered top-10 at recall@10 >= {run.target}, n={run.n:,} (thin lines: unfiltered)"
    )
    axes.legend(fontsize=7, ncol=3)
    axes.grid(True, which="both", alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=DPI)
    plt.close(figure)
