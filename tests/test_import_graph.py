"""The folders import one another without a cycle: in the Python package (each folder of
``python/hebbs`` a node, imports under ``if TYPE_CHECKING:`` left out as they run nothing),
and in the core, where the strategies, forget, subscribe and the layers below them never reach
up into ``engine/``."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "hebbs"
CORE = ROOT / "crates" / "hebbs-core" / "src"
#: The core's modules below the engine: none of them may use ``crate::engine``.
BELOW_ENGINE = ("recall", "forget", "subscribe", "filter", "store", "index", "memory")


def _folder(module: str) -> str | None:
    """The folder of ``python/hebbs`` that module ``module`` lives in (None outside one)."""
    parts = module.split(".")
    if parts[0] != "hebbs" or len(parts) < 2:
        return None
    return parts[1] if (PACKAGE / parts[1]).is_dir() else None


def _runtime_imports(tree: ast.Module) -> Iterator[str]:
    """The modules a file imports when it runs (not under ``if TYPE_CHECKING:``)."""
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _folder_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if len(relative.parts) < 2:
            continue
        source = relative.parts[0]
        targets = graph.setdefault(source, set())
        for module in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = _folder(module)
            if target is not None and target != source:
                targets.add(target)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as the path around it, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found is not None:
                    return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


def test_the_python_folders_import_without_a_cycle() -> None:
    graph = _folder_graph()
    assert {"api", "server", "service", "mcp", "rpc", "client"} <= set(graph)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_no_surface_imports_another() -> None:
    """REST, MCP and gRPC share ``service/``; none imports another but the server, which
    mounts MCP and starts gRPC."""
    graph = _folder_graph()
    assert "server" not in graph["mcp"] | graph["rpc"] | graph["service"]
    assert "mcp" not in graph["rpc"] | graph["service"]
    assert "rpc" not in graph["mcp"] | graph["service"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_core_layers_below_the_engine_do_not_use_it() -> None:
    uses_engine = re.compile(r"\bcrate::engine\b")
    for layer in BELOW_ENGINE:
        for path in (CORE / layer).rglob("*.rs"):
            text = path.read_text(encoding="utf-8")
            assert uses_engine.search(text) is None, f"{path.relative_to(ROOT)} uses crate::engine"
