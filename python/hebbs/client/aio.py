"""`AsyncHebbsClient`: :class:`hebbs.AsyncHebbs`' coroutines over HTTP, with
``httpx.AsyncClient``.

Each operation's method is :class:`~hebbs.api.async_operations.AsyncOperations`' (made from the
embedded one), so its parameters, defaults and checks are the embedded ones; the arguments are
checked when the coroutine runs, before anything is sent.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Coroutine
from typing import TYPE_CHECKING, Any, Callable, TypeVar, cast

import httpx

from hebbs.api import Returns, SubscribeRequest
from hebbs.api.async_operations import AsyncOperations
from hebbs.api.operations import Operations
from hebbs.client.answers import (
    FIRST_ERROR_STATUS,
    decode_json,
    finish,
)
from hebbs.client.errors import error_from_response, unavailable
from hebbs.client.operations import OPERATIONS, Call, call_for, subscribe_call
from hebbs.client.routing import Route, RouteState
from hebbs.client.settings import DEFAULT_TIMEOUT_S, headers, limits, stream_timeouts, timeouts
from hebbs.client.sse import EventParser, stream_error, subscription_id
from hebbs.client.subscription import AsyncRemoteSubscription
from hebbs.client.sync import HebbsClient
from hebbs.cluster.constants import MAP_ROUTE, MOVED_RETRIES, MOVED_STATUS
from hebbs.errors import ClosedError, RemoteUnsupportedError
from hebbs.llm import LLMProvider
from hebbs.reflect.trigger import ReflectTrigger

if sys.version_info >= (3, 10):
    from typing import Concatenate, ParamSpec
else:
    from typing_extensions import Concatenate, ParamSpec

if TYPE_CHECKING:
    from hebbs.embedder import Embedder

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


def _streamed(
    operation: Callable[Concatenate[Operations[Any], P], Any],
) -> Callable[Concatenate[AsyncHebbsClient, P], Coroutine[Any, Any, AsyncRemoteSubscription]]:
    """``subscribe`` as a coroutine method of :class:`AsyncHebbsClient`."""

    async def method(
        self: AsyncHebbsClient, /, *args: P.args, **kwargs: P.kwargs
    ) -> AsyncRemoteSubscription:
        call = cast(Call[None], operation(OPERATIONS, *args, **kwargs))
        return await self._stream(call)

    functools.update_wrapper(method, operation)
    method.__annotations__ = {**method.__annotations__, "return": "AsyncRemoteSubscription"}
    return method


class AsyncHebbsClient(AsyncOperations):
    """A hebbs server for asyncio, with the coroutines of :class:`hebbs.AsyncHebbs`.

    ``AsyncHebbsClient(url)`` (or ``await AsyncHebbsClient.connect(url)``) where the embedded
    code says ``await AsyncHebbs.open(path)``. Arguments as for :class:`HebbsClient`; use as an
    async context manager or ``await close()``.
    """

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
        route: bool = True,
    ) -> None:
        self._url = url.rstrip("/")
        self._api_key = api_key
        self._timeout = timeout
        self._sync: HebbsClient | None = None
        self._routes = RouteState(self._url, route)
        self._http = httpx.AsyncClient(
            base_url=self._url,
            headers=headers(api_key),
            timeout=timeouts(timeout),
            limits=limits(),
            transport=transport,
        )

    @classmethod
    async def connect(
        cls,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
        route: bool = True,
    ) -> AsyncHebbsClient:
        """A client whose server answered :meth:`health` (see :meth:`HebbsClient.connect`)."""
        client = cls(url, api_key, timeout=timeout, transport=transport, route=route)
        try:
            await client.health()
        except BaseException:
            await client.close()
            raise
        return client

    @property
    def url(self) -> str:
        """The server's base URL."""
        return self._url

    @property
    def route(self) -> Route | None:
        """Where requests go when the URL is a cluster's: the shard that owns the key's tenant,
        its URL and the shard map's version (None: the URL itself)."""
        return self._routes.route

    @property
    def sync(self) -> HebbsClient:
        """A synchronous client of the same server with the same key (made on first use,
        closed with this one)."""
        if self._sync is None:
            self._sync = HebbsClient(
                self._url, self._api_key, timeout=self._timeout, route=self._routes.enabled
            )
        return self._sync

    @property
    def embedder(self) -> Embedder:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError`."""
        raise RemoteUnsupportedError("the embedder runs on the server: open hebbs.Hebbs for it")

    @property
    def llm(self) -> LLMProvider:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError` (the server reflects
        with the provider its environment configures)."""
        raise RemoteUnsupportedError("the LLM provider is the server's: see HEBBS_LLM_PROVIDER")

    @property
    def reflect_trigger(self) -> ReflectTrigger | None:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError`."""
        raise RemoteUnsupportedError("the background reflection runs in-process only")

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._http.is_closed

    def _check_open(self) -> None:
        if self._http.is_closed:
            raise ClosedError("the client was closed")

    async def _send(self, call: Call[R]) -> R:
        self._check_open()

        async def send(base: str, arguments: dict[str, Any]) -> httpx.Response:
            return await self._http.request(
                call.method, base + call.path, params=call.params or None, **arguments
            )

        response = await self._routed(call, send)
        return finish(call, response.status_code, response.content, response.headers)

    async def _routed(
        self, call: Call[Any], send: Callable[[str, dict[str, Any]], Awaitable[httpx.Response]]
    ) -> httpx.Response:
        """The answer of ``send(base, arguments)`` for ``call`` from the owning shard (or the
        URL given), after the retries of a 421 and of an owner that refused the connection;
        the map fetched when the answer calls for it (:mod:`hebbs.client.routing`)."""
        for _ in range(MOVED_RETRIES + 1):
            route, base, arguments = self._routes.prepare(call)
            try:
                response = await send(base, arguments)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                if route is None:
                    raise unavailable(self._url, error) from error
                self._routes.unreachable(route)
                continue
            except httpx.TransportError as error:
                raise unavailable(base, error) from error
            if route is not None and response.status_code == MOVED_STATUS:
                await response.aclose()
                await self._fetch_map(base, route.version + 1)
                continue
            seen = self._routes.wants_map(response.headers)
            if seen is not None:
                await self._fetch_map(base, seen)
            return response
        raise unavailable(self._url, RuntimeError("the shard map kept changing"))

    async def _fetch_map(self, base: str, seen: int) -> None:
        try:
            answer = await self._http.get(base + MAP_ROUTE)
        except httpx.TransportError:
            self._routes.adopt(0, None, seen)
            return
        body = decode_json(answer.content) if answer.content else None
        self._routes.adopt(answer.status_code, body, seen)

    async def _stream(self, call: Call[None]) -> AsyncRemoteSubscription:
        self._check_open()

        async def send(base: str, arguments: dict[str, Any]) -> httpx.Response:
            request = self._http.build_request(
                call.method, base + call.path, timeout=stream_timeouts(self._timeout), **arguments
            )
            return await self._http.send(request, stream=True)

        return await self._opened(await self._routed(call, send))

    async def _opened(self, response: httpx.Response) -> AsyncRemoteSubscription:
        """The subscription whose stream ``response`` opened (its first event read)."""
        try:
            if response.status_code >= FIRST_ERROR_STATUS:
                content = await response.aread()
                raise error_from_response(
                    response.status_code, decode_json(content), response.headers
                )
            lines = response.aiter_lines()
            parser = EventParser()
            event = None
            async for line in lines:
                event = parser.feed(line)
                if event is not None:
                    break
            if event is not None:
                failure = stream_error(event)
                if failure is not None:
                    raise failure
            return AsyncRemoteSubscription(subscription_id(event), response, lines)
        except httpx.TransportError as error:
            await response.aclose()
            raise unavailable(self._url, error) from error
        except BaseException:
            await response.aclose()
            raise

    async def run(self, request: Returns[T]) -> T:
        """Sends one checked request of :mod:`hebbs.api.requests` and returns its result."""
        return await self._send(call_for(request))

    async def open_subscription(self, request: SubscribeRequest) -> AsyncRemoteSubscription:
        """Opens the standing query of a checked request (see :meth:`subscribe`)."""
        return await self._stream(subscribe_call(request))

    subscribe = _streamed(Operations.subscribe)

    async def close(self) -> None:
        """Closes the pooled connections (and :attr:`sync`'s). Idempotent."""
        await self._http.aclose()
        if self._sync is not None:
            self._sync.close()

    async def __aenter__(self) -> AsyncHebbsClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"AsyncHebbsClient({self._url!r}, {state})"
