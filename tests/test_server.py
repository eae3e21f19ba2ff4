"""The REST server, through a real uvicorn on 127.0.0.1 and httpx: every endpoint answers with
the JSON of its result type (checked against the response models), the aliases answer like
their main paths, subscriptions stream server-sent events, the OpenAPI document describes the
JSON forms, and the bundled model embeds end to end."""

from __future__ import annotations

import inspect
import json
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import httpx
import numpy as np
import pytest
from pydantic import BaseModel

import hebbs
from hebbs import _native
from hebbs.api import responses
from hebbs.embedder import Embedder
from hebbs.server.metrics import CONTENT_TYPE as PROMETHEUS_CONTENT_TYPE
from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

Embed = Callable[[list[str]], np.ndarray]
TENANT = "acme"


class Api:
    """A running server and a client holding an admin key of :data:`TENANT`."""

    def __init__(self, server: BackgroundServer, client: httpx.Client) -> None:
        self.server = server
        self.client = client

    def post(self, path: str, body: Any, status: int = 200) -> Any:
        response = self.client.post(path, json=body)
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    def get(self, path: str, status: int = 200, **params: Any) -> Any:
        response = self.client.get(path, params=params)
        assert response.status_code == status, response.text
        return response.json()

    def put(self, path: str, body: Any) -> Any:
        response = self.client.put(path, json=body)
        assert response.status_code == 200, response.text
        return response.json()


def admin_client(data_dir: Path, server: BackgroundServer, tenant: str = TENANT) -> httpx.Client:
    with_keys = KeyStore(data_dir)
    key, _ = with_keys.create(tenant, "admin")
    with_keys.close()
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}, timeout=10)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed) -> Iterator[Api]:
    data_dir = tmp_path_factory.mktemp("server")
    with (
        BackgroundServer(data_dir, embedder=hash_embed) as server,
        admin_client(data_dir, server) as client,
    ):
        yield Api(server, client)


def check(model: type[BaseModel], payload: Any) -> Any:
    """``payload`` validated by response ``model`` (every field present, none unknown)."""
    model.model_validate(payload)
    return payload


def test_remember_and_get(api: Api) -> None:
    body = {
        "content": "Acme asked for a discount on the annual plan",
        "importance": 0.8,
        "context": {"channel": "email"},
        "entity_id": "acme",
        "kind": "insight",
    }
    memory = check(responses.MemoryOut, api.post("/v1/memories", body, 201))
    assert memory["id"] == memory["id_hex"]
    assert len(memory["id"]) == 32
    assert (memory["kind"], memory["entity_id"], memory["context"]) == (
        "insight",
        "acme",
        {"channel": "email"},
    )
    assert memory["embedding"] is None
    got = check(responses.MemoryOut, api.get(f"/v1/memories/{memory['id']}"))
    assert got["content"] == body["content"]
    with_vector = api.get(f"/v1/memories/{memory['id']}", include_embedding="true")
    assert len(with_vector["embedding"]) == 64
    assert api.get(f"/v1/memories/{'0' * 32}", 404)["error_code"] == "not_found"


def test_remember_with_an_embedding_and_edges(api: Api) -> None:
    cause = api.post("/v1/memories", {"content": "the invoice export broke"}, 201)
    vector = [0.0] * 64
    vector[3] = 1.0
    edge = {"target": cause["id"], "edge_type": "caused_by", "confidence": 0.9}
    effect = api.post(
        "/v1/memories",
        {"content": "customers complained", "embedding": vector, "edges": [edge]},
        201,
    )
    output = api.post(
        "/v1/memories/recall",
        {"strategies": ["causal"], "seed_memory_id": effect["id"], "direction": "causes"},
    )
    assert [r["memory"]["id"] for r in output["results"]] == [cause["id"]]


def test_bulk_and_batch(api: Api) -> None:
    items = [{"content": f"bulk memory {i}", "entity_id": "bulk"} for i in range(3)]
    stored = api.post("/v1/memories/bulk", {"items": items}, 201)
    assert [m["content"] for m in stored] == [item["content"] for item in items]
    ids = [m["id"] for m in stored]
    found = api.post("/v1/memories/batch", {"ids": [ids[2], "0" * 32, ids[0]]})
    assert [m and m["id"] for m in found] == [ids[2], None, ids[0]]
    with_vectors = api.post("/v1/memories/batch", {"ids": ids[:1], "include_embedding": True})
    assert len(with_vectors[0]["embedding"]) == 64


@pytest.mark.parametrize("path", ["/v1/memories/recall", "/v1/recall"])
def test_recall_on_both_paths(api: Api, path: str) -> None:
    api.post("/v1/memories", {"content": "pricing call with Initech", "entity_id": "initech"}, 201)
    output = check(
        responses.RecallOutputOut,
        api.post(
            path,
            {
                "cue": "pricing call with Initech",
                "strategies": [
                    "similarity",
                    {"strategy": "temporal", "entity_id": "initech", "top_k": 2},
                ],
                "scoring_weights": {"w_relevance": 1.0, "w_recency": 0.0},
                "top_k": 3,
            },
        ),
    )
    top = output["results"][0]
    assert top["memory"]["content"] == "pricing call with Initech"
    assert {d["strategy"] for d in top["strategy_details"]} == {"similarity", "temporal"}
    assert output["strategy_errors"] == []


def test_recall_reports_a_failing_strategy(api: Api) -> None:
    output = api.post(
        "/v1/memories/recall", {"cue": "pricing", "strategies": ["similarity", "temporal"]}
    )
    errors = check(responses.RecallOutputOut, output)["strategy_errors"]
    assert [e["strategy"] for e in errors] == ["temporal"]


@pytest.mark.parametrize("path", ["/v1/memories/prime", "/v1/prime"])
def test_prime_on_both_paths(api: Api, path: str) -> None:
    api.post("/v1/memories", {"content": "Globex renewal due in May", "entity_id": "globex"}, 201)
    output = check(
        responses.PrimeOutputOut, api.post(path, {"entity_id": "globex", "cue": "renewal"})
    )
    assert output["results"][0]["memory"]["entity_id"] == "globex"
    assert output["temporal_count"] >= 1


@pytest.mark.parametrize("path", ["/v1/memories/{id}", "/v1/revise/{id}"])
def test_revise_and_lineage(api: Api, path: str) -> None:
    original = api.post("/v1/memories", {"content": "discount at 15%"}, 201)
    revised = check(
        responses.MemoryOut,
        api.put(path.format(id=original["id"]), {"content": "discount at 12%", "importance": 0.9}),
    )
    assert revised["kind"] == "revision"
    chain = api.get(f"/v1/memories/{revised['id']}/lineage")
    assert [m["content"] for m in chain] == ["discount at 15%", "discount at 12%"]
    assert api.get(f"/v1/memories/{original['id']}")["superseded"] is True
    stale = api.client.put(path.format(id=original["id"]), json={"content": "discount at 9%"})
    assert stale.status_code == 409, stale.text
    body = check(responses.ErrorOut, stale.json())
    assert (body["error_code"], body["field"]) == ("conflict", "id")
    assert revised["id"] in body["message"]
    assert len(api.get(f"/v1/memories/{original['id']}/lineage")) == 2, "the conflict wrote nothing"


def test_add_edges_and_orphans(api: Api) -> None:
    a = api.post("/v1/memories", {"content": "orphan candidate one"}, 201)
    b = api.post("/v1/memories", {"content": "orphan candidate two"}, 201)
    orphan_ids = {m["id"] for m in api.get("/v1/orphans", limit=1000)}
    assert {a["id"], b["id"]} <= orphan_ids
    edge = {"target": b["id"], "edge_type": "related_to", "confidence": 0.5}
    response = api.client.post(f"/v1/memories/{a['id']}/edges", json={"edges": [edge]})
    assert response.status_code == 204
    assert response.content == b""
    orphan_ids = {m["id"] for m in api.get("/v1/orphans", limit=1000)}
    assert not {a["id"], b["id"]} & orphan_ids


@pytest.mark.parametrize("path", ["/v1/memories/forget", "/v1/forget"])
def test_forget_and_tombstones(api: Api, path: str) -> None:
    memory = api.post("/v1/memories", {"content": "to be forgotten", "entity_id": "gone"}, 201)
    result = check(responses.ForgetResultOut, api.post(path, {"ids": [memory["id"]]}))
    assert result["forgotten_count"] == 1
    assert api.get(f"/v1/memories/{memory['id']}", 404)["error_code"] == "not_found"
    tombstone = check(responses.TombstoneOut, api.get(f"/v1/tombstones/{memory['id']}"))
    assert (tombstone["entity_id"], tombstone["kind"]) == ("gone", "episode")
    listed = [check(responses.TombstoneOut, t)["id"] for t in api.get("/v1/tombstones", limit=1000)]
    assert memory["id"] in listed
    after = api.get("/v1/tombstones", after=memory["id"], limit=1000)
    assert memory["id"] not in [t["id"] for t in after]
    assert api.get(f"/v1/tombstones/{'0' * 32}", 404)["error_code"] == "not_found"


def list_all(api: Api, **params: Any) -> list[dict[str, Any]]:
    """Every memory of ``GET /v1/memories`` with ``params``, following ``next_cursor``."""
    memories: list[dict[str, Any]] = []
    while True:
        page = check(responses.MemoryPageOut, api.get("/v1/memories", **params))
        memories += page["memories"]
        if page["next_cursor"] is None:
            return memories
        params["cursor"] = page["next_cursor"]


def test_list_memories_pages_filters_and_refuses_bad_input(api: Api) -> None:
    made = [
        api.post("/v1/memories", {"content": f"listed {i}", "entity_id": "lister"}, 201)
        for i in range(5)
    ]
    insight = {"content": "listed insight", "entity_id": "lister", "kind": "insight"}
    made.append(api.post("/v1/memories", insight, 201))
    first = check(responses.MemoryPageOut, api.get("/v1/memories", entity_id="lister", limit=2))
    assert [m["id"] for m in first["memories"]] == [made[0]["id"], made[1]["id"]]
    assert first["next_cursor"] == made[1]["id"]
    listed = list_all(api, entity_id="lister", limit=2)
    assert [m["id"] for m in listed] == [m["id"] for m in made]
    insights = list_all(api, entity_id="lister", kind="insight")
    assert [m["id"] for m in insights] == [made[-1]["id"]]
    everything = {m["id"] for m in list_all(api, limit=3)}
    assert {m["id"] for m in made} <= everything
    revised = api.put(f"/v1/memories/{made[0]['id']}", {"importance": 0.9})
    current = [m["id"] for m in list_all(api, entity_id="lister")]
    assert made[0]["id"] not in current
    assert revised["id"] in current
    with_old = list_all(api, entity_id="lister", include_superseded="true")
    assert made[0]["id"] in [m["id"] for m in with_old]
    for params, field in (
        ({"limit": 0}, "limit"),
        ({"entity_id": "lister", "cursor": "0" * 32}, "cursor"),
        ({"cursor": "not hex"}, "cursor"),
        ({"kind": "dream"}, "kind"),
    ):
        error = api.get("/v1/memories", 400, **params)
        assert (error["error_code"], error["field"]) == ("invalid_input", field), params


def test_list_memories_shows_only_the_callers_tenant(tmp_path: Path, hash_embed: Embed) -> None:
    with (
        BackgroundServer(tmp_path, embedder=hash_embed) as server,
        admin_client(tmp_path, server, "alice") as alice,
        admin_client(tmp_path, server, "bob") as bob,
    ):
        for i in range(3):
            body = {"content": f"alice's secret {i}", "entity_id": "shared"}
            assert alice.post("/v1/memories", json=body).status_code == 201
        bob.post("/v1/memories", json={"content": "bob's note", "entity_id": "shared"})
        mine = alice.get("/v1/memories", params={"limit": 2}).json()
        assert len(mine["memories"]) == 2
        for params in ({}, {"entity_id": "shared"}):
            theirs = bob.get("/v1/memories", params=params).json()
            assert [m["content"] for m in theirs["memories"]] == ["bob's note"], params
            assert theirs["next_cursor"] is None
        cursor = {"entity_id": "shared", "cursor": mine["next_cursor"]}
        response = bob.get("/v1/memories", params=cursor)
        assert response.status_code == 400, "alice's cursor means nothing to bob"
        assert response.json()["field"] == "cursor"


def test_session_context(api: Api) -> None:
    first = api.post("/v1/memories", {"content": "session opener", "session_id": "s-1"}, 201)
    second = api.post("/v1/memories", {"content": "session follow-up", "session_id": "s-1"}, 201)
    context = api.get("/v1/sessions/s-1/context")
    assert [m["id"] for m in context] == [first["id"], second["id"]]
    assert len(api.get("/v1/sessions/s-1/context", limit=1)) == 1
    assert api.get("/v1/sessions/nobody/context") == []


def test_health_and_probes(api: Api) -> None:
    status = check(responses.HealthStatusOut, api.get("/v1/health"))
    assert status["serving"] is True
    assert status["version"] == hebbs.__version__
    assert httpx.get(api.server.url + "/v1/health/live").json() == {"live": True}
    assert httpx.get(api.server.url + "/v1/health/ready").json() == {"ready": True}


def test_metrics(api: Api) -> None:
    api.get("/v1/health")
    api.get(f"/v1/memories/{'0' * 32}", 404)
    response = api.client.get("/v1/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'hebbs_http_requests_total{method="GET",route="/v1/health",status="200"}' in text
    assert 'route="/v1/memories/{id}",status="404"' in text
    assert "hebbs_http_request_duration_seconds_bucket" in text
    assert "hebbs_open_tenants 1.0" in text


def read_events(response: httpx.Response, count: int) -> list[tuple[str, dict[str, Any]]]:
    """The first ``count`` events (name, data) of a server-sent event stream."""
    events: list[tuple[str, dict[str, Any]]] = []
    name = ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            events.append((name, json.loads(line.removeprefix("data: "))))
            if len(events) == count:
                break
    return events


def open_leases(api: Api) -> int:
    tenants = api.server.app.state.tenants
    return sum(entry.leases for entry in tenants._open.values())


def test_subscribe_streams_pushes_and_closes_on_disconnect(api: Api) -> None:
    received: list[tuple[str, dict[str, Any]]] = []
    ready = threading.Event()

    def listen() -> None:
        body = {"cue": "quarterly board meeting", "confidence_threshold": 0.9}
        with api.client.stream("POST", "/v1/subscribe", json=body) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            ready.set()
            received.extend(read_events(response, 2))

    listener = threading.Thread(target=listen)
    listener.start()
    assert ready.wait(10)
    time.sleep(0.2)
    api.post("/v1/memories", {"content": "unrelated lunch order"}, 201)
    pushed = api.post("/v1/memories", {"content": "quarterly board meeting"}, 201)
    listener.join(10)
    assert not listener.is_alive()
    (first, subscribed), (second, push) = received
    assert first == "subscribed"
    assert second == "push"
    assert push["subscription_id"] == subscribed["subscription_id"]
    assert check(responses.SubscribePushOut, push)["memory"]["id"] == pushed["id"]
    assert push["sequence_number"] == 1
    deadline = time.monotonic() + 5
    while open_leases(api) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert open_leases(api) == 0


def test_recall_refuses_bad_rerank_options(api: Api) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"cue": "x", "rerank": "colbert"}, "rerank"),
        ({"cue": "x", "rerank_top_n": -1}, "rerank_top_n"),
        ({"cue": "x", "quality": "good"}, "quality"),
        ({"cue": "x", "cue_token_vectors": [1.0, 2.0]}, "cue_token_vectors"),
        # This server's embedder is a plain callable: it gives no token vectors.
        ({"cue": "x", "strategies": ["hybrid"], "rerank": "late_interaction"}, "rerank"),
    ]
    for body, field in cases:
        error = api.post("/v1/memories/recall", body, 400)
        assert (error["error_code"], error["field"]) == ("invalid_input", field), body


def test_subscribe_needs_a_cue(api: Api) -> None:
    error = api.post("/v1/subscribe", {"entity_id": "acme"}, 400)
    assert (error["error_code"], error["field"]) == ("invalid_input", "cue")
    assert open_leases(api) == 0


def test_openapi_describes_the_json_forms(api: Api) -> None:
    document = api.get("/openapi.json")
    paths = document["paths"]
    for path in (
        "/v1/memories",
        "/v1/memories/bulk",
        "/v1/memories/batch",
        "/v1/memories/recall",
        "/v1/recall",
        "/v1/memories/{id}",
        "/v1/revise/{id}",
        "/v1/memories/{id}/edges",
        "/v1/subscribe",
        "/v1/tombstones/{id}",
    ):
        assert path in paths, path
    schemas = document["components"]["schemas"]
    edge = schemas["RememberRequest"]["properties"]["edges"]["items"]
    assert edge["required"] == ["target", "edge_type"]
    assert "MemoryOut" in schemas
    assert "RecallOutputOut" in schemas


#: Every native type with a wire shape (``to_dict``), and its response model: ``<Name>Out``.
NATIVE_TYPES: dict[type, type[BaseModel]] = {
    native: getattr(responses, f"{name}Out")
    for name, native in vars(_native).items()
    if inspect.isclass(native) and hasattr(native, "to_dict")
}


@pytest.mark.parametrize("native", list(NATIVE_TYPES), ids=lambda t: t.__name__)
def test_every_public_property_has_a_json_field(native: type) -> None:
    properties = {
        name
        for name, value in inspect.getmembers(native)
        if not name.startswith("_") and not callable(value) and inspect.isdatadescriptor(value)
    }
    assert properties == set(NATIVE_TYPES[native].model_fields)


def test_the_bundled_model_end_to_end(tmp_path: Path, embedder: Embedder) -> None:
    with (
        BackgroundServer(tmp_path, embedder=embedder) as server,
        admin_client(tmp_path, server) as client,
    ):
        for content in (
            "The customer wants a refund for the broken blender",
            "Team offsite is planned for the mountains in June",
            "Quarterly revenue grew by eight percent",
        ):
            assert client.post("/v1/memories", json={"content": content}).status_code == 201
        output = client.post(
            "/v1/recall", json={"cue": "a buyer asked for their money back", "top_k": 1}
        ).json()
    assert output["results"][0]["memory"]["content"].startswith("The customer wants a refund")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls(tmp_path: Path, hash_embed: Embed) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    options = {"tls_cert": str(cert), "tls_key": str(key), "auth": False}
    with BackgroundServer(tmp_path / "data", embedder=hash_embed, **options) as server:
        assert server.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))
        response = httpx.get(server.url + "/v1/health", verify=context)
    assert response.status_code == 200
    assert response.json()["serving"] is True


#: The operations that look up a memory their body names, so may answer 404.
BODY_LOOKUPS = {("post", "/v1/contradictions/confirm"), ("post", "/v1/reflect/commit")}


def _looks_up(method: str, path: str) -> bool:
    """Whether an operation looks up what it names, so may answer 404: a memory or tombstone
    id in its path (a session's is no lookup: an unknown session has an empty context) or in
    its body."""
    in_path = "{id}" in path and not path.startswith("/v1/sessions/")
    return in_path or (method, path) in BODY_LOOKUPS


#: The operations that may contradict the store's state, so may answer 409 (a revise of a
#: superseded memory, an import of an id the store holds).
CONFLICTS = {
    ("put", "/v1/memories/{id}"),
    ("put", "/v1/revise/{id}"),
    ("post", "/v1/contradictions/confirm"),
    ("post", "/v1/import"),
}
#: The operations that call the server's LLM provider (502 when it fails).
LLM_CALLS = {("post", "/v1/reflect")}
#: The operations that need no key.
PUBLIC = {("get", "/v1/health/live"), ("get", "/v1/health/ready")}


def test_openapi_declares_the_errors_the_server_sends(api: Api) -> None:
    """Every failure is declared with the ErrorOut body; FastAPI's 422, which the server never
    sends (bad input is 400), is not (it was documented on every operation that takes input)."""
    document = api.get("/openapi.json")
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas
    assert set(schemas["ErrorOut"]["required"]) == {"error_code", "message", "field"}
    error = {"$ref": "#/components/schemas/ErrorOut"}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            failures = {int(status) for status in answers if int(status) >= 400}
            expected = set() if (method, path) in PUBLIC else {401, 403, 429, 500, 503}
            if operation.get("parameters") or "requestBody" in operation:
                expected.add(400)
            if "requestBody" in operation:
                expected.add(413)
            if _looks_up(method, path):
                expected.add(404)
            if (method, path) in CONFLICTS:
                expected.add(409)
            if (method, path) in LLM_CALLS:
                expected.add(502)
            if path == "/v1/health/ready":
                expected.add(503)
            assert failures == expected, (method, path)
            for status in failures:
                assert answers[str(status)]["content"]["application/json"]["schema"] == error


def test_openapi_declares_the_stream_media_types(api: Api) -> None:
    """The metrics and the subscription stream declare their media types (they declared none)."""
    paths = api.get("/openapi.json")["paths"]
    metrics = paths["/v1/metrics"]["get"]["responses"]["200"]["content"]
    assert list(metrics) == [PROMETHEUS_CONTENT_TYPE]
    stream = paths["/v1/subscribe"]["post"]["responses"]["200"]["content"]
    events = stream["text/event-stream"]["schema"]["oneOf"]
    assert [event["properties"]["event"]["const"] for event in events] == [
        "subscribed",
        "push",
        "end",
        "error",
    ]
