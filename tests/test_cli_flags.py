"""Every field of the request model a command builds has its flag on that command (or is a
vector, which the command line never takes), hand-written or made from the model, and a made
flag's value reaches the request: a field added to a model is never forgotten by the command
line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from hebbs.cli import main
from hebbs.cli.errors import EXIT_USAGE
from hebbs.cli.fields import (
    COMMAND_REQUESTS,
    UNOFFERED_FIELDS,
    generated_flag,
    hand_flag,
)
from hebbs.cli.parser import build_parser
from hebbs.cli.runner import DATABASE_COMMANDS


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
        hand = hand_flag(command, field)
        if hand is not None and set(hand.split("/")) <= spellings:
            continue
        flag = generated_flag(command, field)
        assert flag in spellings, f"{command}: {field} has no flag"


def test_every_data_command_names_its_model() -> None:
    """``health`` takes nothing, ``mcp`` serves the tools; ``index`` runs on the database
    only (it reads local files)."""
    assert set(DATABASE_COMMANDS) - {"health", "mcp"} | {"index"} == set(COMMAND_REQUESTS)


def test_a_made_flag_reaches_the_request_and_names_itself_in_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``recall --rrf-k`` has no hand-written flag: the one made from ``RecallRequest.rrf_k``
    takes JSON, its value reaches the request, and a bad one is an error naming the flag."""
    db = str(tmp_path / "db")
    assert main(["remember", "the invoice was late", "--db", db]) == 0
    capsys.readouterr()
    argv = ["recall", "invoice", "--strategy", "hybrid", "--db", db, "--json"]
    assert main([*argv, "--rrf-k", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]
    for bad in ("0", '"seven"', "7.5", "{"):
        assert main([*argv, "--rrf-k", bad]) == EXIT_USAGE
        error = json.loads(capsys.readouterr().err)["error"]
        assert "--rrf-k" in error["message"], bad
