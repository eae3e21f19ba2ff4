"""Subscriptions through the Python API with the bundled embedder: paraphrases are pushed and
unrelated memories are not, sync and async iteration, ends on close, overflow and bad input."""

from __future__ import annotations

import _thread
import asyncio
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

import hebbs
from hebbs.embedder import Embedder
from hebbs.subscription import DEFAULT_CONFIDENCE_THRESHOLD

DIM = 384
#: Generous bound on a join: a deadlock detector, not a speed assertion.
JOIN_LIMIT_S = 60.0


def axis(i: int) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[i] = 1.0
    return vector


def test_paraphrase_is_pushed_and_unrelated_memory_is_not(mem: hebbs.Hebbs) -> None:
    mem.remember("Acme asked for a 20% price reduction on their renewal")
    with mem.subscribe("a customer wants a discount") as sub:
        mem.remember("The office plants need watering every Friday")
        match = mem.remember("The client asked for a lower price")
        mem.remember("Kubernetes pods restart when they run out of memory")
        push = sub.next(timeout=JOIN_LIMIT_S)
        assert push is not None
        assert push.memory.id == match.id
        assert push.memory.content == match.content
        assert push.sequence_number == 1
        assert push.subscription_id == sub.id
        assert DEFAULT_CONFIDENCE_THRESHOLD <= push.confidence <= 1.0
        assert push.push_timestamp_us >= match.created_at
        assert sub.next(timeout=0) is None, "unrelated memories must not be pushed"
        assert not sub.closed
    assert sub.closed


def test_sync_iteration_delivers_in_order_from_another_thread(mem: hebbs.Hebbs) -> None:
    sub = mem.subscribe(embedding=axis(0), confidence_threshold=0.0)
    got: list[hebbs.SubscribePush] = []

    def consume() -> None:
        for push in sub:
            got.append(push)
            if len(got) == 3:
                break

    consumer = threading.Thread(target=consume)
    consumer.start()
    stored = [
        mem.remember(f"memory {i}", embedding=axis(i + 1) + axis(0)) for i in range(2)
    ] + mem.remember_many([{"content": "batched", "embedding": axis(0)}])
    consumer.join(JOIN_LIMIT_S)
    assert not consumer.is_alive()
    assert [push.memory.id for push in got] == [memory.id for memory in stored]
    assert [push.sequence_number for push in got] == [1, 2, 3]
    assert got[2].confidence == pytest.approx(1.0, abs=1e-5)
    assert got[0].confidence == pytest.approx(2**-0.5, abs=1e-5)
    sub.close()
    assert list(sub) == []


def test_close_wakes_a_blocked_iteration(mem: hebbs.Hebbs) -> None:
    sub = mem.subscribe(embedding=axis(0))
    ended = threading.Event()

    def consume() -> None:
        assert list(sub) == []
        ended.set()

    consumer = threading.Thread(target=consume)
    consumer.start()
    assert not ended.wait(0.2)
    sub.close()
    consumer.join(JOIN_LIMIT_S)
    assert ended.is_set()


def test_engine_close_ends_iteration_after_the_queue(tmp_path: Path, embedder: Embedder) -> None:
    mem = hebbs.Hebbs.open(tmp_path / "db", embedder=embedder)
    sub = mem.subscribe(embedding=axis(0))
    stored = mem.remember("kept", embedding=axis(0))
    mem.close()
    assert sub.closed
    assert [push.memory.id for push in sub] == [stored.id]
    with pytest.raises(hebbs.ClosedError):
        mem.subscribe(embedding=axis(0))


def test_entity_filter_and_overflow(mem: hebbs.Hebbs) -> None:
    acme = mem.subscribe(embedding=axis(0), entity_id="acme", confidence_threshold=0.0)
    small = mem.subscribe(embedding=axis(0), confidence_threshold=0.0, queue_capacity=2)
    ids = [
        mem.remember(f"m{i}", embedding=axis(i), entity_id="acme" if i == 2 else "globex").id
        for i in range(5)
    ]
    acme_push = acme.next(0)
    assert acme_push is not None
    assert acme_push.memory.id == ids[2]
    assert acme.next(0) is None
    assert small.dropped == 3
    kept = [small.next(0), small.next(0)]
    assert [push.sequence_number for push in kept if push] == [4, 5]
    assert [push.memory.id for push in kept if push] == ids[3:]


def test_blocked_next_is_interruptible(mem: hebbs.Hebbs) -> None:
    # Python's own Ctrl-C handler, whatever a library loaded by an earlier test left installed
    # (interrupt_main runs the installed handler; one that records the signal and returns
    # raises nothing: seen once in a full run after the Ray tests).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sub = mem.subscribe(embedding=axis(0))
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sub.next(timeout=60)  # bounded: a lost interrupt fails the test instead of hanging it
    timer.join()
    sub.close()
    signal.signal(signal.SIGINT, previous)


def test_bad_input_names_the_field(mem: hebbs.Hebbs) -> None:
    cases = [
        ({}, "cue"),
        ({"cue": ""}, "cue"),
        ({"cue": "x", "embedding": axis(0)}, "embedding"),
        ({"embedding": np.zeros(DIM, dtype=np.float32)}, "cue"),
        ({"embedding": [float("nan")] * DIM}, "cue"),
        ({"cue": "x", "confidence_threshold": 1.5}, "confidence_threshold"),
        ({"cue": "x", "confidence_threshold": "high"}, "confidence_threshold"),
        ({"cue": "x", "queue_capacity": 0}, "queue_capacity"),
        ({"cue": "x", "queue_capacity": -1}, "queue_capacity"),
        ({"cue": "x", "entity_id": ""}, "entity_id"),
    ]
    for kwargs, field in cases:
        with pytest.raises(hebbs.InvalidInputError) as caught:
            mem.subscribe(**kwargs)  # type: ignore[arg-type]
        assert caught.value.field == field, kwargs
    mem.remember("fixes the dimension", embedding=axis(0))
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.subscribe(embedding=np.ones(DIM + 1, dtype=np.float32))
    assert caught.value.field == "cue"
    sub = mem.subscribe(embedding=axis(0))
    with pytest.raises(hebbs.InvalidInputError) as caught:
        sub.next(timeout=-1.0)
    assert caught.value.field == "timeout"


async def test_async_iteration(tmp_path: Path, embedder: Embedder) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        sub = await mem.subscribe("trouble logging in with single sign-on")
        assert isinstance(sub, hebbs.AsyncSubscription)
        assert await sub.next(timeout=0.05) is None

        async def first_two() -> list[hebbs.SubscribePush]:
            got = []
            async for push in sub:
                got.append(push)
                if len(got) == 2:
                    break
            return got

        consumer = asyncio.create_task(first_two())
        await mem.remember("Our quarterly revenue grew by 12 percent")
        first = await mem.remember("Users at Globex cannot sign in through SSO since Monday")
        second = await mem.remember("The SAML single sign-on login keeps failing")
        pushes = await asyncio.wait_for(consumer, JOIN_LIMIT_S)
        assert [push.memory.id for push in pushes] == [first.id, second.id]
        assert [push.sequence_number for push in pushes] == [1, 2]
        assert await sub.next(timeout=0) is None

        rest = asyncio.create_task(first_two())
        await asyncio.sleep(0.1)
        await sub.close()
        assert await asyncio.wait_for(rest, JOIN_LIMIT_S) == []


async def test_async_wait_that_times_out_loses_nothing(tmp_path: Path, embedder: Embedder) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        async with await mem.subscribe(embedding=axis(0)) as sub:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(sub.next(), 0.1)
            stored = await mem.remember("arrives while a wait is pending", embedding=axis(0))
            push = await sub.next(timeout=JOIN_LIMIT_S)
            assert push is not None
            assert push.memory.id == stored.id
            assert push.sequence_number == 1
        assert sub.closed
        assert [push async for push in sub] == []
