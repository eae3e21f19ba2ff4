"""Reflection's state in the engine (``NativeEngine.state_*``, the ``meta`` column family): the
cursor of each scope (the last memory a reflect read, so the next sees only newer ones) and the
``reflect_prepare`` sessions waiting for their commit. Values are JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hebbs._native import NativeEngine

CURSOR_PREFIX = "reflect/cursor/"
SESSION_PREFIX = "reflect/session/"


@dataclass(frozen=True)
class Cursor:
    """A position in a scope's listing: the memory's id and ``created_at`` (an entity's
    timeline is ordered by ``created_at``, the whole store by id)."""

    id: str
    created_at: int

    def key(self, entity_id: str | None) -> tuple[int, str] | tuple[str]:
        return (self.created_at, self.id) if entity_id is not None else (self.id,)


def scope_name(entity_id: str | None) -> str:
    return "*" if entity_id is None else f"entity:{entity_id}"


def read_cursor(native: NativeEngine, entity_id: str | None) -> Cursor | None:
    raw = native.state_get(CURSOR_PREFIX + scope_name(entity_id))
    if raw is None:
        return None
    value = json.loads(raw)
    return Cursor(str(value["id"]), int(value["created_at"]))


def advance_cursor(native: NativeEngine, entity_id: str | None, cursor: Cursor) -> None:
    """Moves the scope's cursor to ``cursor`` unless it is already past it (a reflect that ran
    between a prepare and its commit)."""
    current = read_cursor(native, entity_id)
    if current is not None and current.key(entity_id) >= cursor.key(entity_id):
        return
    value = json.dumps({"id": cursor.id, "created_at": cursor.created_at}).encode()
    native.state_put(CURSOR_PREFIX + scope_name(entity_id), value)


def put_session(native: NativeEngine, session_id: str, value: dict[str, Any]) -> None:
    native.state_put(SESSION_PREFIX + session_id, json.dumps(value).encode())


def get_session(native: NativeEngine, session_id: str) -> dict[str, Any] | None:
    raw = native.state_get(SESSION_PREFIX + session_id)
    return None if raw is None else dict(json.loads(raw))


def drop_session(native: NativeEngine, session_id: str) -> None:
    native.state_put(SESSION_PREFIX + session_id, None)


def drop_expired_sessions(native: NativeEngine, now_us: int) -> int:
    """Deletes the sessions past their expiry; returns how many."""
    dropped = 0
    for name, raw in native.state_scan(SESSION_PREFIX):
        if int(json.loads(raw)["expires_at"]) <= now_us:
            native.state_put(name, None)
            dropped += 1
    return dropped
