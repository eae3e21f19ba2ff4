"""What an outside audit of ``hebbs serve`` found wrong in the REST answers to bad input, each
checked on a real server (``hebbs serve`` on a loopback port, ``tests.remote``): an import line
nested past what a parser recurses through is a 400 naming its line on a connection that stays
open, an empty ``cue_embedding`` is named as such, a memory id reads the same on every route,
and what the HTTP parser refuses before the app sees it still answers the documented JSON body.
"""

from __future__ import annotations

import http.client
import json
import socket
import uuid
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from tests.remote import Server
from tests.test_mcp import over_http

from hebbs import HebbsClient
from hebbs.server.http_protocol import MAX_HEADER_BYTES, MAX_TARGET_BYTES


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _address(server: Server) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname is not None
    assert parts.port is not None
    return parts.hostname, parts.port


def _connection(server: Server) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(*_address(server), timeout=60)


def _exchange(
    connection: http.client.HTTPConnection,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[http.client.HTTPResponse, Any]:
    connection.request(method, path, body=body, headers=headers or {})
    answer = connection.getresponse()
    data = answer.read()
    is_json = answer.getheader("content-type", "").startswith("application/json")
    return answer, json.loads(data) if is_json else data


def test_an_import_line_nested_ten_thousand_deep_is_a_400_naming_it(hebbs_server: Server) -> None:
    key = hebbs_server.new_key("write")
    header = {"type": "header", "format": "hebbs-export", "version": 2}
    header |= {"dimension": None, "model": None, "embeddings": False}
    deep = "[" * 10_000 + "]" * 10_000
    body = (json.dumps(header) + "\n" + deep + "\n").encode()
    connection = _connection(hebbs_server)
    try:
        headers = {**_auth(key), "Content-Type": "application/x-ndjson"}
        answer, error = _exchange(connection, "POST", "/v1/import", body, headers)
        assert answer.status == 400, error
        assert error["error_code"] == "invalid_input"
        assert error["field"] == "line 2"
        assert not answer.will_close, "the keep-alive connection was dropped"
        again, health = _exchange(connection, "GET", "/v1/health/live")
        assert again.status == 200, health
    finally:
        connection.close()
    exported = httpx.get(hebbs_server.url + "/v1/export", headers=_auth(key), timeout=60).text
    assert [json.loads(line)["type"] for line in exported.splitlines()] == ["header", "end"]


def test_an_empty_or_misshapen_cue_embedding_is_named(hebbs_server: Server) -> None:
    key = hebbs_server.new_key("write")
    url = hebbs_server.url
    stored = httpx.post(url + "/v1/memories", json={"content": "x"}, headers=_auth(key))
    assert stored.status_code == 201, stored.text
    for path, extra in (("/v1/memories/recall", {}), ("/v1/memories/prime", {"entity_id": "e"})):
        for vector in ([], [0.5, 0.5]):
            body = {"cue": "x", "cue_embedding": vector, **extra}
            answer = httpx.post(url + path, json=body, headers=_auth(key), timeout=60)
            assert answer.status_code == 400, answer.text
            assert answer.json()["error_code"] == "invalid_input"
            assert answer.json()["field"] == "cue_embedding", (path, answer.json())


def _raw_answer(server: Server, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body of ``request`` sent as is; the server closes after it."""
    with socket.create_connection(_address(server), timeout=60) as connection:
        connection.sendall(request)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


#: Requests the HTTP parser refuses before the app sees them.
PARSER_REFUSED = {
    "a 100 KB query": b"GET /v1/health/live?a=" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: h\r\n",
    "a 100 KB path": b"GET /v1/" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: h\r\n",
    "a target past the limit": (
        b"GET /v1/health/live?a=" + b"a" * MAX_TARGET_BYTES + b" HTTP/1.1\r\nHost: h\r\n"
    ),
    "NUL in Authorization": (
        b"GET /v1/health HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer a\x00b\r\n"
    ),
    "headers past the limit": (
        b"GET /v1/health/live HTTP/1.1\r\nHost: h\r\nX-Big: " + b"a" * MAX_HEADER_BYTES + b"\r\n"
    ),
    "not HTTP": b"\x16\x03\x01 hello\r\n",
}


@pytest.mark.parametrize("request_head", PARSER_REFUSED.values(), ids=list(PARSER_REFUSED))
def test_what_the_http_parser_refuses_is_a_json_400(
    hebbs_server: Server, request_head: bytes
) -> None:
    status, headers, body = _raw_answer(hebbs_server, request_head + b"\r\n")
    assert status == 400, body
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    error = json.loads(body)
    assert error["error_code"] == "invalid_input"
    assert error["field"] == "request"
    assert error["message"]


def test_what_a_refused_client_still_sends_is_dropped_not_reset(hebbs_server: Server) -> None:
    """After its 400 the server reads and drops the rest of the request: a connection closed
    with unread bytes is reset, and a reset can destroy the 400 before the client reads it (a
    client still sending a 100 KB target saw "connection reset" on a loaded machine)."""
    head = b"GET /v1/health/live?a=" + b"a" * (MAX_TARGET_BYTES + 1024)
    with socket.create_connection(_address(hebbs_server), timeout=60) as connection:
        connection.sendall(head)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
        assert received.startswith(b"HTTP/1.1 400"), received[:100]
        # The rest of the request arrives after the answer: read and dropped, no reset.
        connection.sendall(b"a" * 80_000 + b" HTTP/1.1\r\nHost: h\r\n\r\n")
        connection.shutdown(socket.SHUT_WR)
        assert connection.recv(65536) == b""


def test_a_target_and_headers_inside_the_limits_are_served(hebbs_server: Server) -> None:
    query = b"a=" + b"a" * (MAX_TARGET_BYTES - 64)
    headers = b"Host: h\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES - 64) + b"\r\nConnection: close\r\n"
    request = b"GET /v1/health/live?" + query + b" HTTP/1.1\r\n" + headers + b"\r\n"
    status, _, body = _raw_answer(hebbs_server, request)
    assert status == 200, body
    assert json.loads(body) == {"live": True}


def _forms(hex_id: str) -> list[str]:
    """One id in each accepted spelling: 32 hex digits, hyphenated, hyphenated upper case."""
    dashed = str(uuid.UUID(hex_id))
    return [hex_id, dashed, dashed.upper()]


def _refused_forms(hex_id: str) -> list[str]:
    dashed = str(uuid.UUID(hex_id))
    return ["{" + dashed + "}", f"urn:uuid:{dashed}", dashed.replace("-", "", 1), hex_id[:-1]]


def test_one_id_syntax_on_every_route(hebbs_server: Server) -> None:
    url, key = hebbs_server.url, hebbs_server.new_key("write")
    client = httpx.Client(base_url=url, headers=_auth(key), timeout=60)
    first, second = (
        client.post("/v1/memories", json={"content": text}).json()["id"]
        for text in ("Acme pays yearly", "Acme pays monthly")
    )
    for form in _forms(first):
        path = quote(form)
        assert client.get(f"/v1/memories/{path}").json()["id"] == first, form
        assert client.get(f"/v1/memories/{path}/lineage").json()[0]["id"] == first, form
        batch = client.post("/v1/memories/batch", json={"ids": [form]}).json()
        assert batch[0]["id"] == first, form
        causal = {"strategy": "causal", "seed_memory_id": form}
        recall = client.post("/v1/memories/recall", json={"strategies": [causal]})
        assert recall.status_code == 200, (form, recall.text)
        for listing in (f"/v1/memories?cursor={path}", f"/v1/tombstones?after={path}"):
            assert client.get(listing).status_code == 200, (listing, form)
        assert client.get(f"/v1/tombstones/{path}").status_code == 404, form
    dashed_first, dashed_second = _forms(first)[1], _forms(second)[2]
    edges = {"edges": [{"target": dashed_second, "edge_type": "related_to"}]}
    assert client.post(f"/v1/memories/{dashed_first}/edges", json=edges).status_code == 204
    confirm = {"older_id": dashed_first, "newer_id": dashed_second}
    confirmed = client.post("/v1/contradictions/confirm", json=confirm)
    assert confirmed.status_code == 200, confirmed.text
    with HebbsClient(url, key) as remote:
        assert remote.get(dashed_first).id == bytes.fromhex(first)
    forgotten = client.post("/v1/memories/forget", json={"ids": [dashed_second]}).json()
    assert forgotten["forgotten_count"] == 1
    assert client.get(f"/v1/tombstones/{dashed_second}").status_code == 200
    for bad in _refused_forms(first):
        answer = client.get(f"/v1/memories/{quote(bad)}")
        assert answer.status_code == 400, (bad, answer.text)
        assert answer.json()["field"] == "id", (bad, answer.json())
        answer = client.post("/v1/memories/batch", json={"ids": [bad]})
        assert answer.status_code == 400, (bad, answer.text)
        assert answer.json()["field"] == "ids[0]", (bad, answer.json())
    client.close()


async def test_mcp_takes_the_same_id_syntax(hebbs_server: Server) -> None:
    key = hebbs_server.new_key("write")
    stored = httpx.post(
        hebbs_server.url + "/v1/memories", json={"content": "x"}, headers=_auth(key)
    )
    hex_id = stored.json()["id"]
    async with over_http(hebbs_server, key) as mcp:
        for form in _forms(hex_id):
            answer = await mcp.call_tool("get", {"id": form})
            assert not answer.is_error, (form, answer.content[0].text)
            assert json.loads(answer.content[0].text)["id"] == hex_id
        for bad in _refused_forms(hex_id):
            answer = await mcp.call_tool("get", {"id": bad})
            assert answer.is_error, bad
            assert json.loads(answer.content[0].text)["field"] == "id", bad
