"""docs/server.md describes what the server serves: every operation of its OpenAPI document is
in the endpoint table, and no sentence about a surface it has (the paged listing, gRPC, ``/mcp``)
says the surface is missing."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from hebbs.api.async_operations import AsyncOperations
from hebbs.client.operations import IN_PROCESS_ONLY
from hebbs.server.app import create_app

SERVER_DOC = Path(__file__).resolve().parent.parent / "docs" / "server.md"
#: What names each surface in a sentence of the doc.
SURFACES = {
    "the paged listing": re.compile(r"GET /v1/memories`|paged listing"),
    "gRPC": re.compile(r"gRPC|--grpc-port"),
    "MCP": re.compile(r"`/mcp`"),
}
#: How a sentence says something is not there.
MISSING = re.compile(r"not there yet|not yet|there is no|no longer|not available", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.;])\s+", " ".join(text.split()))]


def test_no_sentence_says_a_served_surface_is_missing() -> None:
    wrong = [
        (surface, sentence)
        for sentence in _sentences(SERVER_DOC.read_text())
        for surface, pattern in SURFACES.items()
        if pattern.search(sentence) and MISSING.search(sentence)
    ]
    assert not wrong, wrong


def test_every_operation_is_in_the_endpoint_table(tmp_path: Path) -> None:
    app = create_app(tmp_path, embedder=lambda texts: np.ones((len(texts), 4), np.float32))
    doc = SERVER_DOC.read_text()
    missing = [
        f"{method.upper()} {path}"
        for path, operations in app.openapi()["paths"].items()
        for method in operations
        if f"`{method.upper()} {path}`" not in doc
    ]
    assert not missing, missing


def test_the_endpoint_table_names_the_client_method_of_every_route() -> None:
    """The table's last column is the one list of which client method calls which route
    (docs/client.md points to it): every method a client sends to a server is there."""
    in_process = {name for name, _ in IN_PROCESS_ONLY.values()}
    sent = {name for name in vars(AsyncOperations) if not name.startswith("_")} - {"run"}
    row = re.compile(r"^\| `[A-Z]+ /v1/[^`]*` \|.*\| `([a-z_]+)`[^|]*\|$", re.MULTILINE)
    named = set(row.findall(SERVER_DOC.read_text()))
    assert named == (sent | {"subscribe"}) - in_process
