"""Agent-driven reflection, for hosts that bring their own model and hold no API key here.

``reflect_prepare`` gathers and clusters the scope's new memories exactly as ``reflect`` does
and returns each cluster with its memories and the exact proposal prompt (memories cited by
their ids). The session is stored in the engine (so it survives the server evicting a tenant)
and expires after ``ttl`` seconds (``DEFAULT_SESSION_TTL_S``). ``reflect_commit`` checks every
insight (content, confidence 0..1, at least one source, each source a memory of the session)
before writing anything, stores them as ``reflect`` does (one atomic write), moves the cursor
to where the prepare stopped, and ends the session.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hebbs._inputs import invalid
from hebbs._native import NativeEngine

from .constants import DEFAULT_SESSION_TTL_S
from .gather import cluster_views, gather
from .insights import insight_memories, with_vectors
from .pipeline import NewInsight, store
from .prompts import propose_task
from .results import CommitResult, PreparedCluster, ReflectSession
from .state import (
    Cursor,
    advance_cursor,
    drop_expired_sessions,
    drop_session,
    get_session,
    put_session,
)

if TYPE_CHECKING:
    from hebbs.api.requests import CommitInsight
    from hebbs.engine import Hebbs


def _now_us() -> int:
    return time.time_ns() // 1000


def prepare(
    engine: Hebbs,
    *,
    entity_id: str | None,
    max_memories: int,
    min_cluster_size: int,
    ttl: float = DEFAULT_SESSION_TTL_S,
) -> ReflectSession:
    native: NativeEngine = engine._native
    now = _now_us()
    drop_expired_sessions(native, now)
    batch = gather(native, entity_id, None, max_memories)
    clusters: list[PreparedCluster] = []
    if len(batch.memories) >= min_cluster_size:
        existing = with_vectors(native, insight_memories(native, entity_id))
        _, views = cluster_views(batch, existing, min_size=min_cluster_size, label_ids=True)
        by_id = {memory.id_hex: memory for memory in batch.memories}
        for view in views:
            task = propose_task(view, view.members)
            clusters.append(
                PreparedCluster(
                    view.index, [by_id[m.id] for m in view.members], task.system, task.prompt
                )
            )
    session_id = uuid.uuid4().hex
    expires_at = now + int(ttl * 1_000_000)
    cursor = batch.next_cursor
    put_session(
        native,
        session_id,
        {
            "expires_at": expires_at,
            "entity_id": entity_id,
            "memory_ids": sorted({m.id_hex for c in clusters for m in c.memories}),
            "cursor": None
            if cursor is None
            else {"id": cursor.id, "created_at": cursor.created_at},
        },
    )
    return ReflectSession(session_id, expires_at, entity_id, clusters, len(batch.memories))


def _checked(insights: Sequence[CommitInsight], allowed: set[str]) -> list[NewInsight]:
    """``insights`` (already checked by their request model) as :class:`NewInsight`, once each
    source is known to be a memory of the session (else an error naming it)."""
    checked = []
    for i, item in enumerate(insights):
        ids = []
        for j, source in enumerate(item.sources):
            text = (source.hex() if isinstance(source, bytes) else source).lower()
            if text not in allowed:
                raise invalid(f"insights[{i}].sources[{j}]", "is not a memory of this session")
            ids.append(text)
        checked.append(NewInsight(item.content, item.confidence, list(dict.fromkeys(ids))))
    return checked


def commit(engine: Hebbs, session_id: str, insights: Sequence[CommitInsight]) -> CommitResult:
    native: NativeEngine = engine._native
    session = get_session(native, session_id)
    if session is None:
        raise invalid("session_id", "no such reflect session (committed already, or unknown)")
    if int(session["expires_at"]) <= _now_us():
        drop_session(native, session_id)
        raise invalid("session_id", "the reflect session has expired")
    allowed = set(session["memory_ids"])
    checked = _checked(insights, allowed)
    members = {
        memory.id_hex: memory
        for memory in (native.get(id) for id in sorted({s for i in checked for s in i.sources}))
    }
    stored = store(engine, session["entity_id"], checked, members)
    if session["cursor"] is not None:
        cursor = Cursor(str(session["cursor"]["id"]), int(session["cursor"]["created_at"]))
        advance_cursor(native, session["entity_id"], cursor)
    drop_session(native, session_id)
    return CommitResult(len(stored), stored)
