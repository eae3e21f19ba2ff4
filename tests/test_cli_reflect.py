"""``hebbs reflect``, ``insights``, ``reflect-prepare`` and ``reflect-commit``, in-process on
a ``tmp_path`` store (offline provider), text and ``--json``, and their bad input."""

from __future__ import annotations

import io
import json

import pytest

from hebbs.cli.errors import EXIT_OK, EXIT_USAGE
from test_cli import Cli, cli, db, remember_id
from test_reflect import TOPICS

__all__ = ["cli", "db"]


def _fill(cli: Cli) -> list[str]:
    return [remember_id(cli, text) for texts in TOPICS.values() for text in texts]


def test_reflect_then_insights(cli: Cli) -> None:
    ids = _fill(cli)
    run = cli("reflect", "--json")
    assert run.code == EXIT_OK, run.err
    assert run.json() == {
        "insights_created": 2,
        "clusters_found": 2,
        "clusters_processed": 2,
        "memories_processed": 8,
    }
    text = cli("insights")
    assert text.code == EXIT_OK
    assert text.out.count("4 sources") == 2
    found = cli("insights", "--json").json()["insights"]
    assert {s for i in found for s in i["source_ids"]} == set(ids)
    assert cli("reflect").out.strip() == "0 insights from 0 of 0 clusters (0 memories read)"


def test_prepare_and_commit(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(cli)
    session = cli("reflect-prepare", "--json").json()
    cluster = session["clusters"][0]
    assert cluster["prompt"]
    assert cluster["system"]
    sources = [m["id"] for m in cluster["memories"]]
    answer = json.dumps([{"content": "Hosted insight", "sources": sources, "confidence": 0.5}])
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))
    run = cli("reflect-commit", session["session_id"], "-", "--json")
    assert run.code == EXIT_OK, run.err
    assert run.json()["insights_created"] == 1
    assert cli("insights", "--json").json()["insights"][0]["memory"]["content"] == "Hosted insight"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (("reflect", "--min-cluster-size", "0"), "--min-cluster-size"),
        (("reflect-commit", "s", "not json"), "INSIGHTS"),
        (("reflect-commit", "s", "[]"), "SESSION"),
        (("reflect-commit", "s", '[{"content": "x"}]'), "INSIGHTS"),
        (("insights", "--min-confidence", "2"), "--min-confidence"),
    ],
)
def test_bad_input_names_the_flag(cli: Cli, args: tuple[str, ...], flag: str) -> None:
    run = cli(*args)
    assert run.code == EXIT_USAGE, (run.out, run.err)
    assert flag in run.err


def test_dedup_and_contradictions_on_the_command_line(cli: Cli) -> None:
    first = remember_id(cli, "Alice likes the new dashboard layout", "--entity-id", "alice")
    again = cli(
        "remember",
        "Alice likes the new dashboard layout",
        "--entity-id",
        "alice",
        "--dedup",
        "--json",
    )
    assert again.json()["id"] == first
    newer = remember_id(cli, "Alice dislikes the new dashboard layout", "--entity-id", "alice")
    [pair] = cli("contradictions", "--json").json()["contradictions"]
    assert (pair["older"]["id"], pair["newer"]["id"]) == (first, newer)
    run = cli("confirm-contradiction", first, newer, "--resolution", "revise", "--json")
    assert run.code == EXIT_OK, run.err
    assert run.json()["kind"] == "revision"
    bad = cli("remember", "x", "--dedup-threshold", "3")
    assert bad.code == EXIT_USAGE
    assert "--dedup-threshold" in bad.err
