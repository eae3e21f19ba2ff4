"""LoCoMo through ``recall()`` alone, as issue 14 specifies: ingest like a user, then one
``recall(question, top_k=10, **kwargs)`` per question and setting.

Each conversation is one store (token vectors on, the default). Each session is one
``remember_many``: per turn ``content`` (``Speaker: text`` plus the photo caption),
``entity_id`` = the speaker, ``created_at`` = the session's time plus the turn's index in the
session in microseconds, ``session_id`` = ``<conversation>:<session>``; nothing else (no
edges, no context, no token cache filled by hand). Every recall is timed end to end (the cue's
embedding included).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import hebbs
from hebbs.embedder import default_embedder

from .data import Conversation
from .metrics import Tally, table

#: The calls compared: the name of a row and the keyword arguments of ``recall`` besides the
#: question and ``top_k=10``.
CALLS: dict[str, Mapping[str, Any]] = {
    "recall(q, top_k=10) (similarity, default weights)": {},
    'recall(q, strategies=["keyword"], top_k=10)': {"strategies": ["keyword"]},
    'recall(q, strategies=["hybrid"], top_k=10)': {"strategies": ["hybrid"]},
    'recall(q, top_k=10, quality="best")': {"quality": "best"},
}
TOP_K = 10
#: Variants of the best call tried while choosing the preset (``--experiments``).
EXPERIMENTS: dict[str, Mapping[str, Any]] = {
    'quality="best", rerank_top_n=100': {"quality": "best", "rerank_top_n": 100},
    'quality="best", rerank_top_n=200': {"quality": "best", "rerank_top_n": 200},
    'quality="best", rerank_top_n=300': {"quality": "best", "rerank_top_n": 300},
    'quality="best", ef_search=200': {"quality": "best", "ef_search": 200},
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
    conversations: list[Conversation], questions: int | None = None, experiments: bool = False
) -> None:
    """Prints the recall@k table of :data:`CALLS` (and :data:`EXPERIMENTS`), their p50 latency
    and the space per memory. ``questions`` limits each conversation to its first questions (a
    dev subset)."""
    calls = {**CALLS, **(EXPERIMENTS if experiments else {})}
    embedder = default_embedder()
    tallies = {name: Tally() for name in calls}
    seconds: dict[str, list[float]] = {name: [] for name in calls}
    ingest_seconds = 0.0
    token_bytes = memories = asked = 0
    with tempfile.TemporaryDirectory(prefix="hebbs-locomo-one-call-") as root:
        for conversation in conversations:
            path = Path(root) / conversation.sample_id
            with hebbs.Hebbs.open(path, embedder=embedder) as engine:
                started = time.perf_counter()
                ids = ingest(engine, conversation)
                ingest_seconds += time.perf_counter() - started
                dia_of = {
                    memory_id: turn.dia_id for memory_id, turn in zip(ids, conversation.turns)
                }
                for pair in engine.get_token_vectors(ids):
                    if pair is not None:
                        token_bytes += pair[0].nbytes + pair[1].nbytes
                memories += len(ids)
                chosen = conversation.questions[:questions]
                for question in chosen:
                    for name, kwargs in calls.items():
                        started = time.perf_counter()
                        output = engine.recall(question.text, top_k=TOP_K, **kwargs)
                        seconds[name].append(time.perf_counter() - started)
                        ranked = [dia_of[result.memory.id] for result in output.results]
                        tallies[name].add(question.category, question.gold, ranked)
                asked += len(chosen)
            print(f"{conversation.sample_id}: {len(ids)} turns", file=sys.stderr)
    print(f"\n{len(conversations)} conversations, {memories} memories, {asked} questions")
    print(
        f"ingest (remember_many with token vectors): {ingest_seconds:.1f} s, "
        f"{1000 * ingest_seconds / max(memories, 1):.2f} ms a memory; "
        f"token vectors {token_bytes / max(memories, 1):,.0f} bytes a memory\n"
    )
    print(table([(name, tallies[name]) for name in calls]))
    print("\nrecall p50 / p95 (ms, end to end with the bundled embedder):")
    for name, spent in seconds.items():
        ordered = sorted(spent)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        print(f"  {name}: {1000 * statistics.median(ordered):.1f} / {1000 * p95:.1f}")
