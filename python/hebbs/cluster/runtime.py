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

from typing import Callable, cast

import ray
from ray import serve

from hebbs.cluster.constants import CLUSTER_ENV, LOOPBACK


def node_address() -> str:
    """The address of this Ray node (Ray must be initialized)."""
    # Ray leaves this function unannotated.
    get_address = cast(Callable[[], str], ray.util.get_node_ip_address)
    return get_address()


def start_ray(
    address: str | None = None, *, num_cpus: int | None = None, log_to_driver: bool = True
) -> bool:
    """Joins the Ray cluster at ``address``, or starts one on this machine bound to
    127.0.0.1 (``num_cpus`` CPUs, no dashboard); nothing if Ray is initialized already. True
    if this call started or joined it (so :func:`stop_ray` should end it)."""
    if ray.is_initialized():
        return False
    if address is not None:
        ray.init(address=address, log_to_driver=log_to_driver)
        return True
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=log_to_driver)
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
    """Starts Ray Serve with its HTTP proxy on ``host:port`` (nothing if it runs already)."""
    serve.start(http_options={"host": host, "port": port})


def stop_serve() -> None:
    """Shuts Ray Serve down: its proxy, controller and every application."""
    # Ray leaves this function unannotated.
    shutdown = cast(Callable[[], None], serve.shutdown)
    shutdown()
