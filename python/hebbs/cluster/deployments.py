"""The cluster's Ray Serve deployments: :class:`ShardDeployment` (one application per shard, one
replica, no HTTP route of Serve's: it serves its own uvicorn on 127.0.0.1) and
:class:`IngressDeployment` (the application at ``/`` behind Serve's HTTP proxy: the cluster's
URL), which runs :class:`~hebbs.cluster.ingress.Router`.

Each replica's constructor first binds its Serve-internal gRPC server to loopback
(:func:`~hebbs.cluster.runtime.bind_replicas_to_loopback`; it runs before the replica starts
that server). Each replica asks for no CPU (``num_cpus=0``), so the CPUs Ray counts are left to
Ray Data's workers; Serve health-checks every replica each :data:`HEALTH_CHECK_PERIOD_S` and
replaces one that died or whose uvicorn stopped.
"""

import os
from typing import Any, Final, cast

from fastapi import FastAPI, Request, Response
from ray import serve
from ray.exceptions import RayError
from ray.serve.deployment import Application, Deployment
from ray.serve.exceptions import RayServeException

from hebbs.cluster.constants import (
    HEALTH_CHECK_PERIOD_S,
    HEALTH_CHECK_TIMEOUT_S,
    INGRESS_MAX_ONGOING,
    SHARD_APP_PREFIX,
    SHARD_MAX_ONGOING,
)
from hebbs.cluster.ingress import Router, ShardUnavailable
from hebbs.cluster.runtime import bind_replicas_to_loopback
from hebbs.cluster.shard import ShardServer

#: Every method the ingress forwards.
METHODS: Final = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
#: The deployment name inside each shard's application.
SHARD_DEPLOYMENT: Final = "ShardDeployment"


def shard_app_name(shard: str) -> str:
    """The Serve application of shard ``shard``."""
    return SHARD_APP_PREFIX + shard


@serve.deployment(
    num_replicas=1,
    ray_actor_options={"num_cpus": 0},
    max_ongoing_requests=SHARD_MAX_ONGOING,
    health_check_period_s=HEALTH_CHECK_PERIOD_S,
    health_check_timeout_s=HEALTH_CHECK_TIMEOUT_S,
)
class ShardDeployment:
    """A shard's replica: its :class:`~hebbs.cluster.shard.ShardServer`."""

    def __init__(self, data_dir: str, name: str, secret: str) -> None:
        bind_replicas_to_loopback()
        self.server = ShardServer(data_dir, name, secret)

    def url(self) -> str:
        """Where the shard serves now (a new port after each restart)."""
        return self.server.url

    def pid(self) -> int:
        """The replica's process id."""
        return os.getpid()

    def check_health(self) -> None:
        if not self.server.alive():
            raise RuntimeError(f"shard {self.server.name}: its server stopped")

    def __del__(self) -> None:
        server = getattr(self, "server", None)
        if server is not None:
            server.stop()


#: The ingress's FastAPI app: one route that forwards everything (its own documents are off, so
#: ``/docs`` and ``/openapi.json`` are the shards').
ingress_api = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)


async def resolve_shard(shard: str) -> str:
    """The current URL of ``shard``, asked of its replica through Serve."""
    try:
        handle = serve.get_deployment_handle(SHARD_DEPLOYMENT, app_name=shard_app_name(shard))
        url: str = await handle.url.remote()
    except (RayError, RayServeException) as error:
        raise ShardUnavailable(f"shard {shard}: {error}") from error
    return url


@serve.deployment(
    num_replicas=1,
    ray_actor_options={"num_cpus": 0},
    max_ongoing_requests=INGRESS_MAX_ONGOING,
    health_check_period_s=HEALTH_CHECK_PERIOD_S,
)
@serve.ingress(ingress_api)
class IngressDeployment:
    """The ingress replica (exactly one: it holds the set of tenants being moved)."""

    def __init__(self, data_dir: str) -> None:
        bind_replicas_to_loopback()
        self.router = Router(data_dir, resolve_shard)

    @ingress_api.api_route("/{path:path}", methods=METHODS, include_in_schema=False)
    async def forward(self, request: Request) -> Response:
        return await self.router.handle(request)

    async def add_shard(self, name: str) -> dict[str, Any]:
        """See :meth:`hebbs.cluster.ingress.Router.add_shard`."""
        return await self.router.add_shard(name)

    def shards(self) -> list[str]:
        return list(self.router.shards)

    def owner(self, tenant: str) -> str:
        return self.router.owner(tenant)


def ingress_application(data_dir: str) -> Application:
    """The ingress bound to the cluster at ``data_dir``, for ``serve.run``."""
    # serve.deployment leaves the class's type as it was; it is a Deployment.
    return cast(Deployment, IngressDeployment).bind(data_dir)


def shard_application(data_dir: str, name: str, secret: str, env: dict[str, str]) -> Application:
    """Shard ``name`` of the cluster at ``data_dir`` bound for ``serve.run``; its replica gets
    the environment variables ``env``."""
    options: dict[str, Any] = {"num_cpus": 0}
    if env:
        options["runtime_env"] = {"env_vars": dict(env)}
    deployment = cast(Deployment, ShardDeployment).options(ray_actor_options=options)
    return deployment.bind(data_dir, name, secret)
