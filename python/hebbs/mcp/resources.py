"""Memories as MCP resources: ``resources/list`` pages through the caller's memories (oldest
first, :data:`RESOURCE_PAGE` a page, MCP's ``cursor`` being the store's), and three resource
templates are read with ``resources/read``:

- :data:`MEMORY_TEMPLATE` ``hebbs://memory/{id}``: one memory, as the ``get`` tool answers it;
- :data:`TIMELINE_TEMPLATE` ``hebbs://entity/{entity_id}/timeline``: the entity's newest
  :data:`TIMELINE_LIMIT` memories, newest first (the ``temporal`` recall, so a read counts as
  an access, as the ``recall`` tool's does);
- :data:`SESSION_TEMPLATE` ``hebbs://session/{session_id}``: the conversation's context, the
  memories it touched in the order of their first touch (at most :data:`SESSION_LIMIT`).

Every read is JSON (:data:`MIME_TYPE`) and runs on the caller's own store, so a memory of
another tenant is "not found" exactly as through the ``get`` tool. A URI that names none of the
templates, or a malformed id, is an ``invalid_input`` naming ``uri``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Final

import mcp_types as types
from mcp.shared.uri_template import UriTemplate

from hebbs._inputs import invalid
from hebbs._native import MAX_LIST_PAGE
from hebbs.api.responses import JsonObject, wire
from hebbs.errors import InvalidInputError

#: The scheme of every hebbs resource URI.
SCHEME: Final = "hebbs"
#: What every resource read answers.
MIME_TYPE: Final = "application/json"
#: Memories in one page of ``resources/list``.
RESOURCE_PAGE: Final = 50
#: Memories an entity's timeline resource holds (its newest).
TIMELINE_LIMIT: Final = 50
#: Memories a session's context resource holds at most.
SESSION_LIMIT: Final = 100
#: Characters of a memory's content its listing shows as the resource's title.
TITLE_CHARS: Final = 80
#: The field a bad URI's error names.
URI_FIELD: Final = "uri"
#: Characters of a bad URI its error message quotes.
URI_SHOWN_CHARS: Final = 120

assert RESOURCE_PAGE <= MAX_LIST_PAGE


@dataclass(frozen=True)
class Template:
    """One resource template: its URI template and how a store answers a read of it."""

    name: str
    uri_template: str
    title: str
    description: str
    read: Callable[[Any, Mapping[str, str]], JsonObject]

    @property
    def parsed(self) -> UriTemplate:
        return UriTemplate.parse(self.uri_template)

    def listing(self) -> types.ResourceTemplate:
        """The template as ``resources/templates/list`` answers it."""
        return types.ResourceTemplate(
            name=self.name,
            uri_template=self.uri_template,
            title=self.title,
            description=self.description,
            mime_type=MIME_TYPE,
        )


def _memory(store: Any, values: Mapping[str, str]) -> JsonObject:
    memory: JsonObject = wire(store.get(values["id"]))
    return memory


def _timeline(store: Any, values: Mapping[str, str]) -> JsonObject:
    entity_id = values["entity_id"]
    found = store.recall(strategies=["temporal"], entity_id=entity_id, top_k=TIMELINE_LIMIT)
    memories = [result.memory for result in found.results]
    return {"entity_id": entity_id, "memories": wire(memories)}


def _session(store: Any, values: Mapping[str, str]) -> JsonObject:
    session_id = values["session_id"]
    memories = store.get_chat_context(session_id, limit=SESSION_LIMIT)
    return {"session_id": session_id, "memories": wire(memories)}


MEMORY_TEMPLATE: Final = Template(
    name="memory",
    uri_template=f"{SCHEME}://memory/{{id}}",
    title="A memory",
    description="One memory by its id (32 hex digits) with all its fields.",
    read=_memory,
)
TIMELINE_TEMPLATE: Final = Template(
    name="entity_timeline",
    uri_template=f"{SCHEME}://entity/{{entity_id}}/timeline",
    title="An entity's timeline",
    description=(
        f"The newest {TIMELINE_LIMIT} memories about an entity (a customer, a user, a "
        "project), newest first."
    ),
    read=_timeline,
)
SESSION_TEMPLATE: Final = Template(
    name="session_context",
    uri_template=f"{SCHEME}://session/{{session_id}}",
    title="A conversation's context",
    description=(
        "The memories a conversation touched (remembered with its session_id, or returned by "
        f"a recall that named it), in the order of their first touch, at most {SESSION_LIMIT}."
    ),
    read=_session,
)

#: Every resource template, in the order ``resources/templates/list`` shows them.
TEMPLATES: Final = (MEMORY_TEMPLATE, TIMELINE_TEMPLATE, SESSION_TEMPLATE)


def memory_uri(memory_id: str) -> str:
    """The URI of the memory with (hex) id ``memory_id``."""
    return MEMORY_TEMPLATE.parsed.expand({"id": memory_id})


def template_listing() -> list[types.ResourceTemplate]:
    return [template.listing() for template in TEMPLATES]


def _title(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def list_page(store: Any, cursor: str | None) -> types.ListResourcesResult:
    """One page of the store's memories as resources; ``cursor`` is the last page's
    ``nextCursor``."""
    try:
        page = store.list_memories(cursor=cursor, limit=RESOURCE_PAGE)
    except InvalidInputError as error:
        if error.field == "cursor":
            raise invalid("cursor", f"is not a cursor this server gave: {error.reason}") from None
        raise
    resources = [
        types.Resource(
            uri=memory_uri(memory.id.hex()),
            name=memory.id.hex(),
            title=_title(memory.content),
            description=f"a {memory.kind.value} memory"
            + (f" about {memory.entity_id}" if memory.entity_id else ""),
            mime_type=MIME_TYPE,
        )
        for memory in page.memories
    ]
    cursor = None if page.next_cursor is None else page.next_cursor.hex()
    return types.ListResourcesResult(resources=resources, next_cursor=cursor)


def _shown(uri: str) -> str:
    return repr(uri if len(uri) <= URI_SHOWN_CHARS else uri[:URI_SHOWN_CHARS] + "…")


def resolve(uri: str) -> tuple[Template, Mapping[str, str]]:
    """The template ``uri`` names and its variables; an ``invalid_input`` naming ``uri`` if it
    names none."""
    for template in TEMPLATES:
        values = template.parsed.match(uri)
        if values is not None and all(isinstance(v, str) and v for v in values.values()):
            return template, {name: str(value) for name, value in values.items()}
    shapes = ", ".join(template.uri_template for template in TEMPLATES)
    raise invalid(URI_FIELD, f"{_shown(uri)} is not a hebbs resource: expected one of {shapes}")


def read(store: Any, uri: str) -> types.ReadResourceResult:
    """The contents of resource ``uri`` on ``store``. An invalid variable is reported on
    ``uri`` (the caller sent a URI, not the field)."""
    template, values = resolve(uri)
    try:
        payload = template.read(store, values)
    except InvalidInputError as error:
        raise invalid(URI_FIELD, f"{_shown(uri)}: {error.field} {error.reason}") from None
    text = json.dumps(payload, separators=(",", ":"))
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=text)]
    )
