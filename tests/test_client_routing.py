"""The client's routing decisions (:mod:`hebbs.client.routing`): when a map is fetched, what
route a map answer gives, and that a client of a plain server (``hebbs serve``) never asks for
a map nor sends a map version. The cluster's own tests (tests/test_cluster.py) route real
clients through a real cluster."""

from __future__ import annotations

import time

import httpx

from hebbs import HebbsClient
from hebbs.client.operations import Call
from hebbs.client.routing import MAP_RETRY_S, Route, RouteState, route_of
from hebbs.cluster.constants import MAP_ROUTE, MAP_VERSION_HEADER

SEED = "http://127.0.0.1:6390"
#: A request with a body (its content type must survive the map version header).
CALL: Call[object] = Call("POST", "/v1/memories", lambda body: body, {"content": "x"})
JSON = {"content-type": "application/json"}


def target(state: RouteState) -> tuple[str, dict[str, str]]:
    """The base URL and headers of ``CALL``'s next attempt."""
    _, base, arguments = state.prepare(CALL)
    return base, arguments["headers"]


MAP = {
    "version": 3,
    "hashing": "rendezvous/blake2b-64/hebbs-hrw",
    "shards": [
        {"name": "a", "url": "http://127.0.0.1:4001"},
        {"name": "b", "url": "http://127.0.0.1:4002/"},
    ],
    "tenant": "acme",
    "owner": "b",
}


def test_a_map_answer_names_the_owner_url() -> None:
    assert route_of(MAP) == Route(3, "b", "http://127.0.0.1:4002")
    restarting = {**MAP, "shards": [{"name": "a", "url": None}, {"name": "b", "url": None}]}
    assert route_of(restarting) is None
    assert route_of(None) is None
    assert route_of({**MAP, "owner": "c"}) is None


def test_a_plain_answer_never_asks_for_a_map() -> None:
    state = RouteState(SEED)
    assert state.wants_map(httpx.Headers({"content-type": "application/json"})) is None
    assert target(state) == (SEED, JSON)


def test_a_cluster_answer_asks_once_per_version() -> None:
    state = RouteState(SEED)
    seen = state.wants_map(httpx.Headers({MAP_VERSION_HEADER: "3"}))
    assert seen == 3
    state.adopt(200, MAP, seen)
    assert target(state) == ("http://127.0.0.1:4002", {**JSON, MAP_VERSION_HEADER: "3"})
    # The same version again: nothing to fetch; a newer one: fetch.
    assert state.wants_map(httpx.Headers({MAP_VERSION_HEADER: "3"})) is None
    assert state.wants_map(httpx.Headers({MAP_VERSION_HEADER: "4"})) == 4


def test_an_unknown_or_unreachable_owner_falls_back_to_the_seed_and_retries_later() -> None:
    state = RouteState(SEED)
    state.adopt(200, {**MAP, "shards": [{"name": "b", "url": None}]}, 3)
    assert state.route is None
    assert target(state) == (SEED, JSON)
    # Asked again only after MAP_RETRY_S, not at every answer.
    assert state.wants_map(httpx.Headers({MAP_VERSION_HEADER: "3"})) is None
    state.adopt(200, MAP, 3)
    route = state.route
    assert route is not None
    state.unreachable(route)
    assert target(state) == (SEED, JSON)
    assert state.wants_map(httpx.Headers({MAP_VERSION_HEADER: "3"})) is None
    time.sleep(MAP_RETRY_S)
    assert state.wants_map(httpx.Headers({MAP_VERSION_HEADER: "3"})) == 3
    # A refused map (a key without access, a server without one) leaves the seed in place.
    state.adopt(404, {"error_code": "not_found"}, 3)
    assert state.route is None


class Recorded(httpx.HTTPTransport):
    """A real transport that records each request's path and headers."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return super().handle_request(request)


def test_a_client_of_a_plain_server_never_routes(remote_key: tuple[str, str]) -> None:
    url, key = remote_key
    recorded = Recorded()
    with HebbsClient(url, key, transport=recorded) as client:
        client.health()
        memory = client.remember("a plain server's memory")
        assert client.get(memory.id).content == "a plain server's memory"
        client.forget(ids=[memory.id])
        assert client.route is None
    assert [r.url.path for r in recorded.sent if r.url.path == MAP_ROUTE] == []
    assert all(MAP_VERSION_HEADER not in r.headers for r in recorded.sent)
    assert {f"{r.url.scheme}://{r.url.host}:{r.url.port}" for r in recorded.sent} == {url}
