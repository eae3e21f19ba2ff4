"""The cluster's figures, all in one run on this machine (docs/cluster.md quotes them):

1. Bulk ingest throughput (rows a second) of ``--rows`` rows (default 20 000): one process
   calling ``remember_many`` in batches on a store of its own (the baseline), then
   ``hebbs.ray.ingest`` with 1 and with 2 Ray Data workers into the cluster (through the
   ingress, to the owning shard), each into a fresh tenant; the ratio to the baseline.
   Two more one-process rows: the process embedding with the bundled model itself and passing
   the vectors (a Ray worker's work, in one process), and the baseline again after the rest
   (the machine's load drifts: the two baseline rows show by how much), and the write alone:
   ``remember_many`` of given vectors, no model.
2. Ingress overhead, with 1 and then 2 ingress replicas (the same cluster, its ingress
   redeployed; ``--rounds`` times, default 2, to see the machine's drift): ``recall`` p50 /
   p90 through the cluster's URL against the same call to the owning shard's own server (a
   direct call), and through the ingress's router on a uvicorn of its own (no Serve proxy),
   ``--calls`` of each, interleaved, one client; with a given vector (the routing alone) and
   with a text cue (the shard embeds it); and ``remember`` with the vector given (a write: the
   ingress also asks the coordinator). Then the throughput of ``--threads`` clients at once
   (each its own key) recalling with the vector, through the cluster's URL and direct.

Ray is started here on 127.0.0.1 with 2 CPUs; the cluster has one shard (``a``)::

    .venv/bin/python benches/cluster_bench.py [--rows 20000] [--calls 400] [--no-ingest]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from hebbs import Hebbs, HebbsClient
from hebbs.cluster import Cluster, ClusterConfig
from hebbs.cluster.deployments import ActorLink, coordinator
from hebbs.cluster.hashing import owner
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


class PlainIngress:
    """The ingress's :class:`~hebbs.cluster.ingress.Router` on a uvicorn of its own (no Serve
    proxy in front), routing to the shard at ``shard_url``: it splits the ingress's overhead
    into Serve's hop and the forwarding hop."""

    def __init__(self, shard_url: str) -> None:
        import uvicorn
        from starlette.applications import Starlette
        from starlette.routing import Route

        from hebbs.cluster.ingress import Router

        async def resolve(shard: str) -> str:
            return shard_url

        router = Router(ActorLink(coordinator()), resolve)
        methods = ["GET", "POST", "PUT", "DELETE"]
        app = Starlette(routes=[Route("/{path:path}", router.handle, methods=methods)])
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


#: The paths a recall is timed on: the cluster's URL, the Router without Serve, the shard.
PATHS = ("ingress", "router", "direct")


def recall_latencies(
    urls: dict[str, str], keys: dict[str, str], calls: int, vector: list[float]
) -> dict:
    """Latencies in ms by ``cue/path``: recalls with the vector and with a text cue, and
    writes (``remember`` with the vector given: no embedding, so the routing and the store's
    write alone; through the ingress it also asks the coordinator). Each path has its own key
    of the tenant (a key's rate limit, 100 requests/s, would otherwise be shared by the
    three)."""
    out: dict[str, list[float]] = {}
    bodies = {
        "vector": {"cue_embedding": vector, "strategies": ["similarity"], "top_k": 10},
        "text": {"cue": "customer wrote about refunds", "strategies": ["similarity"], "top_k": 10},
    }
    clients = {name: HebbsClient(url, keys[name]) for name, url in urls.items()}

    def call(kind: str, client: HebbsClient) -> None:
        if kind == "write":
            client.remember("a note written by the bench", embedding=vector)
        else:
            client.recall(**bodies[kind])

    try:
        for kind in (*bodies, "write"):
            for _ in range(20):
                for client in clients.values():
                    call(kind, client)
            for _ in range(calls):
                for name, client in clients.items():
                    started = time.perf_counter()
                    call(kind, client)
                    out.setdefault(f"{kind}/{name}", []).append(
                        (time.perf_counter() - started) * 1000
                    )
    finally:
        for client in clients.values():
            client.close()
    return out


#: Recalls each thread of the throughput measure sends.
THREAD_CALLS = 100


def throughput(url: str, keys: list[str], vector: list[float]) -> float:
    """Recalls a second of ``len(keys)`` clients at once, each :data:`THREAD_CALLS` calls."""
    body = {"cue_embedding": vector, "strategies": ["similarity"], "top_k": 10}

    def run(key: str) -> None:
        with HebbsClient(url, key) as client:
            for _ in range(THREAD_CALLS):
                client.recall(**body)

    started = time.perf_counter()
    with ThreadPoolExecutor(len(keys)) as pool:
        list(pool.map(run, keys))
    return len(keys) * THREAD_CALLS / (time.perf_counter() - started)


def ingress_figures(
    cluster: Cluster, keys: dict[str, str], thread_keys: list[str], calls: int, vector: list[float]
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """The latencies of :func:`recall_latencies` and the throughput through the cluster's URL
    and direct, with the ingress as it is deployed now."""
    direct = cluster.shard_url(owner("bench-recall", cluster.shards()))
    plain = PlainIngress(direct)
    urls = {"ingress": cluster.url, "router": plain.url, "direct": direct}
    try:
        latencies = recall_latencies(urls, keys, calls, vector)
    finally:
        plain.stop()
    rates = {path: throughput(urls[path], thread_keys, vector) for path in ("ingress", "direct")}
    return latencies, rates


def print_ingress(
    replicas: int, calls: int, latencies: dict[str, list[float]], rates: dict[str, float]
) -> None:
    print(f"\nrecall with {replicas} ingress replica(s), {calls} calls each, interleaved (ms)")
    print(f"| {'cue':7} | {'path':8} | {'p50':>7} | {'p90':>7} |")
    print(f"|{'-' * 9}|{'-' * 10}|{'-' * 9}|{'-' * 9}|")
    for name, values in latencies.items():
        cue, path = name.split("/")
        p50, p90 = statistics.median(values), percentile(values, 90)
        print(f"| {cue:7} | {path:8} | {p50:7.2f} | {p90:7.2f} |")
    for cue in ("vector", "text", "write"):
        p50 = {path: statistics.median(latencies[f"{cue}/{path}"]) for path in PATHS}
        print(
            f"ingress overhead on {cue} p50: {p50['ingress'] - p50['direct']:+.2f} ms"
            f" (Serve's proxy hop {p50['ingress'] - p50['router']:+.2f} ms, the forwarding"
            f" {p50['router'] - p50['direct']:+.2f} ms)"
        )
    print(
        f"throughput, vector cue, concurrent clients: {rates['ingress']:.0f} recalls/s through "
        f"the cluster, {rates['direct']:.0f} direct ({rates['ingress'] / rates['direct']:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--no-ingest", action="store_true", help="only the ingress figures")
    parser.add_argument(
        "--rounds", type=int, default=2, help="ingress measures with 1, then 2 replicas, repeated"
    )
    args = parser.parse_args()
    data = rows(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = KeyStore(root / "cluster")
        keys = {t: store.create(t, "write")[0] for t in ("bench-1", "bench-2", "bench-recall")}
        path_keys = {path: store.create("bench-recall", "write")[0] for path in PATHS}
        thread_keys = [store.create("bench-recall", "write")[0] for _ in range(args.threads)]
        store.close()
        if not args.no_ingest:
            single_s = baseline(data, root / "single", vectors=False)
            vectors_s = baseline(data, root / "single-vectors", vectors=True)
            write_s = write_alone(data, root / "write-alone")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        config = ClusterConfig(
            data_dir=root / "cluster", shards=("a",), port=port, num_cpus=2, ingress_replicas=1
        )
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
            key = keys["bench-recall"]
            with HebbsClient(cluster.url, key) as client:
                client.remember_many([{"content": r["text"]} for r in data[:2000]])
                vector = client.get(
                    client.list_memories(limit=1).memories[0].id, include_embedding=True
                ).embedding
            figures = []
            for _ in range(args.rounds):
                for replicas in (1, 2):
                    cluster.set_ingress_replicas(replicas)
                    measured = ingress_figures(
                        cluster, path_keys, thread_keys, args.calls, list(vector)
                    )
                    figures.append((replicas, measured))
            if not args.no_ingest:
                again_s = baseline(data, root / "single-again", vectors=False)
    if not args.no_ingest:
        print_ingest(args.rows, single_s, again_s, vectors_s, write_s, ray_s)
    for replicas, (latencies, rates) in figures:
        print_ingress(replicas, args.calls, latencies, rates)


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
