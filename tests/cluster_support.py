"""The cluster the ``test_cluster*.py`` tests share: a real Ray of three nodes started on
127.0.0.1 (``ray.cluster_utils.Cluster``: a raylet each), the head with two CPUs, the key store
and ``cluster.json`` in its own directory, and two nodes without CPUs that each have a custom
resource and a directory of their own; Ray Serve, two shards (``a`` pinned to node 1, ``b`` to
node 2; ``c``, added later, to node 1) of real hebbs servers on the bundled model, each over a
data directory in its node's directory; two ingress replicas; keys for six tenants; the shards
reflect with :mod:`fake_llm` (a real HTTP server on 127.0.0.1). Started once per test session
(about 30 s), on first use."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fake_llm import FakeLLM
from fake_llm import start as start_llm

# Imported before any test module imports Ray: it makes the tests' Ray bind to 127.0.0.1.
from hebbs.cluster import ClusterConfig
from hebbs.cluster.config import Placement
from hebbs.service.keys import KeyStore
from remote import _free_port as free_port

if TYPE_CHECKING:
    from hebbs.cluster import Cluster

#: The tenants written through the ingress (with shards a, b: 4 and 5 on a, the rest on b;
#: adding c moves 1 and 3 to it).
TENANTS = tuple(f"tenant-{i}" for i in range(6))
#: The shards the cluster starts with.
SHARDS = ("a", "b")
#: CPUs of the test's Ray (the machine has two), all on the head node.
RAY_CPUS = 2
#: The Ray nodes: their custom resource (which names the node), and the shards each holds.
NODES = {"head": (), "node-1": ("a", "c"), "node-2": ("b",)}
#: The object store of each node (Ray's smallest is about 75 MB).
OBJECT_STORE_BYTES = 100 * 2**20


@dataclass
class RunningCluster:
    cluster: Cluster
    keys: dict[str, str]
    llm: FakeLLM
    #: Each Ray node's own directory.
    node_dirs: dict[str, Path]

    @property
    def url(self) -> str:
        return self.cluster.url

    @property
    def data_dir(self) -> Path:
        return self.cluster.config.data_dir

    def shard_dir(self, shard: str) -> Path:
        """Shard ``shard``'s data directory (in its node's directory)."""
        return Path(self.cluster.config.placement(shard).data_dir)

    def new_key(self, tenant: str, scope: str = "write") -> str:
        store = KeyStore(self.data_dir)
        try:
            return store.create(tenant, scope)[0]
        finally:
            store.close()


def ensure_ray_token() -> None:
    """Makes Ray's authentication token (``~/.ray/auth_token``) unless it exists, as
    ``ray get-auth-token --generate`` does. hebbs runs Ray with ``RAY_AUTH_MODE=token``;
    ``ray.init`` makes the token for a Ray it starts, but the nodes ``ray.cluster_utils.Cluster``
    starts (like ``ray start``) only read it: on a machine that never ran Ray their GCS dies
    at start."""
    ray_cli = Path(sys.executable).with_name("ray")
    subprocess.run([str(ray_cli), "get-auth-token", "--generate"], check=True, capture_output=True)


def node_resource(node: str) -> str:
    """The custom resource that names Ray node ``node``."""
    return f"hebbs-{node}"


@pytest.fixture(scope="session")
def test_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningCluster]:
    from ray.cluster_utils import Cluster as RayCluster

    from hebbs.cluster import Cluster

    base = tmp_path_factory.mktemp("cluster")
    node_dirs = {node: base / node for node in NODES}
    ensure_ray_token()
    ray_cluster = RayCluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": RAY_CPUS,
            "include_dashboard": False,
            "object_store_memory": OBJECT_STORE_BYTES,
            "resources": {node_resource("head"): 1},
        },
    )
    for node in NODES:
        if node != "head":
            ray_cluster.add_node(
                num_cpus=0,
                object_store_memory=OBJECT_STORE_BYTES,
                resources={node_resource(node): 1},
            )
    data_dir = node_dirs["head"]
    store = KeyStore(data_dir)
    keys = {tenant: store.create(tenant, "write")[0] for tenant in TENANTS}
    store.close()
    llm = start_llm()
    config = ClusterConfig(
        data_dir=data_dir,
        shards=SHARDS,
        port=free_port(),
        ray_address=ray_cluster.address,
        ingress_replicas=2,
        placements={
            shard: Placement(str(node_dirs[node] / shard), node_resource(node))
            for node, shards in NODES.items()
            for shard in shards
        },
        shard_env={
            "HEBBS_LLM_PROVIDER": "openai",
            "HEBBS_LLM_BASE_URL": llm.url,
            "HEBBS_LLM_API_KEY": "test-key",
        },
    )
    cluster = Cluster(config, log_to_driver=bool(os.environ.get("HEBBS_RAY_LOGS"))).start()
    try:
        yield RunningCluster(cluster, keys, llm, node_dirs)
    finally:
        cluster.stop()
        ray_cluster.shutdown()
        llm.close()


def _descendants(root: int) -> set[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    found, todo = {root}, [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _address(hex_address: str) -> str:
    host = hex_address.split(":")[0]
    if len(host) == 8:
        return socket.inet_ntop(socket.AF_INET, bytes.fromhex(host)[::-1])
    raw = b"".join(bytes.fromhex(host[i : i + 8])[::-1] for i in range(0, 32, 8))
    return socket.inet_ntop(socket.AF_INET6, raw)


def listening_addresses(pids: set[int]) -> dict[str, str]:
    """``{local address: the command line of its process}`` of the TCP sockets in LISTEN that
    ``pids`` hold."""
    inodes = {}
    for pid in pids:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes[target[8:-1]] = command[:120]
        except OSError:
            continue
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                found[f"{_address(fields[1])} port {int(fields[1].split(':')[1], 16)}"] = inodes[
                    fields[9]
                ]
    return found


def ray_listeners() -> dict[str, str]:
    """The listening sockets of this process and every process it started (Ray's)."""
    return listening_addresses(_descendants(os.getpid()))


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def ray_node_of(pid: int) -> str | None:
    """The Ray node (of :data:`NODES`) whose raylet started process ``pid``; None for the
    processes outside any raylet (the test itself, Ray's GCS)."""
    current: int | None = pid
    while current is not None and current > 1:
        try:
            command = Path(f"/proc/{current}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            return None
        if "/raylet " in command or command.split(" ")[0].endswith("/raylet"):
            for node in NODES:
                if node_resource(node) in command:
                    return node
            return None
        current = _parent(current)
    return None


def open_files(pid: int, under: Path) -> set[Path]:
    """The files under ``under`` that process ``pid`` holds open now."""
    found = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = Path(os.readlink(fd))
            except OSError:
                continue
            if target.is_relative_to(under):
                found.add(target)
    except OSError:
        pass
    return found


def files_by_node(base: Path) -> dict[int, tuple[str | None, set[Path]]]:
    """``{pid: (its Ray node, the files under base it holds open)}`` for every process of this
    test and its descendants that holds one."""
    found = {}
    for pid in _descendants(os.getpid()):
        files = open_files(pid, base)
        if files:
            found[pid] = (ray_node_of(pid), files)
    return found
