"""The MCP resources, prompts, completion and logging of hebbs, driven by the official SDK's
own client: over ``hebbs serve``'s ``/mcp`` with API keys (each test's keys a tenant of their
own, so a tenant's resources, prompts and completions never show another's memories) and over
``hebbs mcp --db`` (paging through ``resources/list``). A bad URI, prompt or argument is a
JSON-RPC error whose ``data`` is the REST body naming the field, and the server answers on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from tests.remote import Server
from tests.test_mcp import over_http, result, stdio

from hebbs import Hebbs
from hebbs.mcp.completion import MAX_VALUES
from hebbs.mcp.log_level import METHOD
from hebbs.mcp.prompts import PROMPTS
from hebbs.mcp.resources import (
    MIME_TYPE,
    RESOURCE_PAGE,
    SESSION_TEMPLATE,
    TEMPLATES,
    TIMELINE_TEMPLATE,
    memory_uri,
)

#: An entity id a URI must percent-encode.
ODD_ENTITY = "acme corp/eu"


async def seed(client: Client) -> dict[str, str]:
    """Remembers a few memories through the tools; their ids by name."""

    async def remember(name: str, **arguments: Any) -> tuple[str, str]:
        return name, result(await client.call_tool("remember", arguments))["id"]

    return dict(
        [
            await remember(
                "request",
                content="Acme asked for a 15% discount",
                entity_id="acme",
                session_id="s1",
            ),
            await remember(
                "decision", content="We approved 12% for Acme", entity_id="acme", session_id="s1"
            ),
            await remember("eu", content="Acme's EU branch pays in euros", entity_id=ODD_ENTITY),
            await remember("globex", content="Globex prefers invoices in PDF", entity_id="globex"),
        ]
    )


async def read(client: Client, uri: str) -> Any:
    answer = await client.read_resource(uri)
    [content] = answer.contents
    assert isinstance(content, types.TextResourceContents)
    assert (content.uri, content.mime_type) == (uri, MIME_TYPE)
    return json.loads(content.text)


async def refused(call: Any, code: int = types.INVALID_PARAMS) -> dict[str, Any]:
    """The REST body of the JSON-RPC error ``call`` (an awaitable) raises."""
    with pytest.raises(MCPError) as caught:
        await call
    assert caught.value.code == code, caught.value
    body: dict[str, Any] = caught.value.data
    assert set(body) == {"error_code", "message", "field"}
    assert body["message"] == caught.value.message
    return body


def timeline_uri(entity_id: str) -> str:
    return TIMELINE_TEMPLATE.parsed.expand({"entity_id": entity_id})


def session_uri(session_id: str) -> str:
    return SESSION_TEMPLATE.parsed.expand({"session_id": session_id})


@asynccontextmanager
async def handshake_era(server: Server, key: str) -> AsyncIterator[Client]:
    """A client that speaks a 2025 protocol (the initialize handshake), where
    ``logging/setLevel`` is a method; from 2026-07-28 (SEP-2577) it is gone."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    transport = streamable_http_client(server.url + "/mcp", http_client=http)
    async with http, Client(transport, mode="legacy") as client:
        yield client


async def test_resources_and_templates(hebbs_server: Server) -> None:
    async with over_http(hebbs_server, hebbs_server.new_key("write")) as client:
        caps = client.server_capabilities
        assert caps.resources is not None
        assert not caps.resources.subscribe
        assert caps.prompts is not None
        assert caps.completions is not None
        assert caps.logging is not None
        ids = await seed(client)
        listed = await client.list_resources()
        assert listed.next_cursor is None
        assert [r.uri for r in listed.resources] == [memory_uri(i) for i in ids.values()]
        assert listed.resources[0].title == "Acme asked for a 15% discount"
        assert {r.mime_type for r in listed.resources} == {MIME_TYPE}
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == [t.uri_template for t in TEMPLATES]

        memory = await read(client, memory_uri(ids["request"]))
        fetched = result(await client.call_tool("get", {"id": ids["request"]}))
        # A read records an access, and the decay score moves with the clock between the reads.
        volatile = {"access_count": 0, "decay_score": 0.0, "last_accessed_at": 0}
        assert {**memory, **volatile} == {**fetched, **volatile}
        assert memory["decay_score"] == pytest.approx(fetched["decay_score"], rel=1e-3)
        timeline = await read(client, timeline_uri("acme"))
        assert timeline["entity_id"] == "acme"
        assert [m["id"] for m in timeline["memories"]] == [ids["decision"], ids["request"]]
        odd = await read(client, timeline_uri(ODD_ENTITY))
        assert [m["id"] for m in odd["memories"]] == [ids["eu"]]
        assert "%2F" in timeline_uri(ODD_ENTITY)
        session = await read(client, session_uri("s1"))
        assert [m["id"] for m in session["memories"]] == [ids["request"], ids["decision"]]
        assert (await read(client, session_uri("never")))["memories"] == []


async def test_bad_resource_uris_are_clear_errors(hebbs_server: Server) -> None:
    async with over_http(hebbs_server, hebbs_server.new_key("read")) as client:
        for uri in ("test://static-text", "hebbs://memory/", "hebbs://entity//timeline", "x"):
            body = await refused(client.read_resource(uri))
            assert (body["error_code"], body["field"]) == ("invalid_input", "uri"), uri
            assert "hebbs://memory/{id}" in body["message"]
        malformed = await refused(client.read_resource(memory_uri("zz")))
        assert malformed["field"] == "uri"
        assert "32 hex digits" in malformed["message"]
        long_session = await refused(client.read_resource(session_uri("s" * 300)))
        assert long_session["field"] == "uri"
        assert "session_id" in long_session["message"]
        missing = await refused(client.read_resource(memory_uri("0" * 32)))
        assert missing["error_code"] == "not_found"
        cursor = await refused(client.list_resources(cursor="not-a-cursor"))
        assert cursor["field"] == "cursor"
        assert len((await client.list_tools()).tools) > 0
    # A 2026-07-28 client also sends the URI as an HTTP header, which uvicorn caps far below
    # this; a 2025 one sends it in the body alone, and its error quotes only the URI's start.
    async with handshake_era(hebbs_server, hebbs_server.new_key("read")) as client:
        huge = await refused(client.read_resource("hebbs://memory/" + "0" * 100_000))
        assert huge["field"] == "uri"
        assert len(huge["message"]) < 500


async def test_a_tenant_never_sees_another_through_resources_prompts_or_completion(
    hebbs_server: Server,
) -> None:
    async with over_http(hebbs_server, hebbs_server.new_key("write")) as owner:
        ids = await seed(owner)
    async with over_http(hebbs_server, hebbs_server.new_key("admin")) as other:
        assert (await other.list_resources()).resources == []
        for memory_id in ids.values():
            body = await refused(other.read_resource(memory_uri(memory_id)))
            assert body["error_code"] == "not_found"
        assert (await read(other, timeline_uri("acme")))["memories"] == []
        assert (await read(other, session_uri("s1")))["memories"] == []
        prompt = await other.get_prompt("recall_about", {"topic": "Acme discount"})
        assert [m.content.type for m in prompt.messages] == ["text"]
        ref = types.PromptReference(name="recall_about")
        found = await other.complete(ref, {"name": "entity_id", "value": "a"})
        assert found.completion.values == []


async def test_prompts(hebbs_server: Server) -> None:
    async with over_http(hebbs_server, hebbs_server.new_key("read")) as reader:
        reader_prompt = await reader.get_prompt("brief_on_entity", {"entity_id": "acme"})
        assert "no memories" in reader_prompt.messages[-1].content.text
    async with over_http(hebbs_server, hebbs_server.new_key("write")) as client:
        ids = await seed(client)
        listed = (await client.list_prompts()).prompts
        assert [p.name for p in listed] == [p.name for p in PROMPTS]
        recall_about = {a.name: a.required for a in listed[0].arguments or []}
        assert recall_about == {"topic": True, "entity_id": False}

        answer = await client.get_prompt("recall_about", {"topic": "the discount Acme asked for"})
        *memories, ask = answer.messages
        embedded = [m.content for m in memories]
        assert all(isinstance(c, types.EmbeddedResource) for c in embedded)
        uris = [c.resource.uri for c in embedded if isinstance(c, types.EmbeddedResource)]
        assert uris[0] == memory_uri(ids["request"])
        assert isinstance(ask.content, types.TextContent)
        assert "the discount Acme asked for" in ask.content.text

        brief = await client.get_prompt("brief_on_entity", {"entity_id": "acme", "topic": "price"})
        briefed = {
            m.content.resource.uri
            for m in brief.messages
            if isinstance(m.content, types.EmbeddedResource)
        }
        assert briefed == {memory_uri(ids["request"]), memory_uri(ids["decision"])}

        assert (await refused(client.get_prompt("recall_about", {})))["field"] == "topic"
        assert (await refused(client.get_prompt("recall_about", {"topic": " "})))["field"] == (
            "topic"
        )
        extra = await refused(client.get_prompt("recall_about", {"topic": "x", "k": "3"}))
        assert extra["field"] == "k"
        unknown = await refused(client.get_prompt("test_simple_prompt"))
        assert unknown == {**unknown, "error_code": "invalid_input", "field": "name"}


async def test_completion_of_entity_ids(hebbs_server: Server) -> None:
    async with over_http(hebbs_server, hebbs_server.new_key("write")) as client:
        await seed(client)
        for ref in (
            types.PromptReference(name="recall_about"),
            types.PromptReference(name="brief_on_entity"),
            types.ResourceTemplateReference(uri=TIMELINE_TEMPLATE.uri_template),
        ):
            found = (await client.complete(ref, {"name": "entity_id", "value": "ac"})).completion
            assert (found.values, found.total, found.has_more) == (["acme", ODD_ENTITY], 2, False)
            every = (await client.complete(ref, {"name": "entity_id", "value": ""})).completion
            assert every.values == ["acme", ODD_ENTITY, "globex"]
            assert len(every.values) <= MAX_VALUES
        for ref, name in (
            (types.ResourceTemplateReference(uri="hebbs://memory/{id}"), "id"),
            (types.PromptReference(name="recall_about"), "topic"),
            (types.PromptReference(name="test_prompt_with_arguments"), "entity_id"),
        ):
            none = (await client.complete(ref, {"name": name, "value": "a"})).completion
            assert none.values == []


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_logging_set_level(hebbs_server: Server) -> None:
    async with handshake_era(hebbs_server, hebbs_server.new_key("read")) as client:
        assert client.protocol_version.startswith("2025-")
        assert client.server_capabilities.logging is not None
        for level in ("debug", "info", "warning", "emergency"):
            await client.set_logging_level(level)  # type: ignore[arg-type]
    # The SDK's client checks the level itself: a raw request shows the server does too.
    body = {"jsonrpc": "2.0", "id": 1, "method": METHOD, "params": {"level": "verbose"}}
    answer = httpx.post(
        hebbs_server.url + "/mcp",
        json=body,
        headers={
            "Authorization": f"Bearer {hebbs_server.new_key('read')}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["error"]["code"] == types.INVALID_PARAMS


async def test_resources_page_over_stdio(tmp_path: Path) -> None:
    stored = RESOURCE_PAGE + 7
    with Hebbs.open(tmp_path / "db") as mem:
        seeded = [
            m.id.hex() for m in mem.remember_many([{"content": f"fact {i}"} for i in range(stored)])
        ]
    async with stdio("--db", str(tmp_path / "db")) as client:
        first = await client.list_resources()
        assert len(first.resources) == RESOURCE_PAGE
        assert first.next_cursor is not None
        second = await client.list_resources(cursor=first.next_cursor)
        assert second.next_cursor is None
        uris = [r.uri for r in first.resources + second.resources]
        assert uris == [memory_uri(memory_id) for memory_id in seeded]
        assert (await read(client, memory_uri(seeded[3])))["content"] == "fact 3"


async def test_resources_prompts_and_completion_over_stdio_and_a_server(
    hebbs_server: Server,
) -> None:
    key = hebbs_server.new_key("write")
    async with stdio("--url", hebbs_server.url, "--api-key", key) as client:
        ids = await seed(client)
        listed = await client.list_resources()
        assert [r.uri for r in listed.resources] == [memory_uri(i) for i in ids.values()]
        timeline = await read(client, timeline_uri("acme"))
        assert [m["id"] for m in timeline["memories"]] == [ids["decision"], ids["request"]]
        session = await read(client, session_uri("s1"))
        assert [m["id"] for m in session["memories"]] == [ids["request"], ids["decision"]]
        missing = await refused(client.read_resource(memory_uri("0" * 32)))
        assert missing["error_code"] == "not_found"
        ref = types.ResourceTemplateReference(uri=TIMELINE_TEMPLATE.uri_template)
        found = await client.complete(ref, {"name": "entity_id", "value": "g"})
        assert found.completion.values == ["globex"]
        prompt = await client.get_prompt("brief_on_entity", {"entity_id": "globex"})
        assert len(prompt.messages) == 2
