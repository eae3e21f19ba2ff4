"""``build_server``: the MCP server (the official SDK's low-level :class:`mcp.server.Server`)
whose ``tools/list`` answers :data:`~hebbs.mcp.tools.TOOLS` and whose ``tools/call`` runs one on
the store a :data:`StoreSource` gives for the call, in a worker thread (the engine releases the
GIL; a remote client blocks on HTTP).

Every failure a caller can cause comes back as a tool error (``isError``), its text the JSON the
REST server would answer, ``{"error_code", "message", "field"}``, so a model sees which argument
to fix; an unknown tool name is a protocol error, as the specification asks.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any, Callable, Final

import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from hebbs import __version__
from hebbs.api.responses import JsonObject
from hebbs.errors import HebbsError
from hebbs.mcp.tools import TOOLS, TOOLS_BY_NAME, Tool
from hebbs.service.errors import ApiError, error_body, from_engine

#: The server's name in the MCP handshake.
SERVER_NAME: Final = "hebbs"
#: What the handshake tells the model about the server as a whole.
INSTRUCTIONS: Final = (
    "hebbs is your long-term memory. `remember` what you learn that will matter later, "
    "`recall` before answering questions that past conversations may inform, `prime` at the "
    "start of a conversation about a known entity, `revise` what turned out wrong and `forget` "
    "what you are asked to forget."
)

#: The store a tool call runs on: given the call's context and the tool, a context manager
#: holding a :class:`~hebbs.Hebbs` or :class:`~hebbs.HebbsClient` for the call's duration. It
#: raises :class:`~hebbs.service.errors.ApiError` for a caller who may not run the tool.
StoreSource = Callable[[ServerRequestContext[Any, Any], Tool], AbstractContextManager[Any]]


def tool_listing() -> list[types.Tool]:
    """The tools as ``tools/list`` answers them."""
    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.input_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=tool.read_only,
                destructive_hint=tool.name == "forget",
            ),
        )
        for tool in TOOLS
    ]


def _answer(payload: JsonObject, *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload, separators=(",", ":")))],
        structured_content=None if is_error else payload,
        is_error=is_error,
    )


def _failure(error: ApiError) -> types.CallToolResult:
    return _answer(error_body(error.error_code, error.message, error.field), is_error=True)


def build_server(source: StoreSource) -> Server[Any]:
    """The MCP server whose tools run on the stores ``source`` gives."""
    listing = tool_listing()

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name!r}")

        def run() -> JsonObject:
            with source(ctx, tool) as store:
                return tool.run(store, params.arguments)

        try:
            return _answer(await anyio.to_thread.run_sync(run))
        except ApiError as error:
            return _failure(error)
        except HebbsError as error:
            return _failure(from_engine(error))

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
