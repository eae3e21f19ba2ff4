"""Starting and joining Ray for hebbs: a Ray started here binds every server it runs (GCS,
raylet, workers, Serve's proxy) to 127.0.0.1, with no dashboard and no usage reporting.

Ray picks its node address when it is imported: on Linux the machine's outward address unless
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` is ``0``, which makes it the loopback address (Ray's own
switch for single-machine clusters; ``ray.init(_node_ip_address="127.0.0.1")`` alone is turned
back into the outward address). :mod:`hebbs.cluster` sets it, unless the environment already
does, when it is imported (before any of its modules imports Ray), and :func:`start_ray`
refuses to start a Ray that is not on loopback. To join a Ray cluster of several machines, set
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1`` and give its address (``[ray] address`` in
``cluster.toml``).
"""

from __future__ import annotations

import os
from typing import Any, Callable, cast

import ray
import ray.serve._private.replica as serve_replica
from ray import serve

from hebbs.cluster.constants import CLUSTER_ENV, LOOPBACK

#: The address Ray Serve 2.60 gives every replica's inter-deployment gRPC server, hard-coded in
#: ``ray/serve/_private/replica.py`` (all interfaces, whatever the node's address).
SERVE_REPLICA_GRPC_ADDRESS = "[::]:0"
#: The name of the function that binds it, in that module.
_REPLICA_ADD_PORT = "add_port_to_grpc_server"
#: The wrappers :func:`bind_replicas_to_loopback` installed (it installs one per process).
_LOOPBACK_WRAPPERS: set[Callable[[Any, str], int]] = set()


def bind_replicas_to_loopback() -> None:
    """Makes the Serve replicas of this process bind their inter-deployment gRPC server to
    127.0.0.1 instead of all interfaces, when Ray's node address is loopback
    (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``). Ray Serve has no setting for it, so this wraps
    the function its replica module calls; the constructors of :mod:`hebbs.cluster.deployments`
    call it, which Ray runs before the replica starts that server."""
    if os.environ.get(CLUSTER_ENV) != "0":
        return
    names = vars(serve_replica)
    original: Callable[[Any, str], int] | None = names.get(_REPLICA_ADD_PORT)
    if original is None or original in _LOOPBACK_WRAPPERS:
        return

    def add_port(server: Any, address: str) -> int:
        if address == SERVE_REPLICA_GRPC_ADDRESS:
            address = f"{LOOPBACK}:0"
        return original(server, address)

    _LOOPBACK_WRAPPERS.add(add_port)
    names[_REPLICA_ADD_PORT] = add_port


def node_address() -> str:
    """The address of this Ray node (Ray must be initialized)."""
    # Ray leaves this function unannotated.
    get_address = cast(Callable[[], str], ray.util.get_node_ip_address)
    return get_address()


def start_ray(
    address: str | None = None, *, num_cpus: int | None = None, log_to_driver: bool = True
) -> bool:
    """Joins the Ray cluster at ``address``, or starts a new one on this machine (never joins
    another found there) bound to 127.0.0.1 (``num_cpus`` CPUs, no dashboard); nothing if Ray
    is initialized already. True if this call started or joined it (so :func:`stop_ray` should
    end it)."""
    if ray.is_initialized():
        return False
    if address is not None:
        ray.init(address=address, log_to_driver=log_to_driver)
        return True
    ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=log_to_driver,
    )
    if node_address() != LOOPBACK:
        found = node_address()
        ray.shutdown()
        raise RuntimeError(
            f"Ray started on {found}, not {LOOPBACK}: Ray was imported before hebbs.cluster "
            f"could set {CLUSTER_ENV}=0; set it in the environment"
        )
    return True


def stop_ray() -> None:
    ray.shutdown()


def start_serve(host: str, port: int) -> None:
    """Starts Ray Serve with its HTTP proxy on ``host:port`` of the head node only (nothing if
    it runs already): every node of a cluster on one machine has the same address, so one proxy
    per node would bind the same port."""
    serve.start(proxy_location="HeadOnly", http_options={"host": host, "port": port})


def stop_serve() -> None:
    """Shuts Ray Serve down: its proxy, controller and every application."""
    # Ray leaves this function unannotated.
    shutdown = cast(Callable[[], None], serve.shutdown)
    shutdown()
