"""Indexing figures for docs/indexing.md: offline ``index_documents`` on a generated Markdown
corpus (the bundled embedder, real files), the time per 100 propositions against a baseline of
``remember_many`` of the same sentences in the same run (embedding and storing alone), the
re-index of an unchanged and of a one-line-changed corpus, the one-off load of the noun-phrase
tagger (timed apart, before the indexing), and what an offline ``reflect``
then makes of the propositions (counts and two insights verbatim).

Run: ``.venv/bin/python benches/index_bench.py [FILES]`` (default 20 files of 5 sections of 5
sentences: 500 propositions); prints tables.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from hebbs import Hebbs
from hebbs.ingest.phrases import tags

COMPANIES = ["CloudVault", "Acme Corp", "Globex", "Initech", "Umbrella", "Hooli", "Stark Labs"]
TOPICS = [
    ("backup", "The {c} backup job failed overnight and the restore took {n} hours."),
    ("pricing", "{c} asked for a {n}% discount on the annual plan."),
    ("latency", "Latency for {c} rose to {n} ms after the database migration."),
    ("hiring", "{c} hired {n} engineers for the platform team."),
    ("support", "{c} opened {n} support tickets about the login page."),
]


def corpus(folder: Path, files: int) -> list[str]:
    sentences = []
    for f in range(files):
        lines = [f"# Report {f}\n"]
        for s, (topic, template) in enumerate(TOPICS):
            lines.append(f"## {topic.title()}\n")
            paragraph = []
            for k in range(5):
                company = COMPANIES[(f + s + k) % len(COMPANIES)]
                sentence = template.format(c=company, n=(f * 7 + s * 3 + k) % 90 + 2)
                paragraph.append(sentence)
                sentences.append(sentence)
            lines.append(" ".join(paragraph) + "\n")
        (folder / f"report_{f:03}.md").write_text("\n".join(lines))
    return sentences


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        sentences = corpus(folder, files)
        with Hebbs.open(Path(tmp) / "base") as base:
            base.remember_many([{"content": sentences[0]}])
            t0 = time.perf_counter()
            for start in range(0, len(sentences), 256):
                base.remember_many([{"content": s} for s in sentences[start : start + 256]])
            baseline = time.perf_counter() - t0
        t0 = time.perf_counter()
        tags("The tagger loads its lexicon once.")
        tagger_load = time.perf_counter() - t0
        with Hebbs.open(Path(tmp) / "db") as engine:
            engine.remember_many([{"content": sentences[0]}])
            t0 = time.perf_counter()
            result = engine.index_documents([folder], progress=False)
            indexed = time.perf_counter() - t0
            t0 = time.perf_counter()
            unchanged = engine.index_documents([folder], progress=False)
            again = time.perf_counter() - t0
            first = folder / "report_000.md"
            first.write_text(first.read_text().replace("overnight", "at noon", 1))
            t0 = time.perf_counter()
            changed = engine.index_documents([folder], progress=False)
            one = time.perf_counter() - t0
            t0 = time.perf_counter()
            reflected = engine.reflect()
            reflect_s = time.perf_counter() - t0
            insights = engine.insights()
        per_100 = indexed / result.propositions * 100
        base_100 = baseline / len(sentences) * 100
        print("## Offline indexing\n")
        print("| what | propositions | seconds | s per 100 propositions | ratio |")
        print("| --- | --- | --- | --- | --- |")
        print(
            f"| remember_many of the sentences (baseline) | {len(sentences)} | {baseline:.2f} | "
            f"{base_100:.3f} | 1.00 |"
        )
        print(
            f"| index_documents, {files} files | {result.propositions} | {indexed:.2f} | "
            f"{per_100:.3f} | {per_100 / base_100:.2f} |"
        )
        print(f"| re-index, nothing changed | {unchanged.propositions} | {again:.3f} | | |")
        print(f"| re-index, one sentence changed | {changed.propositions} | {one:.3f} | | |")
        print(f"| textblob import + lexicon load, once per process | | {tagger_load:.2f} | | |")
        print(f"\nfirst pass: {result}\nchanged pass: {changed}")
        print(f"\n## Offline reflect over the propositions\n\n{reflected} in {reflect_s:.2f} s")
        for insight in insights[:2]:
            print(
                f"- `{insight.memory.content}` (confidence {insight.confidence:.3f}, "
                f"{len(insight.source_ids)} sources)"
            )


if __name__ == "__main__":
    main()
