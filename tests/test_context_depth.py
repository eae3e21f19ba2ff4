"""The context depth limit is one constant (``MAX_JSON_DEPTH``) that every surface honours,
and the deepest context it accepts comes back whole on every surface: stored over REST,
``/mcp``, gRPC and the client, each memory is read back by REST (``GET`` and recall), MCP
(``get`` and ``recall``), gRPC (``Get`` and ``Recall``) and the client (``get`` and
``recall``); one level deeper is refused on each, naming ``context``, with nothing stored.

The server is a real one (``BackgroundServer`` on 127.0.0.1 with its gRPC port)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import grpc
import httpx
import numpy as np
import pytest
from tests.grpc_calls import GRPC_TENANT, GrpcCaller
from tests.remote import Server
from tests.test_mcp import over_http

from hebbs import HebbsClient, InvalidInputError
from hebbs.api.fields import MAX_JSON_DEPTH
from hebbs.rpc import hebbs_pb2 as pb
from hebbs.rpc.convert import struct_dict
from hebbs.server.serve import BackgroundServer

Embed = Callable[[list[str]], np.ndarray]
#: Results asked of each recall: more than the memories the test stores.
TOP_K = 50


def objects(depth: int) -> dict[str, Any]:
    """``depth`` nested objects, the innermost empty: an object at every level."""
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def objects_to_a_string(depth: int) -> dict[str, Any]:
    """Objects nested to ``depth - 1`` whose innermost holds a string (at ``depth``)."""
    value: Any = "leaf"
    for _ in range(depth - 2):
        value = {"a": value}
    return {"a": value}


def lists(depth: int) -> dict[str, Any]:
    """An object holding lists nested to ``depth - 1``, the innermost holding a string."""
    value: Any = "leaf"
    for _ in range(depth - 2):
        value = [value]
    return {"a": value}


#: The deepest contexts the limit accepts, by shape.
DEEPEST = {
    "objects": objects(MAX_JSON_DEPTH),
    "objects_to_a_string": objects_to_a_string(MAX_JSON_DEPTH),
    "lists": lists(MAX_JSON_DEPTH),
}


def _mcp_answer(answer: Any) -> Any:
    return json.loads(answer.content[0].text)


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _memory_count(server: BackgroundServer) -> int:
    with server.app.state.tenants.lease(GRPC_TENANT) as engine:
        return engine.health().memory_count


async def test_the_deepest_accepted_context_round_trips_on_every_surface(
    grpc_server: tuple[BackgroundServer, str], grpc_caller: GrpcCaller
) -> None:
    running, key = grpc_server
    url, headers = running.url, _bearer(key)
    expected: dict[str, dict[str, Any]] = {}
    client = HebbsClient(url, key)
    async with over_http(Server(url, Path()), key) as mcp:
        for shape, context in DEEPEST.items():
            body = {"content": f"rest {shape}", "context": context}
            stored = httpx.post(url + "/v1/memories", json=body, headers=headers, timeout=60)
            assert stored.status_code == 201, stored.text
            expected[stored.json()["id"]] = context
            answer = await mcp.call_tool(
                "remember", {"content": f"mcp {shape}", "context": context}
            )
            assert not answer.is_error, answer.content[0].text
            expected[_mcp_answer(answer)["id"]] = context
            request = pb.RememberRequest(content=f"grpc {shape}")
            request.context.update(context)
            memory = grpc_caller.call(
                "/hebbs.v1.MemoryService/Remember", request, pb.RememberResponse
            )
            expected[memory.memory.memory_id.hex()] = context
            expected[client.remember(f"client {shape}", context=context).id.hex()] = context

        for id, context in expected.items():
            got = httpx.get(f"{url}/v1/memories/{id}", headers=headers, timeout=60)
            assert got.json()["context"] == context, ("REST get", id)
            assert _mcp_answer(await mcp.call_tool("get", {"id": id}))["context"] == context
            answer = grpc_caller.call(
                "/hebbs.v1.MemoryService/Get",
                pb.GetRequest(memory_id=bytes.fromhex(id)),
                pb.GetResponse,
            )
            assert struct_dict(answer.memory.context) == context, ("gRPC Get", id)
            assert client.get(id).context == context, ("client get", id)

        recall = {"cue": "rest mcp grpc client", "top_k": TOP_K}
        found = httpx.post(url + "/v1/memories/recall", json=recall, headers=headers, timeout=60)
        rest = {hit["memory"]["id"]: hit["memory"]["context"] for hit in found.json()["results"]}
        mcp_found = _mcp_answer(await mcp.call_tool("recall", recall))["results"]
        over_mcp = {hit["memory"]["id"]: hit["memory"]["context"] for hit in mcp_found}
    answer = grpc_caller.call(
        "/hebbs.v1.MemoryService/Recall",
        pb.RecallRequest(cue=recall["cue"], top_k=TOP_K),
        pb.RecallResponse,
    )
    over_grpc = {
        hit.memory.memory_id.hex(): struct_dict(hit.memory.context) for hit in answer.results
    }
    over_client = {
        hit.memory.id.hex(): hit.memory.context
        for hit in client.recall(recall["cue"], top_k=TOP_K).results
    }
    client.close()
    for surface, returned in (
        ("REST", rest),
        ("MCP", over_mcp),
        ("gRPC", over_grpc),
        ("client", over_client),
    ):
        assert returned == expected, surface


async def test_one_level_deeper_is_refused_on_every_surface(
    grpc_server: tuple[BackgroundServer, str], grpc_caller: GrpcCaller
) -> None:
    running, key = grpc_server
    url, headers = running.url, {"Authorization": f"Bearer {key}"}
    before = _memory_count(running)
    for context in (objects(MAX_JSON_DEPTH + 1), lists(MAX_JSON_DEPTH + 1)):
        body = {"content": "too deep", "context": context}
        answer = httpx.post(url + "/v1/memories", json=body, headers=headers, timeout=60)
        assert answer.status_code == 400, answer.text
        assert answer.json()["field"].startswith("context"), answer.json()
        async with over_http(Server(url, Path()), key) as mcp:
            refused = await mcp.call_tool("remember", body)
        assert refused.is_error
        assert _mcp_answer(refused)["field"].startswith("context")
        request = pb.RememberRequest(content="too deep")
        request.context.update(context)
        code, trailers = grpc_caller.refused("/hebbs.v1.MemoryService/Remember", request)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert trailers["field"].startswith("context"), trailers
        with HebbsClient(url, key) as client, pytest.raises(InvalidInputError) as caught:
            client.remember("too deep", context=context)
        assert str(caught.value.field).startswith("context")
    assert _memory_count(running) == before


def test_the_documented_limit_is_the_constant() -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "server.md").read_text()
    assert f"MAX_JSON_DEPTH = {MAX_JSON_DEPTH}" in docs
