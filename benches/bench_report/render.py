"""The report's Markdown page and its PNG plots (matplotlib, no display needed), from the
figures of one run (:mod:`.summary`'s ``Results``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .summary import TARGET_RECALL, Results, at_equal_recall, ingest_rate, sizes, systems

COLOURS = {
    "hebbs": "tab:red",
    "hnswlib": "tab:blue",
    "chroma": "tab:orange",
    "lancedb": "tab:green",
}
#: Where the page's sections written by other benchmarks start (``benches/filter_bench.py``'s
#: "Filtered recall"): a rewrite keeps the old page's text from there on.
KEPT_SECTIONS = "<!-- filtered-recall -->"
STRATEGIES = ("similarity", "temporal", "causal", "analogical", "keyword", "hybrid")
MIB = 1024 * 1024
DPI = 110
MEMORY_HEADER = [
    "memories",
    "system",
    "RSS increase MiB",
    "KiB per memory",
    "disk bytes per memory",
    "open s",
]


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def ms(value: float) -> str:
    return f"{value:.3f}"


def point_cells(n: int, system: str, point: dict[str, Any]) -> list[str]:
    """Size, system, setting, p50, p99 and recall@10 of one measured setting."""
    return [
        f"{n:,}",
        system,
        point["knob"],
        ms(point["p50_ms"]),
        ms(point["p99_ms"]),
        f"{point['recall_at_10']:.3f}",
    ]


def latency_rows(results: Results, pick: str) -> list[list[str]]:
    """One row per size and system: the defaults, or the setting at equal recall."""
    rows = []
    for n in sizes(results):
        per_system = systems(results, n)
        hebbs_point = pick_point(per_system["hebbs"]["search"], pick)
        for name, figures in per_system.items():
            point = pick_point(figures["search"], pick)
            if point is None:
                best = max(
                    p["recall_at_10"]
                    for p in [figures["search"]["defaults"], *figures["search"]["sweep"]]
                )
                rows.append([f"{n:,}", name, f"not reached (best {best:.3f})", "", "", "", ""])
                continue
            ratio = f"{point['p50_ms'] / hebbs_point['p50_ms']:.2f}x" if hebbs_point else ""
            rows.append([*point_cells(n, name, point), ratio])
    return rows


def pick_point(search: dict[str, Any], pick: str) -> dict[str, Any] | None:
    return search["defaults"] if pick == "defaults" else at_equal_recall(search)


def markdown(results: Results, plots: dict[str, Path], page: Path) -> str:
    meta = results["meta"]
    latency_header = [
        "memories",
        "system",
        "setting",
        "p50 ms",
        "p99 ms",
        "recall@10",
        "p50 / hebbs",
    ]
    strategy_rows = [
        [f"{n:,}", name, ms(s["p50_ms"]), ms(s["p99_ms"])]
        for n in sizes(results)
        for name, s in systems(results, n)["hebbs"]["search"]["strategies"].items()
    ]
    ingest_rows = []
    memory_rows = []
    sweep_rows = []
    for n in sizes(results):
        for name, figures in systems(results, n).items():
            build, probe = figures["build"], figures["probe"]
            note = ""
            if name == "hebbs":
                note = (
                    f"remember_many {build['remember_many_s']:.1f} s"
                    f" + optimize {build['optimize_s']:.1f} s"
                )
            if name == "lancedb":
                note = f"+ {figures['search']['index_build_s']:.1f} s to build its IVF_PQ index"
            ingest_rows.append(
                [f"{n:,}", name, f"{ingest_rate(n, build):,.0f}", f"{build['ingest_s']:.1f}", note]
            )
            memory_rows.append(
                [
                    f"{n:,}",
                    name,
                    f"{probe['rss_increase_bytes'] / MIB:,.1f}",
                    f"{probe['rss_increase_bytes'] / n / 1024:.2f}",
                    f"{probe['disk_bytes'] / n:,.0f}",
                    f"{probe['open_s']:.3f}",
                ]
            )
            for point in [figures["search"]["defaults"], *figures["search"]["sweep"]]:
                sweep_rows.append(point_cells(n, name, point))
    images = "\n".join(
        f"![{title}]({path.relative_to(page.parent).as_posix()})" for title, path in plots.items()
    )
    versions = ", ".join(f"{name} {v}" for name, v in meta["versions"].items())
    load_rows = [
        [
            f"{n:,}",
            name,
            *(
                " / ".join(f"{x:.2f}" for x in figures[phase]["load_average"])
                for phase in ("build", "search", "probe")
            ),
        ]
        for n in sizes(results)
        for name, figures in systems(results, n).items()
    ]
    loads = [
        figures[phase]["load_average"][0]
        for n in sizes(results)
        for figures in systems(results, n).values()
        for phase in ("build", "search", "probe")
    ]
    low, high = min(loads), max(loads)
    full = (
        ""
        if 1_000_000 in sizes(results)
        else (
            "\nThis run has no 1M size yet: it takes an hour or more on two cores (hebbs ingest "
            "above all); run it on a quiet machine with the command above."
        )
    )
    return f"""# Benchmarks: hebbs against hnswlib, Chroma and LanceDB

Made by `{meta["command"]}`, page written {meta["date"]} ({meta["machine"]}; {versions}).
The 1-minute load average was {low:.1f} to {high:.1f} at the ends of the phases (see
[Machine load](#machine-load)): the machine was shared with other work. `make bench-report`
runs the default sizes (10k and 100k); `python benches/report.py --sizes
10000,100000,1000000` adds 1M. Compare systems within a size and a run, not across machines.
{full}

**Data.** {meta["dim"]}-d unit vectors, clustered and embedding-like (`benches/engine_bench.py`'s
`embedding_like`: {meta["clusters"]} clusters in a 32-d latent space, projected, with noise),
passed in to every system (no embedding model in the timed part), {meta["queries"]} queries
from the same distribution, each once per setting after {meta["warm_up"]} untimed ones (and one
full untimed pass before a system's first timed setting, or after Chroma reopens its
collection for a new `ef_search`); the truth is the exact 10 nearest by inner product. Each
system runs in a process of its own, one after another (hebbs and hnswlib in the project's
environment, chromadb and lancedb in their own), so load that changes during the run hits
them unevenly.

**Systems.** hebbs through `hebbs.Hebbs` (defaults: M=16, ef_construction=200, ef_search=50;
each memory also has its text, an entity, a timestamp, role context on half and 2 edges, so
every strategy has what it reads; its similarity rows use relevance-only scoring weights
`ScoringWeights(1, 0, 0, 0)`, since the default composite score also weighs recency,
importance and reinforcement, so its default top 10 need not be the 10 nearest); raw
`hnswlib` (M=16, ef_construction=200, its default query ef=10); `chromadb`'s embedded
`PersistentClient` at its defaults (l2, M=16, ef_construction=100, ef_search=100; text as
documents); embedded `lancedb` at its defaults (no vector index: a flat
scan, as its docs advise below about 100k rows), then with its default IVF_PQ index swept over
`nprobes` and `refine_factor`. Equal recall means each system's fastest setting whose
recall@10 reaches {TARGET_RECALL} (hebbs and hnswlib `ef`, Chroma `ef_search` through
`collection.modify(configuration=...)`, its 1.x form of the `hnsw:search_ef` metadata, then
the collection reopened; LanceDB `nprobes` / `refine_factor`). `p50 / hebbs` is the system's
p50 over hebbs's p50 at the same size and criterion.

## Similarity search at each system's defaults

{table(latency_header, latency_rows(results, "defaults"))}

## Similarity search at equal recall@10 (>= {TARGET_RECALL})

{table(latency_header, latency_rows(results, "equal"))}

## hebbs: every strategy alone

Each with the inputs it needs (similarity and analogical a cue vector, analogical also a cue
situation; temporal an entity; causal a seed memory, depth 5 both ways; keyword a 3-word cue;
hybrid the cue text and vector), at the store's defaults.

{table(["memories", "strategy", "p50 ms", "p99 ms"], strategy_rows)}

## Ingest

Until searchable: hebbs `remember_many` in batches of {meta["batch"]} plus `optimize` (the graph
drained); hnswlib `add_items`; Chroma `add` in batches; LanceDB `create_table` from the batches.

{table(["memories", "system", "memories/s", "seconds", "note"], ingest_rows)}

## Memory and disk

RSS increase: a fresh process, its libraries imported, reads `VmRSS` from `/proc/self/status`,
opens the store (timed: the open time), runs one query and reads it again. Disk: the bytes of
the store's files (hebbs with its checkpoints; LanceDB with its IVF_PQ index).

{table(MEMORY_HEADER, memory_rows)}

## Machine load

The 1-, 5- and 15-minute load averages (`os.getloadavg()`, 2 cores) at the end of each phase:
above 2 the systems shared the cores with other work, which shows most in p99.

{table(["memories", "system", "after ingest", "after queries", "after probe"], load_rows)}

## Plots

{images}

<details><summary>Every setting measured</summary>

{table(["memories", "system", "setting", "p50 ms", "p99 ms", "recall@10"], sweep_rows)}

</details>
{kept_sections(page)}"""


def kept_sections(page: Path) -> str:
    """The old page's text from :data:`KEPT_SECTIONS` on (empty when it has none)."""
    old = page.read_text(encoding="utf-8") if page.exists() else ""
    return "\n" + old[old.index(KEPT_SECTIONS) :] if KEPT_SECTIONS in old else ""


def plot_all(results: Results, folder: Path) -> dict[str, Path]:
    """Writes the PNGs into ``folder``; their titles and paths."""
    folder.mkdir(parents=True, exist_ok=True)
    plots = {
        "Similarity latency vs store size": plot_similarity(results, folder / "similarity.png"),
        "Recall@10 against latency": plot_tradeoff(results, folder / "recall_latency.png"),
        "hebbs strategies vs store size": plot_strategies(results, folder / "strategies.png"),
        "Ingest throughput vs store size": plot_ingest(results, folder / "ingest.png"),
        "Memory and disk per memory": plot_memory(results, folder / "memory.png"),
    }
    return plots


def size_axis(axis: Any, ns: list[int]) -> None:
    axis.set_xscale("log")
    axis.set_xticks(ns, [f"{n:,}" for n in ns])
    axis.minorticks_off()
    axis.set_xlabel("memories in the store")
    axis.grid(True, alpha=0.3)


def save(figure: Any, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=DPI)
    plt.close(figure)
    return path


def plot_similarity(results: Results, path: Path) -> Path:
    ns = sizes(results)
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for axis, pick, title in zip(
        axes, ("defaults", "equal"), ("at defaults", f"at recall@10 >= {TARGET_RECALL}")
    ):
        for name in systems(results, ns[0]):
            points = [
                (n, pick_point(systems(results, n)[name]["search"], pick))
                for n in ns
                if name in systems(results, n)
            ]
            shown = [(n, p) for n, p in points if p is not None]
            if not shown:
                continue
            xs = [n for n, _ in shown]
            axis.plot(
                xs, [p["p50_ms"] for _, p in shown], "o-", color=COLOURS[name], label=f"{name} p50"
            )
            axis.plot(
                xs,
                [p["p99_ms"] for _, p in shown],
                "s--",
                color=COLOURS[name],
                alpha=0.6,
                label=f"{name} p99",
            )
        axis.set_yscale("log")
        axis.set_title(f"similarity search, {title}")
        size_axis(axis, ns)
    axes[0].set_ylabel("latency per query (ms, log)")
    axes[1].legend(fontsize=8, ncol=2)
    return save(figure, path)


def plot_tradeoff(results: Results, path: Path) -> Path:
    ns = sizes(results)
    figure, axes = plt.subplots(1, len(ns), figsize=(5.5 * len(ns), 4.2), squeeze=False)
    for axis, n in zip(axes[0], ns):
        for name, figures in systems(results, n).items():
            points = sorted(
                figures["search"]["sweep"], key=lambda p: (p["recall_at_10"], p["p50_ms"])
            )
            axis.plot(
                [p["p50_ms"] for p in points],
                [p["recall_at_10"] for p in points],
                "o-",
                color=COLOURS[name],
                label=name,
            )
            default = figures["search"]["defaults"]
            axis.plot(
                [default["p50_ms"]],
                [default["recall_at_10"]],
                "*",
                markersize=14,
                color=COLOURS[name],
            )
        axis.axhline(TARGET_RECALL, color="grey", linestyle=":", linewidth=1)
        axis.set_xscale("log")
        axis.set_xlabel("p50 latency (ms, log)")
        axis.set_ylabel("recall@10")
        axis.set_title(f"{n:,} memories (star: defaults)")
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=8)
    return save(figure, path)


def plot_strategies(results: Results, path: Path) -> Path:
    ns = sizes(results)
    figure, axis = plt.subplots(figsize=(7, 4.2))
    colours = plt.get_cmap("tab10")
    for k, name in enumerate(STRATEGIES):
        found = [systems(results, n)["hebbs"]["search"]["strategies"][name] for n in ns]
        axis.plot(ns, [s["p50_ms"] for s in found], "o-", color=colours(k), label=f"{name} p50")
        axis.plot(ns, [s["p99_ms"] for s in found], "s--", color=colours(k), alpha=0.5)
    axis.set_yscale("log")
    axis.set_ylabel("latency per recall (ms, log; dashed p99)")
    axis.set_title("hebbs: each strategy alone")
    size_axis(axis, ns)
    axis.legend(fontsize=8, ncol=2)
    return save(figure, path)


def plot_ingest(results: Results, path: Path) -> Path:
    ns = sizes(results)
    figure, axis = plt.subplots(figsize=(7, 4.2))
    for name in systems(results, ns[0]):
        xs = [n for n in ns if name in systems(results, n)]
        axis.plot(
            xs,
            [ingest_rate(n, systems(results, n)[name]["build"]) for n in xs],
            "o-",
            color=COLOURS[name],
            label=name,
        )
        if name == "lancedb":
            lance = [systems(results, n)[name] for n in xs]
            with_index = [
                n / (f["build"]["ingest_s"] + f["search"]["index_build_s"])
                for n, f in zip(xs, lance)
            ]
            axis.plot(xs, with_index, "s--", color=COLOURS[name], label="lancedb + IVF_PQ build")
    axis.set_yscale("log")
    axis.set_ylabel("memories ingested per second (log)")
    axis.set_title("ingest until searchable")
    size_axis(axis, ns)
    axis.legend(fontsize=8)
    return save(figure, path)


def plot_memory(results: Results, path: Path) -> Path:
    ns = sizes(results)
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in systems(results, ns[0]):
        xs = [n for n in ns if name in systems(results, n)]
        probes = [systems(results, n)[name]["probe"] for n in xs]
        for axis, key in zip(axes, ("rss_increase_bytes", "disk_bytes")):
            per_memory = [p[key] / n / 1024 for p, n in zip(probes, xs)]
            axis.plot(xs, per_memory, "o-", color=COLOURS[name], label=name)
    axes[0].set_ylabel("RSS increase per memory (KiB)")
    axes[0].set_title("open + one query, fresh process")
    axes[1].set_ylabel("disk per memory (KiB)")
    axes[1].set_title("store on disk")
    for axis in axes:
        size_axis(axis, ns)
        axis.set_ylim(bottom=0)
        axis.legend(fontsize=8)
    return save(figure, path)
