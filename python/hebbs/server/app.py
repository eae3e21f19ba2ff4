"""``create_app``: the FastAPI application of ``hebbs serve``.

FastAPI is the framework because the request models are pydantic v2 already: the model of each
operation is at once the embedded API's validation, the server's JSON codec and its OpenAPI
document (``/openapi.json``, ``/docs``). Data layout: ``DATA_DIR/keys.sqlite3`` (the API keys,
see :mod:`hebbs.service.keys`) and ``DATA_DIR/tenants/<tenant>/`` (one store per tenant, see
:mod:`hebbs.service.tenants`). Middleware, outermost first: metrics, then the body size limit.
Without auth, the loopback ``Host`` check (:mod:`hebbs.server.loopback`) is outermost. The MCP
streamable-HTTP transport is mounted at ``/mcp`` (:mod:`hebbs.mcp.http`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from hebbs import __version__
from hebbs.embedder import BatchingEmbedder
from hebbs.engine import EmbedderLike
from hebbs.mcp.http import mount as mount_mcp
from hebbs.server import explorer, openapi, routes, transfer_routes
from hebbs.server.loopback import LoopbackOnly
from hebbs.server.metrics import Metrics, MetricsMiddleware
from hebbs.service import errors
from hebbs.service.auth import AuthConfig, check_route_key
from hebbs.service.keys import KeyStore
from hebbs.service.limits import (
    MAX_REQUEST_BYTES,
    RATE_LIMIT_BURST,
    RATE_LIMIT_PER_S,
    BodyLimit,
    TokenBuckets,
)
from hebbs.service.tenants import DEFAULT_MAX_OPEN_TENANTS, TenantStores


def create_app(
    data_dir: str | Path,
    *,
    auth: bool = True,
    embedder: EmbedderLike = None,
    embed_batching: bool = True,
    max_open_tenants: int = DEFAULT_MAX_OPEN_TENANTS,
    max_request_bytes: int = MAX_REQUEST_BYTES,
    rate_per_s: float = RATE_LIMIT_PER_S,
    rate_burst: int = RATE_LIMIT_BURST,
    store: str | Path | None = None,
    grpc_address: str | None = None,
    grpc_tls: tuple[str, str] | None = None,
    keys_dir: str | Path | None = None,
) -> FastAPI:
    """The server app over ``data_dir``.

    ``auth`` False serves the one tenant ``default`` without keys (``hebbs serve`` allows it
    on a loopback host only). ``embedder`` embeds the texts of every tenant (None: the bundled
    model, loaded on first use and shared by every store of the process); with
    ``embed_batching`` it is wrapped in one :class:`~hebbs.embedder.BatchingEmbedder` shared by
    every tenant, so concurrent requests' texts are embedded together. The limits default
    to the named constants of :mod:`hebbs.service.limits` and :mod:`hebbs.service.tenants`.
    ``store`` serves the one store at that path as the tenant ``default`` (``hebbs ui``; only
    without ``auth``). The memory explorer is at ``/ui`` (:mod:`hebbs.server.explorer`).
    ``grpc_address`` (``host:port``) also serves the gRPC services (:mod:`hebbs.rpc`) there
    for the app's lifetime, over the same stores and keys (TLS with ``grpc_tls``, a
    certificate and key file); ``app.state.grpc_port`` is its port once started.
    ``keys_dir`` is the directory of the key store when it is not ``data_dir`` (the shards of
    a cluster share the cluster's keys: :mod:`hebbs.cluster`).
    """
    if store is not None and auth:
        raise ValueError("a single store is served only without auth")
    root = Path(data_dir)
    root.mkdir(parents=True, exist_ok=True)
    shared = BatchingEmbedder(embedder) if embed_batching else embedder
    tenants = TenantStores(root, shared, max_open=max_open_tenants, store=store)
    keys = KeyStore(root if keys_dir is None else keys_dir) if auth else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        grpc_server = None
        if grpc_address is not None:
            from hebbs.rpc.server import GrpcServer

            grpc_server = GrpcServer(tenants, app.state.auth, grpc_address, tls=grpc_tls).start()
            app.state.grpc_port = grpc_server.port
        app.state.ready = True
        try:
            async with mcp_manager.run():
                yield
        finally:
            app.state.ready = False
            if grpc_server is not None:
                grpc_server.stop()
            tenants.close()
            if keys is not None:
                keys.close()

    app = FastAPI(
        title="hebbs",
        version=__version__,
        description="The hebbs memory engine over HTTP: one store per tenant, API keys.",
        lifespan=lifespan,
    )
    app.state.ready = False
    app.state.tenants = tenants
    app.state.embedder = shared
    app.state.auth = AuthConfig(keys=keys, buckets=TokenBuckets(rate_per_s, rate_burst))
    app.state.metrics = Metrics(lambda: tenants.open_count)
    errors.install(app, check_route_key)
    app.include_router(routes.router)
    app.include_router(routes.public)
    app.include_router(transfer_routes.router)
    openapi.install(app)
    explorer.install(app)
    mcp_manager = mount_mcp(app, tenants)
    app.add_middleware(
        BodyLimit, limit=max_request_bytes, exempt=frozenset({transfer_routes.IMPORT_PATH})
    )
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)
    if not auth:
        app.add_middleware(LoopbackOnly)
    return app
