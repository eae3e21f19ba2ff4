"""``build_server``: the MCP server (the official SDK's low-level :class:`mcp.server.Server`)
whose ``tools/list`` answers :data:`~hebbs.mcp.tools.TOOLS` and whose ``tools/call`` runs one on
the store a :data:`~hebbs.mcp.access.StoreSource` gives for the call, in a worker thread (the
engine releases the GIL; a remote client blocks on HTTP). It also serves the memories as
resources (:mod:`hebbs.mcp.resources`), the prompts of :mod:`hebbs.mcp.prompts`, completion of
entity ids (:mod:`hebbs.mcp.completion`) and ``logging/setLevel`` (:mod:`hebbs.mcp.log_level`),
each on the caller's store as a tool is.

Every failure a caller can cause comes back as a tool error (``isError``), its text the JSON the
REST server would answer, ``{"error_code", "message", "field"}``, so a model sees which argument
to fix; an unknown tool name is a protocol error, as the specification asks.
"""

from __future__ import annotations

import json
from typing import Any, Final

import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from hebbs import __version__
from hebbs.api.responses import JsonObject
from hebbs.errors import HebbsError
from hebbs.mcp import completion, log_level, prompts, resources
from hebbs.mcp.access import Access, StoreSource, on_store
from hebbs.mcp.tools import TOOLS, TOOLS_BY_NAME
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

#: What a resource read, a prompt and a completion ask the store source for.
READ_RESOURCE: Final = Access("resources/read")
LIST_RESOURCES: Final = Access("resources/list")
GET_PROMPT: Final = Access("prompts/get")
COMPLETE: Final = Access("completion/complete")


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

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = None if params is None else params.cursor
        return await on_store(
            source, ctx, LIST_RESOURCES, lambda store: resources.list_page(store, cursor)
        )

    async def list_resource_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await on_store(
            source, ctx, READ_RESOURCE, lambda store: resources.read(store, params.uri)
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompt_listing)

    async def get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        def render(store: Any) -> types.GetPromptResult:
            return prompts.render(prompts.named(params.name), store, params.arguments)

        return await on_store(source, ctx, GET_PROMPT, render)

    async def complete(
        ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        argument = params.argument
        if not completion.completes(params.ref, argument.name):
            return types.CompleteResult(completion=completion.nothing())
        found = await on_store(
            source, ctx, COMPLETE, lambda store: completion.entity_ids(store, argument.value)
        )
        return types.CompleteResult(completion=found)

    templates = resources.template_listing()
    prompt_listing = prompts.prompt_listing()
    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )
    log_level.register(server)
    return server
