"""The gRPC port's answers to bad input, on a real server (``BackgroundServer`` with a gRPC
port on 127.0.0.1): a context REST refuses (NaN, nested past ``MAX_JSON_DEPTH``) is
``INVALID_ARGUMENT`` with the ``error-code`` and ``field`` trailers, and bytes that are no
message of the method's type (garbage, a ``Struct`` nested past protobuf's decoder limit) are
``INVALID_ARGUMENT`` on ``body`` after the key check, never grpcio's own ``INTERNAL``."""

from __future__ import annotations

from typing import Callable

import grpc
import numpy as np
import pytest
from tests.grpc_calls import GRPC_TENANT, GrpcCaller

from hebbs.api import fields
from hebbs.api.fields import MAX_JSON_DEPTH
from hebbs.rpc import hebbs_pb2 as pb
from hebbs.rpc.services import METHODS
from hebbs.server.serve import BackgroundServer

Embed = Callable[[list[str]], np.ndarray]
REMEMBER = "/hebbs.v1.MemoryService/Remember"
#: Struct levels past what protobuf's decoders (100 nested messages) read.
UNDECODABLE_DEPTH = 200
#: The context depth limit before it was lowered to what gRPC carries.
LEGACY_DEPTH = 64


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def nested_struct(levels: int) -> bytes:
    """The bytes of a ``Struct`` ``{"a": {"a": ... {}}}`` of ``levels`` objects, written by hand
    (protobuf's Python runtime will not build one past its own depth limit)."""
    struct = b""
    for _ in range(levels - 1):
        value = _field(5, struct)  # Value.struct_value
        struct = _field(1, _field(1, b"a") + _field(2, value))  # Struct.fields entry
    return struct


def _remember_with_context(struct: bytes) -> bytes:
    number = pb.RememberRequest.DESCRIPTOR.fields_by_name["context"].number
    return pb.RememberRequest(content="x").SerializeToString() + _field(number, struct)


def _count(grpc_server: tuple[BackgroundServer, str]) -> int:
    with grpc_server[0].app.state.tenants.lease(GRPC_TENANT) as engine:
        return engine.health().memory_count


def test_a_nan_in_context_is_an_invalid_argument_naming_it(
    grpc_caller: GrpcCaller, grpc_server: tuple[BackgroundServer, str]
) -> None:
    before = _count(grpc_server)
    request = pb.RememberRequest(content="x")
    request.context.update({"v": float("nan")})
    code, trailers = grpc_caller.refused(REMEMBER, request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert trailers["error-code"] == "invalid_input"
    assert trailers["field"].startswith("context"), trailers
    recall = pb.RecallRequest(cue="x")
    recall.cue_context.update({"v": float("inf")})
    code, trailers = grpc_caller.refused("/hebbs.v1.MemoryService/Recall", recall)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert trailers["field"].startswith("cue_context"), trailers
    assert _count(grpc_server) == before


def test_a_context_past_the_depth_limit_is_an_invalid_argument(grpc_caller: GrpcCaller) -> None:
    code, trailers = grpc_caller.refused(
        REMEMBER, _remember_with_context(nested_struct(MAX_JSON_DEPTH + 1))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert trailers["error-code"] == "invalid_input"
    assert trailers["field"].startswith("context"), trailers


@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.name)
def test_undecodable_bytes_are_an_invalid_argument_on_body(
    grpc_caller: GrpcCaller, method: object
) -> None:
    path = f"/hebbs.v1.{method.service}/{method.name}"  # type: ignore[attr-defined]
    for data in (b"\xff\xff\xff\xff", b"\x0a\x05ab"):
        code, trailers = grpc_caller.refused(path, data)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (path, data)
        assert trailers == {"error-code": "invalid_input", "field": "body"}


def test_a_struct_past_the_decoders_depth_is_an_invalid_argument(
    grpc_caller: GrpcCaller, grpc_server: tuple[BackgroundServer, str]
) -> None:
    before = _count(grpc_server)
    code, trailers = grpc_caller.refused(
        REMEMBER, _remember_with_context(nested_struct(UNDECODABLE_DEPTH))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert trailers == {"error-code": "invalid_input", "field": "body"}
    assert _count(grpc_server) == before


def test_undecodable_bytes_without_a_key_are_unauthenticated(grpc_caller: GrpcCaller) -> None:
    anonymous = GrpcCaller(grpc_caller.channel, None)
    code, trailers = anonymous.refused(REMEMBER, b"\xff\xff\xff\xff")
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert trailers["error-code"] == "unauthorized"


def test_a_context_stored_deeper_before_the_limit_is_a_conflict_not_unknown(
    grpc_caller: GrpcCaller,
    grpc_server: tuple[BackgroundServer, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A store written when the limit was 64 may hold such a context: gRPC names it."""
    context: dict[str, object] = {}
    for _ in range(LEGACY_DEPTH - 1):
        context = {"a": context}
    monkeypatch.setattr(fields, "MAX_JSON_DEPTH", LEGACY_DEPTH)
    with grpc_server[0].app.state.tenants.lease(GRPC_TENANT) as engine:
        stored = engine.remember("legacy deep context", context=context)
    monkeypatch.undo()
    get = pb.GetRequest(memory_id=stored.id)
    code, trailers = grpc_caller.refused("/hebbs.v1.MemoryService/Get", get)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert trailers == {"error-code": "conflict", "field": "context"}
    recall = pb.RecallRequest(cue="legacy deep context", top_k=50)
    code, trailers = grpc_caller.refused("/hebbs.v1.MemoryService/Recall", recall)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    with grpc_server[0].app.state.tenants.lease(GRPC_TENANT) as engine:
        engine.forget(ids=[stored.id])
