"""The MCP prompts a host can offer its user (``prompts/list``, ``prompts/get``), each run on
the caller's store when it is got, so the messages it returns carry the memories themselves:

- :data:`RECALL_ABOUT` ``recall_about(topic, entity_id?)``: "recall what we know about X", the
  default recall of ``topic`` (:data:`PROMPT_TOP_K` memories);
- :data:`BRIEF_ON_ENTITY` ``brief_on_entity(entity_id, topic?)``: a briefing before talking
  about an entity, its ``prime`` (newest memories blended with those nearest ``topic``).

Each found memory is a ``resource`` message embedding ``hebbs://memory/{id}`` (the JSON its
resource reads), followed by one text message asking for the answer. A missing or unknown
argument is an ``invalid_input`` naming it; an unknown prompt an ``invalid_input`` naming
``name``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Final

import mcp_types as types

from hebbs._inputs import invalid
from hebbs.api.responses import wire
from hebbs.mcp.resources import MIME_TYPE, memory_uri

#: Memories ``recall_about`` embeds at most.
PROMPT_TOP_K: Final = 10
#: Memories ``brief_on_entity`` embeds at most.
PROMPT_PRIME_MEMORIES: Final = 20

_ENTITY = "who or what it is about: a customer, a user, a project (completed from the store)"


@dataclass(frozen=True)
class Prompt:
    """One prompt: its arguments (name → (description, required)), the store call that finds
    its memories, and the request that closes its messages."""

    name: str
    title: str
    description: str
    arguments: Mapping[str, tuple[str, bool]]
    find: Callable[[Any, Mapping[str, str]], list[Any]]
    ask: Callable[[Mapping[str, str]], str]

    def listing(self) -> types.Prompt:
        """The prompt as ``prompts/list`` answers it."""
        return types.Prompt(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=[
                types.PromptArgument(name=name, description=text, required=required)
                for name, (text, required) in self.arguments.items()
            ],
        )

    def checked(self, given: Mapping[str, str] | None) -> dict[str, str]:
        """``given`` with every required argument present; an ``invalid_input`` naming the
        first one missing or unknown."""
        values = dict(given or {})
        for name in values.keys() - self.arguments.keys():
            raise invalid(name, f"{self.name} takes no argument {name!r}")
        for name, (_, required) in self.arguments.items():
            if required and not values.get(name, "").strip():
                raise invalid(name, f"is required by the prompt {self.name}")
        return {name: value for name, value in values.items() if value.strip()}


def _recall(store: Any, args: Mapping[str, str]) -> list[Any]:
    found = store.recall(cue=args["topic"], entity_id=args.get("entity_id"), top_k=PROMPT_TOP_K)
    return [result.memory for result in found.results]


def _prime(store: Any, args: Mapping[str, str]) -> list[Any]:
    primed = store.prime(
        args["entity_id"], cue=args.get("topic"), max_memories=PROMPT_PRIME_MEMORIES
    )
    return [result.memory for result in primed.results]


def _ask_recall(args: Mapping[str, str]) -> str:
    about = f" (about {args['entity_id']})" if "entity_id" in args else ""
    return (
        f"Using the memories above{about}, tell me what we know about: {args['topic']}. "
        "Cite the ids of the memories you rely on, and say so if they do not answer it."
    )


def _ask_brief(args: Mapping[str, str]) -> str:
    focus = f", with an eye on {args['topic']}" if "topic" in args else ""
    return (
        f"Brief me on {args['entity_id']} from the memories above{focus}: who they are, what "
        "happened lately, what is open, what to keep in mind. Cite the memories' ids."
    )


RECALL_ABOUT: Final = Prompt(
    name="recall_about",
    title="Recall what we know about…",
    description="Recall what hebbs remembers about a topic and answer from it.",
    arguments={
        "topic": ("the question or topic, in natural language", True),
        "entity_id": ("only memories about this entity; " + _ENTITY, False),
    },
    find=_recall,
    ask=_ask_recall,
)
BRIEF_ON_ENTITY: Final = Prompt(
    name="brief_on_entity",
    title="Brief me on…",
    description=(
        "Before talking about a customer, user or project: its newest memories blended with "
        "those nearest an optional topic, summarised."
    ),
    arguments={
        "entity_id": (_ENTITY, True),
        "topic": ("what the conversation will be about", False),
    },
    find=_prime,
    ask=_ask_brief,
)

#: Every prompt, in the order ``prompts/list`` shows them.
PROMPTS: Final = (RECALL_ABOUT, BRIEF_ON_ENTITY)
#: The prompts by name.
PROMPTS_BY_NAME: Final = {prompt.name: prompt for prompt in PROMPTS}


def prompt_listing() -> list[types.Prompt]:
    return [prompt.listing() for prompt in PROMPTS]


def named(name: str) -> Prompt:
    """The prompt called ``name``; an ``invalid_input`` naming ``name`` if there is none."""
    prompt = PROMPTS_BY_NAME.get(name)
    if prompt is None:
        raise invalid("name", f"unknown prompt {name!r}: one of {', '.join(PROMPTS_BY_NAME)}")
    return prompt


def render(prompt: Prompt, store: Any, given: Mapping[str, str] | None) -> types.GetPromptResult:
    """``prompt`` with arguments ``given``, its memories found on ``store``."""
    args = prompt.checked(given)
    memories = prompt.find(store, args)
    messages = [
        types.PromptMessage(
            role="user",
            content=types.EmbeddedResource(
                resource=types.TextResourceContents(
                    uri=memory_uri(memory.id.hex()),
                    mime_type=MIME_TYPE,
                    text=json.dumps(wire(memory), separators=(",", ":")),
                )
            ),
        )
        for memory in memories
    ]
    found = f"hebbs found {len(memories)} memories." if memories else "hebbs found no memories."
    messages.append(
        types.PromptMessage(
            role="user", content=types.TextContent(text=f"{found} {prompt.ask(args)}")
        )
    )
    return types.GetPromptResult(description=prompt.description, messages=messages)
