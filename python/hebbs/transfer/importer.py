"""``import_file``: the lines of an export (:mod:`hebbs.transfer.format`) into a store.

Two passes over the file. The first validates every line (its model, the header first and
the ``end`` line last with the right counts, unique ids none of which the store holds, edges
between memories of the file or the store, one embedding dimension matching the store's) and
raises at the first problem an :class:`~hebbs.InvalidInputError` whose ``field`` is
``line N`` or ``line N.<field>`` (a :class:`~hebbs.ConflictError` naming ``line N.id`` for an
id the store already holds): nothing is written. The second writes: memories in batches
of :data:`IMPORT_BATCH` with their ids, times and access counts (embedding the contents whose
line carries no vector), then the edges, then the tombstones. Only ids are kept between the
passes, never memories, so the file may be larger than memory.

A failure of the store itself during the second pass (a full disk) leaves the batches written
before it; each batch is atomic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Final

import numpy as np
from pydantic import ValidationError

from hebbs._inputs import conflict, invalid
from hebbs._native import Edge, Tombstone
from hebbs.api.model import invalid_input
from hebbs.engine import Hebbs
from hebbs.errors import InvalidInputError, InvalidTypeError
from hebbs.transfer.format import (
    LINE_TYPES,
    READABLE_VERSIONS,
    EdgeLine,
    EndLine,
    HeaderLine,
    Line,
    MemoryLine,
    TokenVectorsLine,
    TombstoneLine,
)

#: Memories written per atomic batch.
IMPORT_BATCH: Final = 1000
#: Ids checked against the store per read while validating.
EXISTS_BATCH: Final = 1000


@dataclass(frozen=True)
class ImportResult:
    """What an import wrote."""

    memories: int
    edges: int
    tombstones: int


def _line_error(number: int, error: InvalidInputError) -> InvalidInputError:
    field = f"line {number}" + (f".{error.field}" if error.field else "")
    return invalid(field, error.reason, type(error))


def parse_lines(lines: Iterable[str]) -> Iterator[tuple[int, Line]]:
    """Each non-blank line as its model, numbered from 1; the first problem raises."""
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise invalid(
                f"line {number}", f"is not JSON ({error.msg})", InvalidTypeError
            ) from None
        except RecursionError:
            # The parser recurses once a nesting level: far past any line the format has.
            raise invalid(f"line {number}", "nests too deeply to parse") from None
        if not isinstance(data, dict) or data.get("type") not in LINE_TYPES:
            reason = f"needs a type, one of {', '.join(LINE_TYPES)}"
            raise invalid(f"line {number}.type", reason, InvalidTypeError)
        try:
            yield number, LINE_TYPES[data["type"]].model_validate(data)
        except ValidationError as error:
            detail = error.errors(include_url=False)[0]
            raise _line_error(number, invalid_input(detail)) from None


class _Validation:
    """What the first pass learns: the header and the memory ids of the file."""

    def __init__(self, engine: Hebbs) -> None:
        self.engine = engine
        self.header: HeaderLine | None = None
        self.ids: set[bytes] = set()
        self.counts = {"memories": 0, "edges": 0, "tombstones": 0}
        self.ended = False
        self.dimension: int | None = engine._native.dimension()
        self.store_empty = engine.health().memory_count == 0
        self._unchecked: list[tuple[int, bytes]] = []
        #: Edge ends not among the file's memories when their line was read: (line, field, id).
        self._ends: list[tuple[int, str, bytes]] = []

    def line(self, number: int, line: Line) -> None:
        if self.ended:
            raise invalid(f"line {number}", "comes after the end line")
        if self.header is None:
            if not isinstance(line, HeaderLine):
                raise invalid(f"line {number}", "the first line must be the header")
            if line.version not in READABLE_VERSIONS:
                reason = f"version {line.version} is not one this reads {READABLE_VERSIONS}"
                raise invalid(f"line {number}.version", reason)
            if line.dimension is not None and self.dimension not in (None, line.dimension):
                reason = f"{line.dimension} does not match the store's {self.dimension}"
                raise invalid(f"line {number}.dimension", reason)
            self.header = line
            return
        if isinstance(line, HeaderLine):
            raise invalid(f"line {number}", "a second header")
        if isinstance(line, MemoryLine):
            self._memory(number, line)
        elif isinstance(line, EdgeLine):
            self.counts["edges"] += 1
            for field in ("source", "target"):
                id = bytes.fromhex(getattr(line, field))
                if id not in self.ids:
                    self._ends.append((number, field, id))
        elif isinstance(line, TombstoneLine):
            self.counts["tombstones"] += 1
            if bytes.fromhex(line.id) in self.ids:
                raise invalid(f"line {number}.id", "is a memory of this file")
        elif isinstance(line, EndLine):
            self._end(number, line)

    def _memory(self, number: int, line: MemoryLine) -> None:
        assert self.header is not None
        self.counts["memories"] += 1
        id = bytes.fromhex(line.id)
        if id in self.ids:
            raise invalid(f"line {number}.id", "appears twice")
        self.ids.add(id)
        if line.updated_at < line.created_at:
            raise invalid(f"line {number}.updated_at", "is before created_at")
        if self.header.embeddings != (line.embedding is not None):
            reason = "must be given" if self.header.embeddings else "the header says none"
            raise invalid(f"line {number}.embedding", reason)
        if line.embedding is not None:
            if self.dimension is None:
                self.dimension = len(line.embedding)
            if len(line.embedding) != self.dimension:
                reason = f"dimension {len(line.embedding)} is not {self.dimension}"
                raise invalid(f"line {number}.embedding", reason)
        if line.turn_at is not None and line.session_id is None:
            raise invalid(f"line {number}.turn_at", "is the time of a turn, but no session_id")
        if line.token_vectors is not None and line.embedding is None:
            reason = "come from the model that made the embeddings, which this file leaves out"
            raise invalid(f"line {number}.token_vectors", reason)
        if not self.store_empty:
            self._unchecked.append((number, id))
            if len(self._unchecked) >= EXISTS_BATCH:
                self._check_new()

    def _check_new(self) -> None:
        found = self.engine.get_many([id for _, id in self._unchecked])
        for (number, _), memory in zip(self._unchecked, found):
            if memory is not None:
                raise conflict(f"line {number}.id", "the store holds a memory with this id")
        self._unchecked.clear()

    def _end(self, number: int, line: EndLine) -> None:
        self.ended = True
        for name, count in self.counts.items():
            if getattr(line, name) != count:
                reason = f"says {getattr(line, name)} {name}, the file has {count}"
                raise invalid(f"line {number}.{name}", reason)
        self._check_new()
        missing = [end for end in self._ends if end[2] not in self.ids]
        for start in range(0, len(missing), EXISTS_BATCH):
            chunk = missing[start : start + EXISTS_BATCH]
            found = self.engine.get_many([id for _, _, id in chunk])
            for (edge_line, field, _), memory in zip(chunk, found):
                if memory is None:
                    raise invalid(f"line {edge_line}.{field}", "no memory of the file or the store")

    def finish(self, last: int) -> HeaderLine:
        if self.header is None:
            raise invalid("line 1", "the file is empty: no header")
        if not self.ended:
            raise invalid(f"line {last}", "the file ends without its end line (truncated?)")
        return self.header


def validate(engine: Hebbs, lines: Iterable[str]) -> HeaderLine:
    """The header of a valid export for ``engine``; raises at the first problem."""
    check = _Validation(engine)
    last = 0
    for number, line in parse_lines(lines):
        check.line(number, line)
        last = number
    return check.finish(last)


def _write_memories(engine: Hebbs, rows: list[dict[str, Any]]) -> None:
    """Restores ``rows`` (memory lines): the contents without a vector are embedded, with
    their token vectors from the same pass when the store keeps them."""
    missing = [i for i, row in enumerate(rows) if row.get("embedding") is None]
    vectors: list[Any] = [row.pop("embedding", None) for row in rows]
    for row in rows:
        if row.get("token_vectors") is not None:
            row["token_vectors"] = TokenVectorsLine.model_validate(row["token_vectors"]).arrays()
    if missing:
        embedded, tokens = engine._embed_documents([rows[i]["content"] for i in missing])
        for j, i in enumerate(missing):
            vectors[i] = embedded[j]
            if tokens is not None:
                rows[i]["token_vectors"] = tokens[j]
    matrix = np.asarray(vectors, dtype=np.float32)
    engine._native.restore_many(rows, matrix)


def _objects(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The objects of lines the first pass validated (no model needed again)."""
    for text in lines:
        if text.strip():
            yield json.loads(text)


def write(engine: Hebbs, read: Callable[[], Iterable[str]]) -> ImportResult:
    """Writes the lines of a validated export (see :func:`validate`); ``read`` gives them
    afresh for each of the two passes (memories, then edges and tombstones)."""
    rows: list[dict[str, Any]] = []
    memories = 0
    for row in _objects(read()):
        if row.pop("type") == "memory":
            rows.append(row)
            memories += 1
            if len(rows) >= IMPORT_BATCH:
                _write_memories(engine, rows)
                rows = []
    if rows:
        _write_memories(engine, rows)
    edges = tombstones = 0
    source: str | None = None
    held: list[Edge] = []
    buried: list[Tombstone] = []
    for row in _objects(read()):
        kind = row.pop("type")
        if kind == "edge":
            edges += 1
            if row["source"] != source and held:
                engine.add_edges(str(source), held)
                held = []
            source = row["source"]
            held.append(Edge(row["target"], row["edge_type"], row["confidence"]))
        elif kind == "tombstone":
            tombstones += 1
            buried.append(Tombstone.from_dict(row))
            if len(buried) >= IMPORT_BATCH:
                engine._native.restore_tombstones(buried)
                buried = []
    if held:
        engine.add_edges(str(source), held)
    if buried:
        engine._native.restore_tombstones(buried)
    return ImportResult(memories, edges, tombstones)


def import_file(engine: Hebbs, path: str | Path) -> ImportResult:
    """Validates the export at ``path`` whole, then writes it into ``engine``."""

    def read() -> Iterator[str]:
        with open(path, encoding="utf-8") as file:
            yield from file

    validate(engine, read())
    return write(engine, read)
