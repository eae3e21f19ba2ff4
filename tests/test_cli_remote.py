"""The ``hebbs`` command line against a real server on loopback (``--url``): every data command
prints the same ``--json`` through a server (with API keys, and ``--no-auth``) as through
``--db`` on a store holding the same memories; a refused key, a missing key and an unreachable
server exit with their own codes and one line; ``HEBBS_URL`` / ``HEBBS_API_KEY`` are honoured.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hebbs import HebbsClient
from hebbs.cli import main
from hebbs.cli.errors import EXIT_AUTH, EXIT_FAILURE, EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE
from hebbs.cli.runner import DEBUG_ENV
from hebbs.cli.store import API_KEY_ENV, DB_ENV, URL_ENV
from hebbs.embedder import Embedder
from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

#: Scores differ by the recency a few milliseconds add; everything else is equal.
SCORE_TOLERANCE = 1e-3
#: Keys whose values are the time a call ran, not what it stored.
CLOCK_KEYS = frozenset({"updated_at", "last_accessed_at", "uptime_seconds"})
#: A revision is created now: its creation time is the clock's too.
NOW_KEYS = frozenset({"created_at", "created_at_iso"})
HEX_ID = re.compile(r"[0-9a-f]{32}")
#: ``{A}`` in a step: the id bound to ``A`` by an earlier step.
ID_REF = re.compile(r"\{([A-Z])\}")
CREATED = "2025-01-06T09:00:00Z"

#: (name the printed id is bound to, command line with ``{NAME}`` for earlier ids). Every data
#: command at least once, the failures too.
SCRIPT: tuple[tuple[str | None, tuple[str, ...]], ...] = (
    (
        "A",
        (
            "remember",
            "Acme's CFO asked for a 15% discount on a three-year contract",
            "--entity-id",
            "acme",
            "--importance",
            "0.8",
            "--context",
            '{"channel": "email"}',
            "--session",
            "s1",
            "--created-at",
            CREATED,
        ),
    ),
    (
        "B",
        (
            "remember",
            "The discount was approved at 12%",
            "--entity-id",
            "acme",
            "--edge",
            "{A}:caused_by:0.9",
            "--created-at",
            "2025-01-07T09:00:00Z",
        ),
    ),
    (
        "C",
        (
            "remember",
            "Globex reported that single sign-on fails",
            "--entity-id",
            "globex",
            "--created-at",
            "2025-01-08T09:00:00Z",
        ),
    ),
    (None, ("get", "{A}")),
    (None, ("get", "{B}", "--with-embedding")),
    (None, ("recall", "which customer wanted a price cut?", "--top-k", "3")),
    (None, ("recall", "--strategy", "temporal", "--entity-id", "acme")),
    (None, ("recall", "--strategy", "causal", "--seed", "{B}", "--graph-context", "2")),
    (None, ("recall", "discount", "--strategy", "similarity", "--strategy", "temporal")),
    (None, ("recall", "INC\\d+|sign-on", "--regex")),
    (None, ("prime", "acme", "pricing")),
    (None, ("chat-context", "s1")),
    (None, ("orphans",)),
    ("R", ("revise", "{A}", "--content", "Acme's CFO asked for 12% off")),
    (None, ("health",)),
    (None, ("forget", "{C}")),
    (None, ("get", "{C}")),
    (None, ("forget", "--entity-id", "acme", "--purge")),
    (None, ("revise", "{A}", "--importance", "0.1")),
    (None, ("health",)),
)


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def run_main(*argv: str) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return Run(code, out.getvalue(), err.getvalue())


@dataclass(frozen=True)
class Remote:
    """A running server and the options that reach one tenant's store on it."""

    server: BackgroundServer
    data: Path
    key: str | None

    def options(self) -> tuple[str, ...]:
        key = () if self.key is None else ("--api-key", self.key)
        return ("--url", self.server.url, *key)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (DEBUG_ENV, DB_ENV, URL_ENV, API_KEY_ENV):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def auth_server(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[tuple[BackgroundServer, Path]]:
    data = tmp_path_factory.mktemp("auth-server")
    with BackgroundServer(data, embedder=embedder) as server:
        yield server, data


def new_key(data: Path, scope: str = "admin") -> str:
    """A key for a tenant of its own, so each test has an empty store on the shared server."""
    store = KeyStore(data)
    try:
        key, _ = store.create(f"cli-{uuid.uuid4().hex[:12]}", scope)
    finally:
        store.close()
    return key


@pytest.fixture
def authed(auth_server: tuple[BackgroundServer, Path]) -> Remote:
    server, data = auth_server
    return Remote(server, data, new_key(data))


@pytest.fixture(params=["api-key", "no-auth"])
def remote(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[Remote]:
    if request.param == "api-key":
        yield request.getfixturevalue("authed")
        return
    data = tmp_path / "no-auth-server"
    with BackgroundServer(data, embedder=embedder, auth=False) as server:
        yield Remote(server, data, None)


def play(options: tuple[str, ...]) -> list[tuple[int, Any]]:
    """Runs :data:`SCRIPT` with ``options`` (``--db PATH`` or ``--url URL ...``): each step's
    exit code and JSON (stdout, or the error object of stderr)."""
    ids: dict[str, str] = {}
    outcomes: list[tuple[int, Any]] = []
    for bind, template in SCRIPT:
        argv = [ID_REF.sub(lambda ref: ids[ref.group(1)], part) for part in template]
        run = run_main(*argv, *options, "--json")
        assert "Traceback" not in run.err
        if run.code == EXIT_OK:
            payload = json.loads(run.out)
            if bind is not None:
                ids[bind] = payload["id"]
            outcomes.append((run.code, normalized(payload, argv[0] == "revise")))
        else:
            error = json.loads(run.err)["error"]
            outcomes.append((run.code, error["kind"]))
    return outcomes


def normalized(payload: Any, made_now: bool = False) -> Any:
    """``payload`` with ids numbered by first appearance and the clock's values masked."""
    numbers: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: mask(key, item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, str) and HEX_ID.fullmatch(value):
            return numbers.setdefault(value, f"<id{len(numbers)}>")
        return value

    def mask(key: str, value: Any) -> Any:
        if key in CLOCK_KEYS or (made_now and key in NOW_KEYS):
            return "<clock>"
        return walk(value)

    return walk(payload)


def assert_same(local: Any, remote: Any, where: str = "") -> None:
    if isinstance(local, float) or isinstance(remote, float):
        assert remote == pytest.approx(local, abs=SCORE_TOLERANCE), where
    elif isinstance(local, dict):
        assert isinstance(remote, dict), where
        assert sorted(local) == sorted(remote), where
        for key in local:
            assert_same(local[key], remote[key], f"{where}.{key}")
    elif isinstance(local, list):
        assert isinstance(remote, list), where
        assert len(local) == len(remote), where
        for index, (one, other) in enumerate(zip(local, remote)):
            assert_same(one, other, f"{where}[{index}]")
    else:
        assert local == remote, where


def test_every_command_prints_the_same_json_through_url_as_through_db(
    remote: Remote, tmp_path: Path
) -> None:
    local = play(("--db", str(tmp_path / "db")))
    served = play(remote.options())
    assert [code for code, _ in local] == [code for code, _ in served]
    assert EXIT_FAILURE in [code for code, _ in local]
    for (_, argv), (_, mine), (_, theirs) in zip(SCRIPT, local, served):
        assert_same(mine, theirs, argv[0])
    commands = {argv[0] for _, argv in SCRIPT}
    assert commands == {
        "remember",
        "recall",
        "get",
        "revise",
        "forget",
        "health",
        "prime",
        "chat-context",
        "orphans",
    }


def test_human_output_through_url(authed: Remote) -> None:
    run = run_main("remember", "Acme renewed", "--entity-id", "acme", *authed.options())
    assert run.code == EXIT_OK, run.err
    assert run.out.startswith("remembered ")
    health = run_main("health", *authed.options())
    assert health.code == EXIT_OK
    assert "memory_count" in health.out


def assert_one_line(run: Run, code: int, *needles: str) -> None:
    assert run.code == code, (run.code, run.err)
    assert run.out == ""
    assert len(run.err.strip().splitlines()) == 1, run.err
    assert "Traceback" not in run.err
    for needle in needles:
        assert needle in run.err, run.err


def test_a_bad_key_exits_with_the_auth_code_and_is_never_printed(authed: Remote) -> None:
    bogus = "hb_" + "x" * 43
    for argv in (("health",), ("remember", "x"), ("recall", "x")):
        run = run_main(*argv, "--url", authed.server.url, "--api-key", bogus)
        assert_one_line(run, EXIT_AUTH, "API key")
        assert bogus not in run.err
    as_json = run_main("health", "--url", authed.server.url, "--api-key", bogus, "--json")
    assert json.loads(as_json.err)["exit_code"] == EXIT_AUTH
    assert bogus not in as_json.err


def test_a_missing_key_and_a_read_key_writing_exit_with_the_auth_code(authed: Remote) -> None:
    assert_one_line(run_main("health", "--url", authed.server.url), EXIT_AUTH, "API key")
    reader = new_key(authed.data, "read")
    run = run_main("remember", "x", "--url", authed.server.url, "--api-key", reader)
    assert_one_line(run, EXIT_AUTH)
    assert reader not in run.err
    assert run_main("health", "--url", authed.server.url, "--api-key", reader).code == EXIT_OK


def test_an_unreachable_server_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    run = run_main("recall", "x", "--url", url, "--api-key", "hb_secret")
    assert_one_line(run, EXIT_UNAVAILABLE, url, "unavailable")
    assert "hb_secret" not in run.err


def test_missing_memories_exit_1_through_url(authed: Remote) -> None:
    run = run_main("get", "0" * 32, *authed.options())
    assert_one_line(run, EXIT_FAILURE)


def test_hebbs_url_and_api_key_are_honoured(
    authed: Remote, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(URL_ENV, authed.server.url)
    monkeypatch.setenv(API_KEY_ENV, authed.key or "")
    run = run_main("remember", "from the environment", "--json")
    assert run.code == EXIT_OK, run.err
    memory_id = json.loads(run.out)["id"]
    with HebbsClient(authed.server.url, authed.key) as client:
        assert client.get(memory_id).content == "from the environment"
    assert not (tmp_path / "hebbs-data").exists()
    # --db wins over $HEBBS_URL; --url and --api-key win over the variables.
    local = run_main("health", "--db", str(tmp_path / "db"), "--json")
    assert (local.code, json.loads(local.out)["memory_count"]) == (EXIT_OK, 0)
    monkeypatch.setenv(API_KEY_ENV, "hb_wrong")
    assert run_main("health").code == EXIT_AUTH
    assert run_main("health", "--api-key", authed.key or "").code == EXIT_OK
    monkeypatch.setenv(URL_ENV, "http://127.0.0.1:1")
    assert run_main("health", *authed.options()).code == EXIT_OK
    monkeypatch.setenv(URL_ENV, "not a url")
    assert_one_line(run_main("health"), EXIT_USAGE, URL_ENV)


def test_db_and_url_together_are_a_usage_error(authed: Remote, tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    for argv in (
        ("health", "--db", db, "--url", authed.server.url),
        ("--db", db, "recall", "x", "--url", authed.server.url),
        ("--url", authed.server.url, "get", "0" * 32, "--db", db),
    ):
        assert_one_line(run_main(*argv), EXIT_USAGE, "--db", "--url")
    assert not Path(db).exists()


def test_both_variables_without_a_flag_are_a_usage_error(
    authed: Remote, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(URL_ENV, authed.server.url)
    monkeypatch.setenv(DB_ENV, str(tmp_path / "db"))
    assert_one_line(run_main("health"), EXIT_USAGE, DB_ENV, URL_ENV)
    assert run_main("health", "--db", str(tmp_path / "db")).code == EXIT_OK


@pytest.mark.parametrize("argv", [("serve",), ("keys", "list"), ("demo",)])
def test_directory_commands_take_no_url(
    authed: Remote, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    run = run_main("--url", authed.server.url, *argv)
    assert_one_line(run, EXIT_USAGE, "--url")
    run = run_main("--api-key", "hb_secret", *argv, "--db", str(tmp_path / "db"))
    assert_one_line(run, EXIT_USAGE, "--api-key")
    assert "hb_secret" not in run.err
