"""The ``store`` fixture that runs an API test twice: on the embedded store (``embedded``,
:class:`hebbs.Hebbs` in this process) and on a real server through the client (``remote``,
:class:`hebbs.HebbsClient` talking to ``hebbs serve`` started as a subprocess on a free
loopback port), imported by ``conftest.py``.

One server serves the whole session, with API keys on; each remote test gets a key of a tenant
of its own, so it starts on an empty store, as an embedded test does, whatever the other tests
wrote. Tests that need what only the embedded store has (its files on disk, a reopen, an
in-process embedder object, ``optimize``) take ``mem`` instead and carry the
``embedded_only`` marker, which says why.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import pytest

import hebbs
from hebbs import Hebbs, HebbsClient
from hebbs.embedder import Embedder
from hebbs.service.keys import KeyStore

#: What a shared test runs on.
Store = Union[Hebbs, HebbsClient]

#: Seconds the server may take to answer its first health check (it loads the embedder).
SERVER_START_TIMEOUT_S = 120.0
#: Seconds the server gets to stop before it is killed.
SERVER_STOP_TIMEOUT_S = 10.0
#: The scope of a test's key: every operation.
TEST_SCOPE = "admin"
#: The marker of a test that runs on the embedded store only.
EMBEDDED_ONLY = "embedded_only"


@dataclass(frozen=True)
class Server:
    """A running ``hebbs serve`` and its data directory (where its key store is)."""

    url: str
    data: Path

    def new_key(self, scope: str = TEST_SCOPE) -> str:
        """A key of a new tenant: an empty store on this server."""
        keys = KeyStore(self.data)
        try:
            key, _ = keys.create(f"t-{uuid.uuid4().hex[:16]}", scope)
        finally:
            keys.close()
        return key

    def new_organization(self) -> tuple[str, str, str, str]:
        """A new organization and a new tenant that is a member of it: a write key of each, and
        their names, ``(organization key, member key, organization, member)``."""
        organization, member = (f"t-{uuid.uuid4().hex[:16]}" for _ in range(2))
        keys = KeyStore(self.data)
        try:
            writer, _ = keys.create(organization, "write")
            key, _ = keys.create(member, "write", organization=organization)
        finally:
            keys.close()
        return writer, key, organization, member


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_serve(data: Path, *options: str, probe_key: str | None = None) -> Iterator[str]:
    """``hebbs serve --db data *options`` as a subprocess on a free loopback port: its URL
    once a client (with ``probe_key`` when the server has keys) connects, stopped after the
    block. Its output goes to ``data/server.log``."""
    script = Path(sys.executable).with_name("hebbs")
    if not script.exists():
        pytest.skip(f"the hebbs console script is not installed beside {sys.executable}")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    command = [str(script), "serve", "--db", str(data), *options]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    log = (data / "server.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"hebbs serve exited with {process.returncode}: see {log.name}")
            try:
                HebbsClient.connect(url, probe_key, timeout=2.0).close()
                break
            except hebbs.ServerUnavailableError:
                if time.monotonic() > deadline:
                    pytest.fail(f"hebbs serve did not answer in {SERVER_START_TIMEOUT_S} s")
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=SERVER_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def hebbs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``hebbs serve`` (API keys on) on loopback for the whole session, stopped after it."""
    data = tmp_path_factory.mktemp("served")
    probe_key = Server("", data).new_key("read")
    with running_serve(data, probe_key=probe_key) as url:
        yield Server(url, data)


@pytest.fixture
def remote_key(hebbs_server: Server) -> tuple[str, str]:
    """``(url, key)`` of an empty tenant of the session's server, for this test alone."""
    return hebbs_server.url, hebbs_server.new_key()


@pytest.fixture(params=["embedded", "remote"])
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    """An empty store: embedded, then (second run) a tenant of its own on the server."""
    if request.param == "embedded":
        with Hebbs.open(tmp_path / "db", embedder=embedder) as engine:
            yield engine
    else:
        url, key = request.getfixturevalue("remote_key")
        with HebbsClient(url, key) as client:
            yield client


def register_marker(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{EMBEDDED_ONLY}(reason): runs on the embedded store only (takes `mem`, not `store`)",
    )
