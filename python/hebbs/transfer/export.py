"""``export_lines``: a store as the lines of :mod:`hebbs.transfer.format`, produced page by page
(:data:`EXPORT_PAGE` memories at a time: a million memories never sit in memory at once).

Listing is not recall, so an export changes no access count and two exports of an unchanged
store are the same lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from hebbs._native import MAX_LIST_PAGE, Memory, Tombstone
from hebbs.embedder import BatchingEmbedder
from hebbs.embedder.constants import BUNDLED_MODEL_ID
from hebbs.engine import Hebbs, TokenPair
from hebbs.transfer.format import FORMAT_NAME, FORMAT_VERSION, dumps, token_vectors_line

#: Memories read (and edges looked up) per page.
EXPORT_PAGE: Final = min(1000, MAX_LIST_PAGE)


def model_name(engine: Hebbs) -> str:
    """The name of the model that embeds ``engine``'s texts: the bundled model's id, else the
    embedder's ``model_id`` or class name."""
    embedder: Any = engine._embedder_arg
    if isinstance(embedder, BatchingEmbedder):
        embedder = embedder._inner_arg
    if embedder is None:
        return BUNDLED_MODEL_ID
    name = getattr(embedder, "model_id", None) or getattr(embedder, "__name__", None)
    return str(name or type(embedder).__name__)


def memory_line(
    memory: Memory,
    embeddings: bool,
    turn: tuple[str, int] | None = None,
    token_vectors: TokenPair | None = None,
) -> dict[str, Any]:
    """The memory's JSON (as the REST server sends it) without the id's second spelling and
    the derived decay score, and without the vector unless ``embeddings``; with its
    conversation and its token vectors when it has them."""
    line: dict[str, Any] = {"type": "memory", **memory.to_dict()}
    del line["id_hex"], line["decay_score"]
    if line["key"] is None:
        del line["key"]
    if not embeddings or line["embedding"] is None:
        del line["embedding"]
    if turn is not None:
        line["session_id"], at = turn
        if at != memory.created_at:
            line["turn_at"] = at
    if token_vectors is not None:
        line["token_vectors"] = token_vectors_line(*token_vectors)
    return line


def tombstone_line(tombstone: Tombstone) -> dict[str, Any]:
    """The tombstone's JSON without the id's second spelling."""
    line: dict[str, Any] = {"type": "tombstone", **tombstone.to_dict()}
    del line["id_hex"]
    return line


def export_lines(engine: Hebbs, *, embeddings: bool = True) -> Iterator[str]:
    """Every line of ``engine``'s export, without newlines. ``embeddings`` False leaves the
    vectors out (an import then embeds the contents again, with its own model)."""
    native = engine._native
    yield dumps(
        {
            "type": "header",
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "dimension": native.dimension(),
            "model": model_name(engine),
            "embeddings": embeddings,
        }
    )
    counts = {"memories": 0, "edges": 0, "tombstones": 0}
    cursor = None
    while True:
        page = engine.list_memories(cursor=cursor, limit=EXPORT_PAGE, include_superseded=True)
        ids = [memory.id for memory in page.memories]
        if ids:
            memories = engine.get_many(ids, include_embedding=embeddings)
            turns = native.conversation_turns(ids)
            # Token vectors come from the model that made the vectors: without those, an
            # import embeds the contents again, token vectors included.
            tokens = native.get_token_vectors(ids) if embeddings else [None] * len(ids)
            for memory, turn, token_vectors in zip(memories, turns, tokens):
                if memory is not None:
                    counts["memories"] += 1
                    yield dumps(memory_line(memory, embeddings, turn, token_vectors))
            for source, edges in zip(ids, native.edges_out(ids)):
                for edge in edges:
                    counts["edges"] += 1
                    yield dumps({"type": "edge", "source": source.hex(), **edge.to_dict()})
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    after = None
    while True:
        found = engine.tombstones(after=after, limit=EXPORT_PAGE)
        for tombstone in found:
            counts["tombstones"] += 1
            yield dumps(tombstone_line(tombstone))
        if len(found) < EXPORT_PAGE:
            break
        after = found[-1].id
    yield dumps({"type": "end", **counts})
