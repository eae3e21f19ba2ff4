"""``main``: parses the command line, opens the database (``--db``) or connects to the server
(``--url``), runs the command and prints its output; maps every error to a one-line message on
stderr and an exit code (0 success, 1 not found or engine error, 2 bad input, 3 refused API
key, 4 server unreachable), never a traceback unless ``HEBBS_DEBUG`` is set."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import Callable, Final

from hebbs.cli import cluster, commands, indexing, integrations, lifecycle, reflection, server
from hebbs.cli.commands import CommandOutput, Run
from hebbs.cli.demo import demo
from hebbs.cli.errors import (
    EXIT_AUTH,
    EXIT_CONFLICT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    UsageError,
)
from hebbs.cli.fields import COMMAND_FIELD_FLAGS, FIELD_FLAGS, generated_flag
from hebbs.cli.format import JsonObject, dumps
from hebbs.cli.parser import PROG, build_parser
from hebbs.cli.store import database_path, locate, opened
from hebbs.errors import (
    AuthError,
    ConflictError,
    HebbsError,
    InvalidInputError,
    NotFoundError,
    ServerUnavailableError,
)

#: A command: it builds its request from the parsed arguments (bad input raises before any
#: store is opened, so it creates no store directory) and returns the call to run on the store.
Command = Callable[[argparse.Namespace], Run]

#: The commands that run on the database of ``--db`` or the server of ``--url``.
DATABASE_COMMANDS: Final[dict[str, Command]] = {
    "remember": commands.remember,
    "recall": commands.recall,
    "get": commands.get,
    "revise": lifecycle.revise,
    "forget": lifecycle.forget,
    "health": commands.health,
    "prime": commands.prime,
    "chat-context": commands.chat_context,
    "orphans": commands.orphans,
    "list": commands.list_memories,
    "mcp": integrations.mcp,
    "reflect": reflection.reflect,
    "insights": reflection.insights,
    "reflect-prepare": reflection.reflect_prepare,
    "reflect-commit": reflection.reflect_commit,
    "contradictions": reflection.contradictions,
    "confirm-contradiction": reflection.confirm_contradiction,
}
#: The commands whose stdout is a protocol or data stream: nothing else is printed there.
PROTOCOL_COMMANDS: Final = frozenset({"mcp", "export"})
#: Set to a non-empty value to let unexpected errors raise with their traceback.
DEBUG_ENV: Final = "HEBBS_DEBUG"
#: The option that asks for JSON output (also honoured for errors of the command line itself).
JSON_FLAG: Final = "--json"
_FIELD_ROOT = re.compile(r"[.\[]")
#: Fields whose path inside the value an error keeps: a filter's fault lies at a path in it.
_INNER_PATH_FIELDS: Final = frozenset({"filter"})


class _Failure:
    """An error as the command line reports it."""

    def __init__(self, code: int, kind: str, message: str, field: str | None = None) -> None:
        self.code = code
        self.kind = kind
        self.message = message
        self.field = field


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``hebbs`` command line with ``argv`` (default ``sys.argv[1:]``) and returns the
    exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    json_mode = JSON_FLAG in arguments
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except UsageError as error:
        return _report(error.prog or PROG, _usage_failure(error), json_mode)
    except SystemExit as done:
        return _exit_code(done)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    prog = f"{PROG} {args.command}"
    try:
        output = _run(args)
    except KeyboardInterrupt:
        return _report(prog, _Failure(EXIT_INTERRUPTED, "interrupted", "interrupted"), args.json)
    except Exception as error:
        if os.environ.get(DEBUG_ENV) and not isinstance(error, (UsageError, HebbsError)):
            raise
        return _report(prog, _classify(error, args.command), args.json)
    if args.command not in PROTOCOL_COMMANDS:
        print(dumps(output.payload) if args.json else output.text)
    return EXIT_OK


def _run(args: argparse.Namespace) -> CommandOutput:
    command: str = args.command
    if command not in DATABASE_COMMANDS:
        for flag, given in (("--url", args.url), ("--api-key", args.api_key)):
            if given is not None:
                raise UsageError(flag, f"{command} works on a directory (--db), not a server")
    if command == "demo":
        return demo(args)
    if command == "serve":
        return server.serve(args, database_path(args))
    if command == "ui":
        return server.ui(args, database_path(args))
    if command == "keys":
        return server.keys(args, database_path(args))
    if command == "export":
        return integrations.export(args, database_path(args))
    if command == "import":
        return integrations.import_(args, database_path(args))
    if command == "index":
        return indexing.index(args)
    if command == "cluster":
        return cluster.cluster(args)
    run = DATABASE_COMMANDS[command](args)
    with opened(locate(args)) as store:
        return run(store)


def _classify(error: Exception, command: str) -> _Failure:
    if isinstance(error, UsageError):
        return _usage_failure(error)
    if isinstance(error, InvalidInputError):
        field = _flag(getattr(error, "field", ""), command)
        reason = getattr(error, "reason", "") or str(error)
        return _Failure(EXIT_USAGE, "invalid_input", f"invalid {field}: {reason}", field)
    if isinstance(error, ConflictError):
        field = _flag(error.field, command)
        return _Failure(EXIT_CONFLICT, "conflict", f"conflict on {field}: {error.reason}", field)
    if isinstance(error, NotFoundError):
        return _Failure(EXIT_FAILURE, "not_found", str(error))
    if isinstance(error, AuthError):
        return _Failure(EXIT_AUTH, "auth", f"the server refused the API key: {error}")
    if isinstance(error, ServerUnavailableError):
        return _Failure(EXIT_UNAVAILABLE, "unavailable", str(error))
    if isinstance(error, (HebbsError, OSError)):
        return _Failure(EXIT_FAILURE, type(error).__name__, str(error))
    message = f"unexpected {type(error).__name__}: {error} (set {DEBUG_ENV}=1 for a traceback)"
    return _Failure(EXIT_FAILURE, "internal", message)


def _usage_failure(error: UsageError) -> _Failure:
    return _Failure(EXIT_USAGE, "usage", str(error), error.field or None)


def _flag(field: str, command: str) -> str:
    """The command-line spelling of request field ``field`` (``edges[0].target`` is
    ``edges``'s) in ``command``."""
    root = _FIELD_ROOT.split(field, maxsplit=1)[0]
    spelled = COMMAND_FIELD_FLAGS.get(command, {}).get(root) or FIELD_FLAGS.get(root)
    if spelled is None and root:
        spelled = generated_flag(command, root)
    if spelled and root in _INNER_PATH_FIELDS and field != root:
        return f"{spelled} ({field})"
    return spelled or field or "input"


def _report(prog: str, failure: _Failure, json_mode: bool) -> int:
    if json_mode:
        body: JsonObject = {"kind": failure.kind, "message": failure.message}
        if failure.field:
            body["field"] = failure.field
        print(dumps({"error": body, "exit_code": failure.code}), file=sys.stderr)
    else:
        print(f"{prog}: error: {' '.join(failure.message.split())}", file=sys.stderr)
    return failure.code


def _exit_code(done: SystemExit) -> int:
    if done.code is None:
        return EXIT_OK
    return done.code if isinstance(done.code, int) else EXIT_USAGE
