"""Remote subscriptions: the interface of :class:`hebbs.Subscription` and
:class:`hebbs.AsyncSubscription` over the server's event stream.

A reader (a daemon thread for :class:`RemoteSubscription`, a task for
:class:`AsyncRemoteSubscription`) moves each pushed event into a local queue, so ``next(timeout)``
waits on the queue exactly as the embedded subscription waits on its own. ``dropped`` counts
the gaps in ``sequence_number`` (pushes the server dropped for a slow consumer). ``close()``
ends the stream (the server unsubscribes when the connection goes) and discards what is queued;
when the server ends the stream, what was queued is still delivered, then iteration stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, Union

import httpx

from hebbs._native import SubscribePush
from hebbs.client.settings import READER_JOIN_TIMEOUT_S
from hebbs.client.sse import EventParser, stream_error
from hebbs.errors import HebbsError
from hebbs.subscription import AsyncPushStream, PushStream

#: What the readers queue: a push, an error raised by the stream, or the end (None).
_Item = Union[SubscribePush, HebbsError, None]


class _Sequence:
    """Counts the pushes the server dropped from the gaps in their sequence numbers."""

    def __init__(self) -> None:
        self.last = 0
        self.dropped = 0

    def see(self, push: SubscribePush) -> None:
        if push.sequence_number > self.last + 1:
            self.dropped += push.sequence_number - self.last - 1
        self.last = max(self.last, push.sequence_number)


def _item(parser: EventParser, line: str) -> _Item | bool:
    """What ``line`` completes: a push or an error to queue, else False."""
    event = parser.feed(line)
    if event is None:
        return False
    error = stream_error(event)
    if error is not None:
        return error
    return SubscribePush.from_dict(event.data)


def _shutdown(response: httpx.Response) -> None:
    """Wakes a read blocked on ``response``'s socket (closing it alone may not)."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class RemoteSubscription(PushStream):
    """What :meth:`hebbs.HebbsClient.subscribe` returns: iterate it for
    :class:`~hebbs.SubscribePush` values, like :class:`hebbs.Subscription`."""

    def __init__(self, id: int, response: httpx.Response, lines: Iterator[str]) -> None:
        self._id = id
        self._response = response
        self._queue: queue.Queue[_Item] = queue.Queue()
        self._sequence = _Sequence()
        self._ended = threading.Event()
        self._closing = False
        self._reader = threading.Thread(
            target=self._read, args=(lines,), name=f"hebbs-subscription-{id}", daemon=True
        )
        self._reader.start()

    def _read(self, lines: Iterator[str]) -> None:
        parser = EventParser()
        try:
            for line in lines:
                item = _item(parser, line)
                if item is not False:
                    self._queue.put(item)  # type: ignore[arg-type]
        except (httpx.HTTPError, OSError, HebbsError) as error:
            if not self._closing and isinstance(error, HebbsError):
                self._queue.put(error)
        finally:
            self._ended.set()
            self._queue.put(None)
            with contextlib.suppress(httpx.HTTPError, OSError):
                self._response.close()

    @property
    def id(self) -> int:
        """The subscription's id, as carried by its pushes' ``subscription_id``."""
        return self._id

    @property
    def dropped(self) -> int:
        """Pushes the server dropped (gaps in ``sequence_number`` seen so far)."""
        return self._sequence.dropped

    @property
    def closed(self) -> bool:
        """Whether the subscription has ended (closed, or the server ended the stream)."""
        return self._closing or self._ended.is_set()

    def next(self, timeout: float | None = None) -> SubscribePush | None:
        """The next push, waiting at most ``timeout`` seconds (forever when None); None when
        nothing arrived in time or the subscription has ended. See
        :meth:`hebbs.Subscription.next`."""
        if self._closing:
            return None
        try:
            item = self._queue.get(timeout=timeout) if timeout != 0 else self._queue.get_nowait()
        except queue.Empty:
            return None
        if item is None:
            self._queue.put(None)  # the end stays visible to the next call
            return None
        if isinstance(item, HebbsError):
            raise item
        self._sequence.see(item)
        return item

    def close(self) -> None:
        """Ends the subscription: the stream is closed and queued pushes are discarded."""
        if self._closing:
            return
        self._closing = True
        _shutdown(self._response)
        with contextlib.suppress(httpx.HTTPError, OSError):
            self._response.close()
        self._reader.join(timeout=READER_JOIN_TIMEOUT_S)


class AsyncRemoteSubscription(AsyncPushStream):
    """What :meth:`hebbs.AsyncHebbsClient.subscribe` returns: ``async for push in sub``, like
    :class:`hebbs.AsyncSubscription`."""

    def __init__(self, id: int, response: httpx.Response, lines: AsyncIterator[str]) -> None:
        self._id = id
        self._response = response
        self._queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._sequence = _Sequence()
        self._closing = False
        self._ended = False
        self._reader: asyncio.Task[None] = asyncio.get_running_loop().create_task(self._read(lines))

    async def _read(self, lines: AsyncIterator[str]) -> None:
        parser = EventParser()
        try:
            async for line in lines:
                item = _item(parser, line)
                if item is not False:
                    self._queue.put_nowait(item)  # type: ignore[arg-type]
        except (httpx.HTTPError, OSError, HebbsError) as error:
            if not self._closing and isinstance(error, HebbsError):
                self._queue.put_nowait(error)
        finally:
            self._ended = True
            self._queue.put_nowait(None)
            with contextlib.suppress(httpx.HTTPError, OSError):
                await self._response.aclose()

    @property
    def id(self) -> int:
        """See :attr:`RemoteSubscription.id`."""
        return self._id

    @property
    def dropped(self) -> int:
        """See :attr:`RemoteSubscription.dropped`."""
        return self._sequence.dropped

    @property
    def closed(self) -> bool:
        """See :attr:`RemoteSubscription.closed`."""
        return self._closing or self._ended

    async def next(self, timeout: float | None = None) -> SubscribePush | None:
        """See :meth:`RemoteSubscription.next`."""
        if self._closing:
            return None
        try:
            item: Any = await asyncio.wait_for(self._queue.get(), timeout)
        except asyncio.TimeoutError:
            return None
        if item is None:
            self._queue.put_nowait(None)
            return None
        if isinstance(item, HebbsError):
            raise item
        self._sequence.see(item)
        push: SubscribePush = item
        return push

    async def close(self) -> None:
        """See :meth:`RemoteSubscription.close`."""
        if self._closing:
            return
        self._closing = True
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError, OSError):
            await self._reader
        with contextlib.suppress(httpx.HTTPError, OSError):
            await self._response.aclose()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"AsyncRemoteSubscription(id={self.id}, {state}, dropped={self.dropped})"
