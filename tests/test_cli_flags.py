"""Every field of the request model a command builds has its flag on that command (or is a
vector, which the command line never takes): a field added to a model and forgotten by the
command line fails here."""

from __future__ import annotations

import argparse

import pytest

from hebbs.cli.parser import build_parser
from hebbs.cli.runner import (
    COMMAND_FIELD_FLAGS,
    COMMAND_REQUESTS,
    DATABASE_COMMANDS,
    FIELD_FLAGS,
    UNOFFERED_FIELDS,
)


def _spellings(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings and positional metavars of ``parser``."""
    found: set[str] = set()
    for action in parser._actions:
        if action.option_strings:
            found.update(action.option_strings)
        elif isinstance(action.metavar, str):
            found.add(action.metavar)
    return found


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(subparsers.choices)


@pytest.mark.parametrize("command", sorted(COMMAND_REQUESTS))
def test_every_field_of_the_command_model_has_its_flag(command: str) -> None:
    spellings = _spellings(_commands()[command])
    for field in COMMAND_REQUESTS[command].model_fields:
        if field in UNOFFERED_FIELDS:
            continue
        flag = COMMAND_FIELD_FLAGS.get(command, {}).get(field, FIELD_FLAGS.get(field))
        assert flag is not None, f"{command}: {field} has no entry in FIELD_FLAGS"
        assert set(flag.split("/")) <= spellings, f"{command}: {field} has no {flag}"


def test_every_data_command_names_its_model() -> None:
    """``health`` takes nothing, ``mcp`` serves the tools; ``index`` runs on the database
    only (it reads local files)."""
    assert set(DATABASE_COMMANDS) - {"health", "mcp"} | {"index"} == set(COMMAND_REQUESTS)
