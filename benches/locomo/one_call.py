"""LoCoMo through ``recall()`` alone: ingest like a user, then one
``recall(question, top_k=10, **kwargs)`` per question and call, each call on its own copy of the
stores, the whole question set asked ``passes`` times in a row.

Each conversation is one store (token vectors on, the default). Each session is one
``remember_many``: per turn ``content`` (``Speaker: text`` plus the photo caption),
``entity_id`` = the speaker, ``created_at`` = the session's time plus the turn's index in the
session in microseconds, ``session_id`` = ``<conversation>:<session>``; nothing else (no
edges, no context, no token cache filled by hand). The stores are ingested once and copied
for each call, so one call's recalls (and the access counts they leave) never touch another's;
a second pass asks the same questions of the store the first pass used, which is what shows
whether reinforcement crowds relevant memories out. Every recall is timed end to end (the
cue's embedding included).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import hebbs
from hebbs.api.requests import DEFAULT_TOKEN_POOL_FACTOR
from hebbs.embedder import default_embedder

from .data import Conversation
from .metrics import Tally, table

#: Composite weights of relevance alone.
RELEVANCE_ONLY: Mapping[str, float] = {
    "w_relevance": 1.0,
    "w_recency": 0.0,
    "w_importance": 0.0,
    "w_reinforcement": 0.0,
}
#: The calls compared: the name of a row and the keyword arguments of ``recall`` besides the
#: question and ``top_k=10``.
CALLS: dict[str, Mapping[str, Any]] = {
    "recall(q, top_k=10) (the default)": {},
    'quality="fast"': {"quality": "fast"},
    'quality="best"': {"quality": "best"},
    'strategies=["similarity"] (default weights)': {"strategies": ["similarity"]},
    'strategies=["similarity"], relevance only': {
        "strategies": ["similarity"],
        "scoring_weights": RELEVANCE_ONLY,
    },
    'strategies=["hybrid"]': {"strategies": ["hybrid"]},
    'strategies=["keyword"]': {"strategies": ["keyword"]},
}
TOP_K = 10
#: Variants of the default call tried while choosing its settings (``--experiments``).
EXPERIMENTS: dict[str, Mapping[str, Any]] = {
    "default, rerank_top_n=100": {"rerank_top_n": 100},
    "default, rerank_top_n=200": {"rerank_top_n": 200},
    "default, ef_search=200": {"ef_search": 200},
}


def ingest(engine: hebbs.Hebbs, conversation: Conversation) -> list[bytes]:
    """Remembers every turn, one ``remember_many`` per session; the ids in turn order."""
    ids: list[bytes] = []
    turns = conversation.turns
    start = 0
    while start < len(turns):
        end = start
        while end < len(turns) and turns[end].session == turns[start].session:
            end += 1
        session = turns[start:end]
        base = int(session[0].created_at.timestamp() * 1_000_000)
        stored = engine.remember_many(
            {
                "content": turn.content,
                "entity_id": turn.speaker,
                "created_at": base + index,
                "session_id": f"{conversation.sample_id}:{turn.session}",
            }
            for index, turn in enumerate(session)
        )
        ids.extend(memory.id for memory in stored)
        start = end
    return ids


def evaluate(
    conversations: list[Conversation],
    questions: int | None = None,
    experiments: bool = False,
    passes: int = 2,
    only: str | None = None,
    token_pool_factor: int = DEFAULT_TOKEN_POOL_FACTOR,
) -> None:
    """Prints, for each pass, the recall@k table of :data:`CALLS` (and :data:`EXPERIMENTS`),
    then their p50 / p95 latency and the space per memory. ``questions`` limits each
    conversation to its first questions (a dev subset); ``only`` (comma-separated) keeps the
    calls whose name contains one of its parts; ``token_pool_factor`` is the stores' (the
    token vectors a memory keeps, ``Hebbs.open``)."""
    calls = {**CALLS, **(EXPERIMENTS if experiments else {})}
    if only is not None:
        parts = only.split(",")
        calls = {name: kw for name, kw in calls.items() if any(p in name for p in parts)}
    embedder = default_embedder()
    tallies = {(name, p): Tally() for name in calls for p in range(passes)}
    seconds: dict[str, list[float]] = {name: [] for name in calls}
    with tempfile.TemporaryDirectory(prefix="hebbs-locomo-one-call-") as root:
        started = time.perf_counter()
        turn_ids, token_bytes = _ingest_all(
            conversations, Path(root) / "ingested", embedder, token_pool_factor
        )
        ingest_seconds = time.perf_counter() - started
        memories = sum(len(ids) for ids in turn_ids.values())
        for name, kwargs in calls.items():
            copy = Path(root) / "call"
            shutil.copytree(Path(root) / "ingested", copy)
            for conversation in conversations:
                dia_of = dict(zip(turn_ids[conversation.sample_id], conversation.turns))
                with hebbs.Hebbs.open(copy / conversation.sample_id, embedder=embedder) as engine:
                    for p in range(passes):
                        for question in conversation.questions[:questions]:
                            begun = time.perf_counter()
                            output = engine.recall(question.text, top_k=TOP_K, **kwargs)
                            seconds[name].append(time.perf_counter() - begun)
                            ranked = [dia_of[r.memory.id].dia_id for r in output.results]
                            tallies[(name, p)].add(question.category, question.gold, ranked)
            shutil.rmtree(copy)
            print(f"{name}: done", file=sys.stderr)
    asked = sum(len(c.questions[:questions]) for c in conversations)
    print(f"\n{len(conversations)} conversations, {memories} memories, {asked} questions")
    print(
        f"ingest (remember_many with token vectors): {ingest_seconds:.1f} s, "
        f"{1000 * ingest_seconds / max(memories, 1):.2f} ms a memory; "
        f"token vectors {token_bytes / max(memories, 1):,.0f} bytes a memory"
    )
    for p in range(passes):
        print(f"\npass {p + 1}:\n")
        print(table([(name, tallies[(name, p)]) for name in calls]))
    print("\nrecall p50 / p95 (ms, end to end with the bundled embedder, every pass):")
    for name, spent in seconds.items():
        ordered = sorted(spent)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        print(f"  {name}: {1000 * statistics.median(ordered):.1f} / {1000 * p95:.1f}")


def _ingest_all(
    conversations: list[Conversation], root: Path, embedder: Any, token_pool_factor: int
) -> tuple[dict[str, list[bytes]], int]:
    """One closed store per conversation under ``root``; each one's memory ids in turn order,
    and the bytes of token vectors stored in all."""
    turn_ids: dict[str, list[bytes]] = {}
    token_bytes = 0
    for conversation in conversations:
        opened = hebbs.Hebbs.open(
            root / conversation.sample_id, embedder=embedder, token_pool_factor=token_pool_factor
        )
        with opened as engine:
            ids = ingest(engine, conversation)
            for pair in engine.get_token_vectors(ids):
                if pair is not None:
                    token_bytes += pair[0].nbytes + pair[1].nbytes
        turn_ids[conversation.sample_id] = ids
        print(f"{conversation.sample_id}: {len(ids)} turns", file=sys.stderr)
    return turn_ids, token_bytes
