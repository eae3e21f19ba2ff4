"""``serve_stdio``: the MCP server over this process's stdin and stdout (what ``hebbs mcp``
runs), every tool on one store: a :class:`~hebbs.Hebbs` opened on ``--db`` or a
:class:`~hebbs.HebbsClient` of ``--url`` (whose key then decides what the tools may do)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from hebbs.mcp.server import build_server


def serve_stdio(store: Any) -> None:
    """Serves MCP on stdin/stdout until the client closes stdin."""
    server = build_server(lambda ctx, operation: nullcontext(store))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
