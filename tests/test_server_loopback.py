"""A server without auth answers loopback names only: every route (REST, ``/mcp``, the
explorer, the OpenAPI pages) refuses a ``Host`` that is not loopback (DNS rebinding: a page on
``evil.example`` whose name resolves to 127.0.0.1) with 421 and a foreign ``Origin`` with 403,
the JSON error body naming the header, and nothing is written; a server with keys has no such
check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import httpx
import numpy as np
import pytest

from hebbs.server.loopback import host_name, is_loopback, origin_is_loopback
from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

Embed = Callable[[list[str]], np.ndarray]

#: A request of each kind the server answers: (method, path, JSON body).
ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "/v1/health", None),
    ("GET", "/v1/health/live", None),
    ("POST", "/v1/memories", {"content": "rebound write"}),
    ("GET", "/v1/memories", None),
    ("POST", "/v1/memories/recall", {"cue": "anything"}),
    ("POST", "/v1/recall", {"cue": "anything"}),
    ("POST", "/v1/memories/forget", {"entity_id": "e"}),
    ("POST", "/v1/subscribe", {"cue": "anything"}),
    ("GET", "/v1/metrics", None),
    ("GET", "/v1/export", None),
    ("GET", "/openapi.json", None),
    ("GET", "/docs", None),
    ("GET", "/", None),
    ("GET", "/ui/", None),
    ("GET", "/ui/js/main.js", None),
    ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
]
#: ``Host`` values a rebinding page would send.
FOREIGN_HOSTS = ("evil.example", "evil.example:80", "127.0.0.1.evil.example", "localhost.evil")
#: ``Origin`` values of pages elsewhere.
FOREIGN_ORIGINS = ("http://evil.example", "https://evil.example:8443", "null", "file://")
#: The MCP transport's headers (it answers 406 without them).
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed) -> Iterator[str]:
    data = tmp_path_factory.mktemp("no-auth")
    with BackgroundServer(data, embedder=hash_embed, auth=False) as server:
        yield server.url


def send(url: str, method: str, path: str, body: Any, headers: dict[str, str]) -> httpx.Response:
    """The answer, its body read unless it is an event stream (one that was let through would
    never end)."""
    extra = MCP_HEADERS if path == "/mcp" else {}
    merged = {**extra, **headers}
    with httpx.stream(method, url + path, json=body, headers=merged, timeout=30) as response:
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.read()
    return response


def count(url: str) -> int:
    health = httpx.get(url + "/v1/health", timeout=30)
    assert health.status_code == 200
    memories: int = health.json()["memory_count"]
    return memories


def assert_refused(response: httpx.Response, status: int, code: str, field: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error_code"] == code
    assert response.json()["field"] == field


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_every_route_refuses_a_foreign_host(
    open_server: str, method: str, path: str, body: Any
) -> None:
    for host in FOREIGN_HOSTS:
        response = send(open_server, method, path, body, {"Host": host})
        assert_refused(response, 421, "misdirected_request", "host")
        assert host.split(":")[0] in response.json()["message"]
    for origin in FOREIGN_ORIGINS:
        response = send(open_server, method, path, body, {"Origin": origin})
        assert_refused(response, 403, "forbidden", "origin")
    assert count(open_server) == 0


def test_loopback_names_and_pages_are_served(open_server: str) -> None:
    port = httpx.URL(open_server).port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", "127.0.0.1"):
        assert httpx.get(open_server + "/ui/", headers={"Host": host}).status_code == 200
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", "https://[::1]"):
        response = send(
            open_server, "POST", "/v1/memories/recall", {"cue": "x"}, {"Origin": origin}
        )
        assert response.status_code == 200, response.text
    listing = send(open_server, *ROUTES[-1][:2], ROUTES[-1][2], {"Host": f"localhost:{port}"})
    assert listing.status_code == 200
    assert "tools" in listing.json()["result"]


def test_a_server_with_keys_serves_any_name(tmp_path: Path, hash_embed: Embed) -> None:
    with BackgroundServer(tmp_path, embedder=hash_embed) as server:
        key, _ = KeyStore(tmp_path).create("alice", "read")
        headers = {"Host": "hebbs.example", "Authorization": f"Bearer {key}"}
        assert httpx.get(server.url + "/v1/health", headers=headers).status_code == 200
        assert httpx.get(server.url + "/v1/health", headers={"Host": "x"}).status_code == 401


@pytest.mark.parametrize(
    ("header", "host"),
    [("127.0.0.1:8080", "127.0.0.1"), ("[::1]:9", "::1"), ("localhost", "localhost"), ("[", "")],
)
def test_host_names(header: str, host: str) -> None:
    assert host_name(header) == host


def test_loopback_checks() -> None:
    assert all(is_loopback(name) for name in ("localhost", "127.0.0.2", "::1", "[::1]"))
    assert not any(is_loopback(name) for name in ("", "evil.example", "10.0.0.1", "0.0.0.0"))
    assert origin_is_loopback("http://[::1]:3000")
    assert not origin_is_loopback("http://[::1")
    assert not origin_is_loopback("ftp://127.0.0.1")
