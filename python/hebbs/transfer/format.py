"""The export format: JSON Lines, one object per line, each with a ``type``.

1. ``header`` (first): ``format`` (:data:`FORMAT_NAME`), ``version`` (:data:`FORMAT_VERSION`),
   ``dimension`` of the vectors (null for an empty store), ``model`` that made them, and
   ``embeddings`` (whether memory lines carry them).
2. ``memory``: every field of a memory (seed 003) but the derived ``decay_score`` (recomputed
   from importance, access count and last access): ``id``, ``content``, ``importance``,
   ``context``, ``entity_id``, ``created_at``, ``updated_at``, ``last_accessed_at``,
   ``access_count``, ``kind``, ``superseded``, and ``embedding`` when the header says so. Since
   version 2 also what recall reads beside the record: ``session_id`` when the memory was
   remembered in a conversation (with ``turn_at``, the time its turn is ordered by, when that
   is not its ``created_at``: a revision's, which took the place of the memory it revised), and,
   with the embeddings, ``token_vectors`` when the store
   keeps them (``dimension``, ``codes``: the int8 codes row by row as base64, ``scales``: one
   per token), so an import (a backup restored, a tenant moved to another shard) ranks as the
   original does. Since version 3 ``key``, when the memory was stored under a caller key.
3. ``edge``: ``source``, ``target``, ``edge_type``, ``confidence`` (after the memory lines of
   their page; an edge may point at a memory of a later page).
4. ``tombstone``: the audit record of a forgotten memory (``id``, ``entity_id``, ``kind``,
   ``created_at``, ``forgotten_at``, ``content_sha256``).
5. ``end`` (last): the counts of memory, edge and tombstone lines, so a truncated file is
   refused.

Memories come in id order (the order they were stored), each page's edges after it, then the
tombstones in id order: the same store always exports the same lines. Ids are 32 hex digits,
times microseconds. Every line model refuses unknown fields and checks what the engine checks,
so an import can validate a whole file before it writes anything.
"""

from __future__ import annotations

import base64
import json
import math
import unicodedata
from typing import Annotated, Any, Final, Literal, Optional, Union

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from hebbs._native import MAX_CONTEXT_BYTES, MAX_ENTITY_ID_BYTES
from hebbs.api.fields import Content, Count, Flag, JsonObject, Key, Micros, Number, Text

#: The ``format`` of the header line.
FORMAT_NAME: Final = "hebbs-export"
#: The version this code writes.
FORMAT_VERSION: Final = 3
#: The versions this code reads (version 1 lines have no ``session_id`` or ``token_vectors``,
#: version 2 lines no ``key``).
READABLE_VERSIONS: Final = (1, 2, 3)
#: The pattern of an id in the format.
ID_PATTERN: Final = r"^[0-9a-f]{32}$"
#: The pattern of a content digest.
SHA256_PATTERN: Final = r"^[0-9a-f]{64}$"


def _entity_id(value: str) -> str:
    if not value or len(value.encode("utf-8")) > MAX_ENTITY_ID_BYTES:
        raise ValueError(f"must be 1 to {MAX_ENTITY_ID_BYTES} bytes")
    if any(unicodedata.category(char) == "Cc" for char in value):
        raise ValueError("must not contain control characters")
    return value


def _context(value: dict[str, Any]) -> dict[str, Any]:
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_CONTEXT_BYTES:
        raise ValueError(f"{size} bytes of JSON is more than {MAX_CONTEXT_BYTES}")
    return value


def _embedding(value: list[float]) -> list[float]:
    if not value or not all(math.isfinite(x) for x in value):
        raise ValueError("must be a non-empty list of finite numbers")
    if not any(value):
        raise ValueError("must not be all zeros")
    return value


#: An id as the format writes it.
HexId = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
#: A unit interval number (importance, confidence).
Unit = Annotated[Number, Field(ge=0.0, le=1.0)]
#: An entity id as the engine accepts it.
EntityId = Annotated[Text, AfterValidator(_entity_id)]
#: A memory kind's name.
KindName = Literal["episode", "insight", "revision"]


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HeaderLine(Line):
    type: Literal["header"]
    format: Literal["hebbs-export"]
    version: int
    dimension: Optional[Count]
    model: Optional[Text]
    embeddings: Flag


def _decoded(value: str) -> bytes:
    return base64.b64decode(value, validate=True)


def _base64(value: str) -> str:
    try:
        _decoded(value)
    except ValueError:
        raise ValueError("must be base64") from None
    return value


def _scales(value: list[float]) -> list[float]:
    if not value or not all(math.isfinite(x) and x > 0 for x in value):
        raise ValueError("must be a non-empty list of positive finite numbers")
    return value


class TokenVectorsLine(Line):
    """A memory's int8 token vectors: ``len(scales)`` rows of ``dimension`` codes."""

    dimension: Annotated[Count, Field(ge=1)]
    codes: Annotated[str, AfterValidator(_base64)]
    scales: Annotated[list[float], AfterValidator(_scales)]

    @model_validator(mode="after")
    def _shape(self) -> TokenVectorsLine:
        size = len(_decoded(self.codes))
        if size != self.dimension * len(self.scales):
            rows = len(self.scales)
            raise ValueError(f"codes hold {size} bytes, not {rows} x {self.dimension}")
        return self

    def arrays(self) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
        """The ``(codes, scales)`` pair the engine stores."""
        codes = np.frombuffer(_decoded(self.codes), dtype=np.int8)
        return codes.reshape(len(self.scales), self.dimension), np.asarray(
            self.scales, dtype=np.float32
        )


def token_vectors_line(codes: NDArray[np.int8], scales: NDArray[np.float32]) -> dict[str, Any]:
    """The ``token_vectors`` object of stored ``(codes, scales)``."""
    return {
        "dimension": int(codes.shape[1]),
        "codes": base64.b64encode(np.ascontiguousarray(codes).tobytes()).decode("ascii"),
        "scales": [float(x) for x in scales],
    }


class MemoryLine(Line):
    type: Literal["memory"]
    id: HexId
    content: Content
    importance: Unit
    context: Annotated[JsonObject, AfterValidator(_context)]
    entity_id: Optional[EntityId]
    created_at: Micros
    updated_at: Micros
    last_accessed_at: Micros
    access_count: Count
    kind: KindName
    superseded: Flag
    embedding: Optional[Annotated[list[float], AfterValidator(_embedding)]] = None
    session_id: Optional[EntityId] = None
    turn_at: Optional[Micros] = None
    token_vectors: Optional[TokenVectorsLine] = None
    key: Optional[Key] = None


class EdgeLine(Line):
    type: Literal["edge"]
    source: HexId
    target: HexId
    edge_type: Literal["caused_by", "related_to", "followed_by", "revised_from", "insight_from"]
    confidence: Unit


class TombstoneLine(Line):
    type: Literal["tombstone"]
    id: HexId
    entity_id: Optional[EntityId]
    kind: KindName
    created_at: Micros
    forgotten_at: Micros
    content_sha256: Annotated[str, StringConstraints(pattern=SHA256_PATTERN)]


class EndLine(Line):
    type: Literal["end"]
    memories: Count
    edges: Count
    tombstones: Count


#: Any line after the header.
BodyLine = Union[MemoryLine, EdgeLine, TombstoneLine, EndLine]
#: The line model of each ``type``.
LINE_TYPES: Final[dict[str, type[Line]]] = {
    "header": HeaderLine,
    "memory": MemoryLine,
    "edge": EdgeLine,
    "tombstone": TombstoneLine,
    "end": EndLine,
}


def dumps(line: dict[str, Any]) -> str:
    """One line of the format (no newline): compact, UTF-8 as is, keys in the given order."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
