"""``hebbs demo`` says what it shows: the demo runs for real (bundled embedding model, a
temporary store) and each step's heading is checked against the ranking it prints."""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hebbs.cli import main
from hebbs.cli.demo import DEMO_QUERIES, load_sample
from hebbs.cli.errors import EXIT_OK
from hebbs.cli.format import ELLIPSIS

#: A row of a printed recall table: rank, score, the strategy cell, entity, created_at, content.
ROW = re.compile(
    r"^(?P<rank>\d+)\s+(?P<score>\d+\.\d+)\s+(?P<detail>\S+(?: \S+)*)\s{2,}(?P<entity>\S+)"
    r"\s{2,}(?P<created>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s{2,}(?P<content>.+)$"
)
#: The similarity cell, ``rel=0.382 dist=0.618``, or the default recall's, whose re-rank score
#: (``rerank=0.5462 li=0.4962``) its relevance rises with.
RELEVANCE = re.compile(r"(?:^|\s)(?:rel|rerank)=(\d+\.\d+)")
#: The temporal cell: ``rank=0``.
TIMELINE_RANK = re.compile(r"rank=(\d+)")
#: The line that counts what the relevance floor dropped.
FLOOR_LINE = re.compile(r"^(\d+) weaker candidates below the relevance floor left out$")
#: How far a named winner must lead the runner-up, so no claim rests on a rounding margin.
CLEAR_LEAD = 0.03
#: Memories of "this week".
WEEK_DAYS = 7
#: Older than this many days, a memory has no recency left (the 30-day max age of seed 000).
MAX_AGE_DAYS = 30


@dataclass(frozen=True)
class Row:
    """One printed result, joined with the sample memory it shows."""

    rank: int
    score: float
    detail: str
    entity: str
    memory: dict[str, Any]

    @property
    def relevance(self) -> float:
        found = RELEVANCE.search(self.detail)
        assert found is not None, self.detail
        return float(found.group(1))

    @property
    def days_ago(self) -> float:
        return float(self.memory["days_ago"])

    @property
    def content(self) -> str:
        return str(self.memory["content"])


@dataclass(frozen=True)
class Step:
    """One printed demo step: its heading, its table and the floor's count."""

    heading: str
    rows: list[Row]
    dropped: int


def sample_memory(printed: str, sample: list[dict[str, Any]]) -> dict[str, Any]:
    """The one sample memory whose content the (possibly truncated) cell shows."""
    prefix = printed.removesuffix(ELLIPSIS)
    matches = [memory for memory in sample if memory["content"].startswith(prefix)]
    assert len(matches) == 1, f"{printed!r} matches {len(matches)} sample memories"
    return matches[0]


def parse_steps(out: str) -> list[Step]:
    sample = load_sample()
    sections = re.split(r"^\[\d+/\d+\] ", out, flags=re.MULTILINE)[1:]
    steps = []
    for section in sections:
        heading, *lines = section.strip().splitlines()
        rows = []
        dropped = 0
        for line in lines:
            row = ROW.match(line)
            if row:
                memory = sample_memory(row["content"], sample)
                assert row["entity"] == memory["entity_id"]
                rows.append(
                    Row(int(row["rank"]), float(row["score"]), row["detail"], row["entity"], memory)
                )
            floor = FLOOR_LINE.match(line)
            if floor:
                dropped = int(floor.group(1))
        steps.append(Step(heading, rows, dropped))
    return steps


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> list[Step]:
    """The demo's printed steps, run once in a fresh store with wide columns."""
    db = tmp_path_factory.mktemp("demo") / "db"
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "240")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["demo", "--db", str(db)])
    assert code == EXIT_OK, err.getvalue()
    parsed = parse_steps(out.getvalue())
    assert [step.heading for step in parsed] == [query.heading for query in DEMO_QUERIES]
    for step, query in zip(parsed, DEMO_QUERIES):
        assert [row.rank for row in step.rows] == list(range(1, query.query.top_k + 1))
    return parsed


def assert_clear_winner(rows: list[Row], content_start: str) -> None:
    top, runner_up = rows[0], rows[1]
    assert top.content.startswith(content_start)
    assert top.score - runner_up.score >= CLEAR_LEAD
    assert top.relevance == max(row.relevance for row in rows)


def test_paraphrase_finds_the_discount_request_first(steps: list[Step]) -> None:
    rows = steps[0].rows
    assert "CFO" in steps[0].heading
    assert_clear_winner(rows, "Acme's CFO asked for a 15% discount")
    assert "three-year contract" in rows[0].content
    cue_words = set(re.findall(r"[a-z0-9]+", str(DEMO_QUERIES[0].query.cue).lower()))
    assert not {"discount", "three", "contract", "cfo", "15"} & cue_words


def test_timeline_is_globex_newest_first(steps: list[Step]) -> None:
    rows = steps[1].rows
    assert {row.entity for row in rows} == {"globex"}
    ages = [row.days_ago for row in rows]
    assert ages == sorted(ages)
    newest = sorted(m["days_ago"] for m in load_sample() if m["entity_id"] == "globex")
    assert ages == newest[: len(rows)]
    ranks = [TIMELINE_RANK.search(row.detail) for row in rows]
    assert [int(rank.group(1)) for rank in ranks if rank] == list(range(len(rows)))


def test_scoped_similarity_ranks_the_pricing_rule_first(steps: list[Step]) -> None:
    rows = steps[2].rows
    assert {row.entity for row in rows} == {"maya"}
    assert_clear_winner(rows, "Maya wants to approve every pricing exception")


def test_pure_relevance_puts_the_closest_first_however_old(steps: list[Step]) -> None:
    step = steps[3]
    floor = DEMO_QUERIES[3].query.min_relevance
    relevances = [row.relevance for row in step.rows]
    assert [row.score for row in step.rows] == relevances
    assert relevances == sorted(relevances, reverse=True)
    if floor is not None:
        assert min(relevances) >= floor
        assert step.dropped > 0
    assert step.rows[0].days_ago > MAX_AGE_DAYS


def test_recency_weights_let_this_weeks_memories_overtake(steps: list[Step]) -> None:
    closest = steps[3].rows[0]
    step = steps[4]
    assert DEMO_QUERIES[4].query.min_relevance == DEMO_QUERIES[3].query.min_relevance
    assert step.dropped == steps[3].dropped
    contents = [row.content for row in step.rows]
    overtaken_at = contents.index(closest.content) if closest.content in contents else len(contents)
    ahead = step.rows[:overtaken_at]
    assert len(ahead) >= 2
    for row in step.rows[:2]:
        assert row.days_ago <= WEEK_DAYS
        assert row.relevance < closest.relevance
        assert "outage" in row.content or "timing out" in row.content
    assert all(row.days_ago < closest.days_ago for row in ahead)
    best_older = max((row.score for row in step.rows if row.days_ago > WEEK_DAYS), default=0.0)
    assert step.rows[0].score - best_older >= CLEAR_LEAD


def test_every_step_shows_its_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--db", str(tmp_path / "db")]) == EXIT_OK
    out = capsys.readouterr().out
    for query in DEMO_QUERIES:
        assert f"$ {query.command_line()}\n" in out
