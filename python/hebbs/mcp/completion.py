"""``completion/complete`` for the arguments that name an entity: ``entity_id`` of the prompts
(:mod:`hebbs.mcp.prompts`) and of the timeline template (:mod:`hebbs.mcp.resources`).

The values are the caller's own entity ids that start with what was typed, sorted, at most
:data:`MAX_VALUES` (the specification's cap). They come from listing the caller's memories
whose ``entity_id`` holds the typed text (a metadata filter), at most :data:`SCAN_PAGES` pages
of :data:`SCAN_PAGE` memories, so a completion costs a bounded read however large the store;
``hasMore`` says when that bound or the cap cut the answer short. An argument or reference
hebbs does not complete (a memory id, a session id, a prompt or template it does not have)
answers no values, as the specification allows for an argument without suggestions.
"""

from __future__ import annotations

from typing import Any, Final

import mcp_types as types

from hebbs._native import MAX_LIST_PAGE
from hebbs.mcp.prompts import PROMPTS_BY_NAME
from hebbs.mcp.resources import TIMELINE_TEMPLATE

#: The argument completed.
ENTITY_ARGUMENT: Final = "entity_id"
#: Values one answer holds at most (the specification's cap).
MAX_VALUES: Final = 100
#: Memories read per page while collecting entity ids.
SCAN_PAGE: Final = MAX_LIST_PAGE
#: Pages read at most for one completion.
SCAN_PAGES: Final = 4


def completes(ref: types.ResourceTemplateReference | types.PromptReference, argument: str) -> bool:
    """Whether ``argument`` of ``ref`` is one hebbs completes."""
    if argument != ENTITY_ARGUMENT:
        return False
    if isinstance(ref, types.PromptReference):
        prompt = PROMPTS_BY_NAME.get(ref.name)
        return prompt is not None and ENTITY_ARGUMENT in prompt.arguments
    return ref.uri == TIMELINE_TEMPLATE.uri_template


def entity_ids(store: Any, typed: str) -> types.Completion:
    """The entity ids of ``store`` that start with ``typed``."""
    selector: dict[str, Any] = {"$contains": typed} if typed else {"$exists": True}
    found: set[str] = set()
    cursor = None
    for _ in range(SCAN_PAGES):
        page = store.list_memories(
            cursor=cursor, limit=SCAN_PAGE, filter={ENTITY_ARGUMENT: selector}
        )
        found.update(
            memory.entity_id
            for memory in page.memories
            if memory.entity_id is not None and memory.entity_id.startswith(typed)
        )
        cursor = page.next_cursor
        if cursor is None:
            break
    values = sorted(found)
    return types.Completion(
        values=values[:MAX_VALUES],
        total=len(values) if cursor is None else None,
        has_more=cursor is not None or len(values) > MAX_VALUES,
    )


def nothing() -> types.Completion:
    """The answer for an argument hebbs does not complete."""
    return types.Completion(values=[], total=0, has_more=False)
