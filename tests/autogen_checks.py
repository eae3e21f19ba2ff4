"""The checks of ``hebbs.integrations.autogen.HebbsMemory`` that need AutoGen, run by
tests/test_integration_autogen.py in AutoGen's own environment (AutoGen pins protobuf 5, which
the test extra's protobuf 7 excludes), with hebbs from ``PYTHONPATH``.

``python autogen_checks.py WORKDIR DOC OUT`` runs every check (each in a directory of its own
under ``WORKDIR``; ``DOC`` is docs/integrations/autogen.md, whose first Python block one check
runs) and writes to ``OUT`` one JSON object: each check's name, with None when it passed or its
traceback.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import sys
import traceback
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Callable

import PIL.Image
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import MemoryQueryEvent
from autogen_core import Image
from autogen_core.memory import ListMemory, MemoryContent, MemoryMimeType
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import (
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    SystemMessage,
    UserMessage,
)
from autogen_ext.models.replay import ReplayChatCompletionClient

from hebbs import Hebbs
from hebbs.embedder import default_embedder
from hebbs.integrations.autogen import (
    CONTEXT_HEADING,
    RESULT_ID_KEY,
    RESULT_SCORE_KEY,
    HebbsMemory,
)

#: What the checks remember: text with metadata, markdown, JSON (values of every JSON type).
CONTENTS = [
    MemoryContent(
        content="The user likes pizza with olives.",
        mime_type=MemoryMimeType.TEXT,
        metadata={"category": "food", "since": 2021},
    ),
    MemoryContent(content="The user *hates* cheese.", mime_type=MemoryMimeType.MARKDOWN),
    MemoryContent(
        content={"city": "Lisbon", "units": "metric", "pets": ["cat"], "age": 36.5, "vip": None},
        mime_type=MemoryMimeType.JSON,
        metadata={"category": "profile"},
    ),
    MemoryContent(content="The user's favourite colour is green.", mime_type="text/x-note"),
]

Check = Callable[[Path], Awaitable[None]]
CHECKS: dict[str, Check] = {}


def check(function: Check) -> Check:
    CHECKS[function.__name__] = function
    return function


async def raised(kind: type[Exception], call: Awaitable[Any]) -> Exception:
    """The ``kind`` error that awaiting ``call`` raises (pytest is not in this environment)."""
    try:
        await call
    except kind as error:
        return error
    raise AssertionError(f"no {kind.__name__} raised")


def open_store(work: Path) -> Hebbs:
    return Hebbs.open(work / "db", embedder=default_embedder())


def stored(content: MemoryContent) -> MemoryContent:
    """``content`` as a query returns it: its metadata without the id and score added."""
    return MemoryContent(
        content=content.content, mime_type=content.mime_type, metadata=content.metadata or {}
    )


def without_result_keys(content: MemoryContent) -> MemoryContent:
    metadata = {
        k: v
        for k, v in (content.metadata or {}).items()
        if k not in (RESULT_ID_KEY, RESULT_SCORE_KEY)
    }
    return MemoryContent(content=content.content, mime_type=content.mime_type, metadata=metadata)


def memory_lines(message: SystemMessage) -> list[str]:
    """The contents a memory's system message lists, one numbered line each, a JSON object's
    line (written as JSON by hebbs, as a Python dict by ListMemory) as its sorted JSON."""
    lines = message.content.splitlines()
    return [_canonical(re.sub(r"^\d+\. ", "", line)) for line in lines if line[:1].isdigit()]


def _canonical(line: str) -> str:
    if not line.startswith("{"):
        return line
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        value = ast.literal_eval(line)
    return json.dumps(value, sort_keys=True)


async def run_agent(memory: Any, task: str) -> tuple[Any, ReplayChatCompletionClient]:
    client = ReplayChatCompletionClient(["Pizza with olives, no cheese."])
    agent = AssistantAgent("assistant", model_client=client, memory=[memory])
    result = await agent.run(task=task)
    return result, client


@check
async def memory_reaches_the_model_as_with_list_memory(work: Path) -> None:
    """AssistantAgent(memory=[...]) with the replay client: the model is sent a system message
    with the memories, the agent emits a MemoryQueryEvent with them; with top_k above the count
    the contents are ListMemory's (ranked instead of in order), the best first."""
    with open_store(work) as store:
        hebbs_memory = HebbsMemory(store, top_k=10)
        list_memory = ListMemory()
        for content in CONTENTS:
            await hebbs_memory.add(content)
            await list_memory.add(content)
        task = "What pizza should I order for the user?"
        hebbs_result, hebbs_client = await run_agent(hebbs_memory, task)
        list_result, list_client = await run_agent(list_memory, task)
        assert hebbs_result.messages[-1].content == list_result.messages[-1].content

        [hebbs_event] = [m for m in hebbs_result.messages if isinstance(m, MemoryQueryEvent)]
        [list_event] = [m for m in list_result.messages if isinstance(m, MemoryQueryEvent)]
        assert hebbs_event.content[0].content == "The user likes pizza with olives."
        got = sorted(
            json.dumps(without_result_keys(c).model_dump(), sort_keys=True)
            for c in hebbs_event.content
        )
        expected = sorted(
            json.dumps(stored(c).model_dump(), sort_keys=True) for c in list_event.content
        )
        assert got == expected, (got, expected)

        [hebbs_call] = hebbs_client.create_calls
        [list_call] = list_client.create_calls
        hebbs_system = [m for m in hebbs_call["messages"] if isinstance(m, SystemMessage)]
        list_system = [m for m in list_call["messages"] if isinstance(m, SystemMessage)]
        memory_message = hebbs_system[-1]
        assert memory_message.content.startswith(CONTEXT_HEADING)
        lines = memory_lines(memory_message)
        assert lines[0] == "The user likes pizza with olives."
        assert sorted(lines) == sorted(memory_lines(list_system[-1]))
        # The task reaches the model after the memory, as with ListMemory.
        assert [type(m).__name__ for m in hebbs_call["messages"]] == [
            type(m).__name__ for m in list_call["messages"]
        ]


@check
async def query_returns_what_was_added(work: Path) -> None:
    """Content, MIME type and metadata come back as added (JSON as the same object), with the
    memory's id and score; the best match first; top_k and a filter are passed to recall."""
    with open_store(work) as store:
        memory = HebbsMemory(store)
        for content in CONTENTS:
            await memory.add(content)
        found = (await memory.query("which city does the user live in, units?")).results
        assert sorted(
            json.dumps(without_result_keys(c).model_dump(), sort_keys=True) for c in found
        ) == sorted(json.dumps(stored(c).model_dump(), sort_keys=True) for c in CONTENTS)
        assert found[0].content == CONTENTS[2].content
        assert found[0].mime_type == MemoryMimeType.JSON
        assert store.get(found[0].metadata[RESULT_ID_KEY]).context["json"] == CONTENTS[2].content
        scores = [c.metadata[RESULT_SCORE_KEY] for c in found]
        assert scores == sorted(scores, reverse=True)
        assert [c.mime_type for c in found if c.content == CONTENTS[3].content] == ["text/x-note"]
        assert len((await memory.query("pizza", top_k=1)).results) == 1
        filtered = await memory.query("the user", filter={"context.metadata.category": "food"})
        assert [c.content for c in filtered.results] == [CONTENTS[0].content]
        as_content = await memory.query(
            MemoryContent(content="pizza", mime_type=MemoryMimeType.TEXT)
        )
        assert as_content.results[0].content == CONTENTS[0].content


@check
async def names_keep_memories_apart_and_clear_empties_one(work: Path) -> None:
    """Two named memories of one store (and an entity-scoped one) see only their own contents;
    clear forgets one memory's contents, as ListMemory's clear does, and leaves the others."""
    with open_store(work) as store:
        store.remember("A memory of another tool: the user likes pizza.")
        food = HebbsMemory(store, name="food")
        colours = HebbsMemory(store, name="colours")
        ada = HebbsMemory(store, name="food", entity_id="ada")
        await food.add(CONTENTS[0])
        await colours.add(CONTENTS[3])
        await ada.add(MemoryContent(content="Ada likes pizza too.", mime_type=MemoryMimeType.TEXT))
        assert sorted(c.content for c in (await food.query("pizza")).results) == [
            "Ada likes pizza too.",
            CONTENTS[0].content,
        ]
        assert [c.content for c in (await ada.query("pizza")).results] == ["Ada likes pizza too."]
        assert [c.content for c in (await colours.query("pizza")).results] == [CONTENTS[3].content]
        reference = ListMemory()
        await reference.add(CONTENTS[0])
        await reference.clear()
        await ada.clear()
        assert [c.content for c in (await food.query("pizza")).results] == [CONTENTS[0].content]
        await food.clear()
        assert (await food.query("pizza")).results == (await reference.query("pizza")).results == []
        assert [c.content for c in (await colours.query("pizza")).results] == [CONTENTS[3].content]
        assert store.count_memories() == 2
        updated = await food.update_context(UnboundedChatCompletionContext())
        assert updated.memories.results == []


@check
async def update_context_reads_tool_results_and_skips_images(work: Path) -> None:
    """The latest message may be a tool result (its content is the cue) or an image alone (no
    recall, nothing added)."""
    with open_store(work) as store:
        memory = HebbsMemory(store)
        for content in CONTENTS:
            await memory.add(content)
        result = FunctionExecutionResult(content="pizza menu", name="menu", call_id="c1")
        context = UnboundedChatCompletionContext()
        await context.add_message(FunctionExecutionResultMessage(content=[result]))
        updated = await memory.update_context(context)
        assert updated.memories.results[0].content == CONTENTS[0].content
        assert isinstance((await context.get_messages())[-1], SystemMessage)

        image = Image(PIL.Image.new("RGB", (2, 2)))
        context = UnboundedChatCompletionContext([UserMessage(content=[image], source="user")])
        assert (await memory.update_context(context)).memories.results == []
        assert len(await context.get_messages()) == 1


@check
async def bytes_and_images_are_refused(work: Path) -> None:
    with open_store(work) as store:
        memory = HebbsMemory(store)
        image = Image(PIL.Image.new("RGB", (2, 2)))
        for value, mime_type in (
            (b"\x00\x01", MemoryMimeType.BINARY),
            (image, MemoryMimeType.IMAGE),
        ):
            content = MemoryContent(content=value, mime_type=mime_type)
            error = await raised(TypeError, memory.add(content))
            assert "HebbsMemory keeps text (str) and JSON (dict) contents" in str(error)
        assert store.count_memories() == 0


@check
async def an_agent_with_hebbs_memory_is_a_component(work: Path) -> None:
    """HebbsMemory.open(path) dumps its config; the agent that holds it is saved and loaded,
    and the loaded memory finds what the first one added; close closes the store it opened."""
    memory = HebbsMemory.open(str(work / "db"), name="prefs", entity_id="ada", top_k=3)
    await memory.add(CONTENTS[0])
    agent = AssistantAgent(
        "assistant", model_client=ReplayChatCompletionClient(["ok"]), memory=[memory]
    )
    dumped = agent.dump_component()
    config = dumped.config["memory"][0]
    assert config["provider"] == "hebbs.integrations.autogen.HebbsMemory"
    assert config["config"] == {
        "path": str(work / "db"),
        "name": "prefs",
        "entity_id": "ada",
        "top_k": 3,
        "importance": memory.importance,
    }
    await memory.close()
    assert memory.store.closed
    loaded = AssistantAgent.load_component(dumped)
    [reloaded] = loaded._memory
    assert isinstance(reloaded, HebbsMemory)
    assert [c.content for c in (await reloaded.query("pizza")).results] == [CONTENTS[0].content]
    await reloaded.close()
    with open_store(work) as store:
        error = await raised(TypeError, asyncio.to_thread(HebbsMemory(store).dump_component))
        assert "HebbsMemory.open(path)" in str(error)


@check
async def the_docs_example_runs(work: Path) -> None:
    doc = Path(sys.argv[2])
    block = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)[0]
    code = compile(block, str(doc), "exec")
    # The example calls asyncio.run, which cannot run inside this loop: a thread of its own.
    await asyncio.to_thread(_exec_in, work, code)


def _exec_in(work: Path, code: Any) -> None:
    previous = Path.cwd()
    os.chdir(work)
    try:
        exec(code, {"__name__": "__main__"})
    finally:
        os.chdir(previous)


async def main(workdir: Path) -> dict[str, str | None]:
    outcome: dict[str, str | None] = {}
    for name, function in CHECKS.items():
        work = workdir / name
        work.mkdir(parents=True)
        try:
            await function(work)
        except Exception:
            outcome[name] = traceback.format_exc()
        else:
            outcome[name] = None
    return outcome


if __name__ == "__main__":
    outcome = asyncio.run(main(Path(sys.argv[1])))
    Path(sys.argv[3]).write_text(json.dumps(outcome), encoding="utf-8")
