"""hebbs past one machine: tenants sharded over hebbs servers on Ray Serve (docs/cluster.md).

Modules, one concern each: :mod:`~hebbs.cluster.config` (``cluster.toml``),
:mod:`~hebbs.cluster.hashing` (rendezvous hashing of tenants to shards),
:mod:`~hebbs.cluster.state` (``cluster.json``: the shard list and the internal secret),
:mod:`~hebbs.cluster.shard` (a shard: the REST app plus its internal routes),
:mod:`~hebbs.cluster.ingress` (authenticate, route, forward; moving tenants),
:mod:`~hebbs.cluster.deployments` (the Ray Serve deployments), :mod:`~hebbs.cluster.runtime`
(starting Ray on 127.0.0.1) and :mod:`~hebbs.cluster.deploy` (:class:`Cluster`). The modules
that import Ray need the ``ray`` extra: ``pip install 'hebbs[ray]'``; the config, hashing and
state import without it. Importing the package makes a Ray started later bind to 127.0.0.1
(:mod:`hebbs.cluster.runtime`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from hebbs.cluster.constants import AUTH_MODE_ENV, CLUSTER_ENV, USAGE_STATS_ENV

# Before any module of the package imports Ray (see hebbs.cluster.runtime).
os.environ.setdefault(CLUSTER_ENV, "0")
os.environ.setdefault(USAGE_STATS_ENV, "0")
os.environ.setdefault(AUTH_MODE_ENV, "token")

from hebbs.cluster.config import ClusterConfig, ConfigError, load_config
from hebbs.cluster.hashing import owner

if TYPE_CHECKING:
    from hebbs.cluster.deploy import Cluster

__all__ = ["Cluster", "ClusterConfig", "ConfigError", "load_config", "owner"]


def __getattr__(name: str) -> Any:
    if name == "Cluster":
        from hebbs.cluster.deploy import Cluster

        return Cluster
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
