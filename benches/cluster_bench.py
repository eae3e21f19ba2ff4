"""The cluster's figures, all in one run on this machine (docs/cluster.md quotes them):

1. Bulk ingest throughput (rows a second) of ``--rows`` rows (default 20 000): one process
   calling ``remember_many`` in batches on a store of its own (the baseline), then
   ``hebbs.ray.ingest`` with 1 and with 2 Ray Data workers into the cluster, each into a fresh
   tenant; the ratio to the baseline. Two more one-process rows: the process embedding with the
   bundled model itself and passing the vectors (a Ray worker's work, in one process), and the
   baseline again after the rest (the machine's load drifts: the two baseline rows show by how
   much), and the write alone: ``remember_many`` of given vectors, no model.
2. The paths of a request, ``--rounds`` rounds (default 2, to see the machine's drift) of
   ``--calls`` calls each, interleaved in a random order each time, one client a path:
   ``direct`` (the owning shard's own server), ``routed`` (:class:`~hebbs.HebbsClient` given
   the cluster's URL: it routes to the owner itself), ``any-node`` (a client that does not
   route, given the other shard's URL: that shard forwards once) and ``ingress`` (a client
   that does not route, given the cluster's URL: Serve's proxy and an ingress replica);
   ``recall`` with a given vector (the routing alone) and with a text cue (the shard embeds
   it), and ``remember`` with the vector given (a write). Then the throughput of
   ``--threads`` clients at once (each its own key) recalling with the vector, and writing
   with it given, on each path but any-node (direct and routed twice each, A B B A).

The cluster is the tests' shape: a Ray of three nodes on 127.0.0.1 (``ray.cluster_utils``; the
head with 2 CPUs, the coordinator and the ingress), shard ``a`` pinned to node 1 and ``b`` to
node 2. The run ends with two lines that stay comparable across runs::

    routed recall overhead p50: +X.XX ms
    routed 8-client throughput / direct: N.NNx

    .venv/bin/python benches/cluster_bench.py [--rows 20000] [--calls 400] [--no-ingest]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from hebbs import Hebbs, HebbsClient
from hebbs.cluster import Cluster, ClusterConfig
from hebbs.cluster.config import Placement
from hebbs.embedder import default_embedder
from hebbs.ray import ingest
from hebbs.service.keys import KeyStore

#: Rows per batch, for the baseline and the Ray ingest alike.
BATCH = 256
_WORDS = [
    "invoice",
    "discount",
    "renewal",
    "login",
    "shipping",
    "feature",
    "meeting",
    "support",
    "security",
    "billing",
    "competitor",
    "audit",
    "contract",
    "upgrade",
    "refund",
    "outage",
    "migration",
    "onboarding",
    "pricing",
    "roadmap",
]


def rows(n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        a, b, c = _WORDS[i % 20], _WORDS[(i // 20) % 20], _WORDS[(i // 400) % 20]
        out.append({"text": f"customer {i % 97} wrote about {a}, {b} and {c} (ticket {i})"})
    return out


def baseline(data: list[dict[str, Any]], path: Path, *, vectors: bool) -> float:
    """One process: ``remember_many`` of each batch, the store embedding the texts (with
    token vectors, the default) or, with ``vectors``, the process embedding them with the
    bundled model first (the work of a Ray worker) and passing the vectors."""
    embedder = default_embedder()
    with Hebbs.open(path, embedder=embedder) as mem:
        started = time.perf_counter()
        for start in range(0, len(data), BATCH):
            texts = [r["text"] for r in data[start : start + BATCH]]
            if vectors:
                embedded = embedder.embed(texts)
                mem.remember_many([{"content": t, "embedding": v} for t, v in zip(texts, embedded)])
            else:
                mem.remember_many([{"content": t} for t in texts])
        return time.perf_counter() - started


def write_alone(data: list[dict[str, Any]], path: Path) -> float:
    """One process: ``remember_many`` of each batch with precomputed vectors (random unit
    vectors; the write path alone: records, HNSW, BM25)."""
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((len(data), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with Hebbs.open(path, embedder=default_embedder()) as mem:
        started = time.perf_counter()
        for start in range(0, len(data), BATCH):
            chunk = range(start, min(start + BATCH, len(data)))
            mem.remember_many(
                [{"content": data[i]["text"], "embedding": vectors[i]} for i in chunk]
            )
        return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


#: The paths a request is timed on (see the module's documentation).
PATHS = ("direct", "routed", "any-node", "ingress")
#: The paths the throughput is measured on, and the calls.
THROUGHPUT_PATHS = ("direct", "routed", "ingress")
THROUGHPUT_KINDS = ("recall", "write")
#: The tenant of the timed calls.
TENANT = "bench-recall"
#: The Ray nodes: their custom resource and the shard each holds.
NODES = {"head": None, "node-1": "a", "node-2": "b"}


def client_for(cluster: Cluster, path: str, key: str) -> HebbsClient:
    """A client of ``path`` with ``key`` (a key of :data:`TENANT`)."""
    owner = cluster.owner(TENANT)
    if path == "routed":
        client = HebbsClient(cluster.url, key)
        client.health()
        assert client.route is not None, "the routed client found no route"
        assert client.route.owner == owner
        return client
    if path == "ingress":
        return HebbsClient(cluster.url, key, route=False)
    if path == "direct":
        return HebbsClient(cluster.shard_url(owner), key, route=False)
    other = next(name for name in cluster.shards() if name != owner)
    return HebbsClient(cluster.shard_url(other), key, route=False)


def latencies(cluster: Cluster, keys: dict[str, str], calls: int, vector: list[float]) -> dict:
    """Latencies in ms by ``kind/path``: recalls with the vector and with a text cue, and
    writes (``remember`` with the vector given: no embedding, so the routing and the store's
    write alone). Each path has its own key of the tenant (a key's rate limit, 100 requests/s,
    would otherwise be shared)."""
    out: dict[str, list[float]] = {}
    bodies = {
        "vector": {"cue_embedding": vector, "strategies": ["similarity"], "top_k": 10},
        "text": {"cue": "customer wrote about refunds", "strategies": ["similarity"], "top_k": 10},
    }
    made = {path: client_for(cluster, path, keys[path]) for path in PATHS}
    order = np.random.default_rng(2)

    def call(kind: str, client: HebbsClient) -> None:
        if kind == "write":
            client.remember("a note written by the bench", embedding=vector)
        else:
            client.recall(**bodies[kind])

    try:
        for kind in (*bodies, "write"):
            for _ in range(20):
                for client in made.values():
                    call(kind, client)
            for _ in range(calls):
                # A fresh order each time: a call right after a slow one (the ingress) finds
                # the cores still busy with its tail (Serve's proxy, logging).
                for path in order.permutation(PATHS):
                    client = made[path]
                    started = time.perf_counter()
                    call(kind, client)
                    out.setdefault(f"{kind}/{path}", []).append(
                        (time.perf_counter() - started) * 1000
                    )
    finally:
        for client in made.values():
            client.close()
    return out


#: Recalls each thread of the throughput measure sends.
THREAD_CALLS = 100


def throughput(
    cluster: Cluster, kind: str, path: str, keys: list[str], vector: list[float]
) -> float:
    """Calls a second of ``len(keys)`` clients of ``path`` at once, each :data:`THREAD_CALLS`
    calls: recalls with the vector (``kind`` "recall") or writes with it given ("write")."""
    body = {"cue_embedding": vector, "strategies": ["similarity"], "top_k": 10}
    made = [client_for(cluster, path, key) for key in keys]

    def run(client: HebbsClient) -> None:
        for _ in range(THREAD_CALLS):
            if kind == "write":
                client.remember("a note written by the bench", embedding=vector)
            else:
                client.recall(**body)

    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(len(keys)) as pool:
            list(pool.map(run, made))
        return len(keys) * THREAD_CALLS / (time.perf_counter() - started)
    finally:
        for client in made:
            client.close()


#: The order of each kind's throughput measures: direct and routed as A B B A, so that the
#: store's growth and the machine's drift during the writes fall on both alike, then ingress.
THROUGHPUT_ORDER = ("direct", "routed", "routed", "direct", "ingress")


def rates_of(cluster: Cluster, keys: list[str], vector: list[float]) -> dict[str, float]:
    """``{kind/path: calls a second}``: each kind on each path of :data:`THROUGHPUT_PATHS`,
    measured in :data:`THROUGHPUT_ORDER` (a path measured twice gets the mean)."""
    rates: dict[str, float] = {}
    for kind in THROUGHPUT_KINDS:
        measured: dict[str, list[float]] = {}
        for path in THROUGHPUT_ORDER:
            measured.setdefault(path, []).append(throughput(cluster, kind, path, keys, vector))
        for path, values in measured.items():
            rates[f"{kind}/{path}"] = statistics.mean(values)
    return rates


def print_round(
    number: int, calls: int, timed: dict[str, list[float]], rates: dict[str, float]
) -> None:
    print(f"\nround {number}: {calls} calls a path, shuffled, one client a path (ms)")
    print(f"| {'call':7} | {'path':8} | {'p50':>7} | {'p90':>7} | {'p50 - direct':>12} |")
    print(f"|{'-' * 9}|{'-' * 10}|{'-' * 9}|{'-' * 9}|{'-' * 14}|")
    for kind in ("vector", "text", "write"):
        direct = statistics.median(timed[f"{kind}/direct"])
        for path in PATHS:
            values = timed[f"{kind}/{path}"]
            p50, p90 = statistics.median(values), percentile(values, 90)
            print(f"| {kind:7} | {path:8} | {p50:7.2f} | {p90:7.2f} | {p50 - direct:+12.2f} |")
    for kind in THROUGHPUT_KINDS:
        shown = ", ".join(f"{path} {rates[f'{kind}/{path}']:.0f}" for path in THROUGHPUT_PATHS)
        print(f"{kind}s/s of concurrent clients (vector given): {shown}")


def overhead(timed: dict[str, list[float]], kind: str, path: str) -> float:
    """The p50 of ``path`` less the direct one, for ``kind`` calls, in ms."""
    return statistics.median(timed[f"{kind}/{path}"]) - statistics.median(timed[f"{kind}/direct"])


def ratio(
    figures: list[tuple[dict[str, list[float]], dict[str, float]]], kind: str, path: str
) -> float:
    """The median over the rounds of the throughput of ``path`` over the direct one."""
    return statistics.median(r[f"{kind}/{path}"] / r[f"{kind}/direct"] for _, r in figures)


def print_summary(
    figures: list[tuple[dict[str, list[float]], dict[str, float]]], threads: int
) -> None:
    """The median over the rounds of each overhead, then the two lines that stay comparable
    across runs."""
    print("\nover the rounds (median of each round's p50 less direct)")
    for kind in ("vector", "text", "write"):
        parts = ", ".join(
            f"{path} {statistics.median(overhead(t, kind, path) for t, _ in figures):+.2f} ms"
            for path in PATHS[1:]
        )
        print(f"{kind}: {parts}")
    for kind in THROUGHPUT_KINDS:
        parts = ", ".join(
            f"{path} {ratio(figures, kind, path):.2f}x" for path in THROUGHPUT_PATHS[1:]
        )
        print(f"{kind} throughput of {threads} clients / direct: {parts}")
    routed = statistics.median(overhead(t, "vector", "routed") for t, _ in figures)
    rate = ratio(figures, "recall", "routed")
    print(f"routed recall overhead p50: {routed:+.2f} ms")
    print(f"routed {threads}-client throughput / direct: {rate:.2f}x")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_ray() -> Any:
    """A Ray of three nodes on 127.0.0.1, as the tests start it: the head with two CPUs and
    two nodes without, each with its own resource."""
    from ray.cluster_utils import Cluster as RayCluster

    ray_cli = Path(sys.executable).with_name("ray")
    subprocess.run([str(ray_cli), "get-auth-token", "--generate"], check=True, capture_output=True)
    ray_cluster = RayCluster(
        initialize_head=True,
        head_node_args={"num_cpus": 2, "include_dashboard": False, "resources": {"hebbs-head": 1}},
    )
    for node in NODES:
        if node != "head":
            ray_cluster.add_node(num_cpus=0, resources={f"hebbs-{node}": 1})
    return ray_cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--no-ingest", action="store_true", help="only the request paths")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the request paths")
    args = parser.parse_args()
    data = rows(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = KeyStore(root / "head")
        keys = {t: store.create(t, "write")[0] for t in ("bench-1", "bench-2", TENANT)}
        path_keys = {path: store.create(TENANT, "write")[0] for path in PATHS}
        thread_keys = [store.create(TENANT, "write")[0] for _ in range(args.threads)]
        store.close()
        if not args.no_ingest:
            single_s = baseline(data, root / "single", vectors=False)
            vectors_s = baseline(data, root / "single-vectors", vectors=True)
            write_s = write_alone(data, root / "write-alone")
        ray_cluster = start_ray()
        config = ClusterConfig(
            data_dir=root / "head",
            shards=("a", "b"),
            port=free_port(),
            ingress_replicas=2,
            ray_address=ray_cluster.address,
            placements={
                shard: Placement(str(root / node / shard), f"hebbs-{node}")
                for node, shard in NODES.items()
                if shard is not None
            },
        )
        try:
            with Cluster(config, log_to_driver=False) as cluster:
                ray_s = {}
                for workers in () if args.no_ingest else (1, 2):
                    result = ingest(
                        data,
                        cluster.url,
                        api_key=keys[f"bench-{workers}"],
                        batch_size=BATCH,
                        workers=workers,
                    )
                    assert result.written == args.rows, result
                    ray_s[workers] = result.seconds
                with HebbsClient(cluster.url, keys[TENANT]) as client:
                    client.remember_many([{"content": r["text"]} for r in data[:2000]])
                    vector = list(
                        client.get(
                            client.list_memories(limit=1).memories[0].id, include_embedding=True
                        ).embedding
                    )
                figures = []
                for number in range(1, args.rounds + 1):
                    timed = latencies(cluster, path_keys, args.calls, vector)
                    rates = rates_of(cluster, thread_keys, vector)
                    print_round(number, args.calls, timed, rates)
                    figures.append((timed, rates))
                if not args.no_ingest:
                    again_s = baseline(data, root / "single-again", vectors=False)
        finally:
            ray_cluster.shutdown()
    if not args.no_ingest:
        print_ingest(args.rows, single_s, again_s, vectors_s, write_s, ray_s)
    print_summary(figures, args.threads)


def print_ingest(
    n: int, single_s: float, again_s: float, vectors_s: float, write_s: float, ray_s: dict
) -> None:
    print(f"\nBulk ingest of {n} rows ({BATCH} a batch), bundled model, 2 cores")
    print(f"| {'how':44} | {'seconds':>8} | {'rows/s':>8} | {'x baseline':>10} |")
    print(f"|{'-' * 46}|{'-' * 10}|{'-' * 10}|{'-' * 12}|")
    table = [
        ("one process, remember_many (baseline)", single_s),
        ("the same, again after the rest", again_s),
        ("one process, embed + remember_many vectors", vectors_s),
        ("one process, remember_many of given vectors", write_s),
    ]
    table += [
        (f"Ray Data, {w} worker{'s' if w > 1 else ''}, into the cluster", s)
        for w, s in ray_s.items()
    ]
    for name, seconds in table:
        rate = n / seconds
        print(f"| {name:44} | {seconds:8.1f} | {rate:8.0f} | {single_s / seconds:10.2f} |")


if __name__ == "__main__":
    main()
