"""``hebbs index PATH...``: indexes Markdown and text files or folders into the store of
``--db`` (a directory command: indexing reads this machine's files, so it takes no ``--url``).
A progress bar goes to stderr when it is a terminal (``--no-progress`` turns it off)."""

from __future__ import annotations

import argparse

from hebbs.api import IndexDocumentsRequest
from hebbs.cli.commands import CommandOutput, request
from hebbs.cli.store import database_path
from hebbs.engine import Hebbs


def index(args: argparse.Namespace) -> CommandOutput:
    """Indexes ``args.paths``; prints the counts."""
    given = request(
        IndexDocumentsRequest, args, paths=args.paths, progress=False if args.no_progress else None
    )
    with Hebbs.open(database_path(args)) as engine:
        result = engine.run(given)
    text = (
        f"{result.files_indexed} files indexed, {result.files_unchanged} unchanged, "
        f"{result.files_removed} removed; {result.propositions} propositions, "
        f"{result.entities} entities, {result.edges} edges; sections: "
        f"{result.sections_added} added, {result.sections_kept} kept, "
        f"{result.sections_removed} removed"
    )
    return CommandOutput(result.to_dict(), text)
