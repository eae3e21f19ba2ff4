"""The cluster's own file, ``DATA_DIR/cluster.json`` on the head node (mode 0600): the current
shard list and its version (one more at each change: the version of the shard map that clients
route by), where each shard runs (its :class:`~hebbs.cluster.config.Placement`: a node's
resource and a data directory on that node) and the internal secret the coordinator shows the
shards' ``/_shard`` routes.

It is written when a cluster is first deployed and by the coordinator each time a shard joins
or leaves (after its tenants have moved), through a temporary file and a rename, so it is always
one whole version; a coordinator that restarts reads the shard list from it, never from its
arguments.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from hebbs.cluster.config import Placement, check_shards
from hebbs.cluster.constants import STATE_FILE

#: Random bytes of the internal secret.
SECRET_BYTES = 32
#: The version of a cluster's first shard list (and of a ``cluster.json`` saved before versions).
FIRST_VERSION = 1


@dataclass(frozen=True)
class ClusterState:
    shards: tuple[str, ...]
    secret: str
    placements: dict[str, Placement] = field(default_factory=dict)
    version: int = FIRST_VERSION

    def with_shards(
        self, shards: tuple[str, ...], placements: dict[str, Placement]
    ) -> ClusterState:
        """This state with the shard list ``shards`` and their ``placements``, one version on."""
        kept = {name: placements[name] for name in shards if name in placements}
        return ClusterState(shards, self.secret, kept, self.version + 1)


def state_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / STATE_FILE


def load_state(data_dir: str | Path) -> ClusterState | None:
    """The state saved in ``data_dir``, or None before the first deployment."""
    path = state_path(data_dir)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    shards = tuple(str(name) for name in data["shards"])
    check_shards(shards)
    placements = {
        str(name): Placement(str(where["data_dir"]), where.get("resource"))
        for name, where in data.get("placements", {}).items()
    }
    version = int(data.get("version", FIRST_VERSION))
    return ClusterState(shards, str(data["secret"]), placements, version)


def save_state(data_dir: str | Path, state: ClusterState) -> None:
    """Writes ``state`` whole (a temporary file renamed over the old one)."""
    path = state_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        placements = {name: where.to_json() for name, where in state.placements.items()}
        json.dump(
            {
                "shards": list(state.shards),
                "version": state.version,
                "secret": state.secret,
                "placements": placements,
            },
            file,
        )
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def initial_state(
    data_dir: str | Path, shards: tuple[str, ...], placements: dict[str, Placement] | None = None
) -> ClusterState:
    """The saved state, or a new one of ``shards`` placed at ``placements`` and a fresh secret
    (saved)."""
    found = load_state(data_dir)
    if found is not None:
        return found
    check_shards(shards)
    state = ClusterState(shards, secrets.token_urlsafe(SECRET_BYTES), dict(placements or {}))
    save_state(data_dir, state)
    return state
