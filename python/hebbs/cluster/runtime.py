"""Starting and joining Ray for hebbs: on this machine Ray is bound to 127.0.0.1 with no
dashboard and no usage reporting; the typed surface the rest of hebbs calls."""

from __future__ import annotations

import os
from typing import Final

import ray

#: Environment variable that turns off Ray's usage statistics (they would be sent off the
#: machine).
USAGE_STATS_ENV: Final = "RAY_USAGE_STATS_ENABLED"
#: Ray's node address when it is started here.
LOOPBACK: Final = "127.0.0.1"


def start_ray(
    address: str | None = None, *, num_cpus: int | None = None, log_to_driver: bool = True
) -> bool:
    """Joins the Ray cluster at ``address``, or starts one on this machine bound to
    127.0.0.1 (``num_cpus`` CPUs, no dashboard); nothing if Ray is initialized already. True
    if this call started or joined it (so :func:`stop_ray` should end it)."""
    os.environ.setdefault(USAGE_STATS_ENV, "0")
    if ray.is_initialized():
        return False
    if address is not None:
        ray.init(address=address, log_to_driver=log_to_driver)
    else:
        ray.init(
            num_cpus=num_cpus,
            include_dashboard=False,
            _node_ip_address=LOOPBACK,
            log_to_driver=log_to_driver,
        )
    return True


def stop_ray() -> None:
    ray.shutdown()
