"""The MCP server driven by the official SDK's own client: ``hebbs mcp --db`` and ``--url``
over stdio (a subprocess), and the streamable-HTTP transport of ``hebbs serve`` at ``/mcp``
(the session server of ``remote.py``, with API keys). Each lists the tools, calls every one,
and sees a typed error come back as a tool error naming the field."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Callable

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from tests.remote import Server

from hebbs import Hebbs
from hebbs.api import RecallRequest, RememberRequest
from hebbs.mcp.tools import TOOLS, VECTOR_FIELDS

HEBBS = str(Path(sys.executable).with_name("hebbs"))

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


@asynccontextmanager
async def stdio(*args: str) -> AsyncIterator[Client]:
    async with Client(StdioServerParameters(command=HEBBS, args=["mcp", *args])) as client:
        yield client


@asynccontextmanager
async def over_http(server: Server, key: str | None) -> AsyncIterator[Client]:
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    http = create_mcp_http_client(headers=headers)
    async with http, Client(streamable_http_client(server.url + "/mcp", http_client=http)) as c:
        yield c


def result(answer: Any) -> dict[str, Any]:
    assert not answer.is_error, answer.content[0].text
    assert answer.structured_content == json.loads(answer.content[0].text)
    payload: dict[str, Any] = answer.structured_content
    return payload


def failure(answer: Any) -> dict[str, Any]:
    assert answer.is_error
    body: dict[str, Any] = json.loads(answer.content[0].text)
    assert set(body) == {"error_code", "message", "field"}
    return body


async def check_listing(client: Client) -> None:
    listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == [tool.name for tool in TOOLS]
    schemas = {tool.name: tool.input_schema for tool in listed}
    recall = schemas["recall"]["properties"]
    assert set(recall) == set(RecallRequest.model_fields) - VECTOR_FIELDS
    assert "hybrid" in json.dumps(recall["strategies"])
    assert "w_recency" in json.dumps(recall["scoring_weights"])
    assert schemas["remember"]["required"] == ["content"]
    assert set(schemas["remember"]["properties"]) == set(RememberRequest.model_fields) - {
        "embedding"
    }
    assert all(tool.description and len(tool.description) > 60 for tool in listed)


async def exercise(client: Client) -> dict[str, str]:
    """Calls every tool; returns the ids it stored."""
    call = client.call_tool
    request = result(
        await call(
            "remember",
            {
                "content": "Acme asked for a 15% discount on the annual plan",
                "entity_id": "acme",
                "importance": 0.8,
                "context": {"channel": "email"},
            },
        )
    )
    decision = result(
        await call(
            "remember",
            {
                "content": "We approved a 12% discount for Acme after the pricing review",
                "entity_id": "acme",
                "edges": [{"target": request["id"], "edge_type": "caused_by"}],
            },
        )
    )
    result(
        await call("remember", {"content": "Globex prefers invoices in PDF", "entity_id": "globex"})
    )
    assert request["context"] == {"channel": "email"}
    assert request["importance"] == pytest.approx(0.8)

    default = result(await call("recall", {"cue": "did Acme get a price reduction?", "top_k": 2}))
    top = default["results"][0]
    assert top["memory"]["entity_id"] == "acme"
    [detail] = top["strategy_details"]
    assert detail["strategy"] == "hybrid"
    assert detail["rerank_score"] is not None
    signals = ("relevance", "recency", "importance", "reinforcement")
    weights = (0.5, 0.2, 0.2, 0.1)
    assert top["score"] == pytest.approx(
        sum(w * top["scores"][name] for w, name in zip(weights, signals)), abs=1e-5
    )
    for strategies in (["similarity"], ["keyword"], ["hybrid"], ["analogical"]):
        found = result(
            await call("recall", {"cue": "Acme discount", "strategies": strategies, "top_k": 2})
        )
        assert found["results"][0]["memory"]["entity_id"] == "acme", strategies
        assert found["results"][0]["strategy_details"][0]["strategy"] == strategies[0]
    temporal = result(
        await call("recall", {"strategies": ["temporal"], "entity_id": "acme", "top_k": 5})
    )
    assert {hit["memory"]["id"] for hit in temporal["results"]} == {request["id"], decision["id"]}
    causal = result(
        await call(
            "recall",
            {
                "strategies": [{"strategy": "causal", "seed_memory_id": decision["id"]}],
                "direction": "causes",
            },
        )
    )
    assert request["id"] in {hit["memory"]["id"] for hit in causal["results"]}
    weighted = result(
        await call(
            "recall",
            {
                "cue": "discount",
                "scoring_weights": {"w_relevance": 1.0, "w_recency": 0.0},
                "strategies": ["similarity"],
            },
        )
    )
    assert weighted["results"]
    emailed = result(
        await call("recall", {"cue": "Acme discount", "filter": {"context.channel": "email"}})
    )
    assert [hit["memory"]["id"] for hit in emailed["results"]] == [request["id"]]
    bad_filter = failure(
        await call("recall", {"cue": "x", "filter": {"$and": [{"context.a": {"$in": 1}}]}})
    )
    assert bad_filter == {**bad_filter, "error_code": "invalid_input"}
    assert bad_filter["field"] == "filter.$and[0].context.a.$in"

    primed = result(await call("prime", {"entity_id": "acme", "cue": "pricing"}))
    assert primed["temporal_count"] >= 2
    assert {hit["memory"]["id"] for hit in primed["results"]} >= {request["id"], decision["id"]}

    revised = result(await call("revise", {"id": decision["id"], "content": "We approved 10%"}))
    assert revised["kind"] == "revision"
    lineage = result(await call("lineage", {"id": revised["id"]}))
    assert [m["id"] for m in lineage["memories"]] == [decision["id"], revised["id"]]
    stale = failure(await call("revise", {"id": decision["id"], "content": "We approved 9%"}))
    assert stale == {**stale, "error_code": "conflict", "field": "id"}
    assert revised["id"] in stale["message"]
    got = result(await call("get", {"id": request["id"]}))
    assert got["content"] == request["content"]
    assert got["access_count"] >= 1
    assert result(await call("reinforce", {"ids": [request["id"]]})) == {"ok": True}
    used = result(await call("get", {"id": request["id"]}))
    assert used["access_count"] == got["access_count"] + 1
    assert failure(await call("reinforce", {"ids": ["nothex"]}))["field"] == "ids[0]"

    episodes = [
        result(await call("remember", {"content": text, "entity_id": "initech"}))["id"]
        for text in (
            "Initech's deploy failed on Friday evening",
            "Another Initech deploy failed late on a Friday",
            "Initech rolled back a failed Friday deploy",
            "The Friday deploy at Initech failed again",
        )
    ]
    reflected = result(await call("reflect", {"entity_id": "initech"}))
    assert reflected["memories_processed"] == len(episodes)
    assert reflected["insights_created"] >= 1
    insights = result(await call("insights", {"entity_id": "initech"}))["insights"]
    assert len(insights) == reflected["insights_created"]
    assert set(insights[0]["source_ids"]) <= set(episodes)
    assert insights[0]["memory"]["kind"] == "insight"
    assert failure(await call("insights", {"min_confidence": 2}))["field"] == "min_confidence"

    forgotten = result(await call("forget", {"entity_id": "globex"}))
    assert forgotten["forgotten_count"] == 1

    bad = failure(await call("recall", {"cue": "x", "top_k": 0}))
    assert bad == {**bad, "error_code": "invalid_input", "field": "top_k"}
    assert failure(await call("get", {"id": "0" * 32}))["error_code"] == "not_found"
    assert failure(await call("remember", {}))["field"] == "content"
    assert failure(await call("recall", {"cue": "x", "cue_embedding": [1.0]}))["field"] == (
        "cue_embedding"
    )
    return {"request": request["id"], "revised": revised["id"]}


async def test_stdio_over_a_directory(tmp_path: Path) -> None:
    async with stdio("--db", str(tmp_path / "db")) as client:
        await check_listing(client)
        ids = await exercise(client)
    with Hebbs.open(tmp_path / "db") as mem:
        assert mem.get(ids["request"]).entity_id == "acme"
        assert mem.get(ids["revised"]).content == "We approved 10%"
        assert mem.list_memories(entity_id="globex").memories == []


async def test_stdio_over_a_server(hebbs_server: Server) -> None:
    key = hebbs_server.new_key("write")
    async with stdio("--url", hebbs_server.url, "--api-key", key) as client:
        await exercise(client)


async def test_streamable_http_in_serve(hebbs_server: Server) -> None:
    async with over_http(hebbs_server, hebbs_server.new_key("write")) as client:
        await check_listing(client)
        await exercise(client)


async def test_http_keys_scopes_and_tenants(hebbs_server: Server) -> None:
    writer = hebbs_server.new_key("write")
    async with over_http(hebbs_server, writer) as client:
        stored = result(await client.call_tool("remember", {"content": "secret plan"}))
    reader = hebbs_server.new_key("read")
    async with over_http(hebbs_server, reader) as client:
        refused = failure(await client.call_tool("remember", {"content": "x"}))
        assert refused["error_code"] == "forbidden"
        other = failure(await client.call_tool("get", {"id": stored["id"]}))
        assert other["error_code"] == "not_found"
        found = result(await client.call_tool("recall", {"cue": "secret plan"}))
        assert found["results"] == []
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer hb_not-a-key"}):
        answer = httpx.post(hebbs_server.url + "/mcp", json=listing, headers=headers)
        assert answer.status_code == 401
        assert answer.json()["error_code"] == "unauthorized"


async def test_http_recall_includes_the_organization(hebbs_server: Server) -> None:
    policy = "company policy: every production deploy needs two reviewers"
    writer, key, _, _ = hebbs_server.new_organization()
    async with over_http(hebbs_server, writer) as client:
        result(await client.call_tool("remember", {"content": policy}))
    cue = {"cue": "who reviews a production deploy?", "include_organization": True}
    async with over_http(hebbs_server, key) as client:
        result(await client.call_tool("remember", {"content": "our team deploys on Fridays"}))
        found = result(await client.call_tool("recall", cue))
        shared = found["organization_memory"]["results"]
        assert [item["memory"]["content"] for item in shared] == [policy]
        assert policy not in [item["memory"]["content"] for item in found["results"]]
        alone = result(await client.call_tool("recall", {"cue": cue["cue"]}))
        assert alone["organization_memory"] is None
    async with over_http(hebbs_server, hebbs_server.new_key("read")) as client:
        refused = failure(await client.call_tool("recall", cue))
        assert refused["field"] == "include_organization"
        assert "member of no organization" in refused["message"]
