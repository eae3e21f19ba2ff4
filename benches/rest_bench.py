"""What the REST server adds to the embedded engine, and what micro-batching of embeddings buys.

Loads ``--n`` memories (384-d random unit vectors) with ``remember_many`` into the store of the
tenant ``default``, optimizes, then in one run:

1. times the embedded calls (``Hebbs.recall`` / ``remember``, vectors passed in and embedded by
   the bundled model) in this process;
2. serves the store with ``hebbs.server.serve.serve`` in a subprocess (``--no-auth`` on
   127.0.0.1, the bundled model), and times REST recall and remember, vectors passed in and
   embedded by the server, with 1 and ``--clients`` concurrent clients (threads, each its own
   :class:`hebbs.HebbsClient`: what an agent that moves from embedded to server calls);
3. serves it again with ``embed_batching=False`` and times the server-embedded calls again.

Prints a table (p50 / p99 latency per request, throughput of all clients) and the ratios: REST
recall p50 minus embedded p50, and 8-client over 1-client remember throughput with and without
batching. The REST-minus-embedded figure is also measured paired, for a vector cue and for a
text cue (embedded by the bundled model on each side): the store is copied before
anything runs, the copy is opened in this process, and each fresh query goes through the
embedded copy and through the server back to back (alternating which goes first), after the
same warm-up queries on both, so neither side sees a query the other has not. Run
``python benches/rest_bench.py --n 10000`` for a quick run; CI never runs it.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np

import hebbs
from hebbs.embedder import default_embedder
from hebbs.service.tenants import DEFAULT_TENANT, TENANTS_DIR

SEED = 7
DIM = 384
LOAD_BATCH = 2000
HOST = "127.0.0.1"
START_TIMEOUT_S = 60.0
TOP_K = 10
#: Rounds of the model's own one-text and batched passes.
MODEL_ROUNDS = 30
#: Queries each side sees before the paired recall is timed.
PAIRED_WARM_UP = 20
WORDS = ("customer", "invoice", "meeting", "pricing", "discount", "renewal", "outage", "export")

Call = Callable[[int, int], Any]  # (client, call number)


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    values = rng.standard_normal((n, DIM)).astype(np.float32)
    return values / np.linalg.norm(values, axis=1, keepdims=True)


def sentence(i: int) -> str:
    """A short memory-like text, different for each ``i``."""
    picked = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(6)]
    return f"note {i}: the " + " ".join(picked)


def load(store: Path, n: int, rng: np.random.Generator) -> None:
    vectors = unit_vectors(rng, n)
    with hebbs.Hebbs.open(store, embedder=default_embedder()) as mem:
        for start in range(0, n, LOAD_BATCH):
            end = min(start + LOAD_BATCH, n)
            mem.remember_many(
                [
                    {"content": sentence(i), "entity_id": f"e{i % 100}", "embedding": vectors[i]}
                    for i in range(start, end)
                ]
            )
        mem.optimize()


def loaded_store(data_dir: Path, n: int, rng: np.random.Generator) -> Path:
    """The store of the tenant ``default`` under ``data_dir``, loaded with ``n`` memories."""
    store = data_dir / TENANTS_DIR / DEFAULT_TENANT
    store.parent.mkdir(parents=True)
    started = time.perf_counter()
    load(store, n, rng)
    print(f"n={n}: loaded and optimized in {time.perf_counter() - started:.1f} s")
    return store


def print_header(runs: int) -> None:
    print(f"{runs} calls per client and case, latency per request in ms")
    print("| mode | operation | clients | p50 ms | p99 ms | req/s |")
    print("|---|---|---:|---:|---:|---:|")


def timed(call: Call, clients: int, runs: int) -> tuple[list[float], float]:
    """Seconds of each ``call(client, i)``, ``runs`` calls per client in ``clients`` threads
    started together, and the requests per second of all of them."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)

    def run(c: int) -> None:
        barrier.wait()
        for r in range(runs):
            start = time.perf_counter()
            call(c, c * runs + r)
            latencies[c].append(time.perf_counter() - start)

    threads = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    flat = [x for part in latencies for x in part]
    return flat, len(flat) / wall


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def serve_process(
    data_dir: Path, output: Any, timeout_s: float = START_TIMEOUT_S, **options: Any
) -> tuple[subprocess.Popen[bytes], str]:
    """``serve(data_dir, **options)`` in a subprocess on a free port of :data:`HOST`, its
    output to ``output``; returns the process and its URL once the server answers ready (the
    process is killed if it does not within ``timeout_s``)."""
    port = free_port()
    arguments = "".join(f", {name}={value!r}" for name, value in options.items())
    code = (
        "from hebbs.server.serve import serve; "
        f"serve({str(data_dir)!r}, host={HOST!r}, port={port}{arguments})"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=output, stderr=output)
    url = f"http://{HOST}:{port}"
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(url + "/v1/health/ready").status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the server did not start (its output: {output})")
        time.sleep(0.1)


@contextmanager
def server(data_dir: Path, batching: bool, grpc_port: int | None = None) -> Iterator[str]:
    """A ``serve`` subprocess over ``data_dir`` (also serving gRPC on ``grpc_port`` when
    given); yields its URL, stops it on exit."""
    process, url = serve_process(
        data_dir, subprocess.DEVNULL, auth=False, embed_batching=batching, grpc_port=grpc_port
    )
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


class Table:
    def __init__(self) -> None:
        self.rows: list[str] = []
        self.p50: dict[tuple[str, str, int], float] = {}
        self.rate: dict[tuple[str, str, int], float] = {}

    def add(self, mode: str, name: str, clients: int, seconds: list[float], rate: float) -> None:
        p50, p99 = np.percentile(seconds, [50, 99]) * 1e3
        self.p50[mode, name, clients] = p50
        self.rate[mode, name, clients] = rate
        self.rows.append(
            f"| {mode:<24} | {name:<28} | {clients:>7} | {p50:7.2f} | {p99:7.2f} | {rate:8.0f} |"
        )
        print(self.rows[-1], flush=True)


def rest_calls(
    sessions: list[hebbs.HebbsClient], queries: np.ndarray, fresh: np.ndarray
) -> dict[str, Call]:
    return {
        "recall, vector": lambda c, i: sessions[c].recall(cue_embedding=queries[i], top_k=TOP_K),
        "remember, vector": lambda c, i: sessions[c].remember(sentence(-i), embedding=fresh[i]),
        "recall, server embeds": lambda c, i: sessions[c].recall(cue=sentence(i + 1), top_k=TOP_K),
        "remember, server embeds": lambda c, i: sessions[c].remember(f"fresh {sentence(i)}"),
    }


def paired_recall(
    twin: Path, client: hebbs.HebbsClient, queries: np.ndarray
) -> dict[str, tuple[float, float, float]]:
    """For a vector cue (each of ``queries``) and a text cue (one sentence per query, embedded
    by each side's model): p50 ms of embedded and REST recall, each query through both back to
    back in alternating order, on the embedded ``twin`` of the served store; and the p50 of the
    per-query differences."""
    found: dict[str, tuple[float, float, float]] = {}
    with hebbs.Hebbs.open(twin, embedder=default_embedder()) as mem:
        cues: dict[str, tuple[list[Any], tuple[Callable[[Any], object], ...]]] = {
            "vector": (
                list(queries),
                (
                    lambda q: mem.recall(cue_embedding=q, top_k=TOP_K),
                    lambda q: client.recall(cue_embedding=q, top_k=TOP_K),
                ),
            ),
            "text": (
                [sentence(10_000 + j) for j in range(len(queries))],
                (
                    lambda q: mem.recall(cue=q, top_k=TOP_K),
                    lambda q: client.recall(cue=q, top_k=TOP_K),
                ),
            ),
        }
        for kind, (items, calls) in cues.items():
            embedded_s: list[float] = []
            rest_s: list[float] = []
            for item in items[:PAIRED_WARM_UP]:
                for call in calls:
                    call(item)
            for j, item in enumerate(items[PAIRED_WARM_UP:]):
                for side in (j % 2, 1 - j % 2):
                    start = time.perf_counter()
                    calls[side](item)
                    (embedded_s if side == 0 else rest_s).append(time.perf_counter() - start)
            gaps = np.array(rest_s) - np.array(embedded_s)
            found[kind] = (
                float(np.median(embedded_s) * 1e3),
                float(np.median(rest_s) * 1e3),
                float(np.median(gaps) * 1e3),
            )
    return found


def model_pass_ms(size: int) -> tuple[float, float]:
    """Median ms of the bundled model's token pass (what a remember runs) over one text and
    over ``size`` texts, the two timed in turn."""
    model = default_embedder()
    texts = [f"fresh {sentence(i)}" for i in range(size)]
    alone: list[float] = []
    batched: list[float] = []
    for _ in range(MODEL_ROUNDS):
        for batch, samples in (([texts[0]], alone), (texts, batched)):
            start = time.perf_counter()
            model.embed_with_tokens(batch)
            samples.append(time.perf_counter() - start)
    return float(np.median(alone) * 1e3), float(np.median(batched) * 1e3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000, help="memories in the store")
    parser.add_argument("--runs", type=int, default=200, help="calls per client and case")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    total = args.runs * args.clients
    queries = unit_vectors(rng, total)
    fresh = unit_vectors(rng, total)
    table = Table()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        store = loaded_store(data_dir, args.n, rng)
        twin = Path(tmp) / "twin"
        shutil.copytree(store, twin)
        print_header(args.runs)
        with hebbs.Hebbs.open(store, embedder=default_embedder()) as mem:
            embedded: dict[str, Call] = {
                "recall, vector": lambda _, i: mem.recall(cue_embedding=queries[i], top_k=TOP_K),
                "remember, vector": lambda _, i: mem.remember(sentence(-i), embedding=fresh[i]),
                "recall, embeds": lambda _, i: mem.recall(cue=sentence(i + 1), top_k=TOP_K),
                "remember, embeds": lambda _, i: mem.remember(f"fresh {sentence(i)}"),
            }
            for name, call in embedded.items():
                timed(call, 1, min(50, args.runs))
                table.add("embedded", name, 1, *timed(call, 1, args.runs))
        for batching in (True, False):
            mode = "REST, batching " + ("on" if batching else "off")
            with server(data_dir, batching) as url:
                for clients in (1, args.clients):
                    sessions = [hebbs.HebbsClient(url, timeout=60) for _ in range(clients)]
                    for name, call in rest_calls(sessions, queries, fresh).items():
                        if not batching and "server embeds" not in name:
                            continue
                        timed(call, clients, min(20, args.runs))
                        table.add(mode, name, clients, *timed(call, clients, args.runs))
                    if batching and clients == 1:
                        paired = paired_recall(twin, sessions[0], unit_vectors(rng, args.runs))
                    for session in sessions:
                        session.close()
    on, off, c = "REST, batching on", "REST, batching off", args.clients
    added = table.p50[on, "recall, vector", 1] - table.p50["embedded", "recall, vector", 1]
    print(f"\nREST recall p50 - embedded recall p50 (vectors, 1 client): {added:+.2f} ms")
    for kind, (embedded_ms, rest_ms, gap_ms) in paired.items():
        print(
            f"paired, {kind} cue, each query both ways: embedded p50 {embedded_ms:.2f} ms, "
            f"REST p50 {rest_ms:.2f} ms, REST - embedded {rest_ms - embedded_ms:+.2f} ms "
            f"(p50 of the per-query differences {gap_ms:+.2f} ms)"
        )
    for mode in (on, off):
        ratio = (
            table.rate[mode, "remember, server embeds", c]
            / table.rate[mode, "remember, server embeds", 1]
        )
        print(f"{mode}: remember with server embedding, {c} clients / 1 client: {ratio:.2f}x")
    gain = (
        table.rate[on, "remember, server embeds", c] / table.rate[off, "remember, server embeds", c]
    )
    print(f"{c}-client remember throughput, batching on / off: {gain:.2f}x")
    alone, batched = model_pass_ms(c)
    print(
        f"the model's own ceiling on this machine: one text {alone:.2f} ms, a batch of {c} "
        f"{batched:.2f} ms, so at most {c * alone / batched:.2f}x from batching {c} texts"
    )


if __name__ == "__main__":
    main()
