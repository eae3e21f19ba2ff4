"""What every MCP request that touches a store shares: the :data:`StoreSource` that gives the
store of the request's caller for one :class:`Operation` (a tool, or the resource, prompt or
completion being served), :func:`on_store` that runs the blocking store call in a worker thread
(the engine releases the GIL; a remote client blocks on HTTP), and :func:`protocol_error`, the
JSON-RPC error a failure of a resource, prompt or completion request becomes.

A tool's failure is a tool result (``isError``, :mod:`hebbs.mcp.server`); the other requests
have no such result, so theirs is a JSON-RPC error: ``INVALID_PARAMS`` for what the caller sent
(a malformed or unknown URI, a missing argument, a memory that does not exist for this caller:
the code the SDK's own server uses for an unknown resource), ``INVALID_REQUEST`` for a key that
may not do it, ``INTERNAL_ERROR`` otherwise, each with the REST body
``{"error_code", "message", "field"}`` as its ``data``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Callable, Final, Protocol, TypeVar

import anyio.to_thread
import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError

from hebbs.errors import HebbsError
from hebbs.service.errors import ApiError, error_body, from_engine

T = TypeVar("T")

#: The key scope reading a resource, getting a prompt or completing an argument needs.
READ_SCOPE: Final = "read"
#: The JSON-RPC code of a failure whose HTTP status is below 500 and not an auth refusal.
CALLER_STATUSES: Final = range(400, 500)
#: The HTTP statuses of a key that may not do what it asked.
REFUSED_STATUSES: Final = frozenset({401, 403, 429})


class Operation(Protocol):
    """What a request asks a store for: its name (for a refusal's message) and the key scope it
    needs. A :class:`~hebbs.mcp.tools.Tool` is one."""

    @property
    def name(self) -> str: ...

    @property
    def scope(self) -> str: ...


@dataclass(frozen=True)
class Access:
    """An :class:`Operation` that is not a tool: a resource read, a prompt, a completion."""

    name: str
    scope: str = READ_SCOPE


#: The store a request runs on: given the request's context and the operation, a context
#: manager holding a :class:`~hebbs.Hebbs` or :class:`~hebbs.HebbsClient` for the request's
#: duration. It raises :class:`~hebbs.service.errors.ApiError` for a caller who may not do it.
StoreSource = Callable[[ServerRequestContext[Any, Any], Operation], AbstractContextManager[Any]]


def protocol_error(error: ApiError) -> MCPError:
    """The JSON-RPC error of ``error``, its REST body as ``data``."""
    if error.status in REFUSED_STATUSES:
        code = types.INVALID_REQUEST
    elif error.status in CALLER_STATUSES:
        code = types.INVALID_PARAMS
    else:
        code = types.INTERNAL_ERROR
    return MCPError(code, error.message, error_body(error.error_code, error.message, error.field))


async def on_store(
    source: StoreSource,
    ctx: ServerRequestContext[Any, Any],
    operation: Operation,
    call: Callable[[Any], T],
) -> T:
    """``call(store)`` in a worker thread on the store ``source`` gives for ``operation``; an
    :class:`~hebbs.service.errors.ApiError` or engine error comes out as :func:`protocol_error`."""

    def run() -> T:
        with source(ctx, operation) as store:
            return call(store)

    try:
        return await anyio.to_thread.run_sync(run)
    except ApiError as error:
        raise protocol_error(error) from None
    except HebbsError as error:
        raise protocol_error(from_engine(error)) from None
