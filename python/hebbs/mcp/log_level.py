"""``logging/setLevel``: accepted with an empty result, so a host that sets a level when it
connects (most do when the server declares the ``logging`` capability) gets no error.

hebbs sends no ``notifications/message`` today (a tool's failure is its result, an engine's
log stays in the server's own log), so there is nothing for the level to filter; the level is
checked (the SDK's params model allows only the specification's eight) and acknowledged.
The handler is added with :meth:`~mcp.server.Server.add_request_handler` rather than the
constructor's ``on_set_logging_level``, which the SDK marks deprecated for the 2026-07-28
protocol (SEP-2577) with a warning at every construction; the 2025 protocols the hosts speak
still have the method, and the SDK still declares the capability for it.
"""

from __future__ import annotations

from typing import Any, Final

import mcp_types as types
from mcp.server import Server, ServerRequestContext

#: The method this module answers.
METHOD: Final = "logging/setLevel"


async def set_level(
    ctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams
) -> types.EmptyResult:
    return types.EmptyResult()


def register(server: Server[Any]) -> None:
    """Adds the ``logging/setLevel`` handler (and so the ``logging`` capability) to ``server``."""
    server.add_request_handler(METHOD, types.SetLevelRequestParams, set_level)
