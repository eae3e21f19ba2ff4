"""What the server refuses: requests without a valid key (missing, malformed, unknown, revoked,
expired: 401), with too weak a scope (403) or over the key's rate (429 with Retry-After);
another tenant's memories by id, entity, session and subscription (answered as if they did not
exist, nothing leaked); and bad input (malformed JSON, wrong types, unknown fields, oversized
bodies: 4xx with ``error_code`` and ``field``, never a 5xx, nothing written)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import httpx
import numpy as np
import pytest

from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore
from hebbs.service.tenants import TENANTS_DIR

Embed = Callable[[list[str]], np.ndarray]
#: The body limit of the module's server: small, so the oversized cases stay fast.
BODY_LIMIT = 64 * 1024
MISSING = "0" * 32


class Setup:
    def __init__(self, data_dir: Path, server: BackgroundServer) -> None:
        self.data_dir = data_dir
        self.server = server
        self.keys = KeyStore(data_dir)

    def client(self, tenant: str, scope: str, **options: Any) -> httpx.Client:
        key, _ = self.keys.create(tenant, scope, **options)
        return self.with_key(key)

    def with_key(self, key: str) -> httpx.Client:
        return httpx.Client(
            base_url=self.server.url, headers={"Authorization": f"Bearer {key}"}, timeout=10
        )


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed) -> Iterator[Setup]:
    data_dir = tmp_path_factory.mktemp("secure")
    with BackgroundServer(data_dir, embedder=hash_embed, max_request_bytes=BODY_LIMIT) as server:
        made = Setup(data_dir, server)
        yield made
        made.keys.close()


@pytest.fixture(scope="module")
def alice(setup: Setup) -> Iterator[httpx.Client]:
    with setup.client("alice", "write") as client:
        yield client


@pytest.fixture(scope="module")
def bob(setup: Setup) -> Iterator[httpx.Client]:
    with setup.client("bob", "write") as client:
        yield client


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"error_code", "message", "field"}
    assert body["error_code"] == code
    return body


def count(client: httpx.Client) -> int:
    status: int = client.get("/v1/health").json()["memory_count"]
    return status


@pytest.mark.parametrize(
    "header",
    [None, "", "Bearer", "Basic abc", "Bearer hb_wrong", "Bearer nonsense", "hb_x"],
)
def test_a_missing_or_unknown_key_is_401(setup: Setup, header: str | None) -> None:
    headers = {} if header is None else {"Authorization": header}
    response = httpx.get(setup.server.url + "/v1/health", headers=headers)
    assert_error(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_a_revoked_key_is_401(setup: Setup) -> None:
    key, info = setup.keys.create("alice", "read")
    with setup.with_key(key) as client:
        assert client.get("/v1/health").status_code == 200
        assert setup.keys.revoke(info.key_id)
        assert "revoked" in assert_error(client.get("/v1/health"), 401, "unauthorized")["message"]


def test_an_expired_key_is_401(setup: Setup) -> None:
    with setup.client("alice", "admin", expires_in_s=-1) as client:
        body = assert_error(client.get("/v1/health"), 401, "unauthorized")
    assert "expired" in body["message"]


def test_a_key_is_never_stored_in_clear(setup: Setup) -> None:
    key, _ = setup.keys.create("alice", "read")
    assert key.encode() not in setup.keys.path.read_bytes()


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/memories", {"content": "x"}),
        ("POST", "/v1/memories/bulk", {"items": [{"content": "x"}]}),
        ("PUT", f"/v1/memories/{MISSING}", {"content": "x"}),
        ("PUT", f"/v1/revise/{MISSING}", {"content": "x"}),
        ("POST", "/v1/memories/forget", {"ids": [MISSING]}),
        ("POST", "/v1/forget", {"ids": [MISSING]}),
        ("POST", f"/v1/memories/{MISSING}/edges", {"edges": []}),
        ("GET", "/v1/metrics", None),
    ],
)
def test_a_read_key_cannot_write(setup: Setup, method: str, path: str, body: Any) -> None:
    with setup.client("alice", "read") as client:
        before = count(client)
        response = client.request(method, path, json=body)
        assert_error(response, 403, "forbidden")
        assert count(client) == before


def test_a_write_key_reads_but_is_not_admin(alice: httpx.Client) -> None:
    assert alice.post("/v1/recall", json={"cue": "x"}).status_code == 200
    assert alice.get("/v1/orphans").status_code == 200
    assert_error(alice.get("/v1/metrics"), 403, "forbidden")


def test_a_key_over_its_rate_is_429(tmp_path: Path, hash_embed: Embed) -> None:
    with BackgroundServer(tmp_path, embedder=hash_embed, rate_per_s=0.5, rate_burst=2) as server:
        key, _ = KeyStore(tmp_path).create("alice", "read")
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}) as c:
            assert [c.get("/v1/health").status_code for _ in range(2)] == [200, 200]
            response = c.get("/v1/health")
            assert_error(response, 429, "rate_limited")
            assert 1 <= int(response.headers["Retry-After"]) <= 2
            other, _ = KeyStore(tmp_path).create("alice", "read")
            fresh = c.get("/v1/health", headers={"Authorization": f"Bearer {other}"})
            assert fresh.status_code == 200


def test_no_auth_serves_the_default_tenant(tmp_path: Path, hash_embed: Embed) -> None:
    with BackgroundServer(tmp_path, embedder=hash_embed, auth=False) as server:
        response = httpx.post(server.url + "/v1/memories", json={"content": "open house"})
        assert response.status_code == 201
        assert httpx.get(server.url + "/v1/metrics").status_code == 200
    assert (tmp_path / TENANTS_DIR / "default").is_dir()
    assert not (tmp_path / "keys.sqlite3").exists()


def test_no_auth_is_refused_on_a_public_host(tmp_path: Path) -> None:
    from hebbs.server.serve import config

    with pytest.raises(ValueError, match="loopback"):
        config(tmp_path, host="0.0.0.0", auth=False)


@pytest.fixture(scope="module")
def secret(alice: httpx.Client) -> dict[str, Any]:
    """A memory of alice's, with an entity and a session of hers."""
    body = {"content": "alice secret merger plan", "entity_id": "secret-co", "session_id": "s-a"}
    response = alice.post("/v1/memories", json=body)
    assert response.status_code == 201
    memory: dict[str, Any] = response.json()
    return memory


def test_another_tenant_cannot_read_by_id(bob: httpx.Client, secret: dict[str, Any]) -> None:
    memory_id = secret["id"]
    missing = assert_error(bob.get(f"/v1/memories/{MISSING}"), 404, "not_found")
    theirs = assert_error(bob.get(f"/v1/memories/{memory_id}"), 404, "not_found")
    assert theirs["message"].replace(memory_id, MISSING) == missing["message"]
    assert bob.post("/v1/memories/batch", json={"ids": [memory_id]}).json() == [None]
    assert_error(bob.get(f"/v1/memories/{memory_id}/lineage"), 404, "not_found")
    assert_error(bob.put(f"/v1/memories/{memory_id}", json={"content": "x"}), 404, "not_found")
    assert_error(bob.put(f"/v1/revise/{memory_id}", json={"content": "x"}), 404, "not_found")
    assert_error(bob.get(f"/v1/tombstones/{memory_id}"), 404, "not_found")


def test_another_tenant_cannot_recall_or_forget(
    alice: httpx.Client, bob: httpx.Client, secret: dict[str, Any]
) -> None:
    by_cue = bob.post("/v1/recall", json={"cue": secret["content"], "top_k": 100}).json()
    assert secret["id"] not in [r["memory"]["id"] for r in by_cue["results"]]
    by_entity = bob.post(
        "/v1/memories/recall",
        json={"strategies": ["temporal"], "entity_id": "secret-co", "top_k": 100},
    ).json()
    assert by_entity["results"] == []
    primed = bob.post("/v1/prime", json={"entity_id": "secret-co"}).json()
    assert primed["results"] == []
    assert bob.get("/v1/sessions/s-a/context").json() == []
    theirs, missing = (
        bob.post("/v1/recall", json={"strategies": ["causal"], "seed_memory_id": seed})
        for seed in (secret["id"], MISSING)
    )
    assert theirs.status_code == missing.status_code
    assert theirs.text.replace(secret["id"], MISSING) == missing.text
    forgot = bob.post("/v1/forget", json={"ids": [secret["id"]]}).json()
    assert forgot["forgotten_count"] == 0
    forgot = bob.post("/v1/memories/forget", json={"entity_id": "secret-co"}).json()
    assert forgot["forgotten_count"] == 0
    assert alice.get(f"/v1/memories/{secret['id']}").status_code == 200


def test_another_tenant_cannot_link_to_a_memory(bob: httpx.Client, secret: dict[str, Any]) -> None:
    own = bob.post("/v1/memories", json={"content": "bob's own note"}).json()
    edge = {"target": secret["id"], "edge_type": "caused_by"}
    response = bob.post(f"/v1/memories/{own['id']}/edges", json={"edges": [edge]})
    assert assert_error(response, 400, "invalid_input")["field"] == "edges[0].target"
    response = bob.post("/v1/memories", json={"content": "linked", "edges": [edge]})
    assert assert_error(response, 400, "invalid_input")["field"].startswith("edges[0]")


def test_another_tenants_writes_are_not_pushed(
    setup: Setup, alice: httpx.Client, bob: httpx.Client
) -> None:
    """Alice writes a matching memory, then bob does: bob's stream's first push is his own."""
    pushes: list[dict[str, Any]] = []
    subscribed = threading.Event()

    def listen() -> None:
        body = {"cue": "launch codes rotated", "confidence_threshold": 0.5}
        with bob.stream("POST", "/v1/subscribe", json=body) as response:
            for line in response.iter_lines():
                if line == "event: subscribed":
                    subscribed.set()
                elif line.startswith("data: ") and subscribed.is_set() and "memory" in line:
                    pushes.append(json.loads(line.removeprefix("data: ")))
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert subscribed.wait(5)
    theirs = alice.post("/v1/memories", json={"content": "launch codes rotated"}).json()
    own = bob.post("/v1/memories", json={"content": "launch codes rotated"}).json()
    listener.join(5)
    assert not listener.is_alive()
    assert [push["memory"]["id"] for push in pushes] == [own["id"]]
    assert theirs["id"] != own["id"]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/memories", b"{", "body"),
        ("/v1/memories", b"", "body"),
        ("/v1/memories", b"[1, 2]", "body"),
        ("/v1/memories", b'"text"', "body"),
        ("/v1/memories", b'{"content": 5}', "content"),
        ("/v1/memories", b'{"content": ""}', "content"),
        ("/v1/memories", b'{"content": "x", "importance": "high"}', "importance"),
        ("/v1/memories", b'{"content": "x", "importance": 2}', "importance"),
        ("/v1/memories", b'{"content": "x", "colour": "red"}', "colour"),
        ("/v1/memories", b'{"content": "x", "context": [1]}', "context"),
        ("/v1/memories", b'{"content": "x", "embedding": "abc"}', "embedding"),
        ("/v1/memories", b'{"content": "x", "embedding": [1, 2]}', "embedding"),
        ("/v1/memories", b'{"content": "x", "kind": "dream"}', "kind"),
        ("/v1/memories", b'{"content": "x", "created_at": -1}', "created_at"),
        ("/v1/memories", b'{"content": "x", "edges": [{"target": "zz"}]}', "edges[0]"),
        (
            "/v1/memories/bulk",
            b'{"items": [{"content": "ok"}, {"content": 1}]}',
            "items[1].content",
        ),
        ("/v1/memories/bulk", b'{"items": {"content": "x"}}', "items"),
        ("/v1/memories/batch", b'{"ids": ["nothex"]}', "ids[0]"),
        ("/v1/memories/recall", b'{"cue": "x", "top_k": 0}', "top_k"),
        ("/v1/memories/recall", b'{"cue": "x", "top_k": "5"}', "top_k"),
        ("/v1/memories/recall", b'{"cue": "x", "strategies": ["telepathy"]}', "strategies"),
        ("/v1/memories/recall", b'{"cue": "x", "scoring_weights": {"w_x": 1}}', "scoring_weights"),
        (
            "/v1/memories/recall",
            b'{"cue": "x", "max_depth": 99, "strategies": ["causal"]}',
            "max_depth",
        ),
        ("/v1/prime", b'{"cue": "x"}', "entity_id"),
        ("/v1/forget", b"{}", None),
        ("/v1/forget", b'{"ids": "abc"}', "ids"),
        ("/v1/subscribe", b'{"cue": "x", "confidence_threshold": "high"}', "confidence_threshold"),
    ],
)
def test_bad_input_is_400_naming_the_field(
    alice: httpx.Client, path: str, body: bytes, field: str | None
) -> None:
    before = count(alice)
    response = alice.post(path, content=body, headers={"Content-Type": "application/json"})
    error = assert_error(response, 400, "invalid_input")
    if field is not None:
        assert error["field"] == field, error
    assert count(alice) == before


@pytest.mark.parametrize(
    ("request_args", "field"),
    [
        (("GET", "/v1/memories/nothex"), "id"),
        (("GET", f"/v1/memories/{MISSING}?include_embedding=maybe"), "include_embedding"),
        (("GET", "/v1/orphans?limit=abc"), "limit"),
        (("GET", "/v1/tombstones?after=zz"), "after"),
        (("GET", "/v1/sessions/s/context?limit=-1"), "limit"),
    ],
)
def test_bad_paths_and_queries_are_400(
    alice: httpx.Client, request_args: tuple[str, str], field: str
) -> None:
    error = assert_error(alice.request(*request_args), 400, "invalid_input")
    assert error["field"] == field


def test_a_revise_body_may_not_name_the_id(alice: httpx.Client, secret: dict[str, Any]) -> None:
    response = alice.put(f"/v1/memories/{secret['id']}", json={"id": MISSING, "content": "y"})
    assert assert_error(response, 400, "invalid_input")["field"] == "id"


def test_an_oversized_body_is_413(alice: httpx.Client) -> None:
    before = count(alice)
    big = {"content": "x" * (BODY_LIMIT + 1)}
    assert_error(alice.post("/v1/memories", json=big), 413, "payload_too_large")

    def chunks() -> Iterator[bytes]:
        yield b'{"content": "'
        for _ in range(BODY_LIMIT // 1024 + 1):
            yield b"y" * 1024
        yield b'"}'

    chunked = alice.post(
        "/v1/memories", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert_error(chunked, 413, "payload_too_large")
    assert count(alice) == before


def test_unknown_paths_and_methods_keep_the_error_shape(alice: httpx.Client) -> None:
    assert_error(alice.get("/v1/nothing"), 404, "not_found")
    assert_error(alice.delete(f"/v1/memories/{MISSING}"), 405, "method_not_allowed")


def test_closed_streams_release_their_stores(setup: Setup) -> None:
    tenants = setup.server.app.state.tenants
    deadline = time.monotonic() + 2
    while any(entry.leases for entry in tenants._open.values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert all(entry.leases == 0 for entry in tenants._open.values())


@pytest.mark.parametrize(
    ("method", "path", "scope"),
    [
        ("POST", "/v1/memories", "write"),
        ("PUT", f"/v1/memories/{MISSING}", "write"),
        ("POST", "/v1/subscribe", "read"),
    ],
)
@pytest.mark.parametrize("body", [b"\x00", b"{", b"\xff\xfe"], ids=["nul", "truncated", "utf16"])
def test_an_unreadable_body_without_a_key_is_401(
    setup: Setup, method: str, path: str, scope: str, body: bytes
) -> None:
    """FastAPI reads the body before the key is checked; without a key the answer is still
    401 (it was 400 ``invalid_input``), with too weak a key 403, with a good one 400."""
    headers = {"Content-Type": "application/json"}
    url = setup.server.url + path
    assert_error(httpx.request(method, url, content=body, headers=headers), 401, "unauthorized")
    if scope == "write":
        with setup.client("alice", "read") as reader:
            refused = reader.request(method, path, content=body, headers=headers)
        assert_error(refused, 403, "forbidden")
    with setup.client("alice", scope) as caller:
        answered = caller.request(method, path, content=body, headers=headers)
    assert assert_error(answered, 400, "invalid_input")["field"] in ("body", None)
