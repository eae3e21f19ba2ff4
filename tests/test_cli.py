"""Tests of the ``hebbs`` command line: ``main([...])`` in-process on ``tmp_path`` stores with
the bundled embedder, plus one run of the installed console script."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from hebbs.cli import main, values
from hebbs.cli.demo import DEMO_QUERIES, load_sample
from hebbs.cli.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE

DISCOUNT = "Acme's CFO asked for a 15% discount if they commit to a three-year contract."
OTHER_MEMORIES = (
    "The office coffee machine broke again on Tuesday morning.",
    "Maya is flying to Berlin next month for the logistics trade fair.",
    "Globex reported duplicate shipment notifications going out to their customers.",
    "Nimbus asked whether we connect to QuickBooks for their invoicing.",
)
PARAPHRASE = "Which customer wanted a price cut in exchange for a longer commitment?"
MISSING_ID = "0" * 32


class Run:
    """The outcome of one ``main`` call."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "db")


#: Runs ``hebbs ARGS --db DB`` in-process.
Cli = Callable[..., Run]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], db: str) -> Cli:
    """Runs ``hebbs ARGS --db DB`` in-process and captures its output."""

    def run(*args: str) -> Run:
        code = main([*args, "--db", db])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def remember_id(cli: Cli, content: str, *options: str) -> str:
    run = cli("remember", content, "--json", *options)
    assert run.code == EXIT_OK, run.err
    memory_id: str = run.json()["id"]
    return memory_id


def assert_usage_error(run: Run, field: str) -> None:
    assert run.code == EXIT_USAGE
    assert run.out == ""
    assert field in run.err
    assert "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) == 1


def test_remember_then_get_round_trip(cli: Cli) -> None:
    run = cli(
        "remember",
        DISCOUNT,
        "--entity-id",
        "acme",
        "--importance",
        "0.8",
        "--context",
        '{"channel": "call", "topic": "pricing"}',
        "--created-at",
        "2024-01-02T03:04:05Z",
    )
    assert run.code == EXIT_OK, run.err
    first_line = run.out.splitlines()[0]
    assert first_line.startswith("remembered ")
    memory_id = first_line.split()[1]
    assert len(memory_id) == 32

    got = cli("get", memory_id)
    assert got.code == EXIT_OK, got.err
    assert DISCOUNT in got.out
    assert memory_id in got.out
    assert "2024-01-02T03:04:05Z" in got.out

    payload = cli("get", memory_id, "--json").json()
    assert payload["content"] == DISCOUNT
    assert payload["entity_id"] == "acme"
    assert payload["importance"] == pytest.approx(0.8)
    assert payload["context"] == {"channel": "call", "topic": "pricing"}
    assert payload["created_at_iso"] == "2024-01-02T03:04:05Z"
    assert payload["kind"] == "episode"


def test_get_unknown_and_malformed_ids(cli: Cli) -> None:
    missing = cli("get", MISSING_ID)
    assert missing.code == EXIT_FAILURE
    assert "not found" in missing.err
    assert "Traceback" not in missing.err
    assert_usage_error(cli("get", "not-an-id"), "ID")


def test_get_with_embedding(cli: Cli) -> None:
    memory_id = remember_id(cli, DISCOUNT)
    payload = cli("get", memory_id, "--with-embedding", "--json").json()
    assert len(payload["embedding"]) == 384
    assert "dimension 384" in cli("get", memory_id, "--with-embedding").out


@pytest.mark.parametrize("edge_type", ["caused_by", "CausedBy", "CAUSED_BY"])
def test_edge_types_accept_snake_and_camel_case(cli: Cli, edge_type: str) -> None:
    cause = remember_id(cli, "The sync service stopped processing shipments.")
    run = cli(
        "remember",
        "Globex lost four hours of tracking.",
        "--json",
        "--edge",
        f"{cause}:{edge_type}:0.9",
    )
    assert run.code == EXIT_OK, run.err
    [edge] = run.json()["edges"]
    assert edge == {"target": cause, "edge_type": "caused_by", "confidence": pytest.approx(0.9)}


def test_edge_without_confidence_and_repeated(cli: Cli) -> None:
    first = remember_id(cli, "Acme asked for a discount.")
    second = remember_id(cli, "Maya approved ten percent off.")
    run = cli(
        "remember",
        "Sent the revised quote.",
        "--json",
        "--edge",
        f"{first}:related_to",
        "--edge",
        f"{second}:FollowedBy:0.5",
    )
    assert run.code == EXIT_OK, run.err
    edges = run.json()["edges"]
    assert [edge["edge_type"] for edge in edges] == ["related_to", "followed_by"]
    assert edges[0]["confidence"] == pytest.approx(1.0)
    assert "related_to -> " in cli("remember", "Again.", "--edge", f"{first}:related_to").out


@pytest.mark.parametrize(
    "edge",
    [
        f"{MISSING_ID}:causes:0.9",
        f"{MISSING_ID}:caused_by:1.5",
        f"{MISSING_ID}:caused_by:high",
        "caused_by",
        f"{MISSING_ID}:caused_by:0.5:extra",
        "not-an-id:caused_by",
        f"{MISSING_ID}:caused_by",
    ],
)
def test_bad_edges_exit_2_naming_the_field(cli: Cli, edge: str) -> None:
    assert_usage_error(cli("remember", "An effect.", "--edge", edge), "--edge")
    assert cli("health", "--json").json()["memory_count"] == 0


def test_bad_edge_type_message_lists_the_types(cli: Cli) -> None:
    run = cli("remember", "An effect.", "--edge", f"{MISSING_ID}:causes")
    assert "unknown edge type 'causes'" in run.err
    assert "caused_by, related_to, followed_by, revised_from, insight_from" in run.err


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--importance", "1.5"], "--importance"),
        (["--importance", "nan"], "--importance"),
        (["--context", "[1, 2]"], "--context"),
        (["--context", "{oops"], "--context"),
        (["--created-at", "yesterday"], "--created-at"),
        (["--created-at", "2999-01-01"], "--created-at"),
    ],
)
def test_bad_remember_input_exits_2(cli: Cli, args: list[str], field: str) -> None:
    assert_usage_error(cli("remember", "Something.", *args), field)


def test_empty_content_exits_2(cli: Cli) -> None:
    assert_usage_error(cli("remember", "   "), "CONTENT")


def test_weights_parse_in_seed_order() -> None:
    assert values.weights("0.3:0.5:0.2:0") == (0.3, 0.5, 0.2, 0.0)
    for bad in ["0.3:0.5:0.2", "0.3:0.5:0.2:0:0.1", "a:b:c:d", "-0.1:0.5:0.2:0", "0:0:0:0"]:
        with pytest.raises(argparse.ArgumentTypeError):
            values.weights(bad)


@pytest.mark.parametrize("weights", ["0.3:0.5:0.2", "0.3:0.5:0.2:0:1", "0.3:x:0.2:0", "0:0:0:0"])
def test_bad_weights_exit_2(cli: Cli, weights: str) -> None:
    assert_usage_error(cli("recall", "pricing", "--weights", weights), "--weights")


def test_weights_change_the_ranking(cli: Cli) -> None:
    old = remember_id(
        cli,
        "Globex had a four-hour outage of shipment tracking.",
        "--created-at",
        "25d",
        "--importance",
        "0.5",
    )
    new = remember_id(
        cli,
        "The Nimbus trial workspace was down for an hour.",
        "--created-at",
        "1h",
        "--importance",
        "0.5",
    )
    cue = "Globex shipment tracking outage"
    relevance_only = cli("recall", cue, "--json", "--weights", "1:0:0:0").json()["results"]
    recency_only = cli("recall", cue, "--json", "--weights", "0:1:0:0").json()["results"]
    assert relevance_only[0]["memory"]["id"] == old
    assert recency_only[0]["memory"]["id"] == new


def test_recall_paraphrase_ranks_the_memory_first(cli: Cli) -> None:
    for content in (*OTHER_MEMORIES, DISCOUNT):
        remember_id(cli, content, "--entity-id", "acme")
    run = cli("recall", PARAPHRASE, "--top-k", "3")
    assert run.code == EXIT_OK, run.err
    header, first_row, *_ = run.out.splitlines()
    assert header.split()[:3] == ["#", "score", "hybrid"], "the default pipeline"
    assert first_row.split()[0] == "1"
    assert "Acme's CFO asked for a 15% discount" in first_row
    assert "rerank=" in first_row
    assert "li=" in first_row

    results = cli("recall", PARAPHRASE, "--json").json()["results"]
    assert results[0]["memory"]["content"] == DISCOUNT
    [detail] = results[0]["strategy_details"]
    assert detail["strategy"] == "hybrid"
    assert detail["rerank_score"] is not None
    assert results[0]["scores"]["relevance"] == 1.0

    similarity = cli("recall", PARAPHRASE, "--strategy", "similarity", "--json").json()
    [detail] = similarity["results"][0]["strategy_details"]
    assert detail["strategy"] == "similarity"
    assert detail["relevance"] == pytest.approx(1 - detail["distance"], abs=1e-4)


def test_temporal_recall_lists_an_entity_newest_first(cli: Cli) -> None:
    ids = [
        remember_id(
            cli,
            f"Globex event {days} days ago.",
            "--entity-id",
            "globex",
            "--created-at",
            f"{days}d",
        )
        for days in (9, 3, 6, 1)
    ]
    remember_id(cli, "An acme event.", "--entity-id", "acme", "--created-at", "2d")
    run = cli("recall", "--entity-id", "globex", "--json")
    assert run.code == EXIT_OK, run.err
    results = run.json()["results"]
    assert [result["memory"]["id"] for result in results] == [ids[3], ids[1], ids[2], ids[0]]
    assert [result["strategy_details"][0]["rank"] for result in results] == [0, 1, 2, 3]
    stamps = [result["memory"]["created_at"] for result in results]
    assert stamps == sorted(stamps, reverse=True)

    text = cli("recall", "--strategy", "temporal", "--entity-id", "globex").out.splitlines()
    assert "temporal" in text[0]
    assert [line.split()[-3] for line in text[1:]] == ["1", "3", "6", "9"]
    assert "rank=0" in text[1]


def test_causal_recall_walks_the_edges_with_depths(cli: Cli) -> None:
    outage = remember_id(cli, "The payments database ran out of disk space.")
    alert = remember_id(cli, "The on-call engineer was paged.", "--edge", f"{outage}:caused_by")
    rollback = remember_id(
        cli, "The team rolled back the release.", "--edge", f"{alert}:caused_by:0.8"
    )
    remember_id(cli, "Lunch was pizza.")
    run = cli("recall", "--seed", rollback, "--direction", "causes", "--json")
    assert run.code == EXIT_OK, run.err
    results = run.json()["results"]
    depth = {r["memory"]["id"]: r["strategy_details"][0]["depth"] for r in results}
    assert depth == {alert: 1, outage: 2}
    text = cli("recall", "--seed", outage, "--strategy", "causal", "--direction", "effects").out
    assert "depth=1" in text
    assert "depth=2" in text
    assert "pizza" not in text


def test_analogical_recall_prints_both_components(cli: Cli) -> None:
    remember_id(
        cli,
        "The bakery's new oven burned the first batch.",
        "--context",
        '{"entities": ["baker", "oven"], "action": "replace", "outcome": "failure"}',
    )
    remember_id(cli, "A checklist for database migrations.", "--context", '{"pages": 4}')
    run = cli(
        "recall",
        "the database migration failed",
        "--strategy",
        "analogical",
        "--cue-context",
        '{"entities": ["team", "db"], "action": "migrate", "outcome": "failure"}',
        "--alpha",
        "0.3",
        "--json",
    )
    assert run.code == EXIT_OK, run.err
    first = run.json()["results"][0]
    assert "oven" in first["memory"]["content"]
    detail = first["strategy_details"][0]
    assert detail["strategy"] == "analogical"
    assert detail["structural_similarity"] > 0.5
    assert 0.0 <= detail["embedding_similarity"] <= 1.0


def test_prime_blends_timeline_and_cue(cli: Cli) -> None:
    for days, text in [(5, "Acme asked about pricing tiers."), (1, "Acme's CTO joined a call.")]:
        remember_id(cli, text, "--entity-id", "acme", "--created-at", f"{days}d")
    remember_id(cli, "Globex asked about pricing.", "--entity-id", "globex")
    payload = cli("prime", "acme", "pricing questions", "--json").json()
    contents = [r["memory"]["content"] for r in payload["results"]]
    assert sorted(contents) == sorted(
        ["Acme asked about pricing tiers.", "Acme's CTO joined a call."]
    )
    assert payload["temporal_count"] == 2
    assert payload["similarity_count"] == 2
    text = cli("prime", "acme").out
    assert "2 from the timeline, 0 near the cue" in text
    assert_usage_error(cli("prime", "acme", "--max-memories", "0"), "--max-memories")


def test_hybrid_regex_floor_sessions_and_orphans(cli: Cli) -> None:
    ticket = remember_id(cli, "Ticket INC4711: the invoice export times out", "--session", "c1")
    remember_id(cli, "The coffee machine is broken", "--edge", f"{ticket}:related_to")
    hybrid = cli(
        "recall", "INC4711 invoice export", "--strategy", "hybrid", "--graph-context", "3", "--json"
    ).json()
    top = hybrid["results"][0]
    assert top["memory"]["id"] == ticket
    assert top["strategy_details"][0]["rrf_score"] > 0
    assert top["expansion_context"][0]["direction"] == "incoming"
    text = cli("recall", "INC4711", "--strategy", "keyword").out
    assert "bm25=" in text
    regex = cli("recall", r"INC\d{4}", "--regex", "--json").json()
    assert [r["memory"]["id"] for r in regex["results"]] == [ticket]
    floored = cli("recall", "invoice export", "--min-relevance", "0.99", "--json").json()
    assert floored["below_threshold"] >= 1
    assert cli("chat-context", "c1", "--json").json()["memories"][0]["id"] == ticket
    assert cli("orphans").out.strip() == "no memories"
    assert_usage_error(cli("recall", "(", "--regex"), "CUE")
    assert_usage_error(cli("recall", "x", "--min-relevance", "2"), "--min-relevance")


def test_recall_filter(cli: Cli) -> None:
    email = remember_id(cli, "Refund asked by email", "--context", '{"channel": "email"}')
    remember_id(cli, "Refund asked on chat", "--context", '{"channel": "chat"}')
    found = cli("recall", "refund", "--filter", '{"context.channel": "email"}', "--json").json()
    assert [hit["memory"]["id"] for hit in found["results"]] == [email]
    listed = cli("list", "--filter", '{"context.channel": "chat"}', "--json").json()
    assert [m["content"] for m in listed["memories"]] == ["Refund asked on chat"]
    forgot = cli("forget", "--filter", '{"context.channel": "chat"}', "--json").json()
    assert forgot["forgotten_count"] == 1
    bad = cli("recall", "refund", "--filter", '{"context.channel": {"$gt": [1]}}')
    assert bad.code != EXIT_OK
    assert "filter.context.channel.$gt" in bad.err


def test_recall_quality_best_reranks_in_the_core(cli: Cli) -> None:
    ticket = remember_id(cli, "Ticket INC4711: the invoice export times out", "--session", "c1")
    # Another conversation: a neighbour of the head in its own would join the head.
    remember_id(cli, "The coffee machine is broken", "--session", "c2")
    best = cli("recall", "invoice export timeout", "--quality", "best", "--json").json()
    top = best["results"][0]
    assert top["memory"]["id"] == ticket
    assert top["strategy_details"][0]["strategy"] == "hybrid"
    assert top["strategy_details"][0]["rerank_score"] is not None
    assert top["strategy_details"][0]["late_interaction_score"] is not None
    assert "rerank=" in cli("recall", "invoice export", "--quality", "best").out
    spelled = cli(
        "recall",
        "invoice export",
        "--strategy",
        "hybrid",
        "--rerank",
        "late_interaction",
        "--rerank-top-n",
        "1",
        "--json",
    ).json()
    assert spelled["results"][0]["strategy_details"][0]["rerank_score"] is not None
    assert spelled["results"][1]["strategy_details"][0]["rerank_score"] is None
    fast = cli("recall", "invoice export", "--quality", "fast", "--json").json()["results"]
    assert fast[0]["strategy_details"][0]["strategy"] == "hybrid"
    assert all(hit["strategy_details"][0]["rerank_score"] is None for hit in fast)
    assert_usage_error(cli("recall", "x", "--quality", "good"), "--quality")


def test_list_pages_with_a_cursor(cli: Cli) -> None:
    ids = [remember_id(cli, f"listed {i}", "--entity-id", "lister") for i in range(3)]
    remember_id(cli, "someone else's", "--entity-id", "other")
    first = cli("list", "--entity-id", "lister", "--limit", "2", "--json").json()
    assert [m["id"] for m in first["memories"]] == ids[:2]
    assert first["next_cursor"] == ids[1]
    text = cli("list", "--entity-id", "lister", "--limit", "2").out
    assert f"next page: --cursor {ids[1]}" in text
    rest = cli("list", "--entity-id", "lister", "--cursor", ids[1], "--json").json()
    assert ([m["id"] for m in rest["memories"]], rest["next_cursor"]) == ([ids[2]], None)
    assert cli("list", "--kind", "insight").out.strip() == "no memories"
    everything = cli("list", "--json").json()["memories"]
    assert len(everything) == 4
    assert_usage_error(cli("list", "--limit", "1001"), "--limit")
    assert_usage_error(cli("list", "--entity-id", "lister", "--cursor", "0" * 32), "--cursor")


def test_temporal_recall_time_range(cli: Cli) -> None:
    for days in (10, 5, 1):
        remember_id(
            cli, f"Maya note {days} days ago.", "--entity-id", "maya", "--created-at", f"{days}d"
        )
    since = (datetime.now(timezone.utc) - timedelta(days=7)).isoformat()
    results = cli(
        "recall", "--entity-id", "maya", "--since", since, "--until", "2d", "--json"
    ).json()["results"]
    assert [result["memory"]["content"] for result in results] == ["Maya note 5 days ago."]


def test_recall_input_errors(cli: Cli) -> None:
    assert_usage_error(cli("recall"), "CUE")
    assert_usage_error(cli("recall", "x", "--strategy", "telepathy"), "--strategy")
    assert_usage_error(cli("recall", "x", "--direction", "sideways"), "--direction")
    assert_usage_error(cli("recall", "x", "--alpha", "2"), "--alpha")
    assert_usage_error(
        cli("recall", "x", "--strategy", "causal", "--max-depth", "11"), "--max-depth"
    )
    assert_usage_error(cli("recall", "--seed", "nothex"), "--seed")
    assert_usage_error(cli("recall", "x", "--cue-context", "[1]"), "--cue-context")
    assert_usage_error(cli("recall", "--strategy", "temporal"), "--entity-id")
    assert_usage_error(cli("recall", "x", "--since", "1d"), "--since")
    assert_usage_error(cli("recall", "x", "--top-k", "0"), "--top-k")
    assert_usage_error(cli("recall", "x", "--top-k", "5000"), "--top-k")
    assert_usage_error(cli("recall", "x", "--ef-search", "100000"), "--ef-search")
    assert_usage_error(
        cli("recall", "--entity-id", "e", "--since", "1d", "--until", "2d"), "--since/--until"
    )


def test_recall_on_an_empty_store(cli: Cli) -> None:
    run = cli("recall", "anything")
    assert run.code == EXIT_OK
    assert "no memories matched" in run.out


def test_health_json_has_memory_count(cli: Cli) -> None:
    for content in OTHER_MEMORIES[:2]:
        remember_id(cli, content)
    payload = cli("health", "--json").json()
    assert payload["memory_count"] == 2
    assert payload["serving"] is True
    assert payload["version"]
    text = cli("health").out
    assert "memory_count" in text
    assert "2" in text


def test_db_from_option_before_the_command_and_from_env(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tmp_path / "before"
    assert main(["--db", str(before), "remember", "Stored before."]) == EXIT_OK
    assert main(["--json", "--db", str(before), "health"]) == EXIT_OK
    capsys.readouterr()
    from_env = tmp_path / "env"
    monkeypatch.setenv("HEBBS_DB", str(from_env))
    assert main(["remember", "Stored through the environment."]) == EXIT_OK
    assert from_env.is_dir()


def test_errors_are_json_with_json_flag(cli: Cli) -> None:
    run = cli("recall", "x", "--weights", "1:2", "--json")
    assert run.code == EXIT_USAGE
    error = json.loads(run.err)
    assert error["exit_code"] == EXIT_USAGE
    assert "--weights" in error["error"]["message"]
    missing = json.loads(cli("get", MISSING_ID, "--json").err)
    assert missing["error"]["kind"] == "not_found"


def test_help_and_missing_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == EXIT_OK
    assert "remember" in capsys.readouterr().out
    assert main([]) == EXIT_USAGE
    assert "COMMAND" in capsys.readouterr().err
    assert main(["forget"]) == EXIT_USAGE


def test_timestamp_values() -> None:
    assert values.timestamp("1700000000000000") == 1_700_000_000_000_000
    assert values.timestamp("1970-01-01T00:00:01") == 1_000_000
    assert values.timestamp("1970-01-01T01:00:00+01:00") == 0
    week_ago = datetime.now(timezone.utc) - timedelta(days=7)
    assert abs(values.timestamp("7d") - values.to_micros(week_ago)) < 60_000_000
    with pytest.raises(argparse.ArgumentTypeError):
        values.timestamp("1960-01-01")


def test_sample_is_bundled_and_well_formed() -> None:
    sample = load_sample()
    assert 40 <= len(sample) <= 60
    assert {memory["entity_id"] for memory in sample} == {"acme", "globex", "maya", "nimbus"}
    assert max(memory["days_ago"] for memory in sample) >= 55
    assert all(isinstance(memory["context"], dict) for memory in sample)
    assert DISCOUNT in {memory["content"] for memory in sample}


def test_demo_runs_and_finds_the_paraphrase(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == EXIT_OK
    out = capsys.readouterr().out
    for query in DEMO_QUERIES:
        assert query.heading in out
    paraphrase_section = out.split("[1/")[1].split("[2/")[0]
    first_row = paraphrase_section.splitlines()[3]
    assert first_row.split()[0] == "1"
    assert "Acme's CFO asked for a 15% discount" in first_row


def test_demo_json_in_a_given_store(capsys: pytest.CaptureFixture[str], db: str) -> None:
    assert main(["demo", "--db", db, "--json"]) == EXIT_OK
    payload = json.loads(capsys.readouterr().out)
    assert payload["memories"] == len(load_sample())
    queries = payload["queries"]
    assert queries[0]["results"][0]["memory"]["content"] == DISCOUNT
    timeline = queries[1]["results"]
    assert {result["memory"]["entity_id"] for result in timeline} == {"globex"}
    assert [result["strategy_details"][0]["rank"] for result in timeline] == [0, 1, 2, 3, 4]
    assert {result["memory"]["entity_id"] for result in queries[2]["results"]} == {"maya"}
    assert "--weights 0.3:0.5:0.2:0" in queries[4]["command"]
    assert main(["demo", "--db", db]) == EXIT_USAGE
    assert "already holds" in capsys.readouterr().err


def test_console_script_health(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("hebbs")
    if not script.exists():
        pytest.skip(f"the hebbs console script is not installed next to {sys.executable}")
    done = subprocess.run(
        [str(script), "health", "--db", str(tmp_path / "db"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["memory_count"] == 0
