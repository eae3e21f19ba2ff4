"""``hebbs.integrations.openai_agents.HebbsSession`` against the OpenAI Agents SDK's own
reference: every sequence of ``add_items`` / ``get_items`` / ``pop_item`` / ``clear_session``
answers what the SDK's ``SQLiteSession`` answers for it (on the embedded store and on a server
through the client), and ``Runner.run(agent, ..., session=)`` driven by a scripted model (the
SDK's documented extension point, ``agents.models.interface.Model``) sends the model the same
history and leaves the same items as with ``SQLiteSession``; the conversation survives a
reopen of the store, and another conversation finds it with the recall tool."""

from __future__ import annotations

import json
import random
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import (
    Agent,
    FunctionTool,
    ModelResponse,
    Runner,
    SQLiteSession,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.memory import Session
from agents.model_settings import ModelSettings
from agents.models.interface import Model, ModelTracing
from agents.tool import Tool
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam

from hebbs import Hebbs, InvalidInputError
from hebbs._native import MAX_CONTEXT_BYTES
from hebbs.embedder import Embedder
from hebbs.integrations.openai_agents import (
    RECALL_TOOL_NAME,
    HebbsSession,
    item_text,
    session_key_prefix,
)
from remote import Store

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "integrations" / "openai-agents.md"

#: Items of the shapes a run leaves: user input, assistant messages, a tool call and its output,
#: a reasoning item, values of every JSON type (nested, null, float and int).
ITEMS: list[dict[str, Any]] = [
    {"role": "user", "content": "My name is Ada and I live in Lisbon."},
    {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Nice to meet you, Ada.", "annotations": []}],
    },
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Lisbon"}',
        "id": None,
    },
    {"type": "function_call_output", "call_id": "call_1", "output": "Sunny, 24.5 C"},
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "The user asked about the weather."}],
    },
    {
        "role": "user",
        "content": [{"type": "input_text", "text": "And tomorrow?"}],
        "extra": {"n": 1, "x": 1.0, "flags": [True, False, None], "deep": {"a": [[], {}]}},
    },
]


def text_message(text: str, id: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=id,
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def tool_call(name: str, arguments: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", name=name, arguments=json.dumps(arguments), call_id=call_id
    )


class ScriptedModel(Model):
    """A model that answers each call with the next of its scripted turns and records the
    input every call was sent."""

    def __init__(self, turns: list[list[TResponseOutputItem]]) -> None:
        self.turns = list(turns)
        self.inputs: list[list[TResponseInputItem]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        given = [{"role": "user", "content": input}] if isinstance(input, str) else input
        self.inputs.append(json.loads(json.dumps(given)))
        return ModelResponse(output=self.turns.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the tests run Runner.run, which does not stream")


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}, 24 C"


def script() -> list[list[TResponseOutputItem]]:
    """Two runs: a tool call then an answer; then an answer that uses the history."""
    return [
        [tool_call("get_weather", {"city": "Lisbon"}, "call_w")],
        [text_message("It is sunny in Lisbon, Ada.", "msg_a")],
        [text_message("Your name is Ada.", "msg_b")],
    ]


async def two_runs(session: Any) -> tuple[list[list[TResponseInputItem]], list[str]]:
    model = ScriptedModel(script())
    agent = Agent(name="assistant", instructions="Be brief.", model=model, tools=[get_weather])
    first = await Runner.run(agent, "I'm Ada. What's the weather in Lisbon?", session=session)
    second = await Runner.run(agent, "What is my name?", session=session)
    return model.inputs, [str(first.final_output), str(second.final_output)]


@pytest.fixture(autouse=True)
def no_tracing() -> Iterator[None]:
    """The runs export no traces (the SDK would send them to OpenAI with a key set)."""
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


@pytest.fixture
def sqlite(tmp_path: Path) -> SQLiteSession:
    return SQLiteSession("conversation", tmp_path / "agents.sqlite")


async def test_runner_with_a_hebbs_session_sees_what_it_sees_with_sqlite(
    store: Store, sqlite: SQLiteSession
) -> None:
    hebbs_inputs, hebbs_outputs = await two_runs(HebbsSession(store, "conversation"))
    sqlite_inputs, sqlite_outputs = await two_runs(sqlite)
    assert hebbs_outputs == sqlite_outputs == ["It is sunny in Lisbon, Ada.", "Your name is Ada."]
    assert hebbs_inputs == sqlite_inputs
    # The second run's model call starts with the first run's whole conversation.
    assert hebbs_inputs[2][:4] == hebbs_inputs[1] + [hebbs_inputs[2][3]]
    assert hebbs_inputs[2][-1] == {"role": "user", "content": "What is my name?"}
    assert await HebbsSession(store, "conversation").get_items() == await sqlite.get_items()


async def apply(session: Any, op: str, arg: Any) -> Any:
    if op == "add":
        return await session.add_items(json.loads(json.dumps(arg)))
    if op == "get":
        return await session.get_items(arg)
    if op == "pop":
        return await session.pop_item()
    return await session.clear_session()


def operations(seed: int, count: int) -> list[tuple[str, Any]]:
    """A random sequence of session operations over :data:`ITEMS`."""
    rng = random.Random(seed)
    ops: list[tuple[str, Any]] = []
    for _ in range(count):
        op = rng.choices(["add", "get", "pop", "clear"], weights=[5, 4, 3, 1])[0]
        if op == "add":
            ops.append((op, rng.sample(ITEMS, rng.randint(0, 3))))
        elif op == "get":
            ops.append((op, rng.choice([None, None, -1, 0, 1, 2, 5, 50])))
        else:
            ops.append((op, None))
    return ops


@pytest.mark.parametrize("seed", [1, 2])
async def test_every_operation_answers_as_sqlite_session(
    store: Store, sqlite: SQLiteSession, seed: int
) -> None:
    session = HebbsSession(store, "conversation")
    for step, (op, arg) in enumerate(operations(seed, 40)):
        got = await apply(session, op, arg)
        expected = await apply(sqlite, op, arg)
        assert got == expected, f"step {step}: {op}({arg!r})"
        assert await session.get_items() == await sqlite.get_items(), f"after step {step}"


async def test_the_settings_limit_and_other_sessions(store: Store, tmp_path: Path) -> None:
    settings = {"limit": 2}
    mine = HebbsSession(store, "a", session_settings=settings)
    other = HebbsSession(store, "b")
    reference = SQLiteSession("a", tmp_path / "ref.sqlite", session_settings=settings)
    for session in (mine, reference):
        await session.add_items(ITEMS[:4])
    await other.add_items(ITEMS[4:])
    assert await mine.get_items() == await reference.get_items() == ITEMS[2:4]
    assert await mine.get_items(limit=3) == ITEMS[1:4]
    await other.clear_session()
    assert await other.get_items() == []
    assert await other.pop_item() is None
    assert await HebbsSession(store, "a").get_items() == ITEMS[:4]


async def test_an_item_is_its_memory_context_and_its_text_the_content(mem: Hebbs) -> None:
    await HebbsSession(mem, "s", entity_id="ada").add_items(json.loads(json.dumps(ITEMS)))
    memories = mem.list_memories().memories
    assert [m.context for m in memories] == ITEMS
    assert {m.entity_id for m in memories} == {"ada"}
    assert all(m.key.startswith(session_key_prefix("s")) for m in memories)
    assert len({m.key for m in memories}) == len(ITEMS)
    assert [m.content for m in memories] == [
        "My name is Ada and I live in Lisbon.",
        "Nice to meet you, Ada.",
        'get_weather\n{"city": "Lisbon"}',
        "Sunny, 24.5 C",
        "The user asked about the weather.",
        "And tomorrow?",
    ]
    assert item_text({"type": "image", "url": "x"}) == '{"type": "image", "url": "x"}'


async def test_the_conversation_survives_a_reopen_and_other_sessions_recall_it(
    tmp_path: Path, embedder: Embedder
) -> None:
    with Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        await two_runs(HebbsSession(mem, "monday", entity_id="ada"))
        before = await HebbsSession(mem, "monday").get_items()
    with Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        assert await HebbsSession(mem, "monday").get_items() == before
        mem.remember("A note, not a turn: Ada lives in Lisbon", entity_id="ada")
        tuesday = HebbsSession(mem, "tuesday", entity_id="ada")
        found = await tuesday.recall("where does Ada live? the weather in Lisbon", top_k=20)
        assert found
        assert all(item in before for item in found)
        tool = tuesday.recall_tool(top_k=3)
        assert isinstance(tool, FunctionTool)
        model = ScriptedModel(
            [
                [tool_call(RECALL_TOOL_NAME, {"query": "the weather in Lisbon"}, "call_r")],
                [text_message("Last time it was sunny in Lisbon.", "msg_r")],
            ]
        )
        agent = Agent(name="assistant", model=model, tools=[tool])
        result = await Runner.run(agent, "What did we talk about?", session=tuesday)
        assert result.final_output == "Last time it was sunny in Lisbon."
        tool_output = model.inputs[1][-1]
        assert tool_output["type"] == "function_call_output"
        assert "sunny in lisbon" in tool_output["output"].lower()
        # Only Monday's turns: Tuesday's own question is not an answer.
        assert "What did we talk about?" not in tool_output["output"]


def doc_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return blocks[0]


def test_the_docs_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(doc_example(), str(DOC), "exec"), {"__name__": "__main__"})


async def test_it_is_a_session_and_a_too_large_item_is_refused_whole(mem: Hebbs) -> None:
    session = HebbsSession(mem, "s")
    assert isinstance(session, Session)
    too_large = {"type": "function_call_output", "call_id": "c", "output": "x" * MAX_CONTEXT_BYTES}
    with pytest.raises(InvalidInputError, match="bytes of JSON exceeds") as raised:
        await session.add_items([ITEMS[0], too_large])
    assert raised.value.field == "items[1].context"
    assert await session.get_items() == []


async def test_its_items_are_its_keys_only(store: Store) -> None:
    """Sessions whose ids extend one another stay apart; a memory remembered with the same hebbs
    session_id by another tool is not an item, and clear_session leaves it."""
    sessions = {sid: HebbsSession(store, sid) for sid in ("a", "a/b", "a%2Fb", "a/")}
    for n, session in enumerate(sessions.values()):
        await session.add_items([ITEMS[n]])
    note = store.remember("A note another tool wrote in conversation a", session_id="a")
    for n, session in enumerate(sessions.values()):
        assert await session.get_items() == [ITEMS[n]]
    await sessions["a"].clear_session()
    assert await sessions["a"].get_items() == []
    assert store.get(note.id).content == note.content
    assert await sessions["a/b"].pop_item() == ITEMS[1]
    assert await sessions["a%2Fb"].get_items() == [ITEMS[2]]
