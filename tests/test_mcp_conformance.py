"""The MCP project's own conformance runner (npm ``@modelcontextprotocol/conformance``, pinned
with the Node.js 22 it needs in ``scripts/mcp-conformance``; ``scripts/mcp_conformance.sh``
installs both from the npm registry into ``~/.cache`` when missing) against a real
``hebbs serve --no-auth`` on loopback, holding a few memories: every scenario of its active
suite passes except those of ``mcp_conformance_expected_failures.txt`` (fixtures of the
runner's own test server, and one the stateless transport cannot pass), and each of those still
fails, so the list stays honest; the runner's own ``--expected-failures`` check agrees.

The runner sends no API key, so the server runs without keys, the loopback-only mode a new user
starts with (the one its DNS-rebinding scenario is about). Its run takes a few seconds; the
first install about half a minute.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.remote import running_serve

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "scripts" / "mcp_conformance.sh"
EXPECTED_FAILURES = Path(__file__).with_name("mcp_conformance_expected_failures.txt")
#: Seconds installing the runner and Node.js may take (a cold npm cache downloads ~40 MB).
INSTALL_TIMEOUT_S = 600
#: Seconds the runner's whole suite may take (a few on an idle machine).
RUN_TIMEOUT_S = 300
#: The scenarios of the active suite of the pinned runner (0.1.16).
SUITE_SIZE = 30
#: A result directory of the runner: ``server-<scenario>-<ISO timestamp>``.
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")
#: The statuses that fail a scenario in the runner's --expected-failures mode (its printed
#: summary counts only FAILURE).
FAILING = frozenset({"FAILURE", "WARNING"})
SEED = (
    ("Acme asked for a 15% discount on the annual plan", "acme"),
    ("Globex prefers invoices in PDF", "globex"),
)


def expected_failures() -> dict[str, str]:
    """The committed list: scenario → reason."""
    listed: dict[str, str] = {}
    for line in EXPECTED_FAILURES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            scenario, _, reason = line.partition(" ")
            assert reason.strip(), f"{scenario} has no reason in {EXPECTED_FAILURES.name}"
            listed[scenario] = reason.strip()
    return listed


def runner_bin() -> Path:
    """The directory holding the pinned ``node`` and ``conformance``, installed if missing."""
    done = subprocess.run(
        ["bash", str(INSTALL)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"{INSTALL.name} failed:\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``hebbs serve --no-auth`` on a free loopback port holding :data:`SEED`: its ``/mcp``."""
    with running_serve(tmp_path_factory.mktemp("conformance"), "--no-auth") as url:
        for content, entity in SEED:
            stored = httpx.post(
                url + "/v1/memories", json={"content": content, "entity_id": entity}, timeout=60
            )
            assert stored.status_code == 201, stored.text
        yield url + "/mcp"


def run_suite(bin_dir: Path, url: str, work: Path) -> dict[str, list[dict[str, object]]]:
    """Runs the active suite against ``url`` in ``work``, the committed list as the runner's own
    baseline (``--expected-failures``: it exits 0 only when exactly those fail); each
    scenario's checks."""
    baseline = work / "baseline.yml"
    baseline.write_text("server:\n" + "".join(f"  - {s}\n" for s in expected_failures()))
    out = work / "results"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(bin_dir / "node"), str(bin_dir / "conformance"), "server", "--url", url]
    command += ["--expected-failures", str(baseline), "--output-dir", str(out)]
    done = subprocess.run(
        command, cwd=work, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
    )
    assert "=== SUMMARY ===" in done.stdout, done.stdout + done.stderr
    checks: dict[str, list[dict[str, object]]] = {}
    for directory in out.iterdir():
        match = RESULT_DIR.match(directory.name)
        assert match, f"unexpected result directory {directory.name}"
        checks[match["scenario"]] = json.loads((directory / "checks.json").read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    return checks


def test_the_mcp_conformance_suite(open_server: str, tmp_path: Path) -> None:
    listed = expected_failures()
    checks = run_suite(runner_bin(), open_server, tmp_path)
    assert len(checks) == SUITE_SIZE, sorted(checks)
    failed = {
        scenario: [c.get("errorMessage") or c["id"] for c in found if c["status"] in FAILING]
        for scenario, found in checks.items()
    }
    unexpected = {s: why for s, why in failed.items() if why and s not in listed}
    assert not unexpected, f"scenarios that should pass failed: {unexpected}"
    stale = sorted(s for s in listed if not failed.get(s))
    assert not stale, f"listed as expected failures but passed (or did not run): {stale}"
    passed = sorted(s for s, why in failed.items() if not why)
    assert len(passed) == SUITE_SIZE - len(listed)
    for scenario in ("resources-list", "prompts-list", "logging-set-level", "completion-complete"):
        assert scenario in passed
