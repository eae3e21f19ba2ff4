"""The cluster the ``test_cluster*.py`` tests share: a real Ray started on 127.0.0.1 with two
CPUs, Ray Serve, two shards (``a``, ``b``) of real hebbs servers on the bundled model, the
ingress, and keys for six tenants; the shards reflect with :mod:`fake_llm` (a real HTTP server
on 127.0.0.1). Started once per test session (about 30 s), on first use."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fake_llm import FakeLLM
from fake_llm import start as start_llm

# Imported before any test module imports Ray: it makes the tests' Ray bind to 127.0.0.1.
from hebbs.cluster import ClusterConfig
from hebbs.server.keys import KeyStore
from remote import _free_port as free_port

if TYPE_CHECKING:
    from hebbs.cluster import Cluster

#: The tenants written through the ingress (with shards a, b: 4 and 5 on a, the rest on b;
#: adding c moves 1 and 3 to it).
TENANTS = tuple(f"tenant-{i}" for i in range(6))
#: The shards the cluster starts with.
SHARDS = ("a", "b")
#: CPUs of the test's Ray (the machine has two).
RAY_CPUS = 2


@dataclass
class RunningCluster:
    cluster: Cluster
    keys: dict[str, str]
    llm: FakeLLM

    @property
    def url(self) -> str:
        return self.cluster.url

    @property
    def data_dir(self) -> Path:
        return self.cluster.config.data_dir

    def new_key(self, tenant: str, scope: str = "write") -> str:
        store = KeyStore(self.data_dir)
        try:
            return store.create(tenant, scope)[0]
        finally:
            store.close()


@pytest.fixture(scope="session")
def test_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningCluster]:
    from hebbs.cluster import Cluster

    data_dir = tmp_path_factory.mktemp("cluster")
    store = KeyStore(data_dir)
    keys = {tenant: store.create(tenant, "write")[0] for tenant in TENANTS}
    store.close()
    llm = start_llm()
    config = ClusterConfig(
        data_dir=data_dir,
        shards=SHARDS,
        port=free_port(),
        num_cpus=RAY_CPUS,
        shard_env={
            "HEBBS_LLM_PROVIDER": "openai",
            "HEBBS_LLM_BASE_URL": llm.url,
            "HEBBS_LLM_API_KEY": "test-key",
        },
    )
    cluster = Cluster(config, log_to_driver=bool(os.environ.get("HEBBS_RAY_LOGS"))).start()
    try:
        yield RunningCluster(cluster, keys, llm)
    finally:
        cluster.stop()
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
