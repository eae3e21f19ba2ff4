"""`AsyncHebbs`: the embedded engine for asyncio code, with the same methods as :class:`Hebbs`
as coroutines. Each call runs in a worker thread; the engine releases the GIL, so calls
proceed in parallel with the event loop and with each other.

The operations' methods are :class:`~hebbs.api.async_operations.AsyncOperations`' (each checks
its arguments as the sync method does, then :meth:`AsyncHebbs.run` runs the request model in a
thread); the rest is made from :class:`Hebbs`' own by typed wrappers (:func:`_in_thread`), so
parameters, defaults, checks and docs are those of the sync engine, never a copy.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Coroutine
from typing import Any, Callable, TypeVar

from hebbs.api import Returns
from hebbs.api.async_operations import AsyncOperations
from hebbs.embedder import Embedder
from hebbs.engine import Hebbs
from hebbs.llm import LLMProvider
from hebbs.reflect.trigger import ReflectTrigger
from hebbs.subscription import AsyncSubscription, Subscription

if sys.version_info >= (3, 10):
    from typing import Concatenate, ParamSpec
else:
    from typing_extensions import Concatenate, ParamSpec

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


async def _run(call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(call, *args, **kwargs))


def _in_thread(
    method: Callable[Concatenate[Hebbs, P], R],
) -> Callable[Concatenate[AsyncHebbs, P], Coroutine[Any, Any, R]]:
    """``method`` of :class:`Hebbs` as a coroutine method of :class:`AsyncHebbs`."""

    async def call(self: AsyncHebbs, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await _run(method, self._engine, *args, **kwargs)

    functools.update_wrapper(call, method)
    return call


def _in_thread_then(
    method: Callable[Concatenate[Hebbs, P], R], wrap: Callable[[R], T]
) -> Callable[Concatenate[AsyncHebbs, P], Coroutine[Any, Any, T]]:
    """Like :func:`_in_thread`, with the result passed through ``wrap``."""

    async def call(self: AsyncHebbs, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return wrap(await _run(method, self._engine, *args, **kwargs))

    functools.update_wrapper(call, method)
    return call


def _opener(
    open_: Callable[P, Hebbs],
) -> Callable[Concatenate[type[AsyncHebbs], P], Coroutine[Any, Any, AsyncHebbs]]:
    """:meth:`Hebbs.open` as the coroutine class method ``AsyncHebbs.open``."""

    async def open(cls: type[AsyncHebbs], /, *args: P.args, **kwargs: P.kwargs) -> AsyncHebbs:
        return cls(await _run(open_, *args, **kwargs))

    functools.update_wrapper(open, vars(Hebbs)["open"].__func__)
    return open


def _async_subscription(subscription: Subscription) -> AsyncSubscription:
    return AsyncSubscription(subscription)


class AsyncHebbs(AsyncOperations):
    """An open hebbs database for asyncio. Open with ``await AsyncHebbs.open(path)``; every
    method of :class:`Hebbs` is here as a coroutine with the same arguments."""

    def __init__(self, engine: Hebbs) -> None:
        self._engine = engine

    open = classmethod(_opener(Hebbs.open))

    @property
    def sync(self) -> Hebbs:
        """The underlying synchronous engine."""
        return self._engine

    @property
    def embedder(self) -> Embedder:
        """The embedder, created on first use (see :attr:`Hebbs.embedder`)."""
        return self._engine.embedder

    @property
    def llm(self) -> LLMProvider:
        """The LLM provider of :meth:`reflect` (see :attr:`Hebbs.llm`)."""
        return self._engine.llm

    @property
    def reflect_trigger(self) -> ReflectTrigger | None:
        """The background reflection, when ``open`` started one."""
        return self._engine.reflect_trigger

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._engine.closed

    async def run(self, request: Returns[T]) -> T:
        """Runs one checked request of :mod:`hebbs.api.requests` (see :meth:`Hebbs.run`) in a
        worker thread."""
        return await _run(self._engine.run, request)

    open_subscription = _in_thread_then(Hebbs.open_subscription, _async_subscription)
    subscribe = _in_thread_then(Hebbs.subscribe, _async_subscription)
    close = _in_thread(Hebbs.close)

    async def __aenter__(self) -> AsyncHebbs:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
