"""The server defaults that the command line reads without the ``server`` extra installed:
the address and ports ``hebbs serve`` listens on."""

from __future__ import annotations

from typing import Final

#: The default address of ``hebbs serve`` (this machine only).
DEFAULT_HOST: Final = "127.0.0.1"
#: The default port of ``hebbs serve`` (the reference product's REST port).
DEFAULT_PORT: Final = 6381
#: The port ``hebbs ui`` listens on: 0 takes any free one.
DEFAULT_UI_PORT: Final = 0
#: The port ``hebbs serve --grpc-port`` is usually given (the reference product's gRPC port).
DEFAULT_GRPC_PORT: Final = 6380
