"""hebbs as the conversation memory of the OpenAI Agents SDK (the `openai-agents` extra).

:class:`HebbsSession` implements the SDK's ``Session`` protocol (``agents.memory.Session``:
``get_items``, ``add_items``, ``pop_item``, ``clear_session``), so ``Runner.run(agent, input,
session=HebbsSession(store, "conversation-1"))`` keeps the conversation in a hebbs store as it
would in the SDK's ``SQLiteSession``. Each item is one memory of the hebbs session
``session_id``, in the order added, under a caller key of the session's prefix
(:func:`session_key_prefix`), which lists the conversation without reading the rest of the
store: its ``context`` is the item itself (the JSON object the SDK hands in, every value and
JSON type kept), its ``content`` the item's text, so the conversation is also searchable by
recall, across sessions: :meth:`HebbsSession.recall` and the agent tool
:meth:`HebbsSession.recall_tool`.

The store is a :class:`hebbs.Hebbs` or any object with its operations (a
:class:`hebbs.HebbsClient`); its calls run in a worker thread, as ``SQLiteSession``'s do.
See docs/integrations/openai-agents.md.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from agents import FunctionTool, function_tool
from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from agents.memory.session_settings import coerce_session_settings, resolve_session_limit

from hebbs._native import (
    DEFAULT_IMPORTANCE,
    DEFAULT_TOP_K,
    MAX_LIST_PAGE,
    Memory,
)
from hebbs.api.operations import Operations
from hebbs.integrations._text import content_text

#: What the caller key of every item starts with: then the session id, percent-encoded (so
#: that no session's prefix starts another's), a ``/`` and a random hex token.
KEY_PREFIX = "openai-agents/"

#: The name of the tool :meth:`HebbsSession.recall_tool` makes.
RECALL_TOOL_NAME = "recall_past_conversations"
#: What that tool tells the model it does.
RECALL_TOOL_DESCRIPTION = (
    "Search the user's earlier conversations (not this one) for what was said about a topic. "
    "Returns the matching turns, one a line."
)

#: The keys of an item's content parts and of its own fields that hold its text, in the
#: Responses API's shapes (message parts, function calls and outputs, reasoning summaries).
_TEXT_KEYS = ("text", "refusal", "output", "arguments", "summary", "content")


class HebbsSession:
    """A conversation of the OpenAI Agents SDK kept in a hebbs store (the SDK's ``Session``
    protocol).

    ``session_id`` names the conversation: it is the hebbs ``session_id`` its items are
    remembered with, so a store holds many conversations, and opening another
    ``HebbsSession`` with the same id (in this process or after a restart) continues it. Items
    are remembered with ``entity_id`` (e.g. the user the conversation is with, so recall can be
    scoped to them) and ``importance``. ``session_settings`` holds the default ``limit`` of
    :meth:`get_items`, as in ``SQLiteSession``.

    Its items are the memories under its caller keys (:func:`session_key_prefix`): other
    memories remembered with the same hebbs ``session_id`` are not items, nor touched by
    :meth:`clear_session`.
    """

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        store: Operations[Any],
        session_id: str,
        *,
        entity_id: str | None = None,
        importance: float = DEFAULT_IMPORTANCE,
        session_settings: SessionSettings | Mapping[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.entity_id = entity_id
        self.importance = importance
        self.session_settings = (
            coerce_session_settings(dict(session_settings))
            if isinstance(session_settings, Mapping)
            else session_settings or SessionSettings()
        )
        self._key_prefix = session_key_prefix(session_id)
        # pop_item reads the last item, then forgets it: one at a time per session object.
        self._pop_lock = threading.Lock()

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The conversation's items, oldest first: all of them, or the latest ``limit``
        (``limit`` None takes ``session_settings.limit``; 0 gives none and a negative limit
        all, as in ``SQLiteSession``)."""
        resolved = resolve_session_limit(limit, self.session_settings)
        if resolved == 0:
            return []
        memories = await asyncio.to_thread(self._memories)
        if resolved is not None and resolved > 0:
            memories = memories[-resolved:]
        return [_item(memory) for memory in memories]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Remembers ``items`` after the conversation's others, in one atomic write."""
        if not items:
            return
        rows = [
            {
                "content": item_text(item),
                "context": item,
                "session_id": self.session_id,
                "key": self._key_prefix + uuid.uuid4().hex,
                "entity_id": self.entity_id,
                "importance": self.importance,
            }
            for item in items
        ]
        await asyncio.to_thread(self.store.remember_many, rows)

    async def pop_item(self) -> TResponseInputItem | None:
        """Forgets the conversation's latest item and returns it; None when it has none."""
        return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Forgets every item of the conversation."""
        await asyncio.to_thread(self._clear)

    async def recall(
        self, query: str, top_k: int = DEFAULT_TOP_K, *, this_session: bool = False
    ) -> list[TResponseInputItem]:
        """The items of the store's conversations that best match ``query`` (hebbs' default
        recall), best first: those of the other conversations, or of this one too with
        ``this_session``; only this session's ``entity_id``'s when it has one. Memories
        remembered outside a session are left out."""
        memories = await asyncio.to_thread(self._recall, query, top_k, this_session)
        return [_item(memory) for memory in memories]

    def recall_tool(self, top_k: int = DEFAULT_TOP_K) -> FunctionTool:
        """A function tool (``Agent(tools=[...])``) with which the model searches the other
        conversations (:meth:`recall`): it answers the ``top_k`` best matching turns, one a
        line, as ``role: text`` (its whitespace runs made one space)."""

        async def recall_past_conversations(query: str) -> str:
            memories = await asyncio.to_thread(self._recall, query, top_k, False)
            return "\n".join(_line(memory) for memory in memories)

        return function_tool(
            recall_past_conversations,
            name_override=RECALL_TOOL_NAME,
            description_override=RECALL_TOOL_DESCRIPTION,
        )

    def _memories(self) -> list[Memory]:
        """Every item's memory, in the order remembered (the listing of the session's key
        prefix is in id order, and ids are in the order memories were stored)."""
        found: list[Memory] = []
        cursor: bytes | None = None
        while True:
            page = self.store.list_memories(
                key_prefix=self._key_prefix, cursor=cursor, limit=MAX_LIST_PAGE
            )
            found.extend(page.memories)
            cursor = page.next_cursor
            if cursor is None:
                return found

    def _pop(self) -> TResponseInputItem | None:
        with self._pop_lock:
            while True:
                memories = self._memories()
                if not memories:
                    return None
                latest = memories[-1]
                # Another writer may have forgotten it since the listing: then pop again.
                if self.store.forget(ids=[latest.id]).forgotten_count == 1:
                    return _item(latest)

    def _clear(self) -> None:
        while memories := self._memories():
            for start in range(0, len(memories), MAX_LIST_PAGE):
                chunk = memories[start : start + MAX_LIST_PAGE]
                self.store.forget(ids=[memory.id for memory in chunk])

    def _recall(self, query: str, top_k: int, this_session: bool) -> list[Memory]:
        # Conversation turns only (memories remembered in a session), of the others by default.
        scope: dict[str, Any] = {"$exists": True}
        if not this_session:
            scope["$ne"] = self.session_id
        output = self.store.recall(
            query, top_k=top_k, entity_id=self.entity_id, filter={"session_id": scope}
        )
        return [result.memory for result in output.results]


def session_key_prefix(session_id: str) -> str:
    """What the caller keys of session ``session_id``'s items start with."""
    return f"{KEY_PREFIX}{quote(session_id, safe='')}/"


def item_text(item: Mapping[str, Any]) -> str:
    """The text of an input item that recall searches: a message's text (its content parts'
    texts, a line each), a function call's name and arguments, a tool output, a reasoning
    summary; the item's JSON for a shape without text. At most ``MAX_CONTENT_BYTES``."""
    parts: list[str] = []
    if isinstance(item.get("name"), str):
        parts.append(item["name"])
    for key in _TEXT_KEYS:
        _texts(item.get(key), parts)
    text = "\n".join(part for part in parts if part.strip())
    if not text:
        text = json.dumps(item, ensure_ascii=False, sort_keys=True)
    return content_text(text)


def _texts(value: Any, into: list[str]) -> None:
    """The strings of ``value``: itself, or the text fields of its parts."""
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, list):
        for part in value:
            if isinstance(part, str):
                into.append(part)
            elif isinstance(part, Mapping):
                for key in _TEXT_KEYS:
                    _texts(part.get(key), into)


def _item(memory: Memory) -> TResponseInputItem:
    item: TResponseInputItem = memory.context  # type: ignore[assignment]
    return item


def _line(memory: Memory) -> str:
    context = memory.context
    speaker = context.get("role") or context.get("type") or "item"
    text = " ".join(memory.content.split())
    return f"{speaker}: {text}"
