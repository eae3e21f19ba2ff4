"""``cluster.toml``: what ``hebbs cluster serve --config cluster.toml`` deploys.

```toml
data_dir = "./cluster-data"   # the head node's: keys.sqlite3 (hebbs keys create --db), cluster.json
host = "127.0.0.1"            # where the cluster's URL listens (Ray Serve's HTTP proxy)
port = 6390
shards = ["a", "b"]           # the shards at the first start; later ones come from add-shard
ingress_replicas = 2          # DEFAULT_INGRESS_REPLICAS

[shard.a]                     # where shard a runs (every key optional)
resource = "hebbs-node-a"     # a custom resource of the Ray node it is pinned to
data_dir = "/srv/hebbs/a"     # its stores, on that node's disk (default DATA_DIR/shards/a)

[ray]
address = ""                  # an existing Ray cluster to join; empty: start one on this machine
num_cpus = 2                  # CPUs of a Ray started here (Ray Data's workers use them)

[shard_env]                   # environment variables of every shard replica
HEBBS_LLM_PROVIDER = "offline"
```

A relative ``data_dir`` (the cluster's or a shard's) is relative to the file; a shard's is a
path on the node it runs on. A ``[shard.NAME]`` table may name a shard that ``add-shard`` adds
later. Unknown keys are refused, each error names the
key (:class:`ConfigError`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hebbs.cluster.constants import DEFAULT_CLUSTER_PORT, DEFAULT_INGRESS_REPLICAS, SHARDS_DIR
from hebbs.server.settings import DEFAULT_HOST
from hebbs.service.tenants import valid_tenant

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

_TOP = {"data_dir", "host", "port", "shards", "ingress_replicas", "ray", "shard_env", "shard"}
_RAY = {"address", "num_cpus"}
_PLACEMENT = {"resource", "data_dir"}


class ConfigError(ValueError):
    """A ``cluster.toml`` that cannot be deployed; ``key`` names the offending key."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"cluster config: {key} {reason}")
        self.key = key


@dataclass(frozen=True)
class Placement:
    """Where a shard runs: on a Ray node that has the custom ``resource`` (None: any node),
    with its stores in ``data_dir`` on that node's disk."""

    data_dir: str
    resource: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"data_dir": self.data_dir, "resource": self.resource}


@dataclass(frozen=True)
class ClusterConfig:
    """A cluster to deploy (see the module's documentation for each field)."""

    data_dir: Path
    shards: tuple[str, ...]
    host: str = DEFAULT_HOST
    port: int = DEFAULT_CLUSTER_PORT
    ray_address: str | None = None
    num_cpus: int | None = None
    shard_env: dict[str, str] = field(default_factory=dict)
    ingress_replicas: int = DEFAULT_INGRESS_REPLICAS
    placements: dict[str, Placement] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_shards(self.shards)
        if not 0 <= self.port <= 65535:
            raise ConfigError("port", f"must be 0..65535, not {self.port}")
        if self.ingress_replicas < 1:
            raise ConfigError("ingress_replicas", "must be at least 1")
        for name in self.placements:
            if not valid_tenant(name):
                raise ConfigError(f"shard.{name}", "is not a valid shard name")

    def placement(self, shard: str) -> Placement:
        """Where ``shard`` runs: its ``[shard.NAME]`` table, else any node and
        ``DATA_DIR/shards/NAME``."""
        found = self.placements.get(shard)
        if found is not None:
            return found
        return Placement(str(self.data_dir / SHARDS_DIR / shard))
        if self.num_cpus is not None and self.num_cpus < 1:
            raise ConfigError("ray.num_cpus", "must be at least 1")


def check_shards(shards: tuple[str, ...]) -> None:
    """Raises :class:`ConfigError` unless ``shards`` are distinct valid names (the tenant name
    rule), at least one."""
    if not shards:
        raise ConfigError("shards", "must name at least one shard")
    for index, name in enumerate(shards):
        if not isinstance(name, str) or not valid_tenant(name):
            raise ConfigError(f"shards[{index}]", f"{name!r} is not a valid shard name")
    if len(set(shards)) != len(shards):
        raise ConfigError("shards", "names a shard twice")


def _table(data: dict[str, Any], key: str, allowed: set[str] | None) -> dict[str, Any]:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise ConfigError(key, "must be a table")
    if allowed is not None:
        for name in table:
            if name not in allowed:
                raise ConfigError(f"{key}.{name}", "is not a known key")
    return table


def _typed(value: Any, kind: type, key: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(key, f"must be a {kind.__name__}, not {value!r}")
    return value


def parse_config(data: dict[str, Any], base: Path) -> ClusterConfig:
    """The config of the parsed TOML ``data``; relative paths are relative to ``base``."""
    for name in data:
        if name not in _TOP:
            raise ConfigError(name, "is not a known key")
    if "data_dir" not in data:
        raise ConfigError("data_dir", "is required")
    data_dir = Path(_typed(data["data_dir"], str, "data_dir"))
    shards = _typed(data.get("shards"), list, "shards")
    ray = _table(data, "ray", _RAY)
    env = _table(data, "shard_env", None)
    for name, value in env.items():
        _typed(value, str, f"shard_env.{name}")
    address = _typed(ray.get("address", ""), str, "ray.address")
    num_cpus = ray.get("num_cpus")
    placements = {}
    for name, options in _table(data, "shard", None).items():
        key = f"shard.{name}"
        if not isinstance(options, dict):
            raise ConfigError(key, "must be a table")
        for option in options:
            if option not in _PLACEMENT:
                raise ConfigError(f"{key}.{option}", "is not a known key")
        where = Path(_typed(options.get("data_dir", ""), str, f"{key}.data_dir"))
        resource = _typed(options.get("resource", ""), str, f"{key}.resource")
        if not options.get("data_dir"):
            where = data_dir / SHARDS_DIR / name
        placements[name] = Placement(
            str(where if where.is_absolute() else base / where), resource or None
        )
    return ClusterConfig(
        data_dir=data_dir if data_dir.is_absolute() else base / data_dir,
        shards=tuple(shards),
        host=_typed(data.get("host", DEFAULT_HOST), str, "host"),
        port=_typed(data.get("port", DEFAULT_CLUSTER_PORT), int, "port"),
        ray_address=address or None,
        num_cpus=None if num_cpus is None else _typed(num_cpus, int, "ray.num_cpus"),
        shard_env=dict(env),
        ingress_replicas=_typed(
            data.get("ingress_replicas", DEFAULT_INGRESS_REPLICAS), int, "ingress_replicas"
        ),
        placements=placements,
    )


def load_config(path: str | Path) -> ClusterConfig:
    """The config in the TOML file at ``path``."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("file", f"is not TOML: {error}") from None
    return parse_config(data, file.resolve().parent)
