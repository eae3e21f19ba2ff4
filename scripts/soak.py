"""Soak: writers, readers, a subscriber, a reviser and a forgetter on one store at once, for a
bounded time, under a watchdog; then every promise checked.

Threads (each its own loop until the time is up):

- ``--writers`` writers: ``remember_many`` batches of 1 to 20 memories;
- ``--readers`` readers: recalls by vector, by keyword and of a timeline;
- one subscriber on a standing cue, checking that every push is a memory some writer stored;
- one reviser and one forgetter (with and without ``purge``), picking memories that were never
  revised.

A watchdog fails the run when any thread has not finished an operation for
``--stall-seconds`` (a deadlock or a stuck call), after printing every thread's stack. At the
end the store is checked exactly as ``scripts/fault_injection.py`` checks it after a kill: every
acknowledged memory present, every forget gone with its tombstone, every revision superseding
its original, and the vector, full-text and timeline indexes equal to the store, with every
live memory checked.

    python scripts/soak.py --seconds 600        # the on-demand run
    python scripts/soak.py --seconds 5          # what CI runs (tests/test_faults.py)
"""

from __future__ import annotations

import argparse
import faulthandler
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import hebbs

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fault_injection as faults  # the checker the kill run uses

#: The largest ``remember_many`` batch of a writer.
MAX_BATCH = 20
#: The subscriber's cue: memory ``SUBSCRIBED_UID``'s vector, matched by the writers' memories
#: only at random, so the pushes are few and each is checked.
SUBSCRIBED_UID = 0
#: The subscriber's threshold (random 32-d vectors rarely pass it).
SUBSCRIBE_THRESHOLD = 0.5


class Soak:
    """The store, the model of what it must hold, and the threads' bookkeeping."""

    def __init__(self, mem: hebbs.Hebbs, seed: int) -> None:
        self.mem = mem
        self.model = faults.Model()
        self.lock = threading.Lock()
        self.plain: list[str] = []
        self.next_uid = 1
        self.stop = threading.Event()
        self.writes_done = threading.Event()
        self.dropped = 0
        self.failures: list[str] = []
        self.operations: dict[str, int] = {}
        self.heartbeats: dict[str, float] = {}
        self.pushed: list[str] = []
        self.rng_seed = seed

    def uids(self, count: int) -> list[int]:
        with self.lock:
            first = self.next_uid
            self.next_uid += count
        return list(range(first, first + count))

    def beat(self, name: str) -> None:
        with self.lock:
            self.heartbeats[name] = time.monotonic()
            self.operations[name] = self.operations.get(name, 0) + 1

    def take_plain(self, rng: random.Random) -> str | None:
        with self.lock:
            if len(self.plain) < 10:
                return None
            return self.plain.pop(rng.randrange(len(self.plain)))

    def run(self, name: str, step: Callable[[random.Random], None]) -> threading.Thread:
        rng = random.Random(f"{self.rng_seed}-{name}")

        def loop() -> None:
            while not self.stop.is_set():
                step(rng)
                self.beat(name)

        self.beat(name)
        thread = threading.Thread(target=loop, name=name, daemon=True)
        thread.start()
        return thread

    def write(self, rng: random.Random) -> None:
        uids = self.uids(rng.randint(1, MAX_BATCH))
        items = [
            {
                "content": faults.content(uid),
                "embedding": faults.vector(uid),
                "entity_id": faults.ENTITIES[uid % len(faults.ENTITIES)],
            }
            for uid in uids
        ]
        memories = self.mem.remember_many(items)
        with self.lock:
            for memory, uid in zip(memories, uids):
                self.model.live[memory.id.hex()] = uid
                self.plain.append(memory.id.hex())

    def read(self, rng: random.Random) -> None:
        uid = rng.randrange(1, max(2, self.next_uid))
        roll = rng.random()
        if roll < 0.4:
            self.mem.recall(cue_embedding=faults.vector(uid), strategies=["similarity"], top_k=10)
        elif roll < 0.8:
            self.mem.recall(faults.word(uid), strategies=["keyword"], top_k=10)
        else:
            entity = faults.ENTITIES[uid % len(faults.ENTITIES)]
            self.mem.recall(strategies=["temporal"], entity_id=entity, top_k=50)

    def revise(self, rng: random.Random) -> None:
        target = self.take_plain(rng)
        if target is None:
            time.sleep(0.01)
            return
        (uid,) = self.uids(1)
        revision = self.mem.revise(
            target, content=faults.content(uid), embedding=faults.vector(uid)
        )
        with self.lock:
            self.model.live.pop(target)
            self.model.live[revision.id.hex()] = uid
            self.model.revisions.add(revision.id.hex())
            self.model.superseded[target] = revision.id.hex()

    def forget(self, rng: random.Random) -> None:
        target = self.take_plain(rng)
        if target is None:
            time.sleep(0.01)
            return
        self.mem.forget(ids=[target], purge=rng.random() < 0.1)
        with self.lock:
            self.model.forgotten[target] = self.model.live.pop(target)

    def failed(self, hook: threading.ExceptHookArgs) -> None:
        """``threading.excepthook`` while the soak runs: a thread that raised fails the run."""
        name = hook.thread.name if hook.thread is not None else "a thread"
        self.failures.append(f"{name}: {hook.exc_type.__name__}: {hook.exc_value}")
        self.stop.set()

    def subscribe(self) -> threading.Thread:
        subscription = self.mem.subscribe(
            embedding=faults.vector(SUBSCRIBED_UID), confidence_threshold=SUBSCRIBE_THRESHOLD
        )

        def loop() -> None:
            with subscription:
                while not self.writes_done.is_set():
                    push = subscription.next(timeout=0.2)
                    if push is not None:
                        self.pushed.append(push.memory.id.hex())
                    self.beat("subscriber")
                while (push := subscription.next(timeout=0.5)) is not None:
                    self.pushed.append(push.memory.id.hex())
                self.dropped = subscription.dropped

        self.beat("subscriber")
        thread = threading.Thread(target=loop, name="subscriber", daemon=True)
        thread.start()
        return thread


def soak(
    directory: Path, seconds: float, writers: int, readers: int, stall_s: float, seed: int
) -> tuple[Soak, int]:
    with hebbs.Hebbs.open(directory / "store") as mem:
        state = Soak(mem, seed)
        previous_hook = threading.excepthook
        threading.excepthook = state.failed
        try:
            return run_soak(state, mem, seconds, writers, readers, stall_s, seed)
        finally:
            threading.excepthook = previous_hook


def run_soak(
    state: Soak,
    mem: hebbs.Hebbs,
    seconds: float,
    writers: int,
    readers: int,
    stall_s: float,
    seed: int,
) -> tuple[Soak, int]:
    """Runs the threads for ``seconds`` under the watchdog, stops them, checks the store."""
    subscriber = state.subscribe()
    threads = [state.run(f"writer-{i}", state.write) for i in range(writers)]
    threads += [state.run(f"reader-{i}", state.read) for i in range(readers)]
    threads += [state.run("reviser", state.revise), state.run("forgetter", state.forget)]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not state.stop.is_set():
        time.sleep(0.2)
        with state.lock:
            stalled = [
                name for name, beat in state.heartbeats.items() if time.monotonic() - beat > stall_s
            ]
        if stalled:
            faulthandler.dump_traceback(all_threads=True)
            state.failures.append(f"no progress for {stall_s} s: {', '.join(stalled)}")
            break
    state.stop.set()
    for thread in threads:
        thread.join(timeout=stall_s)
        if thread.is_alive():
            state.failures.append(f"{thread.name} did not stop")
    state.writes_done.set()
    subscriber.join(timeout=stall_s)
    if subscriber.is_alive():
        state.failures.append("the subscriber did not stop")
    if state.failures:
        raise faults.Broken("; ".join(state.failures))
    check_pushes(state)
    live = len(state.model.live)
    faults.verify(state.model, mem, random.Random(seed), live)
    return state, live


def check_pushes(state: Soak) -> None:
    """Every memory written while the subscription ran whose vector reaches the threshold was
    pushed, once, and nothing else was."""
    cue = faults.vector(SUBSCRIBED_UID)
    uids = {**state.model.live, **state.model.forgotten}  # a revised original's uid is gone
    expected = {h for h, u in uids.items() if float(faults.vector(u) @ cue) >= SUBSCRIBE_THRESHOLD}
    pushed = set(state.pushed)
    faults.check(state.dropped == 0, f"the subscriber lost {state.dropped} pushes")
    faults.check(len(state.pushed) == len(pushed), "a memory was pushed twice")
    faults.check(expected <= pushed, f"{len(expected - pushed)} matching memories not pushed")
    unknown = pushed - set(uids) - set(state.model.superseded)
    faults.check(not unknown, f"{len(unknown)} pushes of memories nobody wrote")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--stall-seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            state, live = soak(
                Path(tmp), args.seconds, args.writers, args.readers, args.stall_seconds, args.seed
            )
        except faults.Broken as error:
            print(f"BROKEN: {error}", file=sys.stderr)
            return 1
    counts = ", ".join(f"{name} {count}" for name, count in sorted(state.operations.items()))
    print(
        f"soak of {time.monotonic() - started:.0f} s: {counts}; {len(state.pushed)} pushes; "
        f"{live} live, {len(state.model.forgotten)} forgotten and "
        f"{len(state.model.superseded)} revised memories checked: nothing lost, nothing "
        "forgotten came back, indexes equal the store, no stall"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
