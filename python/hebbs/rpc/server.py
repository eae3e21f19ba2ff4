"""``GrpcServer``: the protocol's services (:mod:`hebbs.rpc.services`) on a grpcio server in
a thread pool, over the same tenant stores and key store as the REST app it runs beside
(``hebbs serve --grpc-port``). The engine releases the GIL, so worker threads run calls in
parallel; each open ``Subscribe`` stream holds one worker while it lasts."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

import grpc

from hebbs.rpc.services import RpcState, handlers
from hebbs.rpc.subscriptions import FeedSubscriptions
from hebbs.service.auth import AuthConfig
from hebbs.service.tenants import TenantStores

#: Worker threads: concurrent calls, open subscription streams included.
DEFAULT_GRPC_WORKERS: Final = 32
#: Seconds calls in flight get to finish when the server stops.
GRPC_STOP_GRACE_S: Final = 5.0


class GrpcServer:
    """The gRPC services on ``address`` (``host:port``; port 0 picks a free one, see
    :attr:`port` after :meth:`start`), TLS when given a certificate and key file."""

    def __init__(
        self,
        tenants: TenantStores,
        auth: AuthConfig,
        address: str,
        *,
        tls: tuple[str, str] | None = None,
        workers: int = DEFAULT_GRPC_WORKERS,
    ) -> None:
        self.state = RpcState(tenants, auth, FeedSubscriptions())
        self.address = address
        self.tls = tls
        self.port = 0
        self._server = grpc.server(
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hebbs-grpc"),
            handlers=handlers(self.state),
        )

    def start(self) -> GrpcServer:
        if self.tls is None:
            self.port = self._server.add_insecure_port(self.address)
        else:
            cert, key = (Path(path).read_bytes() for path in self.tls)
            credentials = grpc.ssl_server_credentials([(key, cert)])
            self.port = self._server.add_secure_port(self.address, credentials)
        self._server.start()
        return self

    def stop(self) -> None:
        """Ends the subscriptions, then lets calls in flight finish (up to the grace)."""
        self.state.subscriptions.close_all()
        self._server.stop(GRPC_STOP_GRACE_S).wait()
