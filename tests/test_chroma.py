"""``hebbs import --from-chroma``: a real Chroma persistent collection, made by ``chromadb``
itself, becomes memories. chromadb is large (about 90 packages, 500 MB), so it is not in the
test extra: it lives in a virtual environment of its own, created from PyPI on first use and
cached under :data:`CHROMA_VENV`, and the import reads the collection with that interpreter
(the ``python=`` of :func:`~hebbs.transfer.chroma.import_chroma`)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from tests.venvs import cached_venv

from hebbs import Hebbs, InvalidInputError
from hebbs.cli import main
from hebbs.embedder import Embedder
from hebbs.transfer.chroma import CHROMA_ID_KEY, import_chroma

#: The chromadb the test installs.
CHROMADB = "chromadb>=1.5,<2"
#: Where its environment is kept between runs (``HEBBS_CHROMA_VENV`` overrides).
CHROMA_VENV = Path(
    os.environ.get("HEBBS_CHROMA_VENV", Path.home() / ".cache" / "hebbs-chroma-venv")
)
MAKER = Path(__file__).with_name("chroma_make_collection.py")

DOCUMENTS = {
    "acme-1": ("Acme asked for a 15% discount on the annual plan", {"customer": "acme", "n": 1}),
    "globex-1": ("Globex pays its invoices as PDF by email", {"customer": "globex"}),
    "initech-1": ("Initech renewed for two more years", {"customer": "initech", "ok": True}),
}


@pytest.fixture(scope="module")
def chroma() -> Path:
    return cached_venv(CHROMA_VENV, CHROMADB, "import chromadb")


def make_collection(chroma: Path, path: Path, records: list[dict[str, object]]) -> None:
    records_file = path.with_suffix(".json")
    records_file.write_text(json.dumps(records), encoding="utf-8")
    subprocess.run(
        [str(chroma), str(MAKER), str(path), "notes", str(records_file)],
        check=True,
        capture_output=True,
        timeout=300,
    )


def records(embedder: Embedder) -> list[dict[str, object]]:
    vectors = embedder.embed([text for text, _ in DOCUMENTS.values()])
    return [
        {"id": id, "document": text, "metadata": metadata, "embedding": vector.tolist()}
        for (id, (text, metadata)), vector in zip(DOCUMENTS.items(), vectors)
    ]


def test_a_chroma_collection_becomes_memories(
    chroma: Path, tmp_path: Path, embedder: Embedder
) -> None:
    given = records(embedder)
    make_collection(chroma, tmp_path / "chroma", given)
    with Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        result = import_chroma(
            mem, tmp_path / "chroma", "notes", entity_key="customer", python=str(chroma)
        )
        assert result.memories == 3
        stored = mem.list_memories().memories
        by_chroma_id = {m.context[CHROMA_ID_KEY]: m for m in stored}
        assert set(by_chroma_id) == set(DOCUMENTS)
        for record in given:
            memory = mem.get(by_chroma_id[record["id"]].id, include_embedding=True)
            text, metadata = DOCUMENTS[str(record["id"])]
            assert memory.content == text
            assert memory.context == {**metadata, CHROMA_ID_KEY: record["id"]}
            assert memory.entity_id == metadata["customer"]
            assert memory.embedding is not None
            np.testing.assert_allclose(memory.embedding, record["embedding"], atol=1e-6)
        top = mem.recall("what discount did Acme want?").results[0].memory
        assert top.context[CHROMA_ID_KEY] == "acme-1"


def test_a_bad_record_is_refused_before_anything_is_written(
    chroma: Path, tmp_path: Path, embedder: Embedder
) -> None:
    given = records(embedder)
    given[1]["embedding"] = [0.5] * 8
    make_collection(chroma, tmp_path / "short", [given[1]])
    with Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        mem.remember("an existing memory fixes the dimension")
        with pytest.raises(InvalidInputError) as raised:
            import_chroma(mem, tmp_path / "short", "notes", python=str(chroma))
        assert raised.value.field == "record 1.embedding"
        assert "globex-1" in str(raised.value)
        assert mem.health().memory_count == 1
        done = import_chroma(mem, tmp_path / "short", "notes", reembed=True, python=str(chroma))
        assert done.memories == 1
    with (
        Hebbs.open(tmp_path / "db2", embedder=embedder) as mem,
        pytest.raises(InvalidInputError, match="Chroma could not be read"),
    ):
        import_chroma(mem, tmp_path / "short", "no-such-collection", python=str(chroma))


def test_cli_from_chroma(
    chroma: Path, tmp_path: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    make_collection(chroma, tmp_path / "chroma", records(embedder))
    argv = ["import", "--db", str(tmp_path / "db"), "--from-chroma", str(tmp_path / "chroma")]
    argv += ["--collection", "notes", "--chroma-python", str(chroma), "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["memories"] == 3
    assert main(["import", "--db", str(tmp_path / "db"), "--from-chroma", str(tmp_path)]) == 2
    assert "--collection" in capsys.readouterr().err
