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
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.remote import Server

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


def test_a_target_and_headers_inside_the_limits_are_served(hebbs_server: Server) -> None:
    query = b"a=" + b"a" * (MAX_TARGET_BYTES - 64)
    headers = b"Host: h\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES - 64) + b"\r\nConnection: close\r\n"
    request = b"GET /v1/health/live?" + query + b" HTTP/1.1\r\n" + headers + b"\r\n"
    status, _, body = _raw_answer(hebbs_server, request)
    assert status == 200, body
    assert json.loads(body) == {"live": True}
