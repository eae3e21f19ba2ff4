"""Routing a client to the cluster shard that owns its tenant, so that a request skips the
cluster's ingress (docs/cluster.md).

A cluster marks every answer with the version of its shard map (:data:`MAP_VERSION_HEADER`);
a plain server does not, and a client of one never routes (nothing is asked or sent beyond the
requests themselves). A client that sees the header fetches the map of its key
(:data:`MAP_ROUTE`: the shards' URLs, the key's tenant and its owner) and from then on sends
each request to the owner directly, with the map's version. A shard that does not own the
tenant under a newer map answers 421 (``moved``, before anything is written): the client
fetches the map again and resends, at most :data:`MOVED_RETRIES` times. A request that cannot
connect to the owner (its node down, its replica restarting) was never sent: it goes to the
URL the client was given (the ingress waits for the shard), and the map is fetched again at
most once per :data:`MAP_RETRY_S` until the owner answers. ``route=False`` turns it off: every
request goes to the URL given (a cluster whose shards the client cannot reach, or to measure
the ingress).

:class:`RouteState` is the decision logic, shared by :class:`~hebbs.client.HebbsClient` and
:class:`~hebbs.client.AsyncHebbsClient`, which make the HTTP calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from hebbs.client.answers import body_arguments
from hebbs.client.operations import Call
from hebbs.cluster.constants import MAP_VERSION_HEADER

#: Seconds between two fetches of the map while the owner's URL is unknown or unreachable.
MAP_RETRY_S: Final = 1.0
#: The status of a map fetched: anything else means no routing.
MAP_FOUND = 200


@dataclass(frozen=True)
class Route:
    """Where a client's requests go: the owner shard's ``url`` under map ``version``."""

    version: int
    owner: str
    url: str


def route_of(body: Any) -> Route | None:
    """The route in a map answer (None when the owner's URL is unknown: it restarts)."""
    if not isinstance(body, dict):
        return None
    owner = body.get("owner")
    for shard in body.get("shards", []):
        if isinstance(shard, dict) and shard.get("name") == owner and shard.get("url"):
            return Route(int(body["version"]), str(owner), str(shard["url"]).rstrip("/"))
    return None


def header_version(headers: Mapping[str, str]) -> int | None:
    """The map version an answer carries (None: not a cluster's answer)."""
    value = headers.get(MAP_VERSION_HEADER)
    return int(value) if value is not None and value.isdigit() else None


class RouteState:
    """A client's route and when to fetch the map, safe to share between threads."""

    def __init__(self, seed: str, enabled: bool = True) -> None:
        self.seed = seed
        self.enabled = enabled
        self.route: Route | None = None
        self._fetched = -1
        self._retry_at = 0.0
        self._guard = threading.Lock()

    def prepare(self, call: Call[Any]) -> tuple[Route | None, str, dict[str, Any]]:
        """The route of ``call``'s next attempt, its base URL and its httpx arguments (the
        body, and the map version it is routed by)."""
        route = self.route
        arguments = body_arguments(call)
        if route is None:
            return None, self.seed, arguments
        headers = {**arguments.get("headers", {}), MAP_VERSION_HEADER: str(route.version)}
        return route, route.url, {**arguments, "headers": headers}

    def wants_map(self, headers: Mapping[str, str]) -> int | None:
        """The map version an answer with ``headers`` calls for a fetch of the map at: a
        cluster's answer of a newer version than the one fetched, or any once
        :data:`MAP_RETRY_S` passed without a route (None: no fetch)."""
        version = header_version(headers)
        if version is None or not self.enabled:
            return None
        with self._guard:
            if version > self._fetched:
                return version
            if self.route is None and time.monotonic() >= self._retry_at:
                return version
        return None

    def adopt(self, status: int, body: Any, seen: int) -> None:
        """Takes the map fetched after an answer of version ``seen`` (the map answered
        ``status`` with ``body``)."""
        route = route_of(body) if status == MAP_FOUND else None
        with self._guard:
            self._fetched = max(self._fetched, seen, -1 if route is None else route.version)
            self.route = route
            self._retry_at = time.monotonic() + MAP_RETRY_S

    def unreachable(self, route: Route) -> None:
        """The owner at ``route`` refused the connection: back to the seed URL for now."""
        with self._guard:
            if self.route == route:
                self.route = None
                self._retry_at = time.monotonic() + MAP_RETRY_S
