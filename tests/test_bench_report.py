"""``benches/report.py`` end to end at a tiny size with hnswlib as the only peer (Chroma and
LanceDB, in their own heavy environments, are left to the on-demand full run): it writes the
Markdown tables, the PNG plots and results.json, and the figures are sane (every latency
positive, every recall@10 within [0, 1], hebbs's similarity recall high at its largest ef), and
the "Filtered recall" section that ``benches/filter_bench.py`` wrote at the end of the old page
is kept."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import matplotlib.image

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "benches" / "report.py"
PLOTS = ("similarity", "recall_latency", "strategies", "ingest", "memory")
STRATEGIES = {"similarity", "temporal", "causal", "analogical", "keyword", "hybrid"}
#: A table row of the latency tables: size, system, setting, p50, p99, recall@10.
#: The section another benchmark (benches/filter_bench.py) wrote at the end of the page, which
#: the report keeps when it rewrites the page.
KEPT_SECTION = "<!-- filtered-recall -->\n## Filtered recall\n\nfigures of another benchmark\n"
LATENCY_ROW = re.compile(r"^\| ([\d,]+) \| (\w+) \| ([^|]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|")


def test_the_report_writes_sane_tables_and_plots(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "benchmarks.md"
    plots = tmp_path / "docs" / "bench"
    page.parent.mkdir(parents=True)
    page.write_text(f"# An older page\n\nold tables\n\n{KEPT_SECTION}", encoding="utf-8")
    command = [
        sys.executable,
        str(REPORT),
        "--sizes",
        "1500",
        "--peers",
        "hnswlib",
        "--queries",
        "60",
        "--work-dir",
        str(tmp_path / "work"),
        "--markdown",
        str(page),
        "--plots",
        str(plots),
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=300)

    results = json.loads((plots / "results.json").read_text(encoding="utf-8"))
    figures = results["sizes"]["1500"]
    assert set(figures) == {"hebbs", "hnswlib"}
    for system in figures.values():
        search = system["search"]
        for point in [search["defaults"], *search["sweep"]]:
            assert 0 < point["p50_ms"] <= point["p99_ms"]
            assert 0.0 <= point["recall_at_10"] <= 1.0
        assert system["build"]["ingest_s"] > 0
        assert system["probe"]["open_s"] > 0
        assert system["probe"]["disk_bytes"] > 0
        assert system["probe"]["rss_increase_bytes"] > 0
    hebbs = figures["hebbs"]["search"]
    assert set(hebbs["strategies"]) == STRATEGIES
    assert all(0 < s["p50_ms"] <= s["p99_ms"] for s in hebbs["strategies"].values())
    assert max(p["recall_at_10"] for p in hebbs["sweep"]) >= 0.9

    text = page.read_text(encoding="utf-8")
    assert "old tables" not in text
    assert text.endswith(KEPT_SECTION)
    rows = [m for m in map(LATENCY_ROW.match, text.splitlines()) if m]
    assert {m[2] for m in rows} == {"hebbs", "hnswlib"}
    assert all(float(m[4]) > 0 and float(m[5]) > 0 and 0 <= float(m[6]) <= 1 for m in rows)
    for name in PLOTS:
        image = matplotlib.image.imread(plots / f"{name}.png")
        assert image.shape[0] > 300
        assert image.shape[1] > 500
        assert f"(bench/{name}.png)" in text
        assert image.std() > 0.01  # not a blank canvas
