"""A key's streams end with the key: a subscription opened with a key that is then revoked, or
that expires, ends within ``KEY_RECHECK_S`` on every surface (REST's ``/v1/subscribe`` with an
``error`` event, gRPC's ``Subscribe`` with ``UNAUTHENTICATED``), and an MCP session's next
request is refused (the transport opens no stream that could outlive its key: ``GET /mcp`` is
405). The Python client raises the stream's error. Each test waits for the end with a deadline
far past the re-check interval."""

from __future__ import annotations

import json
import math
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import grpc
import httpx
import numpy as np
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from hebbs import AuthError, HebbsClient
from hebbs.rpc import hebbs_pb2 as pb
from hebbs.server.serve import BackgroundServer
from hebbs.service.auth import (
    KEY_RECHECK_S,
    AuthConfig,
    Caller,
    KeyWatch,
    authenticate_header,
)
from hebbs.service.keys import KeyStore
from hebbs.service.limits import TokenBuckets

Embed = Callable[[list[str]], np.ndarray]

#: Seconds a test waits for a stream to end once its key is gone (loaded 2-core machines).
END_DEADLINE_S = KEY_RECHECK_S + 60.0
#: Seconds a test waits for a push it caused.
PUSH_DEADLINE_S = 60.0
#: What the streams listen for, and what is remembered to match it.
CUE = "the quarterly launch review moved"
#: The events a REST stream gave, and None once it ended.
Events = queue.Queue[tuple[str, Any] | None]


class Site:
    """The module's server (REST and gRPC) and its key store."""

    def __init__(self, data: Path, server: BackgroundServer) -> None:
        self.data = data
        self.server = server
        self.keys = KeyStore(data)

    def key(self, tenant: str, scope: str = "write", **options: Any) -> tuple[str, str]:
        """A new key of ``tenant`` and its id."""
        key, info = self.keys.create(tenant, scope, **options)
        return key, info.key_id

    def remember(self, key: str, content: str = CUE) -> None:
        answer = httpx.post(
            self.server.url + "/v1/memories",
            json={"content": content},
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        )
        assert answer.status_code == 201, answer.text


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed) -> Iterator[Site]:
    data = tmp_path_factory.mktemp("revocation")
    with BackgroundServer(data, embedder=hash_embed, grpc_port=0) as server:
        made = Site(data, server)
        yield made
        made.keys.close()


def listen(site: Site, key: str) -> Events:
    """Opens ``/v1/subscribe`` with ``key`` in a thread; its events arrive on the queue, then
    None when the server ends the stream. Returns once the stream is subscribed."""
    events: Events = queue.Queue()
    timeout = httpx.Timeout(60.0, read=END_DEADLINE_S)

    def read() -> None:
        name = "message"
        headers = {"Authorization": f"Bearer {key}"}
        body = {"cue": CUE, "confidence_threshold": 0.5}
        url = site.server.url + "/v1/subscribe"
        try:
            with httpx.stream("POST", url, json=body, headers=headers, timeout=timeout) as answer:
                assert answer.status_code == 200
                for line in answer.iter_lines():
                    if line.startswith("event: "):
                        name = line.removeprefix("event: ")
                    elif line.startswith("data: "):
                        events.put((name, json.loads(line.removeprefix("data: "))))
        finally:
            events.put(None)

    threading.Thread(target=read, daemon=True).start()
    assert events.get(timeout=PUSH_DEADLINE_S)[0] == "subscribed"  # type: ignore[index]
    return events


def next_event(events: Events, deadline_s: float) -> tuple[str, Any] | None:
    return events.get(timeout=deadline_s)


def assert_ended_unauthorized(events: Events, reason: str) -> None:
    """The stream's next event is the 401's error body naming ``reason``, then it ends."""
    event = next_event(events, END_DEADLINE_S)
    assert event is not None, "the stream ended without an error event"
    name, data = event
    assert name == "error", event
    assert data["error_code"] == "unauthorized"
    assert reason in data["message"]
    assert next_event(events, END_DEADLINE_S) is None


def wait_for_no_leases(site: Site) -> None:
    """Polls until no stream holds a store (the ended ones released theirs)."""
    tenants = site.server.app.state.tenants
    deadline = time.monotonic() + END_DEADLINE_S
    while any(entry.leases for entry in tenants._open.values()):
        assert time.monotonic() < deadline, "a stream still holds its store"
        time.sleep(0.05)


def test_a_revoked_key_ends_its_rest_stream(site: Site) -> None:
    reader, reader_id = site.key("rest-revoked", "read")
    writer, _ = site.key("rest-revoked")
    events = listen(site, reader)
    site.remember(writer)
    pushed = next_event(events, PUSH_DEADLINE_S)
    assert pushed is not None
    assert pushed[0] == "push"
    assert site.keys.revoke(reader_id)
    assert_ended_unauthorized(events, "revoked")
    site.remember(writer)
    wait_for_no_leases(site)


def test_an_expired_key_ends_its_rest_stream(site: Site) -> None:
    reader, _ = site.key("rest-expired", "read", expires_in_s=KEY_RECHECK_S)
    events = listen(site, reader)
    assert_ended_unauthorized(events, "expired")


def test_a_revoked_key_ends_its_grpc_stream(site: Site) -> None:
    key, key_id = site.key("grpc-revoked")
    metadata = [("authorization", f"Bearer {key}")]
    channel = grpc.insecure_channel(f"127.0.0.1:{site.server.app.state.grpc_port}")
    subscribe = channel.unary_stream(
        "/hebbs.v1.SubscribeService/Subscribe",
        request_serializer=pb.SubscribeRequest.SerializeToString,
        response_deserializer=pb.SubscribePushMessage.FromString,
    )
    feed = channel.unary_unary(
        "/hebbs.v1.SubscribeService/Feed",
        request_serializer=pb.FeedRequest.SerializeToString,
        response_deserializer=pb.FeedResponse.FromString,
    )
    stream = subscribe(pb.SubscribeRequest(confidence_threshold=0.5), metadata=metadata)
    handshake = next(stream)
    feed(pb.FeedRequest(subscription_id=handshake.subscription_id, text=CUE), metadata=metadata)
    site.remember(key)
    assert next(stream).memory.content == CUE
    ended: queue.Queue[grpc.RpcError | None] = queue.Queue()

    def drain() -> None:
        try:
            for _ in stream:
                pass
        except grpc.RpcError as error:
            ended.put(error)
            return
        ended.put(None)

    threading.Thread(target=drain, daemon=True).start()
    assert site.keys.revoke(key_id)
    error: Any = ended.get(timeout=END_DEADLINE_S)
    assert error is not None, "the stream ended without a status"
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked" in error.details()
    assert dict(error.trailing_metadata())["error-code"] == "unauthorized"
    channel.close()
    wait_for_no_leases(site)


async def test_a_revoked_key_ends_its_mcp_session(site: Site) -> None:
    key, key_id = site.key("mcp-revoked")
    headers = {"Authorization": f"Bearer {key}"}
    url = site.server.url + "/mcp"
    accept = {**headers, "Accept": "text/event-stream"}
    with httpx.stream("GET", url, headers=accept, timeout=60) as stream:
        assert stream.status_code == 405  # an open stream is never read: it would not end
        assert json.loads(stream.read())["error_code"] == "method_not_allowed"
    http = create_mcp_http_client(headers=headers)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        answer = await client.call_tool("recall", {"cue": CUE})
        assert not answer.is_error
        assert site.keys.revoke(key_id)
        with pytest.raises(MCPError):
            await client.call_tool("recall", {"cue": CUE})
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    refused = httpx.post(url, json=listing, headers=headers, timeout=60)
    assert refused.status_code == 401
    assert "revoked" in refused.json()["message"]


def test_the_client_raises_when_its_key_is_revoked(site: Site) -> None:
    key, key_id = site.key("client-revoked", "read")
    with HebbsClient(site.server.url, key) as client:
        subscription = client.subscribe(CUE, confidence_threshold=0.5)
        assert site.keys.revoke(key_id)
        with pytest.raises(AuthError, match="revoked"):
            subscription.next(timeout=END_DEADLINE_S)
        deadline = time.monotonic() + END_DEADLINE_S
        while not subscription.closed:  # the reader ends just after it queued the error
            assert time.monotonic() < deadline, "the subscription did not end"
            time.sleep(0.02)


class Clock:
    """A clock that stands still until moved."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_key_is_checked_once_an_interval(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path)
    try:
        key, info = keys.create("alice", "read")
        config = AuthConfig(keys, TokenBuckets())
        caller = authenticate_header(config, f"Bearer {key}", "read")
        clock = Clock()
        watch = KeyWatch(config, caller, 5.0, clock)
        assert watch.wait_s() == 5.0
        assert keys.revoke(info.key_id)
        assert watch.refusal() is None  # not due yet
        clock.now += 5.0
        assert watch.wait_s() == 0.0
        refused = watch.refusal()
        assert refused is not None
        assert (refused.status, refused.error_code) == (401, "unauthorized")
        assert watch.wait_s() == 5.0
    finally:
        keys.close()
    unwatched = KeyWatch(AuthConfig(None, TokenBuckets()), Caller("default", None))
    assert unwatched.wait_s() == math.inf
    assert unwatched.refusal() is None
