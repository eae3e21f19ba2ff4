"""``benches/scale_bench.py`` end to end at a tiny size: the same code as the on-demand 10M run
(docs/scale.md), with int8, f32 and hnswlib in one run, a lower ``--ef-construction`` and
``--json``. The figures are sane: every store answers at high recall at the largest ef, every
latency is positive, each strategy is timed on each store, and a second run in the same
directory resumes (ingests nothing, keeps the ingest rate it saved)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALE_BENCH = ROOT / "benches" / "scale_bench.py"
N = 2500
EF_CONSTRUCTION = 64
STRATEGIES = {
    "similarity",
    "temporal",
    "causal (depth 5, both ways)",
    "analogical",
    "all four together",
    "keyword (BM25)",
    "hybrid (dense + BM25, RRF)",
    "similarity, filter on one entity (0.1 %)",
    "similarity, filter on an action (8 %)",
}


def run(work: Path, figures: Path) -> str:
    command = [
        sys.executable,
        str(SCALE_BENCH),
        "--n",
        str(N),
        "--vector-format",
        "int8",
        "--compare",
        "f32,hnswlib",
        "--ef-construction",
        str(EF_CONSTRUCTION),
        "--dir",
        str(work),
        "--json",
        str(figures),
    ]
    done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
    return done.stdout


def test_a_tiny_scale_run_reports_every_system_and_strategy(tmp_path: Path) -> None:
    figures = tmp_path / "scale.json"
    table = run(tmp_path / "work", figures)
    saved = json.loads(figures.read_text())
    assert set(saved) == {"int8", "f32", "hnswlib"}
    for system, sizes in saved.items():
        point = sizes[str(N)]
        assert point["ingest_per_s"] > 0
        assert point["ef_construction"] == EF_CONSTRUCTION
        for ef in point["sweep"]:
            assert 0 < ef["p50_ms"] <= ef["p99_ms"]
            assert 0.0 <= ef["recall_at_10"] <= 1.0
        assert point["sweep"][-1]["recall_at_10"] >= 0.95
        if system == "hnswlib":
            assert point["strategies"] is None
        else:
            assert set(point["strategies"]) == STRATEGIES
            for timed in point["strategies"].values():
                assert 0 < timed["p50_ms"] <= timed["p99_ms"]
                assert timed["first_pass_p50_ms"] > 0
    assert "each strategy on int8" in table
    assert "each strategy on f32" in table

    rate = saved["int8"][str(N)]["ingest_per_s"]
    table = run(tmp_path / "work", figures)
    ingest_row = next(line for line in table.splitlines() if line.startswith("ingest, memories"))
    assert ingest_row.split(")")[-1].split() == ["0", "0", "0"]
    assert json.loads(figures.read_text())["int8"][str(N)]["ingest_per_s"] == rate
