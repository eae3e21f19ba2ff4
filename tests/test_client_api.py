"""The remote client without a server: the same methods and parameters as the embedded API,
the same input errors raised before any request, the JSON bodies and endpoints of each call, the
error table and the event-stream parser."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, Callable

import httpx
import numpy as np
import pytest

import hebbs
from hebbs import AsyncHebbs, AsyncHebbsClient, Hebbs, HebbsClient
from hebbs.client.errors import ERROR_CLASSES, error_from_response
from hebbs.client.operations import OPERATIONS
from hebbs.client.sse import EventParser, subscription_id
from hebbs.service.errors import ENGINE_ERRORS

#: Names only one side has: how each is opened, the client's base URL and its route to a
#: cluster's shard.
OPENERS = {"open"}
CLIENT_ONLY = {"connect", "url", "route"}


def public(kind: type) -> set[str]:
    return {name for name in dir(kind) if not name.startswith("_")}


def parameters(function: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize(
    ("embedded", "remote", "is_async"),
    [(Hebbs, HebbsClient, False), (AsyncHebbs, AsyncHebbsClient, True)],
)
def test_same_methods_and_parameters(embedded: type, remote: type, is_async: bool) -> None:
    embedded_names = public(embedded) - OPENERS
    remote_names = public(remote) - CLIENT_ONLY
    # get_many comes to the embedded API with the server; until then only the client has it.
    if "get_many" not in embedded_names:
        remote_names.discard("get_many")
    assert embedded_names == remote_names
    for name in sorted(embedded_names):
        ours = inspect.getattr_static(embedded, name)
        theirs = inspect.getattr_static(remote, name)
        if isinstance(ours, property):
            assert isinstance(theirs, property), name
            continue
        assert parameters(getattr(embedded, name)) == parameters(getattr(remote, name)), name
        assert inspect.iscoroutinefunction(getattr(remote, name)) == (
            is_async or inspect.iscoroutinefunction(getattr(embedded, name))
        ), name
        if name not in ("subscribe", "open_subscription") and not is_async:
            ours_returns = inspect.signature(getattr(embedded, name)).return_annotation
            theirs_returns = inspect.signature(getattr(remote, name)).return_annotation
            assert ours_returns == theirs_returns, name


def test_constructors_take_url_key_and_timeout() -> None:
    for kind in (HebbsClient, AsyncHebbsClient):
        names = [name for name, _, _ in parameters(kind)]
        assert names[:3] == ["url", "api_key", "timeout"]
        assert parameters(kind.connect)[:3] == parameters(kind)[:3]


class Recorder:
    """A transport that records requests: here only to prove none was sent."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(500)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def client(recorder: Recorder) -> Iterator[HebbsClient]:
    with HebbsClient("http://hebbs.invalid", transport=httpx.MockTransport(recorder)) as remote:
        yield remote


#: Calls the request models (or the engine's own cue checks) refuse before the engine runs.
BAD_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("remember", ("",), {}),
    ("remember", ("x",), {"importance": "high"}),
    ("remember", ("x",), {"edges": [1]}),
    ("remember", ("x",), {"context": {"k": object()}}),
    ("remember", ("x",), {"created_at": -1}),
    ("remember_many", ([{"content": "ok"}, {"content": 3}],), {}),
    ("get", (123,), {}),
    ("get", (b"short",), {}),
    ("recall", ("   ",), {}),
    ("recall", ("x",), {"top_k": -1}),
    ("recall", ("x",), {"strategies": [5]}),
    ("recall", ("x",), {"scoring_weights": {"w_bogus": 1.0}}),
    ("recall", ("x",), {"time_range": (1,)}),
    ("prime", (5,), {}),
    ("revise", (b"short",), {"content": "new"}),
    ("lineage", (None,), {}),
    ("add_edges", ("0" * 32, ["not an edge"]), {}),
    ("forget", ("0" * 32,), {}),
    ("forget_decayed", ("low",), {}),
    ("tombstones", (), {"limit": 0}),
    ("tombstone", (1.5,), {}),
    ("get_chat_context", (5,), {}),
    ("list_orphans", (), {"limit": "ten"}),
    ("subscribe", (), {}),
    ("subscribe", ("x",), {"embedding": [0.1, 0.2]}),
    ("subscribe", ("  ",), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), BAD_CALLS)
def test_bad_input_fails_before_sending_as_embedded(
    mem: Hebbs,
    client: HebbsClient,
    recorder: Recorder,
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    with pytest.raises(hebbs.InvalidInputError) as embedded:
        getattr(mem, name)(*args, **kwargs)
    with pytest.raises(hebbs.InvalidInputError) as remote:
        getattr(client, name)(*args, **kwargs)
    assert type(remote.value) is type(embedded.value)
    assert remote.value.field == embedded.value.field
    assert str(remote.value) == str(embedded.value)
    assert recorder.requests == []


async def test_async_bad_input_fails_before_sending(recorder: Recorder) -> None:
    transport = httpx.MockTransport(recorder)
    async with AsyncHebbsClient("http://hebbs.invalid", transport=transport) as remote:
        with pytest.raises(hebbs.InvalidValueError) as error:
            await remote.recall("x", top_k=-1)
        assert error.value.field == "top_k"
        with pytest.raises(hebbs.RemoteUnsupportedError):
            await remote.optimize()
    assert recorder.requests == []


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("optimize", ()),
        ("checkpoint", ()),
        ("put_token_vectors", ([],)),
        ("get_token_vectors", (["0" * 32],)),
    ],
)
def test_in_process_only_methods_raise_typed_error(
    client: HebbsClient, recorder: Recorder, name: str, args: tuple[Any, ...]
) -> None:
    with pytest.raises(hebbs.RemoteUnsupportedError) as error:
        getattr(client, name)(*args)
    assert isinstance(error.value, NotImplementedError)
    with pytest.raises(hebbs.RemoteUnsupportedError):
        _ = client.embedder
    assert recorder.requests == []


def test_closed_client_raises_closed_error(client: HebbsClient, recorder: Recorder) -> None:
    client.close()
    assert client.closed
    with pytest.raises(hebbs.ClosedError):
        client.health()
    assert recorder.requests == []


def test_api_key_is_a_bearer_header(recorder: Recorder) -> None:
    transport = httpx.MockTransport(recorder)
    with (
        HebbsClient("http://h.invalid", "k123", transport=transport) as remote,
        pytest.raises(hebbs.InternalError),
    ):
        remote.health()
    assert recorder.requests[0].headers["authorization"] == "Bearer k123"


ID = bytes(range(16))


def sent(call: Any) -> Any:
    """The body as it goes over the wire: JSON text, read back."""
    return json.loads(json.dumps(call.body))


def test_remember_body() -> None:
    when = datetime(2024, 1, 2, tzinfo=timezone.utc)
    call = OPERATIONS.remember(
        "text",
        importance=0.25,
        context={"a": [1, 2.5, None]},
        entity_id="acme",
        edges=[hebbs.Edge(ID, hebbs.EdgeType.CAUSED_BY, 0.5)],
        created_at=when,
        embedding=np.array([0.5, 0.25], dtype=np.float32),
        kind=hebbs.MemoryKind.INSIGHT,
    )
    assert (call.method, call.path) == ("POST", "/v1/memories")
    assert sent(call) == {
        "content": "text",
        "importance": 0.25,
        "context": {"a": [1, 2.5, None]},
        "entity_id": "acme",
        "edges": [{"target": ID.hex(), "edge_type": "caused_by", "confidence": 0.5}],
        "created_at": int(when.timestamp() * 1_000_000),
        "embedding": [0.5, 0.25],
        "kind": "insight",
    }
    assert sent(OPERATIONS.remember("only content")) == {"content": "only content"}


def test_recall_body() -> None:
    config = hebbs.RecallStrategyConfig("causal", seed_memory_id=ID, max_depth=2)
    call = OPERATIONS.recall(
        "cue",
        strategies=["similarity", config],
        time_range=(None, 5),
        scoring_weights=hebbs.ScoringWeights(w_relevance=0.7, w_recency=0.1),
        seed_memory_id=ID,
        edge_types=[hebbs.EdgeType.RELATED_TO, "caused_by"],
    )
    assert (call.method, call.path) == ("POST", "/v1/memories/recall")
    body = sent(call)
    assert body["strategies"] == [
        "similarity",
        {"strategy": "causal", "seed_memory_id": ID.hex(), "max_depth": 2},
    ]
    assert body["time_range"] == [0, 5]
    assert set(body["scoring_weights"]) == {
        "w_relevance",
        "w_recency",
        "w_importance",
        "w_reinforcement",
        "max_age_us",
        "reinforcement_cap",
    }
    assert body["scoring_weights"]["w_relevance"] == pytest.approx(0.7)
    assert body["seed_memory_id"] == ID.hex()
    assert body["edge_types"] == ["related_to", "caused_by"]
    weights = sent(OPERATIONS.recall("cue", scoring_weights={"w_recency": 0.5}))
    assert weights["scoring_weights"] == {"w_recency": 0.5}


def test_paths_and_queries() -> None:
    hex_id = ID.hex()
    get = OPERATIONS.get(ID, include_embedding=True)
    assert (get.method, get.path, get.params) == (
        "GET",
        f"/v1/memories/{hex_id}",
        {"include_embedding": "true"},
    )
    revise = OPERATIONS.revise(hex_id, content="new", importance=0.5)
    assert (revise.method, revise.path, sent(revise)) == (
        "PUT",
        f"/v1/memories/{hex_id}",
        {"content": "new", "importance": 0.5},
    )
    edges = OPERATIONS.add_edges(ID, [hebbs.Edge(ID, "related_to")])
    assert edges.path == f"/v1/memories/{hex_id}/edges"
    assert sent(edges) == {
        "edges": [{"target": hex_id, "edge_type": "related_to", "confidence": 1.0}]
    }
    assert OPERATIONS.lineage(ID).path == f"/v1/memories/{hex_id}/lineage"
    bulk = OPERATIONS.remember_many([{"content": "a"}, {"content": "b", "entity_id": "e"}])
    assert bulk.path == "/v1/memories/bulk"
    assert sent(bulk) == {"items": [{"content": "a"}, {"content": "b", "entity_id": "e"}]}
    batch = OPERATIONS.get_many([ID, hex_id])
    assert (batch.path, sent(batch)) == ("/v1/memories/batch", {"ids": [hex_id, hex_id]})
    forget = OPERATIONS.forget(ids=[ID], kind="episode")
    assert (forget.path, sent(forget)) == (
        "/v1/memories/forget",
        {"ids": [hex_id], "kind": "episode"},
    )
    decayed = OPERATIONS.forget_decayed(0.1)
    assert (decayed.path, sent(decayed)) == (
        "/v1/memories/forget_decayed",
        {"floor": 0.1, "limit": None},
    )
    context = OPERATIONS.get_chat_context("chat/1", limit=5)
    assert (context.path, context.params) == ("/v1/sessions/chat%2F1/context", {"limit": "5"})
    assert OPERATIONS.list_orphans(limit=3).params == {"limit": "3"}
    page = OPERATIONS.tombstones(after=ID, limit=7)
    assert (page.path, page.params) == ("/v1/tombstones", {"after": hex_id, "limit": "7"})
    one = OPERATIONS.tombstone(ID)
    assert (one.path, one.none_if_not_found) == (f"/v1/tombstones/{hex_id}", True)
    assert OPERATIONS.health().path == "/v1/health"
    prime = OPERATIONS.prime("acme", cue="x", max_memories=4)
    assert (prime.path, sent(prime)) == (
        "/v1/memories/prime",
        {"entity_id": "acme", "cue": "x", "max_memories": 4},
    )
    subscribe = OPERATIONS.subscribe("x", confidence_threshold=0.5)
    assert (subscribe.path, sent(subscribe)) == (
        "/v1/subscribe",
        {"cue": "x", "confidence_threshold": 0.5},
    )


@pytest.mark.parametrize(
    ("code", "status", "expected"),
    [
        ("invalid_input", 422, hebbs.InvalidValueError),
        ("not_found", 404, hebbs.NotFoundError),
        ("conflict", 409, hebbs.ConflictError),
        ("something_new", 409, hebbs.ConflictError),
        ("unauthorized", 401, hebbs.AuthError),
        ("forbidden", 403, hebbs.AuthError),
        ("rate_limited", 429, hebbs.RateLimitedError),
        ("payload_too_large", 413, hebbs.InvalidValueError),
        ("storage_error", 500, hebbs.StorageError),
        ("io_error", 500, hebbs.HebbsIOError),
        ("corruption", 500, hebbs.CorruptionError),
        ("index_error", 500, hebbs.VectorIndexError),
        ("internal_error", 500, hebbs.InternalError),
        ("not_ready", 503, hebbs.ServerUnavailableError),
        ("something_new", 503, hebbs.ServerUnavailableError),
        ("something_new", 500, hebbs.InternalError),
    ],
)
def test_error_table(code: str, status: int, expected: type[Exception]) -> None:
    error = error_from_response(status, {"error_code": code, "message": "m", "field": None})
    assert type(error) is expected


def test_error_fields() -> None:
    body = {"error_code": "invalid_input", "message": "invalid top_k: too big", "field": "top_k"}
    error = error_from_response(422, body)
    assert isinstance(error, hebbs.InvalidValueError)
    assert (error.field, error.reason, str(error)) == ("top_k", "too big", "invalid top_k: too big")
    too_large = error_from_response(413, {"error_code": "payload_too_large", "message": "big"})
    assert isinstance(too_large, hebbs.InvalidInputError)
    assert too_large.field == "body"
    limited = error_from_response(429, {"error_code": "rate_limited"}, {"retry-after": "2.5"})
    assert isinstance(limited, hebbs.RateLimitedError)
    assert limited.retry_after == 2.5
    message = "conflict on id: memory a is superseded by b"
    body = {"error_code": "conflict", "message": message, "field": "id"}
    conflict = error_from_response(409, body)
    assert isinstance(conflict, hebbs.ConflictError)
    assert (conflict.field, conflict.reason) == ("id", "memory a is superseded by b")
    assert str(conflict) == message
    assert set(ERROR_CLASSES) >= {"invalid_input", "not_found", "conflict", "unauthorized"}
    assert set(ERROR_CLASSES) >= {code for _, _, code in ENGINE_ERRORS}, "every engine error"


def test_event_parser() -> None:
    parser = EventParser()
    lines = [
        ": keep-alive",
        'data: {"subscription_id": 7}',
        "",
        "event: push",
        "data: {",
        "data: }",
        "",
    ]
    events = [event for line in lines if (event := parser.feed(line)) is not None]
    assert subscription_id(events[0]) == 7
    assert (events[1].name, events[1].data) == ("push", {})
    with pytest.raises(hebbs.ServerUnavailableError):
        subscription_id(events[1])
