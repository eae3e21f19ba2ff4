"""Token vectors persisted in the engine: a ``TokenVectorCache(store=hebbs)`` scores exactly the
same after a reopen without encoding a stored candidate, forget deletes the stored vectors, and
bad shapes raise a typed error naming the field with nothing written. Real store, real model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hebbs
from hebbs.embedder import OnnxEmbedder
from hebbs.errors import InvalidInputError
from hebbs.rerank import LateInteractionReranker, TokenVectorCache

QUERY = "Where did Jon put his passport?"
DOCUMENTS = [
    "Jon talked for an hour about passports, visas, travel documents and border rules.",
    "Busy day: cleaned the garage, fixed the bike, called my sister, and Jon put his passport "
    "in the blue drawer.",
    "The weather in Lisbon was sunny all week.",
]


def count_document_encodings(monkeypatch: pytest.MonkeyPatch, embedder: OnnxEmbedder) -> list[int]:
    """Wraps the embedder's token model so each document (not query) text run is counted."""
    encoded: list[int] = []
    original: Callable[..., Any] = embedder.embed_with_tokens

    def counted(texts: Sequence[str], *, query: bool = False) -> Any:
        if not query:
            encoded.append(len(texts))
        return original(texts, query=query)

    monkeypatch.setattr(embedder, "embed_with_tokens", counted)
    return encoded


def test_scores_after_a_reopen_equal_the_warm_cache_without_encoding(
    tmp_path: Path, embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded = count_document_encodings(monkeypatch, embedder)
    # A store written without token vectors (as before remember stored them): the cache fills it.
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder, token_vectors=False) as mem:
        ids = [m.id for m in mem.remember_many([{"content": text} for text in DOCUMENTS])]
        cache = TokenVectorCache(store=mem)
        reranker = LateInteractionReranker(embedder, cache=cache)
        assert reranker.index_memories(ids[:2], DOCUMENTS[:2]) == cache.nbytes
        # The third is encoded at query time and persisted then.
        warm = reranker.rerank_memories(QUERY, ids, DOCUMENTS)
        assert encoded == [2, 1]
        assert all(found is not None for found in mem.get_token_vectors(ids))
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        cache = TokenVectorCache(store=mem)
        reranker = LateInteractionReranker(embedder, cache=cache)
        reopened = reranker.rerank_memories(QUERY, ids, DOCUMENTS)
        assert encoded == [2, 1], "no stored memory was encoded again"
        assert len(cache) == len(ids)
        np.testing.assert_array_equal(warm, reopened)
        assert int(np.argmax(reopened)) == 1
        codes, scales = mem.get_token_vectors(ids[1:2])[0] or (None, None)
        assert codes is not None
        assert scales is not None
        assert codes.dtype == np.int8
        assert codes.shape[1] == embedder.dimension
        assert scales.dtype == np.float32
        assert scales.shape == (codes.shape[0],)


def test_forget_deletes_the_stored_vectors(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        ids = [m.id for m in mem.remember_many([{"content": text} for text in DOCUMENTS])]
        cache = TokenVectorCache(store=mem)
        LateInteractionReranker(embedder, cache=cache).index_memories(ids, DOCUMENTS)
        mem.forget(ids=[ids[0]])
        mem.forget(ids=[ids[1]], purge=True)
        stored = mem.get_token_vectors(ids)
        assert stored[0] is None
        assert stored[1] is None
        assert stored[2] is not None
        # A candidate forgotten between recall and re-rank is scored, not persisted.
        fresh = LateInteractionReranker(embedder, cache=TokenVectorCache(store=mem))
        scores = fresh.rerank_memories(QUERY, ids, DOCUMENTS)
        assert scores.shape == (3,)
        assert int(np.argmax(scores)) == 1
        assert mem.get_token_vectors(ids)[:2] == [None, None]


def test_bad_shapes_name_the_field_and_write_nothing(tmp_path: Path, embedder: Any) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder, token_vectors=False) as mem:
        ids = [m.id for m in mem.remember_many([{"content": "a"}, {"content": "b"}])]
        codes = np.ones((3, 4), dtype=np.int8)
        scales = np.full(3, 0.01, dtype=np.float32)
        good = (ids[0], codes, scales)
        cases: list[tuple[Any, str]] = [
            ((ids[1], codes.ravel(), scales), "items[1].codes"),
            ((ids[1], codes.astype(np.float32), scales), "items[1].codes"),
            ((ids[1], codes, scales.astype(np.float64)), "items[1].scales"),
            ((ids[1], codes, scales[:2]), "items[1].codes"),
            ((ids[1], codes[:, :0], scales), "items[1].dimension"),
            ((ids[1], codes, np.array([0.1, np.nan, 0.1], np.float32)), "items[1].scales[1]"),
            ((ids[1], codes, np.array([0.1, 0.1, 0.0], np.float32)), "items[1].scales[2]"),
            ((b"\x07" * 16, codes, scales), "items[1].id"),
            ((b"short", codes, scales), "items[1].id"),
            ((ids[1], codes), "items[1]"),
        ]
        for bad, field in cases:
            with pytest.raises(InvalidInputError) as caught:
                mem.put_token_vectors([good, bad])
            assert caught.value.field == field, bad
            assert mem.get_token_vectors(ids) == [None, None]
        with pytest.raises(InvalidInputError) as caught:
            mem.get_token_vectors(ids[0])
        assert caught.value.field == "ids"
        with pytest.raises(InvalidInputError) as caught:
            TokenVectorCache("float16", store=mem)
        assert caught.value.field == "store"
        # A strided view is accepted and stored as its values.
        mem.put_token_vectors([(ids[0], np.ones((3, 8), np.int8)[:, ::2], scales)])
        stored = mem.get_token_vectors(ids[:1])[0]
        assert stored is not None
        np.testing.assert_array_equal(stored[0], codes)
        np.testing.assert_array_equal(stored[1], scales)


async def test_async_engine_stores_and_reads_token_vectors(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        memory = await mem.remember("Jon put his passport in the drawer")
        codes = np.arange(-6, 6, dtype=np.int8).reshape(3, 4)
        scales = np.array([0.5, 0.25, 0.125], dtype=np.float32)
        await mem.put_token_vectors([(memory.id, codes, scales)])
        stored = await mem.get_token_vectors([memory.id, memory.id.hex()])
        assert stored[0] is not None
        assert stored[1] is not None
        np.testing.assert_array_equal(stored[0][0], codes)
        np.testing.assert_array_equal(stored[1][1], scales)
