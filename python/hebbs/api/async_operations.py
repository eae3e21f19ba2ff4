"""Each operation's coroutine method, written once for the asyncio store and the asyncio client.

:class:`AsyncOperations` holds every method of :class:`~hebbs.api.operations.Operations` as a
coroutine: it builds the operation's checked request model with the keyword method itself (so
the parameters, defaults, checks and docs are the sync ones, never a copy) and awaits
:meth:`AsyncOperations.run` with it. :class:`hebbs.AsyncHebbs` runs the model in a worker
thread, :class:`hebbs.AsyncHebbsClient` sends it to a server, so a new operation is a line
here, not one in each asyncio class. ``subscribe`` stays with each class, whose subscription
types differ.
"""

from __future__ import annotations

import functools
import sys
from abc import abstractmethod
from collections.abc import Coroutine
from typing import Any, Callable, TypeVar, cast

from hebbs.api.model import Returns
from hebbs.api.operations import Operations
from hebbs.api.requests import SubscribeRequest

if sys.version_info >= (3, 10):
    from typing import Concatenate, ParamSpec
else:
    from typing_extensions import Concatenate, ParamSpec

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class _Checked(Operations[SubscribeRequest]):
    """The operations whose answer is their checked request model (typed as its result)."""

    def run(self, request: Returns[T]) -> T:
        return cast(T, request)

    def open_subscription(self, request: SubscribeRequest) -> SubscribeRequest:
        return request


_CHECKED = _Checked()


def _awaiting(
    operation: Callable[Concatenate[Operations[Any], P], R],
) -> Callable[Concatenate[AsyncOperations, P], Coroutine[Any, Any, R]]:
    """``operation`` as a coroutine method that awaits :meth:`AsyncOperations.run` with the
    request model the keyword method checked (when the coroutine runs)."""

    async def method(self: AsyncOperations, /, *args: P.args, **kwargs: P.kwargs) -> R:
        request = cast(Returns[R], operation(_CHECKED, *args, **kwargs))
        return await self.run(request)

    functools.update_wrapper(method, operation)
    return method


class AsyncOperations:
    """The operations of a hebbs store as coroutines (see the module): a subclass gives
    :meth:`run`, and ``subscribe`` with its own subscription type."""

    @abstractmethod
    async def run(self, request: Returns[T]) -> T:
        """Runs one checked request of :mod:`hebbs.api.requests` and returns its result."""

    remember = _awaiting(Operations.remember)
    remember_many = _awaiting(Operations.remember_many)
    get = _awaiting(Operations.get)
    get_many = _awaiting(Operations.get_many)
    recall = _awaiting(Operations.recall)
    prime = _awaiting(Operations.prime)
    revise = _awaiting(Operations.revise)
    lineage = _awaiting(Operations.lineage)
    add_edges = _awaiting(Operations.add_edges)
    get_edges = _awaiting(Operations.get_edges)
    reinforce = _awaiting(Operations.reinforce)
    put_token_vectors = _awaiting(Operations.put_token_vectors)
    get_token_vectors = _awaiting(Operations.get_token_vectors)
    forget = _awaiting(Operations.forget)
    forget_decayed = _awaiting(Operations.forget_decayed)
    tombstone = _awaiting(Operations.tombstone)
    tombstones = _awaiting(Operations.tombstones)
    get_chat_context = _awaiting(Operations.get_chat_context)
    list_orphans = _awaiting(Operations.list_orphans)
    list_memories = _awaiting(Operations.list_memories)
    count_memories = _awaiting(Operations.count_memories)
    index_documents = _awaiting(Operations.index_documents)
    find_contradictions = _awaiting(Operations.find_contradictions)
    confirm_contradiction = _awaiting(Operations.confirm_contradiction)
    reflect = _awaiting(Operations.reflect)
    insights = _awaiting(Operations.insights)
    reflect_prepare = _awaiting(Operations.reflect_prepare)
    reflect_commit = _awaiting(Operations.reflect_commit)
    health = _awaiting(Operations.health)
    optimize = _awaiting(Operations.optimize)
    checkpoint = _awaiting(Operations.checkpoint)
