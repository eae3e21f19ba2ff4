"""The ``forget`` and ``revise`` commands: each turns parsed arguments into the operation's
shared request model before a store is opened and returns a
:data:`~hebbs.cli.commands.Run`, one store call with the request's fields."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hebbs.api import ForgetRequest, ReviseRequest
from hebbs.cli import format as fmt
from hebbs.cli.commands import CommandOutput, Run, request
from hebbs.cli.errors import UsageError

if TYPE_CHECKING:
    from hebbs.cli.store import Store


def forget(args: argparse.Namespace) -> Run:
    """Forgets what the selectors pick (AND-combined) and prints the counts; at least one
    selector is required."""
    ids: list[str] = args.ids
    given = request(
        ForgetRequest,
        args,
        ids=ids or None,
        entity_id=args.entity_id,
        older_than=args.older_than,
        importance_below=args.importance_below,
        kind=args.kind,
        filter=args.filter,
        purge=args.purge,
        limit=args.limit,
    )
    selectors = (given.entity_id, given.older_than, given.importance_below, given.kind)
    if given.ids is None and given.filter is None and all(value is None for value in selectors):
        raise UsageError(
            "ID", "give IDs, --entity-id, --older-than, --importance-below, --kind or --filter"
        )

    def run(engine: Store) -> CommandOutput:
        result = engine.run(given)
        return CommandOutput(fmt.terminal_json(result.to_dict()), fmt.forget_text(result))

    return run


def revise(args: argparse.Namespace) -> Run:
    """Stores a revision of one memory and prints it; something to change is required."""
    given = request(
        ReviseRequest,
        args,
        id=args.id,
        content=args.content,
        importance=args.importance,
        context=args.context,
        entity_id=args.entity_id,
    )
    if all(
        value is None for value in (given.content, given.importance, given.context, given.entity_id)
    ):
        raise UsageError("--content", "give --content, --importance, --context or --entity-id")

    def run(engine: Store) -> CommandOutput:
        memory = engine.run(given)
        payload = fmt.memory_json(memory)
        payload["revised_from"] = args.id
        return CommandOutput(
            payload, f"revised {args.id} as {memory.id_hex}\n" + fmt.memory_text(memory)
        )

    return run
