"""The asyncio API: same methods as the sync engine, as coroutines, running concurrently."""

from __future__ import annotations

import asyncio
import inspect
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


def public_names(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_async_has_every_sync_method_with_its_signature() -> None:
    """Every public name of Hebbs is on AsyncHebbs: methods as coroutine functions with the
    same parameters (names, kinds and defaults), properties as properties."""
    missing = public_names(hebbs.Hebbs) - public_names(hebbs.AsyncHebbs)
    assert not missing
    for name in public_names(hebbs.Hebbs):
        sync = inspect.getattr_static(hebbs.Hebbs, name)
        if isinstance(sync, property):
            assert isinstance(inspect.getattr_static(hebbs.AsyncHebbs, name), property), name
            continue
        method = getattr(hebbs.AsyncHebbs, name)
        assert inspect.iscoroutinefunction(method), name
        sync_parameters = inspect.signature(getattr(hebbs.Hebbs, name)).parameters
        async_parameters = inspect.signature(method).parameters
        assert list(async_parameters.values()) == list(sync_parameters.values()), name


async def test_async_closed_checkpoint_and_subscribe(tmp_path: Path, embedder: Embedder) -> None:
    mem = await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder)
    assert not mem.closed
    subscription = await mem.subscribe("billing problems", confidence_threshold=0.3)
    assert isinstance(subscription, hebbs.AsyncSubscription)
    stored = await mem.remember("Acme was billed twice for March")
    push = await asyncio.wait_for(subscription.__anext__(), timeout=30)
    assert push.memory.id == stored.id
    await subscription.close()
    await mem.checkpoint()
    await mem.close()
    assert mem.closed
