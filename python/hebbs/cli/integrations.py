"""The commands that connect hebbs to other tools: ``mcp`` (an MCP server on stdin/stdout over
``--db`` or ``--url``, see :mod:`hebbs.mcp`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hebbs.cli.commands import CommandOutput, Run
from hebbs.cli.errors import UsageError

if TYPE_CHECKING:
    from hebbs.cli.store import Store


def mcp(args: argparse.Namespace) -> Run:
    """Serves the MCP tools on stdin/stdout until the client closes stdin."""
    try:
        from hebbs.mcp.stdio import serve_stdio
    except ImportError as error:
        raise UsageError(
            "", f"mcp needs the server extra: pip install 'hebbs[server]' ({error})"
        ) from None

    def run(store: Store) -> CommandOutput:
        serve_stdio(store)
        return CommandOutput({"stopped": True}, "mcp server stopped")

    return run
