"""`HebbsClient`: :class:`hebbs.Hebbs`' methods over HTTP, with ``httpx.Client``.

Its methods are the embedded ones (:class:`~hebbs.api.operations.Operations`): each checks its
arguments as its request model, and :meth:`HebbsClient.run` sends the request's call. Given a
cluster's URL, it sends each request to the shard that owns its key's tenant
(:mod:`hebbs.client.routing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

import httpx

from hebbs.api import Returns, SubscribeRequest
from hebbs.api.operations import Operations
from hebbs.client.answers import (
    FIRST_ERROR_STATUS,
    decode_json,
    finish,
)
from hebbs.client.errors import error_from_response, unavailable
from hebbs.client.operations import Call, call_for, subscribe_call
from hebbs.client.routing import Route, RouteState
from hebbs.client.settings import DEFAULT_TIMEOUT_S, headers, limits, stream_timeouts, timeouts
from hebbs.client.sse import EventParser, stream_error, subscription_id
from hebbs.client.subscription import RemoteSubscription
from hebbs.cluster.constants import MAP_ROUTE, MOVED_RETRIES, MOVED_STATUS
from hebbs.errors import ClosedError, RemoteUnsupportedError
from hebbs.llm import LLMProvider
from hebbs.reflect.trigger import ReflectTrigger

if TYPE_CHECKING:
    from hebbs.embedder import Embedder

R = TypeVar("R")
T = TypeVar("T")


class HebbsClient(Operations[RemoteSubscription]):
    """A hebbs server, with the methods of :class:`hebbs.Hebbs`.

    ``HebbsClient("http://127.0.0.1:6381")`` where the embedded code says
    ``Hebbs.open("./memory")``; ``api_key`` is sent as ``Authorization: Bearer``. ``timeout``
    bounds each request in seconds (None: no limit). Connections are pooled and reused; use as
    a context manager or call :meth:`close`. Safe to share between threads. Given a cluster's
    URL (or any of its shards'), it routes each request to the shard that owns its key's tenant
    (docs/cluster.md); ``route=False`` sends every request to ``url``.
    """

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
        route: bool = True,
    ) -> None:
        self._url = url.rstrip("/")
        self._timeout = timeout
        self._routes = RouteState(self._url, route)
        self._http = httpx.Client(
            base_url=self._url,
            headers=headers(api_key),
            timeout=timeouts(timeout),
            limits=limits(),
            transport=transport,
        )

    @classmethod
    def connect(
        cls,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
        route: bool = True,
    ) -> HebbsClient:
        """A client whose server answered :meth:`health`: fails fast with
        :class:`~hebbs.ServerUnavailableError` or :class:`~hebbs.AuthError`."""
        client = cls(url, api_key, timeout=timeout, transport=transport, route=route)
        try:
            client.health()
        except BaseException:
            client.close()
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
    def embedder(self) -> Embedder:
        """In-process only: raises :class:`~hebbs.RemoteUnsupportedError` (the server embeds
        with its store's embedder)."""
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

    def _send(self, call: Call[R]) -> R:
        self._check_open()

        def send(base: str, arguments: dict[str, Any]) -> httpx.Response:
            return self._http.request(
                call.method, base + call.path, params=call.params or None, **arguments
            )

        response = self._routed(call, send)
        return finish(call, response.status_code, response.content, response.headers)

    def _routed(
        self, call: Call[Any], send: Callable[[str, dict[str, Any]], httpx.Response]
    ) -> httpx.Response:
        """The answer of ``send(base, arguments)`` for ``call`` from the owning shard (or the
        URL given), after the retries of a 421 and of an owner that refused the connection;
        the map fetched when the answer calls for it (:mod:`hebbs.client.routing`)."""
        for _ in range(MOVED_RETRIES + 1):
            route, base, arguments = self._routes.prepare(call)
            try:
                response = send(base, arguments)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                if route is None:
                    raise unavailable(self._url, error) from error
                self._routes.unreachable(route)
                continue
            except httpx.TransportError as error:
                raise unavailable(base, error) from error
            if route is not None and response.status_code == MOVED_STATUS:
                response.close()
                self._fetch_map(base, route.version + 1)
                continue
            seen = self._routes.wants_map(response.headers)
            if seen is not None:
                self._fetch_map(base, seen)
            return response
        raise unavailable(self._url, RuntimeError("the shard map kept changing"))

    def _fetch_map(self, base: str, seen: int) -> None:
        try:
            answer = self._http.get(base + MAP_ROUTE)
        except httpx.TransportError:
            self._routes.adopt(0, None, seen)
            return
        body = decode_json(answer.content) if answer.content else None
        self._routes.adopt(answer.status_code, body, seen)

    def _stream(self, call: Call[None]) -> RemoteSubscription:
        self._check_open()

        def send(base: str, arguments: dict[str, Any]) -> httpx.Response:
            request = self._http.build_request(
                call.method, base + call.path, timeout=stream_timeouts(self._timeout), **arguments
            )
            return self._http.send(request, stream=True)

        return self._opened(self._routed(call, send))

    def _opened(self, response: httpx.Response) -> RemoteSubscription:
        """The subscription whose stream ``response`` opened (its first event read)."""
        try:
            if response.status_code >= FIRST_ERROR_STATUS:
                content = response.read()
                raise error_from_response(
                    response.status_code, decode_json(content), response.headers
                )
            lines = response.iter_lines()
            parser = EventParser()
            event = None
            for line in lines:
                event = parser.feed(line)
                if event is not None:
                    break
            if event is not None:
                failure = stream_error(event)
                if failure is not None:
                    raise failure
            return RemoteSubscription(subscription_id(event), response, lines)
        except httpx.TransportError as error:
            response.close()
            raise unavailable(self._url, error) from error
        except BaseException:
            response.close()
            raise

    def run(self, request: Returns[T]) -> T:
        """Sends one checked request of :mod:`hebbs.api.requests` and returns its result."""
        return self._send(call_for(request))

    def open_subscription(self, request: SubscribeRequest) -> RemoteSubscription:
        return self._stream(subscribe_call(request))

    def close(self) -> None:
        """Closes the pooled connections. Idempotent; the server's store stays open."""
        self._http.close()

    def __enter__(self) -> HebbsClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"HebbsClient({self._url!r}, {state})"
