"""Running the app with uvicorn: :func:`serve` (blocking, what ``hebbs serve`` calls) and
:class:`BackgroundServer` (a server in a thread on a free port, for tests and embedding).

``--no-auth`` is refused unless the host is a loopback address: an unauthenticated store must
not be reachable from the network (and its app answers loopback ``Host`` names only:
:mod:`hebbs.server.loopback`). TLS: pass a certificate and its key; uvicorn serves HTTPS.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any, Final

import uvicorn

from hebbs.engine import EmbedderLike
from hebbs.server.app import create_app
from hebbs.server.http_protocol import HebbsHttpProtocol
from hebbs.server.loopback import is_loopback
from hebbs.server.settings import DEFAULT_HOST, DEFAULT_PORT

#: Seconds open connections (subscription streams) get to finish on shutdown.
SHUTDOWN_GRACE_S: Final = 5
#: Seconds :class:`BackgroundServer` waits for the server to start.
START_TIMEOUT_S: Final = 30.0


def check_no_auth(host: str, auth: bool) -> None:
    """Raises ValueError for a server without auth on a host that is not loopback."""
    if not auth and not is_loopback(host):
        raise ValueError(f"--no-auth serves only a loopback host, not {host!r}")


def config(
    data_dir: str | Path,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    auth: bool = True,
    embedder: EmbedderLike = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    grpc_port: int | None = None,
    **app_options: Any,
) -> uvicorn.Config:
    """The uvicorn config of the app over ``data_dir``; with ``grpc_port`` the app also
    serves gRPC on ``host:grpc_port`` (with the same TLS files)."""
    check_no_auth(host, auth)
    if (tls_cert is None) != (tls_key is None):
        raise ValueError("give both --tls-cert and --tls-key, or neither")
    if grpc_port is not None:
        app_options["grpc_address"] = f"{host}:{grpc_port}"
        app_options["grpc_tls"] = None if tls_cert is None else (tls_cert, tls_key)
    app = create_app(data_dir, auth=auth, embedder=embedder, **app_options)
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
        http=HebbsHttpProtocol,
    )


def serve(data_dir: str | Path, **options: Any) -> None:
    """Serves until interrupted (SIGINT / SIGTERM), then closes every store cleanly."""
    uvicorn.Server(config(data_dir, **options)).run()


class BackgroundServer:
    """The app served by uvicorn in a daemon thread on ``host`` (``127.0.0.1``; a cluster's
    shard binds its Ray node's address) and a free port.

    ``with BackgroundServer(path, embedder=...) as server: httpx.get(server.url + "/v1/...")``;
    leaving the block shuts it down and closes its stores.
    """

    def __init__(self, data_dir: str | Path, *, host: str = DEFAULT_HOST, **options: Any) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self.port: int = self._sock.getsockname()[1]
        scheme = "https" if options.get("tls_cert") else "http"
        self.url = f"{scheme}://{host}:{self.port}"
        settings = config(data_dir, host=host, port=self.port, **options)
        self.app = settings.app
        self._server = uvicorn.Server(settings)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        self._server.run(sockets=[self._sock])

    def start(self) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def alive(self) -> bool:
        """Whether the server thread is still serving."""
        return self._thread.is_alive() and not self._server.should_exit

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=SHUTDOWN_GRACE_S + 5)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
