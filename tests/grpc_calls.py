"""Calling ``hebbs serve``'s gRPC port from a test without generated stubs: a real server with
REST, ``/mcp`` and gRPC on 127.0.0.1 and a key of one tenant (:func:`keyed_server`), a unary
call by method path with our messages (or raw bytes), and the status and trailers of a refused
one; the fixtures ``grpc_server`` (one such server a test module, the key of
:data:`GRPC_TENANT`) and ``grpc_caller`` (calls with that key), found by pytest through
``conftest.py``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

import grpc
import numpy as np
import pytest

from hebbs.rpc import hebbs_pb2 as pb
from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

#: Seconds a test's call may take (a loaded CI machine, a store opening).
CALL_TIMEOUT_S = 60.0
#: The tenant of the ``grpc_server`` fixture's key.
GRPC_TENANT = "acme"


@contextmanager
def keyed_server(
    data: Path, tenant: str, scope: str = "write", **options: Any
) -> Iterator[tuple[BackgroundServer, str]]:
    """A server over ``data`` with its gRPC port, and a ``scope`` key of ``tenant``."""
    keys = KeyStore(data)
    key, _ = keys.create(tenant, scope)
    keys.close()
    with BackgroundServer(data, grpc_port=0, **options) as server:
        yield server, key


def channel_to(server: BackgroundServer) -> grpc.Channel:
    """An insecure channel to ``server``'s gRPC port."""
    return grpc.insecure_channel(f"127.0.0.1:{server.app.state.grpc_port}")


def _raw(data: bytes) -> bytes:
    return data


class GrpcCaller:
    """Unary calls on ``channel`` with ``key`` as the bearer (None: no key)."""

    def __init__(self, channel: grpc.Channel, key: str | None) -> None:
        self.channel = channel
        self.key = key

    def _metadata(self) -> list[tuple[str, str]]:
        return [] if self.key is None else [("authorization", f"Bearer {self.key}")]

    def call(self, method: str, request: Any, response: Any) -> Any:
        """The answer of ``method`` (``/hebbs.v1.MemoryService/Get``) to ``request``."""
        stub = self.channel.unary_unary(
            method,
            request_serializer=type(request).SerializeToString,
            response_deserializer=response.FromString,
        )
        return stub(request, metadata=self._metadata(), timeout=CALL_TIMEOUT_S)

    def send_bytes(self, method: str, data: bytes) -> bytes:
        """The raw answer of ``method`` to ``data`` sent as the request's bytes."""
        stub = self.channel.unary_unary(method, request_serializer=_raw, response_deserializer=_raw)
        answer: bytes = stub(data, metadata=self._metadata(), timeout=CALL_TIMEOUT_S)
        return answer

    def refused(self, method: str, request: Any) -> tuple[grpc.StatusCode, dict[str, str]]:
        """The status and trailers of a call that must fail (``request``: a message or
        bytes)."""
        try:
            if isinstance(request, bytes):
                self.send_bytes(method, request)
            else:
                self.call(method, request, pb.FeedResponse)
        except grpc.RpcError as error:
            failed: Any = error
            return failed.code(), dict(failed.trailing_metadata() or ())
        raise AssertionError(f"{method} answered {request!r}")


@pytest.fixture(scope="module")
def grpc_server(
    tmp_path_factory: pytest.TempPathFactory, hash_embed: Callable[[list[str]], np.ndarray]
) -> Iterator[tuple[BackgroundServer, str]]:
    """A server (REST, ``/mcp``, gRPC) for the test module, and a write key of GRPC_TENANT."""
    data = tmp_path_factory.mktemp("grpc")
    with keyed_server(data, GRPC_TENANT, embedder=hash_embed) as found:
        yield found


@pytest.fixture
def grpc_caller(grpc_server: tuple[BackgroundServer, str]) -> Iterator[GrpcCaller]:
    """Calls to ``grpc_server`` with its key."""
    server, key = grpc_server
    with channel_to(server) as channel:
        yield GrpcCaller(channel, key)
