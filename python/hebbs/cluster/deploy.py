"""``Cluster``: deploys a cluster on Ray Serve from a :class:`~hebbs.cluster.config.ClusterConfig`
and drives it (add or remove a shard, find a shard's replica, stop). ``hebbs cluster serve``
runs one; its process must run on the head node, whose disk holds ``data_dir`` (the key store
and ``cluster.json``): the coordinator actor is pinned to that node.

The first start saves ``cluster.json`` (:mod:`hebbs.cluster.state`) with the config's shards
and their placements; a later start deploys the saved shard list where it was, then adds the
config's shards it lacks. A started
cluster writes the address of its Ray to ``DATA_DIR/ray-address`` (:data:`RAY_ADDRESS_FILE`),
so another process :meth:`Cluster.join`s it (``hebbs cluster add-shard``) without a config
change; stopping removes the file.
"""

from __future__ import annotations

from typing import Any, Final

import ray
from ray import serve

from hebbs.cluster.config import ClusterConfig, Placement, check_shards
from hebbs.cluster.constants import INGRESS_APP
from hebbs.cluster.deployments import (
    SHARD_DEPLOYMENT,
    coordinator,
    ingress_application,
    shard_app_name,
    shard_application,
    start_coordinator,
)
from hebbs.cluster.runtime import start_ray, start_serve, stop_ray, stop_serve
from hebbs.cluster.state import ClusterState, initial_state, load_state

#: The file in the data directory that names the Ray of a running cluster.
RAY_ADDRESS_FILE: Final = "ray-address"


class Cluster:
    """The cluster of ``config``: ``with Cluster(config) as cluster: HebbsClient(cluster.url)``."""

    def __init__(self, config: ClusterConfig, *, log_to_driver: bool = True) -> None:
        self.config = config
        self._log_to_driver = log_to_driver
        self._owns_ray = False
        self._joined = False
        self._apps: list[str] = []
        self._coordinator: Any = None

    @property
    def url(self) -> str:
        """The cluster's URL (Ray Serve's HTTP proxy)."""
        return f"http://{self.config.host}:{self.config.port}"

    @property
    def state(self) -> ClusterState:
        state = load_state(self.config.data_dir)
        if state is None:
            raise RuntimeError("the cluster was not started")
        return state

    def start(self) -> Cluster:
        """Starts (or joins) Ray, then Serve's proxy, the coordinator, the shards and the
        ingress; returns once every replica is up."""
        self._owns_ray = start_ray(
            self.config.ray_address,
            num_cpus=self.config.num_cpus,
            log_to_driver=self._log_to_driver,
        )
        start_serve(self.config.host, self.config.port)
        placements = {name: self.config.placement(name) for name in self.config.shards}
        state = initial_state(self.config.data_dir, self.config.shards, placements)
        self._coordinator = start_coordinator(str(self.config.data_dir))
        ray.get(self._coordinator.pid.remote())
        for name in state.shards:
            self._deploy_shard(name, self._placement(name), state.secret)
        serve.run(
            ingress_application(self.config.ingress_replicas),
            name=INGRESS_APP,
            route_prefix="/",
        )
        self._apps.append(INGRESS_APP)
        for name in self.config.shards:
            if name not in state.shards:
                self.add_shard(name)
        gcs: str = ray.get_runtime_context().gcs_address
        (self.config.data_dir / RAY_ADDRESS_FILE).write_text(gcs, encoding="utf-8")
        return self

    def join(self) -> Cluster:
        """Connects to the running cluster of this config (its Ray: ``[ray] address``, else the
        one ``DATA_DIR/ray-address`` names) to drive it; :meth:`stop` then only disconnects."""
        address = self.config.ray_address
        if address is None:
            file = self.config.data_dir / RAY_ADDRESS_FILE
            if not file.exists():
                raise RuntimeError(f"no cluster runs over {self.config.data_dir}")
            address = file.read_text(encoding="utf-8").strip()
        self._owns_ray = start_ray(address, log_to_driver=self._log_to_driver)
        self._joined = True
        self._coordinator = coordinator()
        return self

    def _placement(self, name: str) -> Placement:
        """Where shard ``name`` runs: as saved in ``cluster.json``, else as configured."""
        saved = self.state.placements.get(name)
        return saved if saved is not None else self.config.placement(name)

    def _deploy_shard(self, name: str, placement: Placement, secret: str) -> None:
        app = shard_application(name, placement, secret, self.config.shard_env)
        serve.run(app, name=shard_app_name(name), route_prefix=None)
        if not self._joined:
            self._apps.append(shard_app_name(name))

    def set_ingress_replicas(self, replicas: int) -> None:
        """Redeploys the ingress with ``replicas`` replicas (Serve starts or stops the
        difference; the others go on serving)."""
        serve.run(ingress_application(replicas), name=INGRESS_APP, route_prefix="/")

    def _ask(self, method: str, *args: Any) -> Any:
        return ray.get(getattr(self._coordinator, method).remote(*args))

    def shards(self) -> list[str]:
        """The shard list the cluster routes by."""
        return list(self._ask("shards"))

    def owner(self, tenant: str) -> str:
        """The shard that owns ``tenant``."""
        found: str = self._ask("owner", tenant)
        return found

    def coordinator_pid(self) -> int:
        """The process id of the coordinator actor."""
        found: int = self._ask("pid")
        return found

    def moving(self) -> dict[str, tuple[str, str]]:
        """The tenants being moved now: ``{tenant: (from, to)}``."""
        found: dict[str, tuple[str, str]] = self._ask("moving")
        return found

    def placement(self, name: str) -> Placement:
        """Where shard ``name`` runs."""
        return self._placement(name)

    def add_shard(self, name: str) -> dict[str, Any]:
        """Deploys shard ``name`` (at its ``[shard.NAME]`` placement) and moves to it the
        tenants it now owns (writes to them are refused with a 503 and ``Retry-After``
        meanwhile): what moved, per tenant. A failed move deletes the new shard again."""
        state = self.state
        if name in state.shards:
            raise ValueError(f"shard {name!r} is in the cluster already")
        check_shards((*state.shards, name))
        placement = self.config.placement(name)
        self._deploy_shard(name, placement, state.secret)
        try:
            moved: dict[str, Any] = self._ask("add_shard", name, placement)
        except BaseException:
            self._delete_shard(name)
            raise
        return moved

    def remove_shard(self, name: str) -> dict[str, Any]:
        """Moves every tenant of shard ``name`` to its owner among the other shards (writes to
        them refused with a 503 and ``Retry-After`` meanwhile), drops it from the shard list and
        deletes its deployment: what moved, per tenant. Its data directory is left on its node,
        emptied of the moved stores."""
        shards = self.state.shards
        if name not in shards:
            raise ValueError(f"shard {name!r} is not in the cluster")
        if len(shards) == 1:
            raise ValueError(f"shard {name!r} is the cluster's last shard")
        moved: dict[str, Any] = self._ask("remove_shard", name)
        self._delete_shard(name)
        return moved

    def _delete_shard(self, name: str) -> None:
        serve.delete(shard_app_name(name))
        if shard_app_name(name) in self._apps:
            self._apps.remove(shard_app_name(name))

    def _shard(self, name: str) -> Any:
        return serve.get_deployment_handle(SHARD_DEPLOYMENT, app_name=shard_app_name(name))

    def shard_url(self, name: str) -> str:
        """Where shard ``name``'s replica serves now (for a direct call, bypassing the
        ingress)."""
        url: str = self._shard(name).url.remote().result()
        return url

    def shard_pid(self, name: str) -> int:
        """The process id of shard ``name``'s replica."""
        pid: int = self._shard(name).pid.remote().result()
        return pid

    def stop(self) -> None:
        """Deletes the applications (each shard closes its stores), stops Serve, and Ray if
        :meth:`start` started it; after :meth:`join`, disconnects only."""
        if self._joined:
            if self._owns_ray:
                stop_ray()
            self._owns_ray = self._joined = False
            return
        (self.config.data_dir / RAY_ADDRESS_FILE).unlink(missing_ok=True)
        for app in reversed(self._apps):
            serve.delete(app)
        self._apps.clear()
        if self._coordinator is not None:
            ray.kill(self._coordinator)
            self._coordinator = None
        stop_serve()
        if self._owns_ray:
            stop_ray()
            self._owns_ray = False

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
