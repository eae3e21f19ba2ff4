"""The asyncio API: same methods as the sync engine, as coroutines, running concurrently."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import hebbs
from hebbs.embedder import Embedder


async def test_async_api_end_to_end(tmp_path: Path, embedder: Embedder) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        stored = await mem.remember_many(
            [
                {"content": "Acme wants a discount for 500 seats", "entity_id": "acme"},
                {"content": "Globex's SSO login is broken", "entity_id": "globex"},
            ]
        )
        single = await mem.remember("Maya likes notes by email", entity_id="maya")
        await mem.optimize()
        results = await asyncio.gather(
            mem.recall("price reduction for a large purchase"),
            mem.recall("single sign-on problem"),
            mem.recall(strategies=["temporal"], entity_id="maya"),
        )
        assert results[0].results[0].memory.id == stored[0].id
        assert results[1].results[0].memory.id == stored[1].id
        assert results[2].results[0].memory.id == single.id
        got = await mem.get(single.id)
        assert got.content == single.content
        assert (await mem.health()).memory_count == 3
        with pytest.raises(hebbs.InvalidInputError):
            await mem.remember("")


def test_async_methods_mirror_sync_methods() -> None:
    public = {name for name in dir(hebbs.Hebbs) if not name.startswith("_")}
    mirrored = {"remember", "remember_many", "get", "recall", "optimize", "health", "close", "open"}
    assert mirrored <= public
    for name in mirrored:
        assert asyncio.iscoroutinefunction(getattr(hebbs.AsyncHebbs, name)), name
