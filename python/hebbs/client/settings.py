"""The client's connection settings: timeouts and headers, as named constants."""

from __future__ import annotations

import httpx

from hebbs._native import __version__

#: Seconds a request may take to connect, send and be answered, unless ``timeout=`` says
#: otherwise (a recall that embeds its cue on the server fits well within it).
DEFAULT_TIMEOUT_S = 30.0
#: Seconds to establish a connection (at most the request timeout).
CONNECT_TIMEOUT_S = 5.0
#: Seconds a subscription stream may stay silent: None, it waits for the next push forever.
STREAM_READ_TIMEOUT_S: float | None = None
#: Longest wait for a subscription's reader thread when it is closed.
READER_JOIN_TIMEOUT_S = 1.0
#: Idle keep-alive connections the client keeps open for reuse.
MAX_KEEPALIVE_CONNECTIONS = 10
#: The ``User-Agent`` of every request.
USER_AGENT = f"hebbs-python/{__version__}"


def timeouts(timeout: float | None) -> httpx.Timeout:
    """The httpx timeouts of ordinary requests (None: no limit)."""
    connect = CONNECT_TIMEOUT_S if timeout is None else min(timeout, CONNECT_TIMEOUT_S)
    return httpx.Timeout(timeout, connect=connect)


def stream_timeouts(timeout: float | None) -> httpx.Timeout:
    """The httpx timeouts of a subscription stream: a normal start, an unbounded read."""
    connect = timeouts(timeout).connect
    return httpx.Timeout(timeout, connect=connect, read=STREAM_READ_TIMEOUT_S)


def headers(api_key: str | None) -> dict[str, str]:
    """The headers of every request: ``Authorization: Bearer <api_key>`` when a key is given."""
    found = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if api_key is not None:
        found["Authorization"] = f"Bearer {api_key}"
    return found


def limits() -> httpx.Limits:
    """The connection pool's limits."""
    return httpx.Limits(max_keepalive_connections=MAX_KEEPALIVE_CONNECTIONS)
