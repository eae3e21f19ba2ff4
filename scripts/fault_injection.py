"""Kill -9 at random points, many times, and check that the store keeps every promise.

Each iteration starts a child process that opens the store and runs a random mix of
``remember_many``, ``revise``, ``forget`` (with and without ``purge``), ``optimize`` and
``checkpoint``, printing each operation before it starts (``BEGIN``) and after it returns
(``ACK``). The parent kills it with SIGKILL at a random moment: while it opens the store (with
the vector checkpoint deleted or damaged before some iterations, so that the kill lands in the
full index rebuild or the checkpoint check), or while it works. Then the parent opens the store
and checks:

- every acknowledged memory is there with its content; every acknowledged forget stays
  forgotten (gone, with a tombstone); every acknowledged revision supersedes its original;
- an operation in flight at the kill happened entirely or not at all (a ``remember_many``
  batch is all there or all absent);
- the indexes equal the store: each live memory is the top similarity hit for its own vector
  and the top keyword hit for its unique word, each entity's timeline is exactly its live
  memories, and no forgotten memory comes back from any of them.

    python scripts/fault_injection.py --iterations 1000     # the on-demand run
    python scripts/fault_injection.py --iterations 4        # what CI runs (tests/test_faults.py)

Prints one line per iteration and a summary; exits 1 at the first broken promise. The store
uses the default durability (``sync_writes=False``: RocksDB's write-ahead log is written before
a call returns but not fsynced), which survives a process crash; see docs/durability.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import hebbs

#: Dimension of the child's vectors (random, so each memory's own vector finds it first).
DIM = 32
#: Entities the child spreads its memories over.
ENTITIES = ("e0", "e1", "e2", "e3", "e4")
#: The largest ``remember_many`` batch.
MAX_BATCH = 40
#: Seconds the child may take to open the store before the parent gives up on it.
OPEN_TIMEOUT_S = 60.0
#: Live memories checked against the indexes after each iteration (all of them when fewer).
DEFAULT_CHECK_SAMPLE = 300
#: Iterations on one store before the run starts a fresh one (so a long run stays fast).
DEFAULT_RESET_EVERY = 100


def vector(uid: int) -> np.ndarray:
    """The vector of memory ``uid``: the same in the child and the parent."""
    values = np.random.default_rng(uid).standard_normal(DIM).astype(np.float32)
    return values / np.linalg.norm(values)


def word(uid: int) -> str:
    """The one word no other memory has."""
    return f"uniq{uid}w"


def content(uid: int) -> str:
    return f"memory {uid} about {word(uid)}"


# The child --------------------------------------------------------------------------------


def emit(kind: str, **fields: Any) -> None:
    print(json.dumps({"kind": kind, **fields}), flush=True)


def child(store: Path, seed: int, first_uid: int, plain: list[str]) -> None:
    """Opens ``store`` and works until killed. ``plain`` are the hex ids of live memories that
    were never revised and are no revision (what revise and forget pick from)."""
    rng = random.Random(seed)
    uid = first_uid
    emit("open")
    with hebbs.Hebbs.open(store) as mem:
        emit("ready")
        while True:
            roll = rng.random()
            if roll < 0.55 or len(plain) < 5:
                size = rng.randint(1, MAX_BATCH)
                uids = list(range(uid, uid + size))
                uid += size
                emit("begin", op="remember", uids=uids)
                items = [
                    {
                        "content": content(u),
                        "embedding": vector(u),
                        "entity_id": ENTITIES[u % len(ENTITIES)],
                    }
                    for u in uids
                ]
                memories = mem.remember_many(items)
                emit("ack", op="remember", uids=uids, ids=[m.id.hex() for m in memories])
                plain.extend(m.id.hex() for m in memories)
            elif roll < 0.72:
                target = plain.pop(rng.randrange(len(plain)))
                new_uid, uid = uid, uid + 1
                emit("begin", op="revise", id=target, uid=new_uid)
                revision = mem.revise(target, content=content(new_uid), embedding=vector(new_uid))
                emit("ack", op="revise", id=target, uid=new_uid, new=revision.id.hex())
            elif roll < 0.92:
                target = plain.pop(rng.randrange(len(plain)))
                purge = rng.random() < 0.3
                emit("begin", op="forget", id=target, purge=purge)
                mem.forget(ids=[target], purge=purge)
                emit("ack", op="forget", id=target)
            elif roll < 0.96:
                emit("begin", op="optimize")
                mem.optimize()
                emit("ack", op="optimize")
            else:
                emit("begin", op="checkpoint")
                mem.checkpoint()
                emit("ack", op="checkpoint")


# The parent -------------------------------------------------------------------------------


@dataclass
class Model:
    """What the store must hold: live memories by hex id (their uid), superseded originals
    (their revision's hex id), and forgotten ids (their uid)."""

    live: dict[str, int] = field(default_factory=dict)
    revisions: set[str] = field(default_factory=set)
    superseded: dict[str, str] = field(default_factory=dict)
    forgotten: dict[str, int] = field(default_factory=dict)
    next_uid: int = 1

    def plain(self) -> list[str]:
        return sorted(i for i in self.live if i not in self.revisions)


class Broken(AssertionError):
    """A promise the store did not keep."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Broken(message)


def run_child(
    store: Path, model: Model, seed: int, kill_in_open: bool, rng: random.Random
) -> list[dict[str, Any]]:
    """Runs one child, kills it, and returns its acknowledged and in-flight events."""
    arguments = store.with_name(f"{store.name}.child.json")
    options = {"seed": seed, "first_uid": model.next_uid, "plain": model.plain()}
    arguments.write_text(json.dumps(options))
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", str(store), str(arguments)],
        stdout=subprocess.PIPE,
        text=True,
    )
    events: list[dict[str, Any]] = []
    opened = threading.Event()
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                break  # the kill cut the last line short: that operation was not acknowledged
            events.append(event)
            if event["kind"] == "open":
                opened.set()
            elif event["kind"] == "ready":
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not opened.wait(OPEN_TIMEOUT_S):
        process.kill()
        raise Broken("the child never started")
    if kill_in_open:
        time.sleep(rng.uniform(0.0, 0.15))
    else:
        if not ready.wait(OPEN_TIMEOUT_S):
            process.kill()
            raise Broken(f"the child did not open the store in {OPEN_TIMEOUT_S} s")
        time.sleep(rng.uniform(0.0, 0.8))
    process.send_signal(signal.SIGKILL)
    process.wait()
    reader.join()
    check(process.returncode == -signal.SIGKILL, f"the child exited with {process.returncode}")
    return events


def apply(model: Model, events: list[dict[str, Any]], mem: hebbs.Hebbs) -> int:
    """Updates ``model`` with the child's events, settling the one in flight by what the store
    holds (after checking it happened entirely or not at all). Returns the acknowledged count."""
    acked = 0
    in_flight: dict[str, Any] | None = None
    for event in events:
        if event["kind"] == "begin":
            in_flight = event
            if event["op"] == "remember":
                model.next_uid = max(model.next_uid, event["uids"][-1] + 1)
            elif event["op"] == "revise":
                model.next_uid = max(model.next_uid, event["uid"] + 1)
        elif event["kind"] == "ack":
            in_flight = None
            acked += 1
            settle(model, event)
    if in_flight is not None:
        settle_in_flight(model, in_flight, mem)
    return acked


def settle(model: Model, event: dict[str, Any]) -> None:
    if event["op"] == "remember":
        model.live.update(zip(event["ids"], event["uids"]))
    elif event["op"] == "revise":
        model.live[event["new"]] = event["uid"]
        model.revisions.add(event["new"])
        model.superseded[event["id"]] = event["new"]
        model.live.pop(event["id"])
    elif event["op"] == "forget":
        model.forgotten[event["id"]] = model.live.pop(event["id"])


def settle_in_flight(model: Model, event: dict[str, Any], mem: hebbs.Hebbs) -> None:
    if event["op"] == "remember":
        found = found_uids(mem, set(event["uids"]))
        check(
            set(found) in (set(), set(event["uids"])),
            f"a remember_many batch was half written: {len(found)} of {len(event['uids'])}",
        )
        model.live.update({hex_id: uid for uid, hex_id in found.items()})
    elif event["op"] == "revise":
        found = found_uids(mem, {event["uid"]})
        if found:
            new = found[event["uid"]]
            settle(model, {"op": "revise", "id": event["id"], "uid": event["uid"], "new": new})
    elif event["op"] == "forget":
        try:
            mem.get(event["id"])
        except hebbs.NotFoundError:
            settle(model, {"op": "forget", "id": event["id"]})


def found_uids(mem: hebbs.Hebbs, uids: set[int]) -> dict[int, str]:
    """The hex ids of the memories of ``uids`` the store holds, by uid."""
    found: dict[int, str] = {}
    for uid in uids:
        hits = keyword(mem, uid)
        if hits:
            found[uid] = hits[0]
    return found


def keyword(mem: hebbs.Hebbs, uid: int) -> list[str]:
    output = mem.recall(word(uid), strategies=["keyword"], top_k=3, include_superseded=True)
    return [r.memory.id.hex() for r in output.results if r.memory.content == content(uid)]


def top_similar(mem: hebbs.Hebbs, uid: int) -> str | None:
    output = mem.recall(
        cue_embedding=vector(uid),
        strategies=["similarity"],
        top_k=1,
        scoring_weights={
            "w_relevance": 1.0,
            "w_recency": 0.0,
            "w_importance": 0.0,
            "w_reinforcement": 0.0,
        },
    )
    return output.results[0].memory.id.hex() if output.results else None


def verify(model: Model, mem: hebbs.Hebbs, rng: random.Random, sample: int) -> None:
    """Checks the store against ``model`` (see the module docstring)."""
    stored = every_memory(mem)
    for hex_id, uid in model.live.items():
        check(hex_id in stored, f"acknowledged memory {hex_id} (uid {uid}) is lost")
        check(stored[hex_id].content == content(uid), f"memory {hex_id} changed its content")
        check(not stored[hex_id].superseded, f"live memory {hex_id} is marked superseded")
    for hex_id, revision in model.superseded.items():
        check(hex_id in stored, f"revised memory {hex_id} is lost")
        check(stored[hex_id].superseded, f"revised memory {hex_id} is not superseded")
        check(revision in stored, f"revision {revision} is lost")
    for hex_id in model.forgotten:
        check(hex_id not in stored, f"forgotten memory {hex_id} came back")
        check(mem.tombstone(hex_id) is not None, f"forgotten memory {hex_id} has no tombstone")
    live = [h for h in stored if not stored[h].superseded]
    check(set(live) == set(model.live), "the store holds live memories the model does not")
    for hex_id in rng.sample(live, min(sample, len(live))):
        uid = model.live[hex_id]
        check(top_similar(mem, uid) == hex_id, f"{hex_id} is stored but not in the vector index")
        check(keyword(mem, uid) == [hex_id], f"{hex_id} is stored but not in the full-text index")
    for hex_id, uid in rng.sample(
        sorted(model.forgotten.items()), min(sample, len(model.forgotten))
    ):
        check(top_similar(mem, uid) != hex_id, f"forgotten {hex_id} is back in the vector index")
        check(not keyword(mem, uid), f"forgotten {hex_id} is back in the full-text index")
    for entity in ENTITIES:
        timeline = every_memory(mem, entity)
        expected = {h for h in live if stored[h].entity_id == entity}
        check(set(timeline) == expected, f"the timeline of {entity} differs from the store")


def every_memory(mem: hebbs.Hebbs, entity: str | None = None) -> dict[str, hebbs.Memory]:
    """Every stored memory by hex id (superseded ones too), or with ``entity`` that entity's
    live timeline, read from the ``(entity, time)`` index."""
    found: dict[str, hebbs.Memory] = {}
    cursor = None
    while True:
        page = mem.list_memories(
            entity_id=entity, cursor=cursor, limit=1000, include_superseded=entity is None
        )
        found.update((m.id.hex(), m) for m in page.memories)
        cursor = page.next_cursor
        if cursor is None:
            return found


def damage_checkpoint(store: Path, rng: random.Random) -> str:
    """Deletes the vector checkpoint or damages one of its files; says which."""
    checkpoint = store / "hnsw"
    files = sorted(p for p in checkpoint.glob("*") if p.is_file()) if checkpoint.is_dir() else []
    if not files or rng.random() < 0.5:
        shutil.rmtree(checkpoint, ignore_errors=True)
        return "deleted the vector checkpoint"
    target = rng.choice(files)
    data = bytearray(target.read_bytes())
    if data and rng.random() < 0.5:
        data[rng.randrange(len(data))] ^= 0xFF
        target.write_bytes(bytes(data))
        return f"flipped a byte of {target.name}"
    target.write_bytes(bytes(data[: len(data) // 2]))
    return f"truncated {target.name}"


def parent(iterations: int, seed: int, directory: Path, sample: int, reset_every: int) -> int:
    rng = random.Random(seed)
    totals = {"acknowledged": 0, "kills_in_open": 0, "damaged": 0, "live": 0, "forgotten": 0}
    started = time.monotonic()
    model = Model()
    store = directory / "store-0"
    for iteration in range(1, iterations + 1):
        if (iteration - 1) % reset_every == 0 and iteration > 1:
            totals["live"] += len(model.live)
            totals["forgotten"] += len(model.forgotten)
            shutil.rmtree(store)
            model, store = Model(), directory / f"store-{iteration}"
        note = ""
        if model.live and rng.random() < 0.2:
            note = damage_checkpoint(store, rng)
            totals["damaged"] += 1
        kill_in_open = bool(model.live) and rng.random() < 0.25
        totals["kills_in_open"] += kill_in_open
        events = run_child(store, model, rng.randrange(2**32), kill_in_open, rng)
        with hebbs.Hebbs.open(store) as mem:
            acked = apply(model, events, mem)
            verify(model, mem, rng, sample)
        totals["acknowledged"] += acked
        where = "open" if kill_in_open else "work"
        print(
            f"iteration {iteration}: killed during {where}, {acked} acknowledged, "
            f"{len(model.live)} live, {len(model.forgotten)} forgotten"
            + (f" ({note})" if note else ""),
            flush=True,
        )
    elapsed = time.monotonic() - started
    live = totals["live"] + len(model.live)
    forgotten = totals["forgotten"] + len(model.forgotten)
    print(
        f"{iterations} kills in {elapsed:.0f} s: {totals['acknowledged']} operations "
        f"acknowledged, {totals['kills_in_open']} kills while opening, {totals['damaged']} "
        f"checkpoints damaged first, {live} live and {forgotten} forgotten memories checked: "
        "nothing lost, nothing forgotten came back, indexes equal the store"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, help="work directory (default: a temporary one)")
    parser.add_argument("--check-sample", type=int, default=DEFAULT_CHECK_SAMPLE)
    parser.add_argument("--reset-every", type=int, default=DEFAULT_RESET_EVERY)
    parser.add_argument("--child", nargs=2, metavar=("STORE", "JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        options = json.loads(Path(args.child[1]).read_text())
        child(Path(args.child[0]), options["seed"], options["first_uid"], options["plain"])
        return 0
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        return run(args, args.dir)
    with tempfile.TemporaryDirectory() as tmp:
        return run(args, Path(tmp))


def run(args: argparse.Namespace, directory: Path) -> int:
    try:
        return parent(args.iterations, args.seed, directory, args.check_sample, args.reset_every)
    except Broken as error:
        print(f"BROKEN: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
