"""hebbs as an AutoGen agent's memory (the ``autogen`` extra: ``pip install 'hebbs[autogen]'``).

:class:`HebbsMemory` implements ``autogen_core.memory.Memory`` (``add``, ``query``,
``update_context``, ``clear``, ``close``), so ``AssistantAgent(..., memory=[HebbsMemory(store)])``
recalls, before each model call, the memories that best match the latest message of the
conversation and gives them to the model as a system message, as AutoGen's own vector memories
(ChromaDB, Redis) do. Each ``MemoryContent`` is one hebbs memory: its text is the memory's
content (JSON content is kept as given and searched as its JSON text), its MIME type and
metadata are kept in the memory's context, with the name of the ``HebbsMemory`` that holds it,
so one store holds many named memories. A query is hebbs' default recall (plus what the caller
passes), scoped to the memory's name and ``entity_id``.

It is also an AutoGen component (``dump_component`` / ``load_component``, so an agent that
holds it can be saved and loaded) when it was opened from a path (:meth:`HebbsMemory.open`).
See docs/integrations/autogen.md.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from autogen_core import CancellationToken, Component
from autogen_core.memory import (
    Memory,
    MemoryContent,
    MemoryMimeType,
    MemoryQueryResult,
    UpdateContextResult,
)
from autogen_core.model_context import ChatCompletionContext
from autogen_core.models import SystemMessage
from pydantic import BaseModel

from hebbs._native import DEFAULT_IMPORTANCE, DEFAULT_TOP_K
from hebbs._native import Memory as Record
from hebbs.api.operations import Operations
from hebbs.engine import Hebbs
from hebbs.integrations._text import content_text

#: The name of a :class:`HebbsMemory` made without one.
DEFAULT_MEMORY_NAME = "hebbs_memory"
#: The context keys of a stored ``MemoryContent``: the name of the memory that holds it, its
#: MIME type, its metadata and (for JSON content) the JSON object itself.
MEMORY_KEY = "memory"
MIME_TYPE_KEY = "mime_type"
METADATA_KEY = "metadata"
JSON_KEY = "json"
#: The metadata keys a query result adds: the hebbs memory's id (hex) and its recall score.
RESULT_ID_KEY = "id"
RESULT_SCORE_KEY = "score"
#: The heading of the system message :meth:`HebbsMemory.update_context` adds, as AutoGen's
#: vector memories write it.
CONTEXT_HEADING = "\nRelevant memory content:\n"


class HebbsMemoryConfig(BaseModel):
    """The component configuration of a :class:`HebbsMemory` opened from a path."""

    path: str
    name: str = DEFAULT_MEMORY_NAME
    entity_id: str | None = None
    top_k: int = DEFAULT_TOP_K
    filter: dict[str, Any] | None = None
    importance: float = DEFAULT_IMPORTANCE


#: The options of :class:`HebbsMemory` that its config holds besides the path.
_OPTIONS = ("name", "entity_id", "top_k", "filter", "importance")


class HebbsMemory(Memory, Component[HebbsMemoryConfig]):  # type: ignore[misc]
    """An AutoGen memory kept in a hebbs store (``autogen_core.memory.Memory``).

    ``store`` is a :class:`hebbs.Hebbs` or any object with its operations (a
    :class:`hebbs.HebbsClient`); it stays the caller's (:meth:`close` leaves it open, except a
    store :meth:`open` opened). ``name`` tells this memory's contents from the others of the
    store; ``entity_id`` (e.g. the user) is the entity they are remembered under and the scope
    of queries; ``importance`` theirs. A query recalls at most ``top_k`` of them, only those
    ``filter`` (docs/filters.md) selects when given.
    """

    component_type = "memory"
    component_config_schema = HebbsMemoryConfig
    component_provider_override = "hebbs.integrations.autogen.HebbsMemory"

    def __init__(
        self,
        store: Operations[Any],
        *,
        name: str = DEFAULT_MEMORY_NAME,
        entity_id: str | None = None,
        top_k: int = DEFAULT_TOP_K,
        filter: Mapping[str, Any] | None = None,
        importance: float = DEFAULT_IMPORTANCE,
    ) -> None:
        self.store = store
        self.name = name
        self.entity_id = entity_id
        self.top_k = top_k
        self.filter = dict(filter) if filter is not None else None
        self.importance = importance
        self._path: str | None = None

    @classmethod
    def open(cls, path: str, **options: Any) -> HebbsMemory:
        """A memory on the hebbs store at ``path`` (opened, created if needed, with the
        package's embedder), which :meth:`close` closes; ``options`` are those of the class."""
        memory = cls(Hebbs.open(path), **options)
        memory._path = path
        return memory

    async def add(
        self, content: MemoryContent, cancellation_token: CancellationToken | None = None
    ) -> None:
        """Remembers ``content``: text (a ``str``) or JSON (a ``dict``); bytes and images are
        refused with a ``TypeError``."""
        value = content.content
        context: dict[str, Any] = {
            MEMORY_KEY: self.name,
            MIME_TYPE_KEY: _mime_text(content.mime_type),
            METADATA_KEY: content.metadata,
        }
        if isinstance(value, str):
            text = value
        elif isinstance(value, dict):
            context[JSON_KEY] = value
            text = content_text(json.dumps(value, ensure_ascii=False, sort_keys=True))
        else:
            raise TypeError(
                f"HebbsMemory keeps text (str) and JSON (dict) contents, not {type(value).__name__}"
            )
        await asyncio.to_thread(
            self.store.remember,
            text,
            importance=self.importance,
            context=context,
            entity_id=self.entity_id,
        )

    async def query(
        self,
        query: str | MemoryContent,
        cancellation_token: CancellationToken | None = None,
        **kwargs: Any,
    ) -> MemoryQueryResult:
        """The contents that best match ``query`` (its text, or a ``MemoryContent``'s), best
        first, by hebbs' default recall; ``kwargs`` are passed to ``recall`` (``top_k``,
        ``filter``, ``min_relevance``...). Each result's metadata also holds the memory's
        ``id`` (hex) and its recall ``score``."""
        cue = query if isinstance(query, str) else _query_text(query.content)
        options: dict[str, Any] = {"top_k": self.top_k, "entity_id": self.entity_id, **kwargs}
        options["filter"] = self._scope(options.get("filter", self.filter))
        output = await asyncio.to_thread(self.store.recall, cue, **options)
        return MemoryQueryResult(
            results=[_content(result.memory, result.score) for result in output.results]
        )

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Recalls with the text of the context's latest message (nothing when there is none,
        or it is an image alone) and adds the contents found as one system message
        (:data:`CONTEXT_HEADING`, then one numbered line each: the text, or the JSON text of a
        JSON content)."""
        messages = await model_context.get_messages()
        cue = _query_text(messages[-1].content) if messages else ""
        if not cue.strip():
            return UpdateContextResult(memories=MemoryQueryResult(results=[]))
        found = await self.query(cue)
        if found.results:
            lines = [f"{i}. {_query_text(item.content)}" for i, item in enumerate(found.results, 1)]
            message = SystemMessage(content=CONTEXT_HEADING + "\n".join(lines))
            await model_context.add_message(message)
        return UpdateContextResult(memories=found)

    async def clear(self) -> None:
        """Forgets every content of this memory (its name's, its entity's)."""
        scope: dict[str, Any] = {f"context.{MEMORY_KEY}": self.name}
        await asyncio.to_thread(self._forget_all, scope)

    async def close(self) -> None:
        """Closes the store if :meth:`open` opened it; a store handed in stays open."""
        if self._path is not None and isinstance(self.store, Hebbs):
            self.store.close()

    def _forget_all(self, scope: dict[str, Any]) -> None:
        while self.store.forget(filter=scope, entity_id=self.entity_id).truncated:
            pass

    def _scope(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        mine = {f"context.{MEMORY_KEY}": self.name}
        return {"$and": [mine, dict(given)]} if given else mine

    def _to_config(self) -> HebbsMemoryConfig:
        if self._path is None:
            raise TypeError(
                "only a HebbsMemory made by HebbsMemory.open(path) has a component config; "
                "this one holds a store object"
            )
        options = {name: getattr(self, name) for name in _OPTIONS}
        return HebbsMemoryConfig(path=self._path, **options)

    @classmethod
    def _from_config(cls, config: HebbsMemoryConfig) -> HebbsMemory:
        return cls.open(config.path, **config.model_dump(include=set(_OPTIONS)))


def _mime_text(mime_type: MemoryMimeType | str) -> str:
    return mime_type.value if isinstance(mime_type, MemoryMimeType) else str(mime_type)


def _mime_type(text: str) -> MemoryMimeType | str:
    """A known MIME type as AutoGen's enum, another as given."""
    try:
        return MemoryMimeType(text)
    except ValueError:
        return text


def _content(memory: Record, score: float) -> MemoryContent:
    context = memory.context
    metadata = dict(context.get(METADATA_KEY) or {})
    metadata[RESULT_ID_KEY] = memory.id_hex
    metadata[RESULT_SCORE_KEY] = score
    value = context.get(JSON_KEY, memory.content)
    return MemoryContent(
        content=value, mime_type=_mime_type(context.get(MIME_TYPE_KEY, "")), metadata=metadata
    )


def _part_text(part: Any) -> str | None:
    """A list part's text: itself, a tool call's ``arguments``, a tool result's ``content``;
    None for an image."""
    if isinstance(part, str):
        return part
    for field in ("content", "arguments"):
        text = getattr(part, field, None)
        if isinstance(text, str):
            return text
    return None


def _query_text(content: Any) -> str:
    """The text of a message's or a query's content: a string; in a list (a multimodal
    message, tool calls, tool results), its strings, each call's arguments and each result's
    content, a line each; the JSON of an object; else its ``str``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text for part in content if (text := _part_text(part)))
    if isinstance(content, dict):
        return json.dumps(content, ensure_ascii=False, sort_keys=True)
    return str(content)
