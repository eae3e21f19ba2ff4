"""A property-based fuzz of the gRPC port, beside the REST fuzz (``test_server_fuzz.py``): every
method of :data:`hebbs.rpc.services.METHODS` gets hypothesis-generated messages built from its
request descriptor (any field set or not, integers across their whole range, enum numbers hebbs
has no meaning for, floats with NaN and the infinities, ``Struct`` contexts of any JSON, ids
that exist and ids that do not) and bytes that are no message at all (random, or a message
cut short). No answer may be ``UNKNOWN`` or ``INTERNAL`` (an exception the handlers did not
map, or grpcio's own answer to an undecodable request), and every refusal carries the
``error-code`` trailer.

The server is a real one on 127.0.0.1 (``BackgroundServer`` with its gRPC port) over the small
deterministic embedder, unthrottled. CI runs a few derandomized examples per method;
``HEBBS_FUZZ_EXAMPLES=2000`` runs a long random search.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Callable

import grpc
import numpy as np
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.grpc_calls import channel_to, keyed_server

from hebbs.rpc import hebbs_pb2 as pb
from hebbs.rpc.services import METHODS, Method
from hebbs.server.serve import BackgroundServer

Embed = Callable[[list[str]], np.ndarray]

#: Examples per method and kind of input; ``HEBBS_FUZZ_EXAMPLES`` runs that many random ones.
EXAMPLES = int(os.environ.get("HEBBS_FUZZ_EXAMPLES", "12"))
#: The same examples every run unless a long search was asked for.
DERANDOMIZE = "HEBBS_FUZZ_EXAMPLES" not in os.environ
#: Requests a second the fuzz may make without being throttled.
UNTHROTTLED = 1e9
#: Seconds one call may take.
CALL_TIMEOUT_S = 30.0
#: Statuses that mean the server failed to map a failure.
UNMAPPED = frozenset({grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL})
#: How deeply generated messages nest inside each other.
MESSAGE_DEPTH = 3
#: Memories stored before the fuzz, so generated ids sometimes exist.
SEEDED = ("Acme pays yearly", "Globex prefers invoices", "the launch moved to March")
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=DERANDOMIZE,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

_F = FieldDescriptor
_INT_RANGES = {
    _F.TYPE_INT32: (-(2**31), 2**31 - 1),
    _F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    _F.TYPE_UINT32: (0, 2**32 - 1),
    _F.TYPE_FIXED32: (0, 2**32 - 1),
    _F.TYPE_INT64: (-(2**63), 2**63 - 1),
    _F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    _F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    _F.TYPE_UINT64: (0, 2**64 - 1),
    _F.TYPE_FIXED64: (0, 2**64 - 1),
}

#: Any JSON value a ``Struct`` holds, NaN and the infinities included.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def _integer(field: FieldDescriptor) -> st.SearchStrategy[int]:
    low, high = _INT_RANGES[field.type]
    return st.one_of(st.integers(low, high), st.integers(max(low, -2), min(high, 1100)))


def _scalar(field: FieldDescriptor, ids: st.SearchStrategy[bytes]) -> st.SearchStrategy[Any]:
    if field.type in _INT_RANGES:
        return _integer(field)
    if field.type == _F.TYPE_ENUM:
        return st.integers(-1, max(value.number for value in field.enum_type.values) + 2)
    if field.type == _F.TYPE_DOUBLE:
        return st.floats()
    if field.type == _F.TYPE_FLOAT:
        return st.floats(width=32)
    if field.type == _F.TYPE_BOOL:
        return st.booleans()
    if field.type == _F.TYPE_STRING:
        return st.text(max_size=40)
    if field.type == _F.TYPE_BYTES:
        return ids
    raise AssertionError(f"no strategy for {field.full_name}")


def messages(
    descriptor: Descriptor, ids: st.SearchStrategy[bytes], depth: int = MESSAGE_DEPTH
) -> st.SearchStrategy[Any]:
    """Messages of ``descriptor``'s type with any subset of its fields set."""
    if descriptor.full_name == "google.protobuf.Struct":
        return st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.message_type is not None:
            if depth == 0:
                continue
            value = messages(field.message_type, ids, depth - 1)
        else:
            value = _scalar(field, ids)
        if field.is_repeated:
            value = st.lists(value, max_size=3)
        fields[field.name] = st.none() | value
    return st.fixed_dictionaries(fields).map(lambda given: _build(descriptor, given))


def _build(descriptor: Descriptor, given: dict[str, Any]) -> Any:
    message = message_factory.GetMessageClass(descriptor)()
    for name, value in given.items():
        if value is None:
            continue
        field = descriptor.fields_by_name[name]
        target = getattr(message, name) if field.message_type is not None else None
        if field.message_type is None:
            if field.is_repeated:
                getattr(message, name).extend(value)
            else:
                setattr(message, name, value)
        elif field.message_type.full_name == "google.protobuf.Struct":
            target.update(value)
        elif field.is_repeated:
            for item in value:
                target.add().CopyFrom(item)
        else:
            target.CopyFrom(value)
    return message


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed
) -> Iterator[tuple[BackgroundServer, str, list[bytes]]]:
    data = tmp_path_factory.mktemp("grpc-fuzz")
    unthrottled = {"rate_per_s": UNTHROTTLED, "rate_burst": int(UNTHROTTLED)}
    with keyed_server(data, "fuzz", embedder=hash_embed, **unthrottled) as (running, key):
        with running.app.state.tenants.lease("fuzz") as engine:
            stored = [engine.remember(text, entity_id="acme").id for text in SEEDED]
        yield running, key, stored


@pytest.fixture(scope="module")
def channel(server: tuple[BackgroundServer, str, list[bytes]]) -> Iterator[grpc.Channel]:
    with channel_to(server[0]) as opened:
        yield opened


def _identity(data: bytes) -> bytes:
    return data


def _answer(channel: grpc.Channel, method: Method, data: bytes, key: str) -> None:
    """Sends ``data`` as ``method``'s request; asserts the status is a mapped one."""
    path = f"/{pb.DESCRIPTOR.package}.{method.service}/{method.name}"
    metadata = [("authorization", f"Bearer {key}")]
    try:
        if method.stream:
            stub = channel.unary_stream(
                path, request_serializer=_identity, response_deserializer=_identity
            )
            stream: Any = stub(data, metadata=metadata, timeout=CALL_TIMEOUT_S)
            next(stream)  # the handshake, or the refusal
            stream.cancel()
        else:
            unary = channel.unary_unary(
                path, request_serializer=_identity, response_deserializer=_identity
            )
            unary(data, metadata=metadata, timeout=CALL_TIMEOUT_S)
    except grpc.RpcError as error:
        failed: Any = error
        code = failed.code()
        assert code not in UNMAPPED, (method.name, data, code, failed.details())
        if code != grpc.StatusCode.CANCELLED:
            trailers = dict(failed.trailing_metadata() or ())
            assert "error-code" in trailers, (method.name, data, code, failed.details())


def _ids(stored: list[bytes]) -> st.SearchStrategy[bytes]:
    return st.sampled_from(stored) | st.binary(max_size=20)


def _inputs(kind: str, method: Method, stored: list[bytes]) -> st.SearchStrategy[bytes]:
    """The request bytes of ``kind``: ``messages`` (encoded messages of the method's type) or
    ``undecodable`` (random bytes, or an encoding cut short and padded with junk)."""
    encoded = messages(method.request.DESCRIPTOR, _ids(stored)).map(
        lambda message: message.SerializeToString()
    )
    if kind == "messages":
        return encoded
    cut_short = st.tuples(encoded, st.integers(1, 8), st.binary(max_size=4)).map(
        lambda parts: parts[0][: -parts[1]] + parts[2] if parts[0] else parts[2]
    )
    return st.binary(min_size=1, max_size=64) | cut_short


@pytest.mark.parametrize("kind", ["messages", "undecodable"])
@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.name)
def test_every_answer_is_a_mapped_status(
    method: Method,
    kind: str,
    server: tuple[BackgroundServer, str, list[bytes]],
    channel: grpc.Channel,
) -> None:
    _, key, stored = server

    @FUZZ_SETTINGS
    @given(data=_inputs(kind, method, stored))
    def check(data: bytes) -> None:
        _answer(channel, method, data, key)

    check()
