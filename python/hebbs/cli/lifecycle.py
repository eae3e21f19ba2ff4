"""The ``forget`` and ``revise`` commands: each turns parsed arguments into one engine call and
returns a :class:`~hebbs.cli.commands.CommandOutput`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hebbs.cli import format as fmt
from hebbs.cli.commands import CommandOutput
from hebbs.cli.errors import UsageError

if TYPE_CHECKING:
    from hebbs.cli.store import Store


def check_forget(args: argparse.Namespace) -> None:
    """At least one selector: checked before the database is opened."""
    ids: list[str] = args.ids
    if not ids and all(
        value is None
        for value in (args.entity_id, args.older_than, args.importance_below, args.kind)
    ):
        raise UsageError("ID", "give IDs, --entity-id, --older-than, --importance-below or --kind")


def forget(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Forgets what the selectors pick (AND-combined) and prints the counts."""
    check_forget(args)
    ids: list[str] = args.ids
    result = engine.forget(
        ids=ids or None,
        entity_id=args.entity_id,
        older_than=args.older_than,
        importance_below=args.importance_below,
        kind=args.kind,
        purge=args.purge,
        limit=args.limit,
    )
    return CommandOutput(fmt.forget_json(result), fmt.forget_text(result))


def check_revise(args: argparse.Namespace) -> None:
    """Something to change: checked before the database is opened."""
    if all(
        value is None for value in (args.content, args.importance, args.context, args.entity_id)
    ):
        raise UsageError("--content", "give --content, --importance, --context or --entity-id")


def revise(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Stores a revision of one memory and prints it."""
    check_revise(args)
    memory = engine.revise(
        args.id,
        content=args.content,
        importance=args.importance,
        context=args.context,
        entity_id=args.entity_id,
    )
    payload = fmt.memory_json(memory)
    payload["revised_from"] = args.id
    return CommandOutput(
        payload, f"revised {args.id} as {memory.id_hex}\n" + fmt.memory_text(memory)
    )
