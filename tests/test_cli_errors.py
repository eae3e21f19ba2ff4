"""The ``hebbs`` command line answers bad input with exit code 2 and a one-line message naming
the flag, never a traceback, and leaves the store as it was. Every command's value-taking flags
get wrong types, negative and huge integers, non-finite numbers, malformed or non-object JSON,
lone surrogates (what undecodable bytes in argv become) and empty strings; then hypothesis
feeds each of them arbitrary strings. A well-formed command the store's state refuses (a
conflict) exits 5 the same way."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hebbs.cli import main
from hebbs.cli.errors import EXIT_CONFLICT, EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from hebbs.cli.fields import GENERATED_DEST
from hebbs.cli.parser import build_parser
from hebbs.cli.runner import DEBUG_ENV
from hebbs.engine import Hebbs
from hebbs.service.keys import KeyStore

#: A lone surrogate: what Python makes of bytes in argv that are not UTF-8.
SURROGATE = "\udcff"
HUGE = "99999999999999999999"
BAD_INTS = ("abc", "-1", HUGE, "1.5", "nan", "inf", "", "5_0", "\u0661\u0662", SURROGATE)
BAD_FRACTIONS = ("high", "-1", "1.5", "nan", "inf", "-inf", "", "1e999", "\uff11", SURROGATE)
BAD_JSON = (
    "{",
    "[1]",
    '"text"',
    "42",
    "null",
    "",
    "{'single': 'quotes'}",
    '{"a": "\\ud800"}',
    '{"\\udcff": 1}',
    "[" * 100_000 + "]" * 100_000,
    '{"a": NaN}',
    '{"a": 1e999}',
    SURROGATE,
)
BAD_TIMES = ("abc", "-1", "", HUGE, "9" * 400 + "d", "1969-12-31", "tomorrow", SURROGATE)
BAD_TEXT = ("", SURROGATE, "a" + SURROGATE)
BAD_IDS = ("", "nothex", "0" * 31, "0" * 33, SURROGATE)
MISSING_ID = "0" * 32
BAD_TENANTS = ("", "../x", "Acme", "a" * 64, "a/b", "-a", ".", SURROGATE)
BAD_DURATIONS = ("abc", "-1d", "0d", "", "1e5d", "999999999d", "30", SURROGATE)
BAD_FILES = ("", "/nonexistent/cert.pem", SURROGATE)
BAD_URLS = (
    "",
    "127.0.0.1:6381",
    "ftp://host",
    "http://",
    "http://host:99999",
    "http://host:port",
    "http://a b",
    SURROGATE,
)
#: Values no flag made from a request field takes: not JSON, or not a finite number.
BAD_GENERATED_JSON = ("{", "", "NaN", "1e999", SURROGATE)
#: Values no text flag made from a request field takes.
BAD_GENERATED_TEXT = (SURROGATE, "a" + SURROGATE)
#: Never echoed: a message names ``--api-key``, never its value.
BAD_KEYS = ("", "hb key", "hb_\u00e9", "\x00", "k" * 257, SURROGATE)
#: A command line that reaches each data command's own flags (which take --url and --api-key).
DATA_COMMANDS = (
    ("remember", "x"),
    ("recall", "x"),
    ("get", MISSING_ID),
    ("revise", MISSING_ID, "--content", "y"),
    ("forget", MISSING_ID),
    ("health",),
    ("prime", "e"),
    ("chat-context", "s"),
    ("orphans",),
    ("list",),
    ("mcp",),
    ("reflect",),
    ("insights",),
    ("reflect-prepare",),
    ("reflect-commit", "s", "[]"),
    ("contradictions",),
    ("confirm-contradiction", MISSING_ID, MISSING_ID),
)
#: Commands whose subcommands take the flags (``keys create --tenant``).
NESTED_COMMANDS = ("keys", "cluster")


@dataclass(frozen=True)
class Flag:
    """A value-taking flag (or positional, ``flag`` None) of a command, after ``base``, the
    rest of a command line that reaches the flag's validation."""

    base: tuple[str, ...]
    flag: str | None
    name: str
    bad: tuple[str, ...]
    #: Whether arbitrary values may be tried (not for ``serve``: a valid one starts a server).
    fuzz: bool = True
    #: What follows a positional's value on the command line (the positionals after it).
    after: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        """The (sub)command the flag belongs to: ``recall``, ``keys create``."""
        return " ".join(self.base[:2]) if self.base[0] in NESTED_COMMANDS else self.base[0]

    def argv(self, value: str) -> list[str]:
        if self.flag is None:
            return [*self.base, "--", value, *self.after]
        return [*self.base, f"{self.flag}={value}"]

    def __str__(self) -> str:
        return f"{' '.join(self.base)} {self.name}"


def subcommand_parsers(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser by its name, nested ones as ``keys create``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                command = f"{prefix} {name}".strip()
                yield command, sub
                yield from subcommand_parsers(sub, command)


def flags(seed_id: str) -> list[Flag]:
    """Every value-taking flag of every command; ``seed_id`` is a memory of the store."""
    listed = listed_flags(seed_id)
    return [*listed, *generated_flags(listed)]


def generated_flags(listed: list[Flag]) -> list[Flag]:
    """A case for each flag made from a request field (``hebbs.cli.fields``) that no case of
    ``listed`` names, with values bad for any field of its kind: a JSON flag's values are not
    JSON or not finite, a text flag's not Unicode text. So a new field's flag is covered without
    a line here; a field whose bad values are narrower gets its own case above."""
    covered = {(flag.command, flag.name) for flag in listed}
    bases = {base[0]: base for base in DATA_COMMANDS}
    found = []
    for command, sub in subcommand_parsers(build_parser()):
        for action in sub._actions:
            name = action.option_strings[-1] if action.option_strings else None
            generated = str(action.dest).startswith(GENERATED_DEST) and action.nargs != 0
            if name is None or not generated or (command, name) in covered:
                continue
            bad = BAD_GENERATED_JSON if action.metavar == "JSON" else BAD_GENERATED_TEXT
            found.append(Flag(bases[command], name, name, bad))
    return found


def listed_flags(seed_id: str) -> list[Flag]:
    """The flags written out here, each with the bad values of its own field."""
    recall = ("recall", "x")
    causal = ("recall", "x", "--strategy", "causal")
    temporal = ("recall", "--strategy", "temporal", "--entity-id", "e")
    return [
        Flag(("remember",), None, "CONTENT", BAD_TEXT),
        Flag(("remember", "x"), "--importance", "--importance", BAD_FRACTIONS),
        Flag(("remember", "x"), "--context", "--context", BAD_JSON),
        Flag(
            ("remember", "x"),
            "--edge",
            "--edge",
            (
                "",
                "x",
                "nothex:caused_by",
                f"{seed_id}:bogus",
                f"{seed_id}:caused_by:2",
                f"{seed_id}:caused_by:nan",
                f"{seed_id}:caused_by:0.5:extra",
                f"{MISSING_ID}:caused_by",
                SURROGATE + ":caused_by",
            ),
        ),
        Flag(("remember", "x"), "--created-at", "--created-at", BAD_TIMES),
        Flag(("remember", "x"), "--entity-id", "--entity-id", (*BAD_TEXT, "a\x00b")),
        Flag(("remember", "x"), "--session", "--session", BAD_TEXT),
        Flag(("remember", "x"), "--kind", "--kind", ("diary", "", SURROGATE)),
        Flag(("recall",), None, "CUE", BAD_TEXT),
        Flag(recall, "--strategy", "--strategy", ("telepathy", "", SURROGATE)),
        Flag(recall, "--top-k", "--top-k", (*BAD_INTS, "0", "1001")),
        Flag(recall, "--entity-id", "--entity-id", (SURROGATE,)),
        Flag(temporal, "--since", "--since", BAD_TIMES),
        Flag(temporal, "--until", "--until", BAD_TIMES),
        Flag(
            recall,
            "--weights",
            "--weights",
            ("a:b:c:d", "1:2", "nan:0:0:0", "inf:0:0:0", "-1:0:0:0", "0:0:0:0", "", SURROGATE),
        ),
        Flag(recall, "--ef-search", "--ef-search", (*BAD_INTS, "0", "501")),
        Flag(recall, "--rrf-k", "--rrf-k", (*BAD_INTS, "0", "99999999999")),
        Flag(causal, "--seed", "--seed", BAD_IDS),
        Flag(causal, "--max-depth", "--max-depth", (*BAD_INTS, "0", "11")),
        Flag(causal, "--edge-type", "--edge-type", ("bogus", "", SURROGATE)),
        Flag(causal, "--direction", "--direction", ("sideways", "", SURROGATE)),
        Flag(recall, "--alpha", "--alpha", BAD_FRACTIONS),
        Flag(recall, "--min-relevance", "--min-relevance", BAD_FRACTIONS),
        Flag(
            recall,
            "--graph-context",
            "--graph-context",
            ("abc", "-1", HUGE, "nan", "21", "", SURROGATE),
        ),
        Flag(recall, "--session", "--session", BAD_TEXT),
        Flag(recall, "--quality", "--quality", ("good", "", SURROGATE)),
        Flag(recall, "--rerank", "--rerank", ("colbert", "", SURROGATE)),
        Flag(recall, "--rerank-top-n", "--rerank-top-n", ("abc", "-1", "0", HUGE, "")),
        Flag(
            ("recall", "x", "--strategy", "analogical"), "--cue-context", "--cue-context", BAD_JSON
        ),
        Flag(
            recall,
            "--filter",
            "--filter",
            (*BAD_JSON, '{"channel": 1}', '{"context.a": {"$in": 1}}', '{"$or": []}'),
        ),
        Flag(("get",), None, "ID", BAD_IDS),
        Flag(("revise", "--content", "y"), None, "ID", BAD_IDS),
        Flag(("revise", seed_id), "--content", "--content", BAD_TEXT),
        Flag(("revise", seed_id), "--importance", "--importance", BAD_FRACTIONS),
        Flag(("revise", seed_id), "--context", "--context", BAD_JSON),
        Flag(("revise", seed_id), "--entity-id", "--entity-id", (*BAD_TEXT, "a\x00b")),
        Flag(("forget",), None, "ID", BAD_IDS[1:]),
        Flag(("forget",), "--entity-id", "--entity-id", BAD_TEXT),
        Flag(("forget",), "--older-than", "--older-than", BAD_TIMES),
        Flag(("forget",), "--importance-below", "--importance-below", BAD_FRACTIONS),
        Flag(("forget",), "--kind", "--kind", ("bogus", "", SURROGATE)),
        Flag(("forget", "--entity-id", "e"), "--limit", "--limit", (*BAD_INTS, "0")),
        Flag(("prime",), None, "ENTITY", BAD_TEXT),
        Flag(("prime", "e"), None, "CUE", BAD_TEXT),
        Flag(("prime", "e"), "--max-memories", "--max-memories", (*BAD_INTS, "0", "1001")),
        Flag(("chat-context",), None, "SESSION", BAD_TEXT),
        Flag(("chat-context", "s"), "--limit", "--limit", (*BAD_INTS, "0")),
        Flag(("orphans",), "--limit", "--limit", (*BAD_INTS, "0")),
        Flag(("list",), "--entity-id", "--entity-id", (*BAD_TEXT, "a\x00b")),
        Flag(("list",), "--kind", "--kind", ("bogus", "", SURROGATE)),
        Flag(("list",), "--filter", "--filter", (*BAD_JSON, '{"context.a": {"$gt": {}}}')),
        Flag(("prime", "e"), "--filter", "--filter", (*BAD_JSON, '{"kind": "diary"}')),
        Flag(("prime", "e"), "--since", "--since", BAD_TIMES),
        Flag(("prime", "e"), "--until", "--until", BAD_TIMES),
        Flag(("prime", "e", "x"), "--weights", "--weights", ("a:b:c:d", "1:2", "nan:0:0:0", "")),
        Flag(("prime", "e", "x"), "--ef-search", "--ef-search", (*BAD_INTS, "0", "501")),
        Flag(("forget",), "--filter", "--filter", (*BAD_JSON, '{"$not": 1}')),
        Flag(("list",), "--cursor", "--cursor", BAD_IDS),
        Flag(("list", "--entity-id", "acme"), "--cursor", "--cursor", (MISSING_ID,)),
        Flag(("list",), "--limit", "--limit", (*BAD_INTS, "0", "1001")),
        Flag(("serve",), "--host", "--host", ("", " ", "a b", SURROGATE), fuzz=False),
        Flag(("serve",), "--port", "--port", (*BAD_INTS, "65536"), fuzz=False),
        Flag(("ui",), "--port", "--port", (*BAD_INTS, "65536"), fuzz=False),
        Flag(("serve",), "--tls-cert", "--tls-cert", BAD_FILES, fuzz=False),
        Flag(("serve",), "--tls-key", "--tls-key", BAD_FILES, fuzz=False),
        Flag(("serve",), "--grpc-port", "--grpc-port", (*BAD_INTS, "65536"), fuzz=False),
        Flag(("import",), None, "FILE", BAD_FILES),
        Flag(("import",), "--from-chroma", "--from-chroma", ("", "/nonexistent/dir", SURROGATE)),
        # A valid value would read Chroma in a subprocess: no fuzz.
        Flag(("import", "--from-chroma", "."), "--collection", "--collection", BAD_TEXT, False),
        Flag(("import", "--from-chroma", "."), "--entity-key", "--entity-key", BAD_TEXT, False),
        Flag(
            ("import", "--from-chroma", "."), "--chroma-python", "--chroma-python", BAD_FILES, False
        ),
        Flag(("keys", "create", "--scope", "read"), "--tenant", "--tenant", BAD_TENANTS),
        Flag(("keys", "create", "--tenant", "t"), "--scope", "--scope", ("god", "", SURROGATE)),
        Flag(
            ("keys", "create", "--tenant", "t", "--scope", "read"),
            "--expires",
            "--expires",
            BAD_DURATIONS,
        ),
        Flag(("keys", "revoke"), None, "KEY_ID", (SURROGATE,)),
        # Not fuzzed: a valid config deploys (or joins) a cluster.
        Flag(("cluster", "serve"), "--config", "--config", BAD_FILES, fuzz=False),
        Flag(("cluster", "add-shard", "c"), "--config", "--config", BAD_FILES, fuzz=False),
        Flag(("cluster", "shards"), "--config", "--config", BAD_FILES, fuzz=False),
        Flag(("cluster", "add-shard", "--config", __file__), None, "NAME", BAD_TENANTS, False),
        Flag(("cluster", "remove-shard", "c"), "--config", "--config", BAD_FILES, fuzz=False),
        Flag(("cluster", "remove-shard", "--config", __file__), None, "NAME", BAD_TENANTS, False),
        Flag(
            ("keys", "create", "--tenant", "t", "--scope", "read"),
            "--org",
            "--org",
            (*BAD_TENANTS, "t"),
        ),
        Flag(("keys", "join", "--org", "acme"), "--tenant", "--tenant", BAD_TENANTS),
        Flag(("keys", "join", "--tenant", "t"), "--org", "--org", (*BAD_TENANTS, "t")),
        Flag(("keys", "leave"), "--tenant", "--tenant", BAD_TENANTS),
        Flag(
            (*recall, "--include-organization"),
            "--organization",
            "--organization",
            ("", SURROGATE),
            fuzz=False,  # an arbitrary valid path would be a store in the working directory
        ),
        Flag(("remember", "x"), "--dedup-threshold", "--dedup-threshold", BAD_FRACTIONS),
        Flag(("remember", "x"), "--key", "--key", (*BAD_TEXT, "k" * 1025)),
        Flag(("forget",), "--keys", "--keys", ("{", '"k"', "[1]", '[""]', "{}", SURROGATE)),
        Flag(("list",), "--key-prefix", "--key-prefix", (SURROGATE, "k" * 1025)),
        *reflection_flags(),
        *remote_flags(),
    ]


def reflection_flags() -> list[Flag]:
    """The flags of reflect, insights, reflect-prepare, reflect-commit, contradictions,
    confirm-contradiction and index."""
    found = []
    for command in ("reflect", "reflect-prepare"):
        found += [
            Flag((command,), "--entity-id", "--entity-id", (*BAD_TEXT, "a\x00b")),
            Flag((command,), "--max-memories", "--max-memories", (*BAD_INTS, "0")),
            Flag((command,), "--min-cluster-size", "--min-cluster-size", (*BAD_INTS, "0")),
        ]
    return [
        *found,
        Flag(("reflect",), "--since", "--since", BAD_TIMES),
        Flag(("reflect",), "--min-confidence", "--min-confidence", BAD_FRACTIONS),
        Flag(("reflect-prepare",), "--ttl", "--ttl", BAD_DURATIONS),
        Flag(("insights",), "--entity-id", "--entity-id", (*BAD_TEXT, "a\x00b")),
        Flag(("insights",), "--min-confidence", "--min-confidence", BAD_FRACTIONS),
        Flag(("reflect-commit",), None, "SESSION", BAD_TEXT, after=("[]",)),
        Flag(
            ("reflect-commit", "s"),
            None,
            "INSIGHTS",
            ("", "{", "[1]", '[{"content": ""}]', '{"a": 1}', SURROGATE),
        ),
        Flag(("contradictions",), "--entity-id", "--entity-id", (*BAD_TEXT, "a\x00b")),
        Flag(("contradictions",), "--threshold", "--threshold", BAD_FRACTIONS),
        Flag(("contradictions",), "--limit", "--limit", (*BAD_INTS, "0")),
        Flag(("confirm-contradiction",), None, "OLDER", BAD_IDS, after=(MISSING_ID,)),
        Flag(("confirm-contradiction", MISSING_ID), None, "NEWER", BAD_IDS),
        Flag(
            ("confirm-contradiction", MISSING_ID, MISSING_ID),
            "--resolution",
            "--resolution",
            ("bogus", "", SURROGATE),
        ),
        # Not fuzzed: any value could name a real folder and index it.
        Flag(("index",), None, "PATH", ("", "/nonexistent/docs", SURROGATE), fuzz=False),
    ]


def remote_flags() -> list[Flag]:
    """``--url`` and ``--api-key`` of every data command. One parser function adds them to
    all, so the first command gets every bad value and the fuzz, the others one value each.
    With ``--db`` given, a valid value is a usage error too: no test here reaches a server."""
    first, *others = DATA_COMMANDS
    found = [
        Flag(first, "--url", "--url", BAD_URLS),
        Flag(first, "--api-key", "--api-key", BAD_KEYS),
    ]
    for base in others:
        found.append(Flag(base, "--url", "--url", BAD_URLS[2:3], fuzz=False))
        found.append(Flag(base, "--api-key", "--api-key", BAD_KEYS[1:2], fuzz=False))
    return found


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def run_main(*argv: str) -> Run:
    """``hebbs ARGV`` in-process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return Run(code, out.getvalue(), err.getvalue())


class Store:
    """A store holding two memories (the second caused by the first), and a way to see that a
    command left it as it was."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.seed_id = self._remember("Acme asked for a refund", "--entity-id", "acme")
        self.other_id = self._remember(
            "The refund was approved", "--edge", f"{self.seed_id}:caused_by"
        )

    def _remember(self, *argv: str) -> str:
        run = self.run("remember", *argv, "--json")
        assert run.code == EXIT_OK, run.err
        memory_id: str = json.loads(run.out)["id"]
        return memory_id

    def run(self, *argv: str) -> Run:
        return run_main("--db", self.path, *argv)

    def snapshot(self) -> tuple[int, list[tuple[str, float, str | None, bool]]]:
        """The memory count and both memories' content, importance, entity and supersession."""
        with Hebbs.open(self.path) as engine:
            count = engine.health().memory_count
            memories = [engine.get(memory_id) for memory_id in (self.seed_id, self.other_id)]
        return count, [(m.content, m.importance, m.entity_id, m.superseded) for m in memories]


def new_store(factory: pytest.TempPathFactory, name: str) -> Iterator[Store]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(DEBUG_ENV, raising=False)
        yield Store(factory.mktemp(name) / "db")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The store of the bad-value tests: every command against it must leave it unchanged."""
    yield from new_store(tmp_path_factory, "cli-errors")


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The store of the arbitrary-value tests: some values are valid and change it."""
    yield from new_store(tmp_path_factory, "cli-fuzz")


def assert_no_traceback(run: Run) -> None:
    assert "Traceback" not in run.err
    assert ": error: unexpected " not in run.err, run.err


def assert_usage_error(run: Run, name: str) -> None:
    assert run.code == EXIT_USAGE, (run.code, run.err)
    assert run.out == ""
    assert name in run.err, run.err
    assert len(run.err.strip().splitlines()) == 1, run.err
    assert_no_traceback(run)


def bad_cases() -> list[tuple[str, str]]:
    """(flag id, bad value) pairs, named with a placeholder seed id (resolved per store)."""
    return [(str(flag), value) for flag in flags("SEED") for value in flag.bad]


def resolve(store: Store, flag_id: str) -> Flag:
    (flag,) = [
        flag for flag in flags(store.seed_id) if str(flag).replace(store.seed_id, "SEED") == flag_id
    ]
    return flag


@pytest.mark.parametrize(("flag_id", "value"), bad_cases())
def test_bad_value_exits_2_naming_the_flag(store: Store, flag_id: str, value: str) -> None:
    flag = resolve(store, flag_id)
    value = value.replace("SEED", store.seed_id)
    before = store.snapshot()
    run = store.run(*flag.argv(value))
    assert_usage_error(run, flag.name)
    if flag.name == "--api-key" and value:
        assert value not in run.err
    assert store.snapshot() == before


def test_every_value_flag_of_the_parser_is_covered(store: Store) -> None:
    covered = {(flag.command, flag.name) for flag in flags(store.seed_id)}
    for command, sub in subcommand_parsers(build_parser()):
        if command == "demo":
            continue
        for action in sub._actions:
            if action.nargs in (0, argparse.PARSER) or action.dest == "db":
                continue
            name = action.option_strings[-1] if action.option_strings else action.metavar
            assert (command, name) in covered, f"{command} {name} has no bad-input case"


def test_serve_refuses_no_auth_on_a_public_host(store: Store) -> None:
    run = store.run("serve", "--no-auth", "--host", "0.0.0.0")
    assert_usage_error(run, "--no-auth")


def test_serve_refuses_a_certificate_without_its_key(store: Store, tmp_path: Path) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("not used")
    assert_usage_error(store.run("serve", "--tls-cert", str(cert)), "--tls-cert")


def test_demo_refuses_a_store_that_is_not_empty(store: Store) -> None:
    before = store.snapshot()
    run = store.run("demo")
    assert_usage_error(run, "--db")
    assert store.snapshot() == before


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (("forget",), "ID"),
        (("revise", MISSING_ID), "--content"),
        (("recall",), "CUE"),
        (("recall", "x", "--since", "1d"), "--since/--until"),
        (("recall", "x", "--top-k", "abc"), "--top-k"),
    ],
)
def test_usage_errors_create_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], name: str
) -> None:
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    path = tmp_path / "never"
    assert_usage_error(run_main("--db", str(path), *argv), name)
    assert not path.exists()


def test_missing_memories_exit_1(store: Store) -> None:
    for argv in (("get", MISSING_ID), ("revise", MISSING_ID, "--content", "y")):
        run = store.run(*argv)
        assert run.code == EXIT_FAILURE
        assert "not found" in run.err
        assert_no_traceback(run)


def assert_conflict(run: Run, name: str) -> None:
    assert run.code == EXIT_CONFLICT, (run.code, run.err)
    assert run.out == ""
    assert f"error: conflict on {name}: " in run.err, run.err
    assert len(run.err.strip().splitlines()) == 1, run.err
    assert_no_traceback(run)


def test_conflicts_exit_5_naming_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A well-formed command the store's state refuses (revising a superseded memory, a tenant
    of one organization joining another) exits 5 naming the flag, and changes nothing."""
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    own = Store(tmp_path / "db")
    revised = own.run("revise", own.seed_id, "--content", "Acme asked for a credit", "--json")
    assert revised.code == EXIT_OK, revised.err
    newer = json.loads(revised.out)["id"]
    before = own.snapshot()
    stale = own.run("revise", own.seed_id, "--content", "Acme asked for cash")
    assert_conflict(stale, "ID")
    assert newer in stale.err
    assert own.snapshot() == before
    as_json = own.run("revise", own.seed_id, "--content", "again", "--json")
    assert as_json.code == EXIT_CONFLICT
    error = json.loads(as_json.err)["error"]
    assert (error["kind"], error["field"]) == ("conflict", "ID")

    keys = str(tmp_path / "server")
    joined = run_main("keys", "join", "--db", keys, "--tenant", "alice", "--org", "acme")
    assert joined.code == EXIT_OK, joined.err
    moved = run_main("keys", "join", "--db", keys, "--tenant", "alice", "--org", "globex")
    assert_conflict(moved, "--org")
    assert "leave it first" in moved.err
    argv = ("keys", "create", "--db", keys, "--tenant", "alice", "--scope", "read")
    assert_conflict(run_main(*argv, "--org", "globex"), "--org")
    store = KeyStore(keys)
    try:
        assert store.organization("alice") == "acme"
        assert store.list() == [], "the refused create made no key"
    finally:
        store.close()


#: The field a usage error or a conflict names: ``error: argument --top-k:``, ``error: invalid
#: ID:``, ``error: --since/--until:``, ``error: conflict on ID:``.
NAMED_FIELD = re.compile(r"error: (?:argument |invalid |conflict on )?(\S+?):")


def argument_names(command: str) -> set[str]:
    """The option strings and positional metavars of ``command`` (``keys create`` too)."""
    sub = dict(subcommand_parsers(build_parser()))[command]
    names = {name for action in sub._actions for name in action.option_strings}
    return names | {a.metavar for a in sub._actions if not a.option_strings and a.metavar}


#: Arbitrary text, lone surrogates included.
ANY_TEXT = st.text(
    st.one_of(
        st.characters(),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"]),
    ),
    max_size=40,
)


@pytest.mark.parametrize("flag_id", sorted({str(flag) for flag in flags("SEED") if flag.fuzz}))
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(value=ANY_TEXT)
def test_arbitrary_values_never_raise(fuzz_store: Store, flag_id: str, value: str) -> None:
    flag = resolve(fuzz_store, flag_id)
    with Hebbs.open(fuzz_store.path) as engine:
        count_before = engine.health().memory_count
    run = fuzz_store.run(*flag.argv(value))
    assert run.code in (EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_CONFLICT), (run.code, run.err)
    assert_no_traceback(run)
    if run.code in (EXIT_USAGE, EXIT_CONFLICT):
        named = NAMED_FIELD.search(run.err)
        assert named is not None, run.err
        assert set(named.group(1).split("/")) <= argument_names(flag.command), run.err
        with Hebbs.open(fuzz_store.path) as engine:
            assert engine.health().memory_count == count_before
