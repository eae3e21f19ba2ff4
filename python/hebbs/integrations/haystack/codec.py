"""A Haystack ``Document`` as a hebbs memory, and back, without loss.

- ``Document.id`` is the memory's key, ``KEY_PREFIX + index + ":" + id`` (one hebbs store can
  hold several Haystack stores, each an ``index``); writing a key a live memory holds replaces
  that memory atomically (the engine's upsert by key).
- ``Document.content`` is the memory's content when it holds text. hebbs content must be
  non-empty text, so a document without one (only a blob or an embedding, or ``""``) is
  stored with :data:`NO_CONTENT_TEXT` as its content and its own ``content`` kept in the
  payload below.
- ``Document.meta`` is ``context["meta"]``, JSON types kept (filters read ``context.meta.*``).
- ``context["haystack"]`` holds the scalars filters need: the ``index``, the ``id`` and
  ``no_content`` for a document without text (BM25 leaves those out).
- ``context["haystack.document"]`` holds what filters never read: the embedding the caller gave
  (float64 bytes, base64: exactly the floats given, where the vector index keeps a normalised
  float32 copy), the blob (bytes in base64) and the sparse embedding. The ``.`` in its name
  keeps the core from indexing it (docs/filters.md: such a key cannot be named by a filter).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

import numpy as np
from haystack import Document
from haystack.dataclasses import ByteStream, SparseEmbedding

from hebbs._native import Memory

#: Prefix of every key a Haystack document store writes.
KEY_PREFIX: Final = "haystack:"
#: The content of a memory that holds a document without text.
NO_CONTENT_TEXT: Final = "(a Haystack document without text content)"
#: Context keys: the document's meta, its filterable fields, and its unindexed payload.
META_KEY: Final = "meta"
FIELDS_KEY: Final = "haystack"
PAYLOAD_KEY: Final = "haystack.document"
#: Filter paths of the document's meta, id, index and no-content flag.
META_PATH: Final = f"context.{META_KEY}"
ID_PATH: Final = f"context.{FIELDS_KEY}.id"
INDEX_PATH: Final = f"context.{FIELDS_KEY}.index"
NO_CONTENT_PATH: Final = f"context.{FIELDS_KEY}.no_content"


def key_of(index: str, document_id: str) -> str:
    """The hebbs key of document ``document_id`` in store ``index``."""
    return f"{KEY_PREFIX}{index}:{document_id}"


def key_prefix(index: str) -> str:
    """The prefix of every key of store ``index`` (an index holds no ``:``)."""
    return f"{KEY_PREFIX}{index}:"


def has_text(document: Document) -> bool:
    """Whether the document's content can be the memory's content."""
    return isinstance(document.content, str) and bool(document.content.strip())


def to_item(document: Document, index: str) -> dict[str, Any]:
    """The ``remember_many`` item of a document."""
    fields: dict[str, Any] = {"index": index, "id": document.id}
    payload: dict[str, Any] = {}
    if not has_text(document):
        fields["no_content"] = True
        payload["content"] = document.content
    if document.embedding is not None:
        payload["embedding"] = _pack(document.embedding)
    if document.blob is not None:
        payload["blob"] = {
            "data": base64.b64encode(document.blob.data).decode("ascii"),
            "meta": document.blob.meta,
            "mime_type": document.blob.mime_type,
        }
    if document.sparse_embedding is not None:
        payload["sparse_embedding"] = document.sparse_embedding.to_dict()
    context: dict[str, Any] = {META_KEY: document.meta, FIELDS_KEY: fields}
    if payload:
        context[PAYLOAD_KEY] = payload
    item: dict[str, Any] = {
        "content": document.content if has_text(document) else NO_CONTENT_TEXT,
        "context": context,
        "key": key_of(index, document.id),
    }
    if document.embedding is not None:
        item["embedding"] = document.embedding
    return item


def to_document(memory: Memory, score: float | None = None) -> Document:
    """The document a memory written by :func:`to_item` holds."""
    context: Mapping[str, Any] = memory.context or {}
    fields: Mapping[str, Any] = context.get(FIELDS_KEY, {})
    payload: Mapping[str, Any] = context.get(PAYLOAD_KEY, {})
    blob = payload.get("blob")
    sparse = payload.get("sparse_embedding")
    packed = payload.get("embedding")
    return Document(
        id=fields["id"],
        content=payload.get("content", memory.content),
        blob=None
        if blob is None
        else ByteStream(
            data=base64.b64decode(blob["data"]), meta=blob["meta"], mime_type=blob["mime_type"]
        ),
        meta=dict(context.get(META_KEY, {})),
        score=score,
        embedding=None if packed is None else _unpack(packed),
        sparse_embedding=None if sparse is None else SparseEmbedding.from_dict(sparse),
    )


def _pack(vector: list[float]) -> str:
    """The exact float64 values of an embedding, base64 (about 11 characters a dimension)."""
    return base64.b64encode(np.asarray(vector, dtype="<f8").tobytes()).decode("ascii")


def _unpack(text: str) -> list[float]:
    values: list[float] = np.frombuffer(base64.b64decode(text), dtype="<f8").tolist()
    return values
