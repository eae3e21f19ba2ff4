"""``index_documents``: Markdown and text files (or folders of them) into a ``document``
memory per file and ``proposition`` memories per sentence, with entities, role triples and
edges, incrementally.

Per file: its SHA-256 is compared with the manifest (an engine state entry per file,
``MANIFEST_PREFIX``); an unchanged file costs one read and one hash. A changed or new file is
split into sections (:mod:`.parse`); sections whose hash the manifest holds keep their
propositions, new sections are extracted by the provider (batches of ``EXTRACT_BATCH_CHARS``
per call; offline: :func:`.extract.offline_extract`) and linked (``related_to`` to the latest
earlier proposition of the file sharing an entity, at most ``MAX_RELATED_EDGES``; ``caused_by``
/ ``followed_by`` where the extraction found the relation). Then one core ``write_atomic``
(one embedding batch, one RocksDB write batch) stores the file's new memories under ids chosen
beforehand, their edges (between them and to kept propositions), forgets the memories of the
sections gone and the previous ``document`` memory, and writes the file's new manifest: a
crash or an error leaves the file as it was before, or wholly indexed. A file gone from an
indexed folder has all its memories forgotten and its manifest deleted, in one write too.

Each proposition: ``entity_id`` its main entity, normalised (:func:`.extract.normalise_entity`);
``created_at`` the indexing time plus its position in the file (microseconds), so an entity's
timeline follows the documents; ``context`` the role triple (``entities``, ``action``,
``outcome``) analogical recall matches, and ``document``, ``section``, ``section_hash``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hebbs._inputs import invalid
from hebbs._native import MAX_ENTITY_ID_BYTES, Edge, EdgeType, MemoryKind, NativeEngine
from hebbs.api.model import parse
from hebbs.api.requests import RememberManyRequest
from hebbs.errors import NotFoundError
from hebbs.llm import LLMProvider

from .constants import (
    DOCUMENT_MEMORY_CHARS,
    EXTRACT_BATCH_CHARS,
    INDEX_SUFFIXES,
    MANIFEST_PREFIX,
    MAX_RELATED_EDGES,
    RELATED_CONFIDENCE,
    RELATION_CONFIDENCE,
)
from .extract import extract_task, normalise_entity
from .parse import Section, sections_of, title_of
from .results import IndexResult
from .schemas import Extraction

if TYPE_CHECKING:
    from hebbs.engine import Hebbs


@dataclass
class Counts:
    values: dict[str, int] = field(default_factory=dict)
    entities: set[str] = field(default_factory=set)

    def add(self, name: str, amount: int = 1) -> None:
        self.values[name] = self.values.get(name, 0) + amount

    def result(self, llm_calls: int) -> IndexResult:
        return IndexResult(**self.values, entities=len(self.entities), llm_calls=llm_calls)


def files_of(paths: Sequence[str]) -> tuple[list[Path], list[Path]]:
    """The files to index and the folders they were found in (whose vanished files are
    forgotten); a missing path raises naming ``paths[i]``."""
    files: list[Path] = []
    folders: list[Path] = []
    for index, given in enumerate(paths):
        if not given.strip():
            raise invalid(f"paths[{index}]", "must not be empty")
        path = Path(given).expanduser().resolve()
        if path.is_dir():
            folders.append(path)
            files.extend(
                sorted(
                    p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in INDEX_SUFFIXES
                )
            )
        elif path.is_file():
            files.append(path)
        else:
            raise invalid(f"paths[{index}]", f"no such file or folder: {given}")
    return list(dict.fromkeys(files)), folders


def _manifest(native: NativeEngine, path: Path) -> dict[str, Any] | None:
    raw = native.state_get(MANIFEST_PREFIX + str(path))
    return None if raw is None else dict(json.loads(raw))


def _extract(provider: LLMProvider, sections: list[Section]) -> list[tuple[int, Extraction]]:
    """The extraction of ``sections`` in batches: (offset of the batch, its answer)."""
    answers = []
    start = 0
    while start < len(sections):
        end, size = start, 0
        while end < len(sections) and (
            end == start or size + len(sections[end].text) <= EXTRACT_BATCH_CHARS
        ):
            size += len(sections[end].text)
            end += 1
        batch = [{"heading": s.heading, "text": s.text} for s in sections[start:end]]
        answers.append((start, provider.complete(extract_task(batch), Extraction)))
        start = end
    return answers


def index_file(engine: Hebbs, provider: LLMProvider, path: Path, counts: Counts) -> None:
    """Indexes one file (see the module docs)."""
    native: NativeEngine = engine._native
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    manifest = _manifest(native, path)
    if manifest is not None and manifest["sha256"] == digest:
        counts.add("files_unchanged")
        return
    text = raw.decode("utf-8", errors="replace")
    sections = sections_of(path, text)
    old_sections: dict[str, list[dict[str, Any]]] = manifest["sections"] if manifest else {}
    fresh = [s for s in dict.fromkeys(sections) if s.hash not in old_sections]
    extracted: dict[str, list[tuple[int, Any]]] = {s.hash: [] for s in fresh}
    relations: list[tuple[tuple[str, int], tuple[str, int], str]] = []
    for offset, answer in _extract(provider, fresh):
        where: list[tuple[str, int]] = []
        for proposition in answer.propositions:
            if offset + proposition.section >= len(fresh):
                where.append(("", -1))
                continue
            section = fresh[offset + proposition.section]
            where.append((section.hash, len(extracted[section.hash])))
            extracted[section.hash].append((len(where) - 1, proposition))
        for relation in answer.relations:
            if max(relation.source, relation.target) < len(where):
                source, target = where[relation.source], where[relation.target]
                if source[1] >= 0 and target[1] >= 0:
                    relations.append((source, target, relation.type))
    title = title_of(path, sections, text)
    base = time.time_ns() // 1000
    opening = f"{title}\n\n{text[:DOCUMENT_MEMORY_CHARS]}".strip()
    items: list[dict[str, Any]] = [
        {
            "content": opening,
            # Embedded on its own: in the propositions' batch its length would pad them all.
            "embedding": engine._embed([opening], query=False)[0],
            "kind": MemoryKind.DOCUMENT,
            "context": {"path": str(path), "sha256": digest, "title": title},
            "created_at": base,
        }
    ]
    slots: dict[tuple[str, int], int] = {}
    for section in fresh:
        for position, (_, proposition) in enumerate(extracted[section.hash]):
            entities = [e for e in map(_entity_id, proposition.entities) if e]
            main = _entity_id(proposition.main_entity) if proposition.main_entity else None
            slots[(section.hash, position)] = len(items)
            items.append(
                {
                    "content": proposition.text,
                    "kind": MemoryKind.PROPOSITION,
                    "entity_id": main or None,
                    "created_at": base + len(items),
                    "context": {
                        "entities": entities,
                        "action": proposition.action,
                        "outcome": proposition.outcome,
                        "document": str(path),
                        "section": section.heading,
                        "section_hash": section.hash,
                    },
                }
            )
            counts.entities.update(entities)
    ids = [raw_id.hex() for raw_id in NativeEngine.new_ids(len(items))]
    slot_of = {memory_id: slot for slot, memory_id in enumerate(ids)}
    item_edges: list[tuple[int, int, EdgeType | str, float]] = []
    new_sections: dict[str, list[dict[str, Any]]] = {}
    latest: dict[str, str] = {}
    known: dict[str, bool] = {}
    for section in dict.fromkeys(sections):
        if section.hash in old_sections:
            records = old_sections[section.hash]
            counts.add("sections_kept")
        else:
            records = []
            for position in range(len(extracted[section.hash])):
                slot = slots[(section.hash, position)]
                entities = items[slot]["context"]["entities"]
                targets = dict.fromkeys(
                    latest[e] for e in entities[:MAX_RELATED_EDGES] if e in latest
                )
                for linked in targets:
                    if linked in slot_of:
                        item_edges.append(
                            (slot, slot_of[linked], EdgeType.RELATED_TO, RELATED_CONFIDENCE)
                        )
                    elif _stored(native, linked, known):
                        items[slot].setdefault("edges", []).append(
                            Edge(linked, EdgeType.RELATED_TO, RELATED_CONFIDENCE)
                        )
                records.append({"id": ids[slot], "entities": entities})
                for entity in entities:
                    latest[entity] = ids[slot]
            counts.add("sections_added")
        for record in records:
            for entity in record["entities"]:
                latest[entity] = record["id"]
        new_sections[section.hash] = records
    for source, target, kind in dict.fromkeys(relations):
        if source != target:
            item_edges.append((slots[source], slots[target], kind, RELATION_CONFIDENCE))
    gone = [h for h in old_sections if h not in new_sections]
    forget = [r["id"] for h in gone for r in old_sections[h]]
    forget += [manifest["document"]] if manifest else []
    value = {"sha256": digest, "document": ids[0], "sections": new_sections}
    requests = parse(RememberManyRequest, {"items": items}).items
    rows, matrix = engine._remember_rows(requests)
    native.write_atomic(
        rows,
        matrix,
        ids=ids,
        item_edges=item_edges,
        forget=forget,
        state=[(MANIFEST_PREFIX + str(path), json.dumps(value).encode())],
    )
    counts.add("sections_removed", len(gone))
    counts.add("propositions", len(items) - 1)
    counts.add("edges", len(item_edges) + sum(len(item.get("edges", [])) for item in items))
    counts.add("files_indexed")


def _entity_id(name: str) -> str | None:
    """The entity id of extracted ``name``, or None when it normalises to nothing or is too
    long to be one (over ``MAX_ENTITY_ID_BYTES``)."""
    entity = normalise_entity(name)
    return entity if entity and len(entity.encode()) <= MAX_ENTITY_ID_BYTES else None


def _stored(native: NativeEngine, memory_id: str, known: dict[str, bool]) -> bool:
    """Whether a kept proposition is still stored (one may have been forgotten by hand since
    the last indexing), remembered in ``known``."""
    if memory_id not in known:
        try:
            native.get(memory_id)
            known[memory_id] = True
        except NotFoundError:
            known[memory_id] = False
    return known[memory_id]


def forget_vanished(
    native: NativeEngine, folders: list[Path], files: list[Path], counts: Counts
) -> None:
    """Forgets the memories of files indexed under ``folders`` that are gone."""
    present = {str(path) for path in files}
    for folder in folders:
        for name, raw in native.state_scan(MANIFEST_PREFIX + str(folder) + os.sep):
            path = name[len(MANIFEST_PREFIX) :]
            if path in present:
                continue
            manifest = json.loads(raw)
            ids = [r["id"] for records in manifest["sections"].values() for r in records]
            native.write_atomic(
                [],
                np.zeros((0, 1), dtype=np.float32),
                forget=[*ids, manifest["document"]],
                state=[(name, None)],
            )
            counts.add("files_removed")


def index_documents(
    engine: Hebbs, provider: LLMProvider, paths: Sequence[str], progress: bool | None
) -> IndexResult:
    """Indexes ``paths`` (see the module docs); ``progress`` None shows a bar when stderr is a
    terminal."""
    files, folders = files_of(paths)
    counts = Counts()
    calls_before = provider.calls
    show = sys.stderr.isatty() if progress is None else progress
    iterator: Any = files
    if show:
        from tqdm import tqdm

        iterator = tqdm(files, desc="indexing", unit="file", file=sys.stderr)
    for path in iterator:
        index_file(engine, provider, path, counts)
    forget_vanished(engine._native, folders, files, counts)
    return counts.result(provider.calls - calls_before)
