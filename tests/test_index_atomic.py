"""Each file's indexing is one atomic write (the core ``write_atomic``): its memories, their
edges, the forgetting of its changed sections' old memories and its manifest land together or
not at all.

- A child process indexing a folder is killed with SIGKILL mid-run: after reopening, every
  file is wholly indexed (manifest, document, every proposition, every edge) or not at all,
  and finishing the run stores exactly what a clean run does (no duplicates).
- A re-index whose write carries an injected invalid edge is refused with a typed error
  naming the field, and the store is exactly as before: memories, edges, manifest; run-on
  text and over-long names, which used to fail, are cut into valid propositions and ids.
- ``write_atomic`` itself: typed errors naming the field with nothing stored; edges present
  after success, to items of the batch and to existing memories."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hebbs
from conftest import HASH_DIM, word_hash_embed
from hebbs import Hebbs
from hebbs._native import MAX_ENTITY_ID_BYTES, NativeEngine
from hebbs.ingest.constants import MANIFEST_PREFIX
from hebbs.ingest.schemas import MAX_PROPOSITION_CHARS

pytestmark = [
    pytest.mark.embedded_only("indexing reads this machine's files"),
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX"),
]

#: Files of the killed runs and sentences per file.
FILES = 40
SENTENCES = 12
#: Each killed run: the files it reports done, then the pause before SIGKILL (spreading the
#: kills over the phases of a file's indexing: extraction, embedding, the write).
KILLS = ((8, 0.004), (20, 0.012), (32, 0.025))
CHILD_TIMEOUT_S = 120.0
CHILD = """
import sys
sys.path.insert(0, {tests!r})
from conftest import word_hash_embed
from hebbs import Hebbs
with Hebbs.open({db!r}, embedder=word_hash_embed) as mem:
    mem.index_documents([{folder!r}], progress=True)
"""


def _write_corpus(folder: Path) -> None:
    folder.mkdir()
    for f in range(FILES):
        lines = [f"# Report {f}", ""]
        for s in range(SENTENCES):
            lines.append(
                f"The billing team of region{f} closed ticket number{s} after the outage. "
                f"Then the support engineers of region{f} wrote report{s}."
            )
            lines.append("")
        (folder / f"report{f:02d}.md").write_text("\n".join(lines))


def _check_whole(mem: Hebbs, folder: Path) -> int:
    """Asserts every file of ``folder`` is wholly indexed or absent; returns how many are
    indexed."""
    native = mem._native
    manifests = {
        name[len(MANIFEST_PREFIX) :]: json.loads(raw)
        for name, raw in native.state_scan(MANIFEST_PREFIX)
    }
    propositions = mem.list_memories(kind="proposition", limit=1000).memories
    documents = mem.list_memories(kind="document", limit=1000).memories
    by_file: dict[str, set[str]] = {}
    for memory in propositions:
        by_file.setdefault(memory.context["document"], set()).add(memory.id_hex)
    assert set(by_file) == set(manifests), "no proposition without its file's manifest"
    assert {d.context["path"] for d in documents} == set(manifests)
    assert len(documents) == len(manifests), "one document memory per indexed file"
    for path, manifest in manifests.items():
        ids = {r["id"] for records in manifest["sections"].values() for r in records}
        assert by_file[path] == ids, f"{path}: the manifest names exactly its propositions"
        assert len(ids) == 2 * SENTENCES
        assert any(d.id_hex == manifest["document"] for d in documents)
        linked = sum(len(native.edges(i)) for i in ids)
        assert linked > 0, f"{path}: its edges landed with it"
    return len(manifests)


def _run_and_kill(db: Path, folder: Path, after_files: int, pause: float) -> None:
    script = CHILD.format(tests=str(Path(__file__).parent), db=str(db), folder=str(folder))
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        # tqdm reads its defaults from TQDM_* variables: a tick printed after every file.
        env={**os.environ, "PYTHONUNBUFFERED": "1", "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1"},
    )
    assert child.stderr is not None
    progress = re.compile(rb"(\d+)/%d" % FILES)
    seen = b""
    ticks: set[int] = set()
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    timer = threading.Timer(CHILD_TIMEOUT_S, child.kill)
    timer.start()
    try:
        while time.monotonic() < deadline:
            chunk = child.stderr.read1(256)
            if not chunk:
                break
            seen = (seen + chunk)[-512:]
            done = [int(n) for n in progress.findall(seen)]
            ticks.update(done)
            if done and max(done) >= after_files:
                time.sleep(pause)
                os.kill(child.pid, signal.SIGKILL)
                break
    finally:
        timer.cancel()
        child.wait()
    assert child.returncode == -signal.SIGKILL, f"the child ended by itself: {seen!r}"
    assert set(range(after_files - 3, after_files + 1)) <= ticks, "a tick after every file"


def test_sigkill_mid_run_leaves_each_file_whole_or_absent(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    _write_corpus(folder)
    db = tmp_path / "db"
    indexed = 0
    for after_files, pause in KILLS:
        _run_and_kill(db, folder, after_files, pause)
        with Hebbs.open(db, embedder=word_hash_embed) as mem:
            now = _check_whole(mem, folder)
        assert max(indexed, after_files) <= now < FILES, "killed in the middle of the run"
        indexed = now
    with Hebbs.open(db, embedder=word_hash_embed) as mem:
        result = mem.index_documents([folder], progress=False)
        assert (result.files_unchanged, result.files_indexed) == (indexed, FILES - indexed)
        assert _check_whole(mem, folder) == FILES
        assert mem.health().memory_count == FILES * (2 * SENTENCES + 1), "no duplicates"


class _InjectsABadEdge:
    """The engine's native handle, but every ``write_atomic`` also carries an edge to an item
    that does not exist (the fault a buggy extraction could make)."""

    def __init__(self, native: NativeEngine) -> None:
        self.native = native

    def __getattr__(self, name: str) -> Any:
        return getattr(self.native, name)

    def write_atomic(self, rows: list[Any], matrix: Any, **kwargs: Any) -> Any:
        edges = [*kwargs.pop("item_edges"), (0, len(rows) + 5, "related_to", 0.5)]
        return self.native.write_atomic(rows, matrix, item_edges=edges, **kwargs)


def test_a_refused_reindex_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    doc = tmp_path / "plan.md"
    original = "# Plan\n\nThe billing team fixed the login page.\n\nThe login page works now.\n"
    doc.write_text(original)
    with Hebbs.open(tmp_path / "db", embedder=word_hash_embed) as mem:
        mem.index_documents([doc], progress=False)
        before = {m.id_hex: m.content for m in mem.list_memories(limit=100).memories}
        edges = {i: len(mem._native.edges(i)) for i in before}
        manifest = mem._native.state_get(MANIFEST_PREFIX + str(doc.resolve()))
        doc.write_text(original.replace("works now", "broke again on Monday"))
        native = mem._native
        mem._native = _InjectsABadEdge(native)  # type: ignore[assignment]
        with pytest.raises(hebbs.InvalidInputError) as caught:
            mem.index_documents([doc], progress=False)
        mem._native = native
        assert re.fullmatch(r"item_edges\[\d+\]\.target", caught.value.field or "")
        after = {m.id_hex: m.content for m in mem.list_memories(limit=100).memories}
        assert after == before, "nothing stored, nothing forgotten"
        assert {i: len(native.edges(i)) for i in after} == edges
        assert native.state_get(MANIFEST_PREFIX + str(doc.resolve())) == manifest
        fixed = mem.index_documents([doc], progress=False)
        assert (fixed.sections_kept, fixed.sections_added, fixed.sections_removed) == (1, 1, 1)
        texts = {m.content for m in mem.list_memories(kind="proposition").memories}
        assert texts == {
            "The billing team fixed the login page.",
            "The login page broke again on Monday.",
        }


def test_run_on_text_and_huge_names_are_indexed_not_refused(tmp_path: Path) -> None:
    doc = tmp_path / "dump.txt"
    endless = " ".join(f"word{i}" for i in range(3000))
    name = " ".join(f"Acme{i}" for i in range(80))
    doc.write_text(f"{endless}\n\n{name} signed the contract.\n")
    with Hebbs.open(tmp_path / "db", embedder=word_hash_embed) as mem:
        result = mem.index_documents([doc], progress=False)
        pieces = mem.list_memories(kind="proposition", limit=100).memories
        assert result.propositions == len(pieces) > 2
        assert all(len(p.content) <= MAX_PROPOSITION_CHARS for p in pieces)
        assert " ".join(p.content for p in pieces if p.content.startswith("word")).split() == (
            endless.split()
        ), "cut between words, nothing lost"
        signed = next(p for p in pieces if p.content.endswith("signed the contract."))
        assert signed.entity_id is None or len(signed.entity_id.encode()) <= MAX_ENTITY_ID_BYTES


def test_reindexed_sections_link_to_kept_propositions(tmp_path: Path) -> None:
    doc = tmp_path / "ops.md"
    doc.write_text("# Ops\n\nThe billing database failed.\n\nThe network was fine.\n")
    with Hebbs.open(tmp_path / "db", embedder=word_hash_embed) as mem:
        mem.index_documents([doc], progress=False)
        failed = next(
            p
            for p in mem.list_memories(kind="proposition").memories
            if p.content == "The billing database failed."
        )
        doc.write_text(
            "# Ops\n\nThe billing database failed.\n\nEngineers restored the billing database.\n"
        )
        result = mem.index_documents([doc], progress=False)
        assert (result.sections_kept, result.sections_added, result.sections_removed) == (1, 1, 1)
        assert result.edges == 1
        restored = next(
            p
            for p in mem.list_memories(kind="proposition").memories
            if p.content.startswith("Engineers restored")
        )
        edges = {(e.target, e.edge_type) for e in mem._native.edges(restored.id)}
        assert edges == {(failed.id, hebbs.EdgeType.RELATED_TO)}
        assert not any(
            p.content == "The network was fine."
            for p in mem.list_memories(kind="proposition").memories
        ), "the changed section's old memory is forgotten in the same write"


def _rows(count: int) -> tuple[list[dict[str, object]], np.ndarray]:
    texts = [f"item {i} of the batch" for i in range(count)]
    return [{"content": t, "entity_id": "batch"} for t in texts], word_hash_embed(texts)


def test_write_atomic_refuses_invalid_input_naming_the_field(tmp_path: Path) -> None:
    native = NativeEngine(str(tmp_path / "db"))
    existing = native.remember({"content": "existing"}, word_hash_embed(["existing"])[0])
    cases: list[tuple[str, dict[str, object]]] = [
        ("item_edges[0].target", {"item_edges": [(0, 7, "related_to", 0.5)]}),
        ("item_edges[0].target", {"item_edges": [(1, 1, "related_to", 0.5)]}),
        ("item_edges[0].confidence", {"item_edges": [(1, 0, "caused_by", 2.0)]}),
        ("item_edges[0].edge_type", {"item_edges": [(1, 0, "likes", 0.5)]}),
        ("item_edges[0]", {"item_edges": [(-1, 0, "related_to", 0.5)]}),
        ("state[0].value", {"state": [("x", "not bytes")]}),
        ("state[0].name", {"state": [("", b"1")]}),
        ("ids", {"ids": NativeEngine.new_ids(1)}),
        ("forget[0]", {"forget": ["nonsense"]}),
    ]
    for field, extra in cases:
        rows, matrix = _rows(2)
        kwargs: dict[str, object] = {"forget": [existing.id], "state": [("s", b"1")], **extra}
        with pytest.raises(hebbs.InvalidInputError) as caught:
            native.write_atomic(rows, matrix, **kwargs)  # type: ignore[arg-type]
        assert caught.value.field == field
        assert native.health().memory_count == 1, f"{field}: nothing stored"
        assert native.get(existing.id).content == "existing", f"{field}: nothing forgotten"
        assert native.state_get("s") is None, f"{field}: no state"
    rows, matrix = _rows(2)
    taken = [NativeEngine.new_ids(1)[0], existing.id]
    with pytest.raises(hebbs.ConflictError) as conflict:
        native.write_atomic(rows, matrix, ids=taken, forget=[existing.id], state=[("s", b"1")])
    assert conflict.value.field == "ids[1]"
    assert native.health().memory_count == 1, "a conflict stores nothing"
    assert native.get(existing.id).content == "existing", "a conflict forgets nothing"
    assert native.state_get("s") is None, "a conflict sets no state"


def test_write_atomic_stores_everything_and_the_edges(tmp_path: Path) -> None:
    native = NativeEngine(str(tmp_path / "db"), dimension=HASH_DIM)
    kept = native.remember({"content": "kept"}, word_hash_embed(["kept"])[0])
    old = native.remember({"content": "old"}, word_hash_embed(["old"])[0])
    rows, matrix = _rows(3)
    rows[2]["edges"] = [hebbs.Edge(kept.id, "related_to", 0.6)]
    ids = NativeEngine.new_ids(3)
    memories, forgotten = native.write_atomic(
        rows,
        matrix,
        ids=ids,
        item_edges=[(1, 0, hebbs.EdgeType.FOLLOWED_BY, 0.8), (2, 1, "caused_by", 0.8)],
        forget=[old.id],
        state=[("unit", b"done")],
    )
    assert [m.id for m in memories] == ids
    assert forgotten.forgotten_count == 1
    assert native.state_get("unit") == b"done"
    assert native.health().memory_count == 4
    out = {(e.target, e.edge_type, round(e.confidence, 3)) for e in native.edges(ids[2])}
    assert out == {
        (ids[1], hebbs.EdgeType.CAUSED_BY, 0.8),
        (kept.id, hebbs.EdgeType.RELATED_TO, 0.6),
    }
    assert {(e.target, e.edge_type) for e in native.edges(ids[0], direction="in")} == {
        (ids[1], hebbs.EdgeType.FOLLOWED_BY)
    }
    with pytest.raises(hebbs.NotFoundError):
        native.get(old.id)
