"""The docs say what the code does: the CLI module docstring names every command, the
architecture layout names every folder and top-level file, the README and the strategy module
doc name every strategy, the README's Python example runs, and every default the CLI help
prints comes from its one constant."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import hebbs.cli
from hebbs import _native
from hebbs.cli import parser as cli_parser
from hebbs.cli.fields import GENERATED_DEST

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
STRATEGY_RS = ROOT / "crates" / "hebbs-core" / "src" / "recall" / "strategy.rs"
#: Trees whose every folder the layout names, and whose top-level files it names too.
LAYOUT_TREES = ("crates/hebbs-core/src", "python/hebbs")
#: Folders whose files the layout names one by one (the binding has no subfolders).
LAYOUT_FILE_DIRS = ("crates/hebbs-core/src", "crates/hebbs-python/src", "python/hebbs")
#: Build products and caches that live in the source tree but are not part of it.
BUILD_PRODUCT = re.compile(r"(^__pycache__$|\.(so|pyd|pyc)$)")
#: A default the help prints: "(default 5)", "(default 0.5:0.2:0.2:0.1; ...".
HELP_DEFAULT = re.compile(r"\(default (\d[\d.:]*)")


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    choices: dict[str, argparse.ArgumentParser] = actions[0].choices
    return choices


def test_cli_docstring_names_every_command() -> None:
    doc = hebbs.cli.__doc__ or ""
    listing = doc.split("\n\n", maxsplit=1)[0].split(":", maxsplit=1)[1]
    named = set(re.findall(r"``([a-z-]+)``", listing))
    assert named == set(subcommands(cli_parser.build_parser()))


def layout_entries() -> set[str]:
    """The paths the layout block of the architecture doc names, from its indentation:
    a root line ``crates/hebbs-core/src/``, then entries two spaces deeper per level; a line
    indented deeper than any child could be continues the description above it."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    entries: set[str] = set()
    stack: list[str] = []
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        name = line.split()[0]
        if indent == 0:
            stack = [name.rstrip("/")]
            entries.add(stack[0])
            continue
        depth = indent // 2
        if depth > len(stack):
            continue  # the description of the entry above, wrapped
        assert indent % 2 == 0, f"odd indentation in the layout: {line!r}"
        stack = [*stack[:depth], name.rstrip("/")]
        entries.add("/".join(stack))
    return entries


def source_entries() -> set[str]:
    """Every folder of the layout trees and every file of the layout's file folders."""
    found: set[str] = set()
    for tree in LAYOUT_TREES:
        for path in (ROOT / tree).rglob("*"):
            if path.is_dir() and not any(BUILD_PRODUCT.search(p) for p in path.parts):
                found.add(path.relative_to(ROOT).as_posix())
    for folder in LAYOUT_FILE_DIRS:
        for path in (ROOT / folder).iterdir():
            if path.is_file() and not BUILD_PRODUCT.search(path.name):
                found.add(path.relative_to(ROOT).as_posix())
    return found


def test_architecture_layout_matches_the_tree() -> None:
    named = layout_entries()
    real = source_entries()
    assert real - named == set(), "in the tree but not in docs/architecture.md's layout"
    stale = {entry for entry in named if not (ROOT / entry).exists()}
    assert stale == set(), "in docs/architecture.md's layout but not in the tree"


def strategy_names() -> list[str]:
    """The names ``Strategy::as_str`` gives, read off the core's ``strategy.rs``."""
    source = STRATEGY_RS.read_text(encoding="utf-8")
    block = source.split("impl Strategy {", 1)[1].split("\nimpl ", 1)[0]
    names = re.findall(r'Self::[A-Za-z]+ => "([a-z_]+)"', block)
    declared = re.search(r"pub const ALL: \[Strategy; (\d+)\]", source)
    assert declared is not None
    assert len(names) == int(declared.group(1)) >= 7
    return names


def test_readme_opening_names_every_strategy() -> None:
    opening = README.read_text(encoding="utf-8").split("## Set up", 1)[0]
    missing = [name for name in strategy_names() if f"`{name}`" not in opening]
    assert missing == []


def test_the_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    section = README.read_text(encoding="utf-8").split("## Use it from Python", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {})
    assert (tmp_path / "memory").is_dir()


def test_strategy_module_doc_names_every_strategy() -> None:
    source = STRATEGY_RS.read_text(encoding="utf-8")
    module_doc = " ".join(
        line.removeprefix("//!") for line in source.splitlines() if line.startswith("//!")
    )
    missing = [name for name in strategy_names() if not re.search(rf"\b{name}\b", module_doc)]
    assert missing == []
    assert "four" not in module_doc


def help_texts(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.Action]]:
    """(command, action) for every option and positional of every subcommand."""
    return [
        (name, action)
        for name, sub in subcommands(parser).items()
        for action in sub._actions
        if action.help not in (None, argparse.SUPPRESS)
    ]


def test_help_default_weights_are_scoring_weights_defaults() -> None:
    recall = subcommands(cli_parser.build_parser())["recall"]
    (weights,) = [a for a in recall._actions if "--weights" in a.option_strings]
    shown = HELP_DEFAULT.search(weights.help or "")
    assert shown is not None
    defaults = _native.ScoringWeights()
    expected = (
        defaults.w_relevance,
        defaults.w_recency,
        defaults.w_importance,
        defaults.w_reinforcement,
    )
    assert [float(part) for part in shown.group(1).split(":")] == pytest.approx(expected)


def test_every_help_default_follows_its_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give every constant the parser reads a value no one would type; then every default the
    help prints and every numeric argparse default must be one of those values, so none is
    retyped."""
    sentinels: dict[str, object] = {}
    for offset, name in enumerate(sorted(vars(cli_parser))):
        value = getattr(cli_parser, name)
        if not re.fullmatch(r"(DEFAULT|MAX)_[A-Z_]+", name) or isinstance(value, str):
            continue
        sentinel: object = 7001 + offset if isinstance(value, int) else round(0.0101 * offset, 4)
        sentinels[name] = sentinel
        monkeypatch.setattr(cli_parser, name, sentinel)
    weights = SimpleNamespace(
        w_relevance=0.91, w_recency=0.92, w_importance=0.93, w_reinforcement=0.94
    )
    monkeypatch.setattr(cli_parser, "ScoringWeights", lambda: weights, raising=False)
    assert {"DEFAULT_TOP_K", "DEFAULT_FORGET_LIMIT", "DEFAULT_LIST_LIMIT"} <= set(sentinels)
    allowed = {str(value) for value in sentinels.values()} | {"0.91:0.92:0.93:0.94"}
    numeric = set(sentinels.values())
    checked = 0
    for command, action in help_texts(cli_parser.build_parser()):
        if action.dest.startswith(GENERATED_DEST):
            continue  # made from the request model: its default is the model field's own
        for shown in HELP_DEFAULT.findall(action.help or ""):
            assert shown.rstrip(".") in allowed, f"{command} {action.dest}: {action.help}"
            checked += 1
        default = action.default
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            assert default in numeric, f"{command} {action.dest} default {default!r}"
    assert checked >= 8


CLIENT_DOC = ROOT / "docs" / "client.md"
#: The commands that work on a directory only, without ``--url``.
DIRECTORY_COMMANDS = {"serve", "ui", "keys", "demo", "export", "import", "index", "cluster"}


def cli_server_section() -> str:
    text = CLIENT_DOC.read_text(encoding="utf-8")
    return text.split("## The command line against a server", 1)[1].split("\n## ", 1)[0]


def test_every_data_command_takes_url_and_the_client_doc_names_it() -> None:
    taking: set[str] = set()
    for name, sub in subcommands(cli_parser.build_parser()).items():
        options = {flag for action in sub._actions for flag in action.option_strings}
        if "--url" in options:
            assert "--api-key" in options, name
            taking.add(name)
    assert taking == set(subcommands(cli_parser.build_parser())) - DIRECTORY_COMMANDS
    section = cli_server_section()
    listing = re.search(r"\(([^)]*)\)", section)
    assert listing is not None
    assert set(re.findall(r"`([a-z-]+)`", listing.group(1))) == taking
    for directory_only in DIRECTORY_COMMANDS:
        assert f"`{directory_only}`" in section


def test_the_client_doc_exit_codes_are_the_cli_constants() -> None:
    from hebbs.cli import errors

    rows = re.findall(r"^\| (\d+) \| ", cli_server_section(), flags=re.MULTILINE)
    constants = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    assert {int(code) for code in rows} == constants
