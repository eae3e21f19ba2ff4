"""The cluster's Ray pieces: :class:`CoordinatorActor` (one Ray actor pinned to the head node:
the key store, the shard list, the moving tenants; :mod:`hebbs.cluster.coordinator`),
:class:`ShardDeployment` (one Serve application per shard, one replica pinned by its
placement's resource to its node, serving its own uvicorn) and :class:`IngressDeployment`
(``ingress_replicas`` replicas of the application at ``/`` on the head node behind Serve's
HTTP proxy: the cluster's URL), each running a :class:`~hebbs.cluster.ingress.Router`.

Each replica's constructor first binds its Serve-internal gRPC server to loopback
(:func:`~hebbs.cluster.runtime.bind_replicas_to_loopback`; it runs before the replica starts
that server). Each replica and the coordinator ask for no CPU (``num_cpus=0``), so the CPUs Ray
counts are left to Ray Data's workers; a shard asks for :data:`PLACEMENT_AMOUNT` of its node's
resource, so several shards may share a node. Serve health-checks every replica each
:data:`HEALTH_CHECK_PERIOD_S` and replaces one that died or whose uvicorn stopped; Ray restarts
the coordinator on its node if it dies.
"""

import os
from typing import Any, Final, cast

import ray
from fastapi import FastAPI, Request, Response
from ray import serve
from ray.exceptions import RayError
from ray.serve.deployment import Application, Deployment
from ray.serve.exceptions import RayServeException
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from hebbs.cluster.config import Placement
from hebbs.cluster.constants import (
    COORDINATOR_NAME,
    HEALTH_CHECK_PERIOD_S,
    HEALTH_CHECK_TIMEOUT_S,
    INGRESS_MAX_ONGOING,
    RAY_NAMESPACE,
    SHARD_APP_PREFIX,
    SHARD_MAX_ONGOING,
)
from hebbs.cluster.coordinator import Coordinator
from hebbs.cluster.forward import ShardUnavailable
from hebbs.cluster.hashing import owner as owner_of
from hebbs.cluster.ingress import Router
from hebbs.cluster.key_cache import CachedKeys
from hebbs.cluster.ownership import ShardView
from hebbs.cluster.runtime import bind_replicas_to_loopback, node_address
from hebbs.cluster.shard import ShardServer
from hebbs.service.errors import ApiError, not_ready
from hebbs.service.keys import KeyInfo

#: Every method the ingress forwards.
METHODS: Final = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
#: The deployment name inside each shard's application.
SHARD_DEPLOYMENT: Final = "ShardDeployment"
#: How much of its node's custom resource a shard's replica asks for (a node with one unit
#: holds up to 100 shards), and of the head node's resource an ingress replica asks for.
PLACEMENT_AMOUNT: Final = 0.01
#: Ray's resource of the head node (``ray._common.constants.HEAD_NODE_RESOURCE_NAME``): the
#: ingress replicas run there, beside Serve's one HTTP proxy and the coordinator (Serve's proxy
#: sends to the replicas of its own node first, so a replica elsewhere would stay idle).
HEAD_RESOURCE: Final = "node:__internal_head__"


def shard_app_name(shard: str) -> str:
    """The Serve application of shard ``shard``."""
    return SHARD_APP_PREFIX + shard


class CoordinatorActor:
    """The coordinator's actor: :class:`~hebbs.cluster.coordinator.Coordinator` over the head
    node's ``data_dir``."""

    def __init__(self, data_dir: str) -> None:
        self.coordinator = Coordinator(data_dir, resolve_shard)

    def lookup(self, key: str) -> KeyInfo | None:
        return self.coordinator.lookup(key)

    def shards(self) -> tuple[str, ...]:
        return self.coordinator.shards

    def owner(self, tenant: str) -> str:
        return owner_of(tenant, self.coordinator.shards)

    def placement(self, shard: str) -> Placement | None:
        return self.coordinator.placement(shard)

    def moving(self) -> dict[str, tuple[str, str]]:
        return dict(self.coordinator.moving)

    def view(self) -> ShardView:
        return self.coordinator.view()

    def view_for(self, shard: str) -> tuple[ShardView, list[str]]:
        return self.coordinator.view_for(shard)

    async def shard_map(self) -> dict[str, Any]:
        return await self.coordinator.shard_map()

    async def add_shard(self, name: str, placement: Placement) -> dict[str, Any]:
        return await self.coordinator.add_shard(name, placement)

    async def remove_shard(self, name: str) -> dict[str, Any]:
        return await self.coordinator.remove_shard(name)

    def pid(self) -> int:
        return os.getpid()


def start_coordinator(data_dir: str) -> Any:
    """Starts the coordinator on this driver's node (the head's disk holds ``data_dir``),
    restarted there by Ray if it dies; its handle."""
    node = ray.get_runtime_context().get_node_id()
    actor = ray.remote(CoordinatorActor).options(
        name=COORDINATOR_NAME,
        namespace=RAY_NAMESPACE,
        num_cpus=0,
        max_restarts=-1,
        max_task_retries=0,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False),
    )
    return actor.remote(data_dir)


def coordinator_unavailable(error: RayError) -> ApiError:
    """The 503 of a request that needs the coordinator while Ray restarts it on its node."""
    return not_ready(f"the cluster's coordinator is unavailable: retry ({error})")


def coordinator() -> Any:
    """The handle of the running cluster's coordinator."""
    return ray.get_actor(COORDINATOR_NAME, namespace=RAY_NAMESPACE)


class ActorLink:
    """An ingress replica's :class:`~hebbs.cluster.ingress.CoordinatorLink` and a shard's
    :class:`~hebbs.cluster.gate.ShardLink`: the coordinator actor's methods, awaited."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    async def _ask(self, method: str, *args: Any) -> Any:
        try:
            return await getattr(self.handle, method).remote(*args)
        except RayError as error:
            raise coordinator_unavailable(error) from None

    async def lookup(self, key: str) -> KeyInfo | None:
        info: KeyInfo | None = await self._ask("lookup", key)
        return info

    async def view(self) -> ShardView:
        found: ShardView = await self._ask("view")
        return found

    async def view_for(self, shard: str) -> tuple[ShardView, list[str]]:
        found: tuple[ShardView, list[str]] = await self._ask("view_for", shard)
        return found

    async def shard_map(self) -> dict[str, Any]:
        found: dict[str, Any] = await self._ask("shard_map")
        return found


@serve.deployment(
    num_replicas=1,
    ray_actor_options={"num_cpus": 0},
    max_ongoing_requests=SHARD_MAX_ONGOING,
    health_check_period_s=HEALTH_CHECK_PERIOD_S,
    health_check_timeout_s=HEALTH_CHECK_TIMEOUT_S,
)
class ShardDeployment:
    """A shard's replica: its :class:`~hebbs.cluster.shard.ShardServer` over its own
    ``data_dir`` on this node, on this node's address, with the coordinator's keys."""

    def __init__(self, data_dir: str, name: str, secret: str) -> None:
        bind_replicas_to_loopback()
        handle = coordinator()

        def fetch(key: str) -> KeyInfo | None:
            try:
                info: KeyInfo | None = ray.get(handle.lookup.remote(key))
            except RayError as error:
                raise coordinator_unavailable(error) from None
            return info

        link = ActorLink(handle)
        keys = CachedKeys(fetch, link.lookup)
        self.server = ShardServer(data_dir, name, secret, keys, link, resolve_shard, node_address())

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
    ray_actor_options={"num_cpus": 0, "resources": {HEAD_RESOURCE: PLACEMENT_AMOUNT}},
    max_ongoing_requests=INGRESS_MAX_ONGOING,
    health_check_period_s=HEALTH_CHECK_PERIOD_S,
)
@serve.ingress(ingress_api)
class IngressDeployment:
    """An ingress replica: it holds nothing the others must agree on (see
    :mod:`hebbs.cluster.ingress`)."""

    def __init__(self) -> None:
        bind_replicas_to_loopback()
        self.router = Router(ActorLink(coordinator()), resolve_shard)

    @ingress_api.api_route("/{path:path}", methods=METHODS, include_in_schema=False)
    async def forward(self, request: Request) -> Response:
        return await self.router.handle(request)


def ingress_application(replicas: int) -> Application:
    """The ingress with ``replicas`` replicas, for ``serve.run``."""
    # serve.deployment leaves the class's type as it was; it is a Deployment.
    deployment = cast(Deployment, IngressDeployment).options(num_replicas=replicas)
    return deployment.bind()


def shard_application(
    name: str, placement: Placement, secret: str, env: dict[str, str]
) -> Application:
    """Shard ``name`` at ``placement`` bound for ``serve.run``; its replica gets the
    environment variables ``env``."""
    options: dict[str, Any] = {"num_cpus": 0}
    if placement.resource is not None:
        options["resources"] = {placement.resource: PLACEMENT_AMOUNT}
    if env:
        options["runtime_env"] = {"env_vars": dict(env)}
    deployment = cast(Deployment, ShardDeployment).options(ray_actor_options=options)
    return deployment.bind(placement.data_dir, name, secret)
