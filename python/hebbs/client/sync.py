"""`HebbsClient`: :class:`hebbs.Hebbs`' methods over HTTP, with ``httpx.Client``.

Each method is made from its :class:`~hebbs.client.operations.Operations` builder by one typed
wrapper (:func:`_sent`), so its parameters, defaults and checks are the embedded ones.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable, TypeVar

import httpx

from hebbs.client.answers import (
    FIRST_ERROR_STATUS,
    body_arguments,
    decode_json,
    finish,
    remote_method,
)
from hebbs.client.errors import error_from_response, unavailable
from hebbs.client.operations import OPERATIONS, Call, Operations
from hebbs.client.settings import DEFAULT_TIMEOUT_S, headers, limits, stream_timeouts, timeouts
from hebbs.client.sse import EventParser, stream_error, subscription_id
from hebbs.client.subscription import RemoteSubscription
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


def _sent(
    operation: Callable[Concatenate[Operations, P], Call[R]],
) -> Callable[Concatenate[HebbsClient, P], R]:
    """``operation`` as a method of :class:`HebbsClient` that sends its call."""

    def method(self: HebbsClient, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._send(operation(OPERATIONS, *args, **kwargs))

    return remote_method(method, operation)


def _streamed(
    operation: Callable[Concatenate[Operations, P], Call[None]],
) -> Callable[Concatenate[HebbsClient, P], RemoteSubscription]:
    """``subscribe`` as a method of :class:`HebbsClient` that opens the event stream."""

    def method(self: HebbsClient, /, *args: P.args, **kwargs: P.kwargs) -> RemoteSubscription:
        return self._stream(operation(OPERATIONS, *args, **kwargs))

    return remote_method(method, operation, "RemoteSubscription")


class HebbsClient:
    """A hebbs server, with the methods of :class:`hebbs.Hebbs`.

    ``HebbsClient("http://127.0.0.1:6381")`` where the embedded code says
    ``Hebbs.open("./memory")``; ``api_key`` is sent as ``Authorization: Bearer``. ``timeout``
    bounds each request in seconds (None: no limit). Connections are pooled and reused; use as
    a context manager or call :meth:`close`. Safe to share between threads.
    """

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._url = url.rstrip("/")
        self._timeout = timeout
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
    ) -> HebbsClient:
        """A client whose server answered :meth:`health`: fails fast with
        :class:`~hebbs.ServerUnavailableError` or :class:`~hebbs.AuthError`."""
        client = cls(url, api_key, timeout=timeout, transport=transport)
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
        try:
            response = self._http.request(
                call.method, call.path, params=call.params or None, **body_arguments(call)
            )
        except httpx.TransportError as error:
            raise unavailable(self._url, error) from error
        return finish(call, response.status_code, response.content, response.headers)

    def _stream(self, call: Call[None]) -> RemoteSubscription:
        self._check_open()
        request = self._http.build_request(
            call.method,
            call.path,
            timeout=stream_timeouts(self._timeout),
            **body_arguments(call),
        )
        try:
            response = self._http.send(request, stream=True)
        except httpx.TransportError as error:
            raise unavailable(self._url, error) from error
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

    remember = _sent(Operations.remember)
    remember_many = _sent(Operations.remember_many)
    get = _sent(Operations.get)
    get_many = _sent(Operations.get_many)
    recall = _sent(Operations.recall)
    prime = _sent(Operations.prime)
    revise = _sent(Operations.revise)
    lineage = _sent(Operations.lineage)
    add_edges = _sent(Operations.add_edges)
    put_token_vectors = _sent(Operations.put_token_vectors)
    get_token_vectors = _sent(Operations.get_token_vectors)
    forget = _sent(Operations.forget)
    forget_decayed = _sent(Operations.forget_decayed)
    tombstone = _sent(Operations.tombstone)
    tombstones = _sent(Operations.tombstones)
    get_chat_context = _sent(Operations.get_chat_context)
    list_orphans = _sent(Operations.list_orphans)
    list_memories = _sent(Operations.list_memories)
    subscribe = _streamed(Operations.subscribe)
    index_documents = _sent(Operations.index_documents)
    find_contradictions = _sent(Operations.find_contradictions)
    confirm_contradiction = _sent(Operations.confirm_contradiction)
    reflect = _sent(Operations.reflect)
    insights = _sent(Operations.insights)
    reflect_prepare = _sent(Operations.reflect_prepare)
    reflect_commit = _sent(Operations.reflect_commit)
    health = _sent(Operations.health)
    optimize = _sent(Operations.optimize)
    checkpoint = _sent(Operations.checkpoint)

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
