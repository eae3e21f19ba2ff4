"""``import_chroma``: a Chroma persistent collection into a store, so a user of the most common
embedded vector store moves over in one command (``hebbs import --from-chroma PATH
--collection NAME``).

Chroma is read with its own client, ``chromadb``, in a subprocess running
:mod:`hebbs.transfer.chroma_reader` (by default this interpreter, which then needs
``chromadb``: ``pip install chromadb``; ``python=`` names another that has it), so hebbs does not
depend on Chroma's large dependency tree. Each record becomes a memory: the document its
content, the metadata its context (plus ``chroma_id``, the record's id), the embedding its vector
unless ``reembed`` (then the store's embedder embeds the documents; do that when the collection
was embedded with a model other than the store's). ``entity_key`` names a metadata key whose
value becomes the memory's ``entity_id``.

Like :func:`~hebbs.transfer.importer.import_file` it reads twice: every record is checked
first (a document, a valid context, one embedding dimension matching the store's) and the first
problem raises :class:`~hebbs.InvalidInputError` naming ``record N.<field>`` (its Chroma id in
the message) before anything is written; then records are stored in batches.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from hebbs._inputs import invalid
from hebbs.api import RememberRequest
from hebbs.api.model import invalid_input
from hebbs.engine import Hebbs
from hebbs.errors import InvalidInputError, InvalidValueError
from hebbs.transfer.importer import IMPORT_BATCH, ImportResult

#: The reader script, run by the interpreter that has chromadb.
READER: Final = Path(__file__).with_name("chroma_reader.py")
#: The context key that keeps each record's Chroma id.
CHROMA_ID_KEY: Final = "chroma_id"


def _records(path: str | Path, collection: str, python: str) -> Iterator[dict[str, Any]]:
    command = [python, str(READER), str(path), collection]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8"
    ) as reader:
        assert reader.stdout is not None
        for line in reader.stdout:
            yield json.loads(line)
        errors = reader.stderr.read() if reader.stderr else ""
        if reader.wait() != 0:
            last = errors.strip().splitlines()[-1] if errors.strip() else "no message"
            raise invalid("from_chroma", f"Chroma could not be read: {last}", InvalidValueError)


def _item(
    number: int, record: dict[str, Any], entity_key: str | None, reembed: bool
) -> RememberRequest:
    metadata = dict(record.get("metadata") or {})
    given: dict[str, Any] = {
        "content": record.get("document"),
        "context": {**metadata, CHROMA_ID_KEY: record["id"]},
    }
    if entity_key is not None and metadata.get(entity_key) is not None:
        given["entity_id"] = str(metadata[entity_key])
    if not reembed and record.get("embedding") is not None:
        given["embedding"] = record["embedding"]
    try:
        return RememberRequest.model_validate(given)
    except ValidationError as error:
        found = invalid_input(error.errors(include_url=False)[0])
    raise _record_error(number, record["id"], found)


def _record_error(number: int, id: str, error: InvalidInputError) -> InvalidInputError:
    return invalid(f"record {number}.{error.field}", f"{error.reason} (Chroma id {id!r})")


def import_chroma(
    engine: Hebbs,
    path: str | Path,
    collection: str,
    *,
    entity_key: str | None = None,
    reembed: bool = False,
    python: str = sys.executable,
) -> ImportResult:
    """Imports every record of Chroma collection ``collection`` at ``path`` into ``engine``."""
    dimension = engine._native.dimension()
    for number, record in enumerate(_records(path, collection, python), start=1):
        item = _item(number, record, entity_key, reembed)
        if item.embedding is not None:
            if dimension is None:
                dimension = len(item.embedding)
            if len(item.embedding) != dimension:
                reason = f"dimension {len(item.embedding)} is not the store's {dimension}"
                raise _record_error(number, record["id"], invalid("embedding", reason))
    count = 0
    batch: list[dict[str, Any]] = []
    for number, record in enumerate(_records(path, collection, python), start=1):
        item = _item(number, record, entity_key, reembed)
        batch.append({name: getattr(item, name) for name in item.model_fields_set})
        if len(batch) >= IMPORT_BATCH:
            count += len(engine.remember_many(batch))
            batch = []
    if batch:
        count += len(engine.remember_many(batch))
    return ImportResult(count, 0, 0)
