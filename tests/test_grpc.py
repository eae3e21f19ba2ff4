"""The gRPC interface: the committed generated messages match ``hebbs.proto``; our descriptors
carry every service, method, message, field number and type of the reference HEBBS protocol;
and the reference Python SDK (PyPI ``hebbs==0.4.1``, in a virtual environment of its own,
created from PyPI on first use and cached under :data:`REFERENCE_VENV`) runs every call against
``hebbs serve``'s gRPC port, its answers checked against the embedded API of the same store."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2
from tests.venvs import cached_venv

from hebbs import Hebbs
from hebbs.embedder import Embedder
from hebbs.rpc import hebbs_pb2
from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "python" / "hebbs" / "rpc" / "hebbs.proto"
SCRIPT = Path(__file__).with_name("grpc_reference_script.py")
#: The reference SDK's version the protocol is checked against.
REFERENCE_SDK = "hebbs==0.4.1"
#: Where its virtual environment is kept between runs (``HEBBS_REFSDK_VENV`` overrides).
REFERENCE_VENV = Path(
    os.environ.get("HEBBS_REFSDK_VENV", Path.home() / ".cache" / "hebbs-refsdk-venv")
)


def ours() -> descriptor_pb2.FileDescriptorProto:
    found = descriptor_pb2.FileDescriptorProto()
    hebbs_pb2.DESCRIPTOR.CopyToProto(found)
    return found


def test_committed_messages_match_the_proto(tmp_path: Path) -> None:
    from grpc_tools import protoc

    out = tmp_path / "set.pb"
    include = Path(protoc.__file__).parent / "_proto"
    status = protoc.main(
        [
            "protoc",
            f"-I{ROOT / 'python'}",
            f"-I{include}",
            f"--descriptor_set_out={out}",
            str(PROTO),
        ]
    )
    assert status == 0
    compiled = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    for _, message in _messages(compiled.message_type):
        for field in message.field:
            field.ClearField("json_name")  # the generated module leaves the default out
    assert compiled == ours(), "run scripts/gen_proto.sh and commit its output"


@pytest.fixture(scope="module")
def reference() -> Path:
    version = REFERENCE_SDK.split("==")[1]
    probe = f"import importlib.metadata as m; assert m.version('hebbs') == {version!r}"
    return cached_venv(REFERENCE_VENV, REFERENCE_SDK, probe)


def _fields(message: descriptor_pb2.DescriptorProto) -> dict[int, tuple[Any, ...]]:
    return {
        field.number: (field.name, field.type, field.label, field.type_name, field.proto3_optional)
        for field in message.field
    }


def _messages(
    messages: Any, prefix: str = ""
) -> Iterator[tuple[str, descriptor_pb2.DescriptorProto]]:
    for message in messages:
        yield prefix + message.name, message
        yield from _messages(message.nested_type, f"{prefix}{message.name}.")


def _enums(file: descriptor_pb2.FileDescriptorProto) -> dict[str, dict[str, int]]:
    found = {enum.name: {v.name: v.number for v in enum.value} for enum in file.enum_type}
    for name, message in _messages(file.message_type):
        for enum in message.enum_type:
            found[f"{name}.{enum.name}"] = {v.name: v.number for v in enum.value}
    return found


def test_descriptors_carry_the_reference_protocol(reference: Path) -> None:
    done = subprocess.run(
        [str(reference), str(SCRIPT), "--descriptor"], capture_output=True, text=True, check=True
    )
    theirs = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(done.stdout))
    mine = ours()
    assert theirs.package == mine.package == "hebbs.v1"
    my_messages = dict(_messages(mine.message_type))
    for name, message in _messages(theirs.message_type):
        assert name in my_messages, name
        assert _fields(my_messages[name]) == _fields(message), name
    my_enums = _enums(mine)
    for name, values in _enums(theirs).items():
        assert values.items() <= my_enums[name].items(), name
    my_services = {service.name: service for service in mine.service}
    for service in theirs.service:
        methods = {
            m.name: (m.input_type, m.output_type, m.client_streaming, m.server_streaming)
            for m in my_services[service.name].method
        }
        for method in service.method:
            shape = (
                method.input_type,
                method.output_type,
                method.client_streaming,
                method.server_streaming,
            )
            assert methods[method.name] == shape, (service.name, method.name)


def test_reference_sdk_against_our_server(
    reference: Path, tmp_path: Path, embedder: Embedder
) -> None:
    keys = KeyStore(tmp_path)
    write_key, _ = keys.create("acme", "write")
    read_key, _ = keys.create("beta", "read")
    keys.close()
    with BackgroundServer(tmp_path, embedder=embedder, grpc_port=0) as server:
        tenants = server.app.state.tenants
        with tenants.lease("acme") as engine:
            insight = engine.remember(
                "Acme negotiates hard on price", entity_id="acme", kind="insight"
            )
        address = f"127.0.0.1:{server.app.state.grpc_port}"
        command = [str(reference), str(SCRIPT), address, write_key, read_key]
        with subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as script:
            assert script.stdout is not None
            first = script.stdout.readline()
            assert first, script.communicate(timeout=60)[1][-4000:]
            stored = json.loads(first)
            with tenants.lease("acme") as engine:
                check_stores_and_recalls(stored, engine)
            rest, errors = script.communicate("continue\n", timeout=300)
            assert script.returncode == 0, errors[-4000:]
        with tenants.lease("acme") as engine:
            check_the_rest(json.loads(rest), stored, engine, insight.id_hex)


RELEVANCE_ONLY = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}


def check_stores_and_recalls(out: dict[str, Any], engine: Hebbs) -> None:
    """The first part of the transcript against the embedded API on the same store state."""
    ask, approve = out["remember"]
    stored = engine.get(ask["id"])
    assert ask == {**ask, "content": stored.content, "entity_id": "acme", "kind": "episode"}
    assert ask["importance"] == pytest.approx(stored.importance)
    assert ask["context"] == stored.context == {"channel": "email", "topic": "pricing"}
    assert out["get"] == {**ask, "created_at": stored.created_at}

    similar = engine.recall(
        "Acme discount", strategies=["similarity"], scoring_weights=RELEVANCE_ONLY
    )
    assert out["similarity"]["ids"] == [r.memory.id_hex for r in similar.results]
    assert out["similarity"]["scores"] == pytest.approx(
        [r.score for r in similar.results], abs=1e-4
    )
    assert {ask["id"], approve["id"]} <= set(out["similarity"]["ids"])
    timeline = engine.recall(strategies=["temporal"], entity_id="acme")
    assert set(out["temporal"]["ids"]) == {r.memory.id_hex for r in timeline.results}
    assert {ask["id"], approve["id"]} <= set(out["temporal"]["ids"])
    assert all(s == ["temporal"] for s in out["temporal"]["strategies"])
    assert ask["id"] in out["causal"]["ids"]
    analog = engine.recall(
        "price negotiation",
        strategies=["analogical"],
        cue_context={"topic": "pricing"},
        scoring_weights=RELEVANCE_ONLY,
    )
    assert set(out["analogical"]["ids"]) == {r.memory.id_hex for r in analog.results}
    assert {"similarity", "temporal"} <= {s for row in out["multi"]["strategies"] for s in row}
    # A gRPC recall that names no strategy keeps the protocol's default, similarity.
    weighted = engine.recall(
        "discount",
        strategies=["similarity"],
        scoring_weights={"w_relevance": 0.1, "w_recency": 0.9},
    )
    assert set(out["weighted"]["ids"]) == {r.memory.id_hex for r in weighted.results}
    assert all(s == ["similarity"] for s in out["weighted"]["strategies"])
    assert out["weighted"]["errors"] == []

    assert out["prime"]["temporal_count"] >= 2
    assert {ask["id"], approve["id"]} <= set(out["prime"]["ids"])


def check_the_rest(out: dict[str, Any], first: dict[str, Any], engine: Hebbs, insight: str) -> None:
    """Subscribe, revise, insights, forget, health and the errors."""
    ask, approve = first["remember"]
    sub = out["subscribe"]
    assert sub["id"] > 0
    assert sub["same_id"]
    assert sub["pushed"][-1] == sub["later"]
    assert ask["id"] in sub["pushed"][:-1]
    assert len(set(sub["pushed"])) == len(sub["pushed"])
    assert sub["sequence"] == list(range(1, len(sub["sequence"]) + 1))

    revised = out["revise"]
    assert revised["kind"] == "revision"
    assert [m.id_hex for m in engine.lineage(revised["id"])] == [approve["id"], revised["id"]]
    assert engine.get(revised["id"]).content == revised["content"]

    assert out["insights"] == [insight]
    assert out["insights_none"] == []

    assert out["forget"]["forgotten_count"] == 1
    assert engine.tombstone(out["forget"]["id"]) is not None
    assert out["health"] == {"serving": True, "memory_count": engine.health().memory_count}
    assert out["errors"] == {
        "not_found": "HebbsNotFoundError",
        "invalid": "HebbsInvalidArgumentError",
        "read_key_writes": "HebbsPermissionDeniedError",
        "other_tenant": "HebbsNotFoundError",
        "bad_key": "HebbsAuthenticationError",
    }


def test_serve_grpc_port_flag(tmp_path: Path) -> None:
    """``hebbs serve --grpc-port`` (here without auth) answers the health check over gRPC with
    our own messages, and REST keeps serving beside it."""
    import grpc
    from tests.remote import _free_port

    port, grpc_port = _free_port(), _free_port()
    hebbs = Path(sys.executable).with_name("hebbs")
    command = [str(hebbs), "serve", "--db", str(tmp_path), "--no-auth"]
    command += ["--port", str(port), "--grpc-port", str(grpc_port)]
    with subprocess.Popen(command, stderr=subprocess.PIPE) as server:
        try:
            with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
                check = channel.unary_unary(
                    "/hebbs.v1.HealthService/Check",
                    request_serializer=hebbs_pb2.HealthCheckRequest.SerializeToString,
                    response_deserializer=hebbs_pb2.HealthCheckResponse.FromString,
                )
                answer = check(hebbs_pb2.HealthCheckRequest(), wait_for_ready=True, timeout=60)
            assert answer.status == hebbs_pb2.HealthCheckResponse.SERVING
            assert answer.memory_count == 0
        finally:
            server.terminate()
            server.wait(timeout=30)


def test_statuses_fields_and_tenants(tmp_path: Path, embedder: Embedder) -> None:
    """What the reference SDK does not send: values hebbs has no meaning for, another tenant's
    id or subscription, the methods hebbs does not serve yet, a revise of a superseded memory
    (a conflict, nothing written); each a typed status."""
    import grpc

    keys = KeyStore(tmp_path)
    acme, _ = keys.create("acme", "write")
    beta, _ = keys.create("beta", "write")
    admin, _ = keys.create("acme", "admin")
    keys.close()
    pb = hebbs_pb2
    with BackgroundServer(tmp_path, embedder=embedder, grpc_port=0) as server:
        channel = grpc.insecure_channel(f"127.0.0.1:{server.app.state.grpc_port}")

        def call(method: str, request: Any, response: Any, key: str = acme) -> Any:
            stub = channel.unary_unary(
                method,
                request_serializer=type(request).SerializeToString,
                response_deserializer=response.FromString,
            )
            return stub(request, metadata=[("authorization", f"Bearer {key}")], timeout=30)

        def status(method: str, request: Any, key: str = acme) -> tuple[Any, dict[str, str]]:
            with pytest.raises(grpc.RpcError) as raised:
                call(method, request, pb.FeedResponse, key)
            error: Any = raised.value
            return error.code(), dict(error.trailing_metadata())

        remember = "/hebbs.v1.MemoryService/Remember"
        stored = call(remember, pb.RememberRequest(content="Acme pays yearly"), pb.RememberResponse)
        edge = pb.Edge(target_id=stored.memory.memory_id, edge_type=pb.EDGE_TYPE_CONTRADICTS)
        code, trailers = status(remember, pb.RememberRequest(content="x", edges=[edge]))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert trailers == {"error-code": "invalid_input", "field": "edges[0].edge_type"}
        code, trailers = status(remember, pb.RememberRequest(content="x", tenant_id="beta"))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        unknown = pb.RecallRequest(cue="x", strategies=[pb.RecallStrategyConfig()])
        code, trailers = status("/hebbs.v1.MemoryService/Recall", unknown)
        assert trailers["field"] == "strategies[0].strategy_type"
        hybrid = pb.RecallRequest(
            cue="yearly", strategies=[pb.RecallStrategyConfig(strategy_type=pb.HYBRID)]
        )
        found = call("/hebbs.v1.MemoryService/Recall", hybrid, pb.RecallResponse)
        assert found.results[0].strategy_details[0].strategy_type == pb.HYBRID
        got = pb.GetRequest(memory_id=stored.memory.memory_id)
        assert status("/hebbs.v1.MemoryService/Get", got, beta)[0] == grpc.StatusCode.NOT_FOUND
        policy = "/hebbs.v1.MemoryService/SetPolicy"
        assert status(policy, pb.SetPolicyRequest())[0] == grpc.StatusCode.PERMISSION_DENIED
        assert status(policy, pb.SetPolicyRequest(), admin)[0] == grpc.StatusCode.UNIMPLEMENTED
        code, trailers = status("/hebbs.v1.ReflectService/Reflect", pb.ReflectRequest())
        assert (code, trailers["error-code"]) == (grpc.StatusCode.UNIMPLEMENTED, "not_implemented")

        subscribe = channel.unary_stream(
            "/hebbs.v1.SubscribeService/Subscribe",
            request_serializer=pb.SubscribeRequest.SerializeToString,
            response_deserializer=pb.SubscribePushMessage.FromString,
        )
        stream = subscribe(
            pb.SubscribeRequest(confidence_threshold=0.2),
            metadata=[("authorization", f"Bearer {acme}")],
        )
        handshake = next(stream)
        assert handshake.subscription_id > 0
        assert not handshake.HasField("memory")
        feed = pb.FeedRequest(subscription_id=handshake.subscription_id, text="yearly payments")
        assert status("/hebbs.v1.SubscribeService/Feed", feed, beta)[0] == grpc.StatusCode.NOT_FOUND
        call("/hebbs.v1.SubscribeService/Feed", feed, pb.FeedResponse)
        assert next(stream).memory.memory_id == stored.memory.memory_id
        close = pb.CloseSubscriptionRequest(subscription_id=handshake.subscription_id)
        call("/hebbs.v1.SubscribeService/CloseSubscription", close, pb.CloseSubscriptionResponse)
        assert list(stream) == []

        revise = "/hebbs.v1.MemoryService/Revise"
        old = pb.ReviseRequest(memory_id=stored.memory.memory_id, content="Acme pays monthly")
        newer = call(revise, old, pb.ReviseResponse).memory
        code, trailers = status(revise, old)
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert trailers == {"error-code": "conflict", "field": "id"}
        with server.app.state.tenants.lease("acme") as engine:
            assert [m.id for m in engine.lineage(newer.memory_id)] == [
                stored.memory.memory_id,
                newer.memory_id,
            ]
        channel.close()
