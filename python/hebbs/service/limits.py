"""The server's limits: the largest request body (:data:`MAX_REQUEST_BYTES`, 413 above it) and
a token bucket per API key (:data:`RATE_LIMIT_PER_S` requests a second on average, bursts of
:data:`RATE_LIMIT_BURST`; 429 with ``Retry-After`` when empty)."""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Callable, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hebbs.service.errors import error_body, payload_too_large

#: The largest request body accepted, in bytes (8 MiB).
MAX_REQUEST_BYTES: Final = 8 * 1024 * 1024
#: The largest import body (``POST /v1/import``, spooled to disk, not held in memory): 4 GiB.
MAX_IMPORT_BYTES: Final = 4 * 1024 * 1024 * 1024
#: Bytes of a refused body still read (and dropped) before the 413 is sent, so the client,
#: still sending, gets the answer instead of a reset connection; past it the connection closes.
MAX_DRAIN_BYTES: Final = 8 * MAX_REQUEST_BYTES
#: Requests a second one key may make on average.
RATE_LIMIT_PER_S: Final = 100.0
#: Requests one key may make at once after being idle.
RATE_LIMIT_BURST: Final = 200


class TokenBuckets:
    """One token bucket per key: ``rate`` tokens a second up to ``burst``; a request takes one.
    Safe to share between threads."""

    def __init__(
        self,
        rate: float = RATE_LIMIT_PER_S,
        burst: int = RATE_LIMIT_BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("the rate must be positive and the burst at least 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> int:
        """Takes a token from ``key``'s bucket: 0 if there was one, else the whole seconds to
        wait before the next one (the ``Retry-After``)."""
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0
            self._buckets[key] = (tokens, now)
            return max(1, math.ceil((1.0 - tokens) / self.rate))


class BodyLimit:
    """ASGI middleware: reads the request body (at most ``limit`` bytes) before the app does,
    and answers 413 to a larger one, whether its ``Content-Length`` says so or not. Paths in
    ``exempt`` stream their body to a handler that limits it itself."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_REQUEST_BYTES,
        exempt: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.limit = limit
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(receive, send, 0, declared <= MAX_DRAIN_BYTES)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before sending its body
            body: bytes = message.get("body", b"")
            more = bool(message.get("more_body", False))
            size += len(body)
            if size > self.limit:
                await self._refuse(receive, send, size, more)
                return
            chunks.append(body)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, receive: Receive, send: Send, read: int, more: bool) -> None:
        while more and read <= MAX_DRAIN_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            read += len(message.get("body", b""))
            more = bool(message.get("more_body", False))
        error = payload_too_large(self.limit)
        body = _json_bytes(error_body(error.error_code, error.message))
        await send(
            {
                "type": "http.response.start",
                "status": error.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _json_bytes(payload: Any) -> bytes:
    import json

    return json.dumps(payload).encode()
