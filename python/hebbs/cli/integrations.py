"""The commands that connect hebbs to other tools: ``mcp`` (an MCP server on stdin/stdout over
``--db`` or ``--url``, see :mod:`hebbs.mcp`), ``export`` (the store of ``--db`` as JSON Lines on
stdout) and ``import`` (an export, or a Chroma collection, into the store of ``--db``; see
:mod:`hebbs.transfer`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hebbs.cli.commands import CommandOutput, Run
from hebbs.cli.errors import UsageError
from hebbs.engine import Hebbs

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


def export(args: argparse.Namespace, data_dir: str) -> CommandOutput:
    """Writes the export of ``data_dir`` to stdout, one line at a time."""
    from hebbs.transfer.export import export_lines

    count = 0
    with Hebbs.open(data_dir) as engine:
        for line in export_lines(engine, embeddings=not args.no_embeddings):
            sys.stdout.write(line + "\n")
            count += 1
    sys.stdout.flush()
    return CommandOutput({"lines": count}, f"{count} lines")


def import_(args: argparse.Namespace, data_dir: str) -> CommandOutput:
    """Imports an export file (validated whole first) or a Chroma collection."""
    from hebbs.transfer.importer import import_file

    if (args.file is None) == (args.from_chroma is None):
        raise UsageError("FILE", "give an export FILE or --from-chroma PATH, one of them")
    if args.from_chroma is not None and args.collection is None:
        raise UsageError("--collection", "--from-chroma needs the collection's name")
    with Hebbs.open(data_dir) as engine:
        if args.file is not None:
            result = import_file(engine, args.file)
        else:
            from hebbs.transfer.chroma import import_chroma

            result = import_chroma(
                engine,
                args.from_chroma,
                args.collection,
                entity_key=args.entity_key,
                reembed=args.reembed,
                python=args.chroma_python or sys.executable,
            )
    payload = {
        "memories": result.memories,
        "edges": result.edges,
        "tombstones": result.tombstones,
    }
    text = (
        f"imported {result.memories} memories, {result.edges} edges, {result.tombstones} tombstones"
    )
    return CommandOutput(payload, text)
