"""Subscriptions: a standing cue whose matching new memories are pushed to the subscriber.

:class:`Subscription` is what :meth:`hebbs.Hebbs.subscribe` returns: a blocking iterator of
:class:`SubscribePush` (``for push in sub``), with :meth:`Subscription.next` for a bounded wait.
:class:`AsyncSubscription` is what :meth:`hebbs.AsyncHebbs.subscribe` returns: an async iterator
(``async for push in sub``) whose waits run in a worker thread, blocked on the native queue.

Pushes arrive in commit order with sequence numbers 1, 2, 3, ... per subscription. A consumer
that falls ``queue_capacity`` pushes behind loses the oldest queued ones (counted in
:attr:`Subscription.dropped`, visible as a gap in ``sequence_number``); writers never wait.
A subscription ends on :meth:`Subscription.close`, when it is garbage collected, or when the
engine closes (the pushes already queued are still delivered, then iteration stops).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

from hebbs._native import (
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_QUEUE_CAPACITY,
    MAX_QUEUE_CAPACITY,
    NativeSubscription,
    SubscribePush,
)

__all__ = [
    "ASYNC_WAIT_SLICE_S",
    "DEFAULT_CONFIDENCE_THRESHOLD",
    "DEFAULT_QUEUE_CAPACITY",
    "MAX_QUEUE_CAPACITY",
    "AsyncPushStream",
    "AsyncSubscription",
    "PushStream",
    "SubscribePush",
    "Subscription",
]

#: Longest one worker-thread wait of an :class:`AsyncSubscription` blocks before the thread is
#: handed back to the executor (so a cancelled or abandoned wait never pins a thread for long).
ASYNC_WAIT_SLICE_S = 1.0


S = TypeVar("S", bound="PushStream")
A = TypeVar("A", bound="AsyncPushStream")


class PushStream(ABC):
    """What every blocking subscription (embedded or remote) is: an iterator of pushes over
    :meth:`next`, a context manager over :meth:`close`, and a repr of its state."""

    @property
    @abstractmethod
    def id(self) -> int:
        """The subscription's id, as carried by its pushes' ``subscription_id``."""

    @property
    @abstractmethod
    def dropped(self) -> int:
        """Pushes discarded because the consumer fell behind."""

    @property
    @abstractmethod
    def closed(self) -> bool:
        """Whether the subscription has ended."""

    @abstractmethod
    def next(self, timeout: float | None = None) -> SubscribePush | None:
        """The next push, waiting at most ``timeout`` seconds (forever when None); None when
        nothing arrived in time or the subscription has ended."""

    @abstractmethod
    def close(self) -> None:
        """Ends the subscription."""

    def __iter__(self) -> Iterator[SubscribePush]:
        return self

    def __next__(self) -> SubscribePush:
        push = self.next()
        if push is None:
            raise StopIteration
        return push

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"{type(self).__name__}(id={self.id}, {state}, dropped={self.dropped})"


class AsyncPushStream(ABC):
    """What every asyncio subscription is: an async iterator over :meth:`next` and an async
    context manager over :meth:`close`."""

    @abstractmethod
    async def next(self, timeout: float | None = None) -> SubscribePush | None:
        """The next push (see :meth:`PushStream.next`)."""

    @abstractmethod
    async def close(self) -> None:
        """Ends the subscription."""

    def __aiter__(self) -> AsyncIterator[SubscribePush]:
        return self

    async def __anext__(self) -> SubscribePush:
        push = await self.next()
        if push is None:
            raise StopAsyncIteration
        return push

    async def __aenter__(self: A) -> A:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


class Subscription(PushStream):
    """A live subscription: iterate it for :class:`SubscribePush` values.

    Use as a context manager or call :meth:`close`. A blocked iteration releases the GIL and
    can be interrupted with Ctrl-C.
    """

    def __init__(self, native: NativeSubscription) -> None:
        self._native = native

    @property
    def id(self) -> int:
        """The subscription's id, as carried by its pushes' ``subscription_id``."""
        return self._native.id

    @property
    def dropped(self) -> int:
        """Pushes discarded because the queue was full (the oldest go first)."""
        return self._native.dropped

    @property
    def closed(self) -> bool:
        """Whether the subscription has ended (closed, or its engine closed)."""
        return self._native.closed

    def next(self, timeout: float | None = None) -> SubscribePush | None:
        """The next push, waiting at most ``timeout`` seconds (forever when None).

        Returns None when nothing arrived in time or when the subscription has ended and holds
        nothing more (tell them apart with :attr:`closed`). ``timeout=0`` does not wait.
        """
        return self._native.recv(timeout)

    def close(self) -> None:
        """Ends the subscription: queued pushes are discarded and blocked waits return."""
        self._native.unsubscribe()

    def __next__(self) -> SubscribePush:
        return next(self._native)


class AsyncSubscription(AsyncPushStream):
    """A live subscription for asyncio: ``async for push in sub``.

    Each wait runs in the loop's default executor, blocked on the subscription's queue (no
    polling). A wait that is cancelled or times out is not lost: the next call picks up its
    result, so no push is skipped. Tasks may share one subscription; each push goes to one.
    """

    def __init__(self, subscription: Subscription) -> None:
        self._sync = subscription
        self._pending: asyncio.Future[SubscribePush | None] | None = None

    @property
    def sync(self) -> Subscription:
        """The underlying synchronous subscription."""
        return self._sync

    @property
    def id(self) -> int:
        """See :attr:`Subscription.id`."""
        return self._sync.id

    @property
    def dropped(self) -> int:
        """See :attr:`Subscription.dropped`."""
        return self._sync.dropped

    @property
    def closed(self) -> bool:
        """See :attr:`Subscription.closed`."""
        return self._sync.closed

    async def next(self, timeout: float | None = None) -> SubscribePush | None:
        """See :meth:`Subscription.next`."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + max(0.0, timeout)
        while True:
            if self._pending is None:
                push = self._sync.next(0)
                if push is not None or self._sync.closed:
                    return push
                if deadline is not None and loop.time() >= deadline:
                    return None
                self._pending = loop.run_in_executor(None, self._sync.next, ASYNC_WAIT_SLICE_S)
            pending = self._pending
            remaining = None if deadline is None else max(0.0, deadline - loop.time())
            done, _ = await asyncio.wait({pending}, timeout=remaining)
            if not done:
                return None
            if self._pending is not pending:
                continue
            self._pending = None
            push = pending.result()
            if push is not None:
                return push

    async def close(self) -> None:
        """See :meth:`Subscription.close`."""
        self._sync.close()
        pending = self._pending
        if pending is not None:
            await asyncio.wait({pending})
            if self._pending is pending:
                self._pending = None

    def __repr__(self) -> str:
        return f"Async{self._sync!r}"
