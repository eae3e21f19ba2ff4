"""Forwarding one HTTP request to the shard that owns its tenant, as the ingress replicas and
the shards (for a client that does not route itself) both do.

:class:`Forwarder` sends the request, headers and body unchanged, to the shard a ``pick``
function names, with the version of the shard map it routed by (:data:`MAP_VERSION_HEADER`),
and relays the answer: streamed answers (server-sent events, export) as they arrive. A shard
that answers 421 (it does not own the tenant under its newer map) gets the request again after
``pick`` looked at a fresh map, at most :data:`MOVED_RETRIES` times (a 421 is answered before
anything is written, so a write is never applied twice).

A shard that cannot be reached (its replica was killed and Ray Serve is starting another) is
retried for :data:`SHARD_WAIT_S`: a request that never reached it is sent again to the new
replica, a read that failed before its answer began too; a write that failed after it was sent,
or an answer that broke midway, is answered 503 (not acknowledged: the client may retry), so a
write is never sent twice.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import Callable, Final

import httpx
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from hebbs.cluster.constants import (
    FORWARD_TIMEOUT_S,
    MAP_VERSION_HEADER,
    MOVE_RETRY_AFTER_S,
    MOVED_RETRIES,
    MOVED_STATUS,
    SHARD_RETRY_S,
    SHARD_WAIT_S,
)
from hebbs.server.transfer_routes import NDJSON
from hebbs.service.errors import ApiError, not_ready

LOG = logging.getLogger("hebbs.cluster")

#: Headers of one hop only, never forwarded (either way).
HOP_HEADERS: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        MAP_VERSION_HEADER,
    }
)
#: POST routes that only read the store (everything else but GET and HEAD writes).
READ_POSTS: Final = frozenset(
    {
        "/v1/memories/recall",
        "/v1/memories/prime",
        "/v1/memories/batch",
        "/v1/recall",
        "/v1/prime",
        "/v1/subscribe",
    }
)
#: Answers passed through as they arrive rather than read whole first.
STREAMED_TYPES: Final = ("text/event-stream", NDJSON)
#: Resolves a shard's name to its current URL (asks Ray Serve); raises
#: :class:`ShardUnavailable` while the shard has no replica that answers.
Resolver = Callable[[str], Awaitable[str]]
#: Names the shard to send to and the map version it routed by; called with True after a 421
#: (look at a fresh map).
Pick = Callable[[bool], Awaitable[tuple[str, int]]]


class ShardUnavailable(Exception):
    """A shard has no replica that answers now (Ray Serve is starting another)."""


class ShardUrls:
    """Each shard's current URL, asked of ``resolve`` once and kept until :meth:`forget` (a
    shard that failed may have restarted on another port)."""

    def __init__(self, resolve: Resolver) -> None:
        self._resolve = resolve
        self._urls: dict[str, str] = {}

    async def get(self, shard: str) -> str:
        url = self._urls.get(shard)
        if url is None:
            url = await self._resolve(shard)
            self._urls[shard] = url
        return url

    def forget(self, shard: str) -> None:
        self._urls.pop(shard, None)


def is_write(method: str, path: str) -> bool:
    """Whether a request may change its tenant's store (refused while the tenant moves)."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return False
    return not (method == "POST" and path in READ_POSTS)


def unavailable(shard: str) -> ApiError:
    return not_ready(f"shard {shard} is unavailable: retry", MOVE_RETRY_AFTER_S)


class Forwarder:
    """Requests forwarded to the shards whose URLs ``resolve`` gives."""

    def __init__(self, resolve: Resolver) -> None:
        self.urls = ShardUrls(resolve)
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(FORWARD_TIMEOUT_S, connect=SHARD_RETRY_S * 10),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
        )

    async def forward(self, request: Request, pick: Pick, *, write: bool) -> Response:
        """The answer of the shard ``pick`` names to ``request``, relayed."""
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_HEADERS]
        body = await request.body()
        fresh = False
        for _ in range(MOVED_RETRIES + 1):
            shard, version = await pick(fresh)
            sent = [*headers, (MAP_VERSION_HEADER, str(version))]
            answer = await self._send(
                shard, request.method, request.url.path, request.url.query, sent, body, write
            )
            if answer.status_code != MOVED_STATUS:
                return await relay(answer, shard)
            await answer.aclose()
            fresh = True
        raise not_ready(f"the shard map kept changing while routing to shard {shard}: retry")

    async def _send(
        self,
        shard: str,
        method: str,
        path: str,
        query: str,
        headers: list[tuple[str, str]],
        body: bytes,
        write: bool,
    ) -> httpx.Response:
        """The shard's answer (headers read, body not yet), retried while the shard is down."""
        deadline = time.monotonic() + SHARD_WAIT_S
        while True:
            try:
                url = await self.urls.get(shard)
                request = self._http.build_request(
                    method, url + path, params=query or None, headers=headers, content=body
                )
                return await self._http.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                failure: Exception = error
                self.urls.forget(shard)
            except httpx.TransportError as error:
                self.urls.forget(shard)
                if write:
                    raise not_ready(
                        f"shard {shard} failed while answering a write, which may not have "
                        "been applied: retry"
                    ) from None
                failure = error
            except ShardUnavailable as error:
                failure = error
                self.urls.forget(shard)
            if time.monotonic() >= deadline:
                LOG.warning("shard %s unreachable: %s", shard, failure)
                raise unavailable(shard)
            await asyncio.sleep(SHARD_RETRY_S)

    async def close(self) -> None:
        await self._http.aclose()


async def relay(answer: httpx.Response, shard: str) -> Response:
    """``answer`` as this server's own: streamed as it arrives when it is a stream."""
    out_headers = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS}
    version = answer.headers.get(MAP_VERSION_HEADER)
    if version is not None:
        out_headers[MAP_VERSION_HEADER] = version
    if answer.headers.get("content-type", "").startswith(STREAMED_TYPES):
        return StreamingResponse(
            answer.aiter_raw(),
            status_code=answer.status_code,
            headers=out_headers,
            background=BackgroundTask(answer.aclose),
        )
    try:
        content = b"".join([chunk async for chunk in answer.aiter_raw()])
    except httpx.TransportError:
        raise not_ready(f"shard {shard} failed while answering: retry") from None
    finally:
        await answer.aclose()
    return Response(content, status_code=answer.status_code, headers=out_headers)
