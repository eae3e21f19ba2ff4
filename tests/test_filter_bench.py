"""``benches/filter_bench.py`` end to end at a tiny size, hnswlib its only peer (Chroma, in its
own heavy environment, is left to the on-demand run): every filter has its rows for hebbs and
hnswlib with sane figures (recall@10 within [0, 1], latencies positive, p50 <= p99), the goals
are printed, every filter is timed right after a write, and the page's "Filtered recall"
section is rewritten in place (the text before it and the notes after its generated block kept)
with its plot."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import matplotlib.image

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benches" / "filter_bench.py"
LABELS = {
    "unfiltered",
    *(f"{kind} {p} %" for kind in ("eq", "range") for p in ("50", "10", "1", "0.1")),
    "not 10 %",
    "not 1 %",
}
#: A row of the table of every point: filter, matches, system, setting, recall, p50, p99, ratio.
POINT_ROW = re.compile(
    r"^\| ([^|]+) \| ([\d,]+) \| (hebbs|hnswlib) \| ([^|]+) \| ([\d.]+) \| ([\d.]+) \|"
    r" ([\d.]+) \| ([\d.]+)x \|$"
)
#: A row of the table of recalls right after a write: filter, matches, then p50 and p99 after
#: the write and again at once.
WRITE_ROW = re.compile(
    r"^\| ([^|]+) \| ([\d,]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$"
)
OLD_PAGE = """# Benchmarks

Text another benchmark wrote.

<!-- filtered-recall -->
## Filtered recall

<!-- filter_bench: generated, start -->
an older run's block
<!-- filter_bench: generated, end -->

A note written by hand.
"""


def test_the_filter_bench_prints_every_row_and_writes_its_section(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text(OLD_PAGE, encoding="utf-8")
    image = tmp_path / "bench" / "filter_selectivity.png"
    command = [
        sys.executable,
        str(BENCH),
        "--n",
        "2000",
        "--dim",
        "64",
        "--clusters",
        "50",
        "--queries",
        "20",
        "--warm-up",
        "3",
        "--no-chroma",
        "--markdown",
        str(page),
        "--plot",
        str(image),
    ]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout

    rows = [m for m in map(POINT_ROW.match, out.splitlines()) if m]
    assert {m[1] for m in rows} == LABELS
    for label in LABELS:
        systems = {m[3] for m in rows if m[1] == label}
        assert systems == {"hebbs", "hnswlib"}, label
        settings = {m[4].strip() for m in rows if m[1] == label and m[3] == "hebbs"}
        assert settings == {"ef_search=50", "ef_search=100", "ef_search=200"}
    for m in rows:
        assert 0.0 <= float(m[5]) <= 1.0
        assert 0 < float(m[6]) <= float(m[7])
        assert float(m[8]) > 0
    assert "Goals of issue 30:" in out
    after_write = out[out.index("right after a write") :]
    writes = [m for m in map(WRITE_ROW.match, after_write.splitlines()) if m]
    assert {m[1] for m in writes} == LABELS - {"unfiltered"}
    for m in writes:
        assert 0 < float(m[3]) <= float(m[4])
        assert 0 < float(m[5]) <= float(m[6])
    assert "Chroma: not measured in this run" in out

    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\nText another benchmark wrote.\n")
    assert "an older run's block" not in text
    assert text.rstrip().endswith("A note written by hand.")
    assert text.count("## Filtered recall") == 1
    assert "(bench/filter_selectivity.png)" in text
    assert {m[1] for m in map(POINT_ROW.match, text.splitlines()) if m} == LABELS
    picture = matplotlib.image.imread(image)
    assert picture.shape[0] > 300
    assert picture.shape[1] > 500
    assert picture.std() > 0.01
