"""Many tenants on one server: what a tiny tenant costs on disk and in memory, and what a recall
costs on a tenant whose store is open against one whose store must be opened first.

In a temporary data directory, creates ``--tenants`` tenants (one API key each, through
:class:`hebbs.service.keys.KeyStore`), starts a real server (``hebbs.server.serve.serve``, what
``hebbs serve`` runs, API keys on, in a subprocess on 127.0.0.1) and stores ``--memories``
memories in each tenant with one ``POST /v1/memories/bulk`` (384-d random unit vectors passed
in, so the load does not wait for the model). Then:

1. stops the server (every store closed) and measures the disk: the whole ``tenants/`` folder
   (allocated blocks, what ``du`` counts, and apparent bytes), the mean closed store, and what
   one is made of (RocksDB's ``LOG``, ``OPTIONS``, ``MANIFEST``, write-ahead log, table files,
   the vector index checkpoint ``hnsw/``, the tantivy folder ``text/``);
2. starts the server again and opens ``--max-open`` stores one after another (one recall each:
   these are cold opens), reporting the server's RSS and open files before and after, and so
   the RSS per open store, and the disk while they are open (write-ahead log preallocation);
3. runs ``--requests`` recalls from one client over Zipf-skewed tenants (rank r drawn with
   weight ``1 / r ** --zipf``, ranks shuffled over the tenants) and, replaying the server's
   least-recently-used bound, splits their latencies into recalls of a tenant whose store was
   open and of one that had to be opened, and the difference of their p50s (what an open adds).

Recalls send a text cue (``--cue text``, embedded by the server: what most clients send) or a
random vector (``--cue vector``). Prints the figures as a markdown table. ``python
benches/tenants_bench.py`` is a quick run (200 tenants); the issue's figure is
``--tenants 10000``. CI never runs it.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import tempfile
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from hebbs.service.keys import KeyStore
from hebbs.service.tenants import DEFAULT_MAX_OPEN_TENANTS, TENANTS_DIR
from rest_bench import serve_process

SEED = 29
DIM = 384
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 120.0
TOP_K = 10
#: Recalls on one tenant before anything is timed (loads the model, warms the code paths).
WARM_UP = 20
WORDS = ("customer", "invoice", "meeting", "pricing", "discount", "renewal", "outage", "export")
#: What a closed store's files are grouped into, by the first pattern that matches.
STORE_PARTS = (
    ("rocksdb LOG", lambda rel: rel.startswith("store/LOG")),
    ("rocksdb OPTIONS", lambda rel: rel.startswith("store/OPTIONS")),
    ("rocksdb MANIFEST", lambda rel: rel.startswith("store/MANIFEST")),
    ("rocksdb WAL", lambda rel: rel.startswith("store/") and rel.endswith(".log")),
    ("rocksdb tables", lambda rel: rel.startswith("store/") and rel.endswith(".sst")),
    ("rocksdb other", lambda rel: rel.startswith("store/")),
    ("hnsw/ (vector index)", lambda rel: rel.startswith("hnsw/")),
    ("text/ (tantivy)", lambda rel: rel.startswith("text/")),
    ("other", lambda rel: True),
)


def sentence(i: int) -> str:
    picked = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(6)]
    return f"note {i}: the " + " ".join(picked)


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    values = rng.standard_normal((n, DIM)).astype(np.float32)
    return values / np.linalg.norm(values, axis=1, keepdims=True)


def tenant_name(i: int) -> str:
    return f"t{i:05d}"


@dataclass
class Running:
    url: str
    pid: int


@contextmanager
def server(data_dir: Path, max_open: int) -> Iterator[Running]:
    """A ``serve`` subprocess over ``data_dir`` with API keys; stopped (stores closed) on exit."""
    log = (data_dir / "server.log").open("ab")
    try:
        process, url = serve_process(
            data_dir, log, timeout_s=START_TIMEOUT_S, max_open_tenants=max_open
        )
    except RuntimeError:
        log.close()
        raise
    try:
        yield Running(url, process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=STOP_TIMEOUT_S)
        log.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def sizes(root: Path) -> tuple[int, int]:
    """Allocated bytes (what ``du`` counts) and apparent bytes of the files under ``root``."""
    allocated = apparent = 0
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            allocated += stat.st_blocks * 512
            apparent += stat.st_size
    return allocated, apparent


def store_parts(store: Path) -> dict[str, tuple[int, int]]:
    """(allocated, apparent) bytes of each part of one store (see ``STORE_PARTS``)."""
    parts = {name: (0, 0) for name, _ in STORE_PARTS}
    for path in store.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(store).as_posix()
        stat = path.stat()
        name = next(name for name, matches in STORE_PARTS if matches(rel))
        allocated, apparent = parts[name]
        parts[name] = (allocated + stat.st_blocks * 512, apparent + stat.st_size)
    return parts


class Client:
    """One HTTP connection and each tenant's key."""

    def __init__(self, url: str, keys: list[str]) -> None:
        self.http = httpx.Client(base_url=url, timeout=120)
        self.keys = keys

    def post(self, tenant: int, path: str, body: dict[str, Any]) -> float:
        """Seconds the request took; raises on an error answer."""
        start = time.perf_counter()
        answer = self.http.post(
            path, json=body, headers={"Authorization": f"Bearer {self.keys[tenant]}"}
        )
        took = time.perf_counter() - start
        if answer.status_code >= 300:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:300]}")
        return took

    def close(self) -> None:
        self.http.close()


def recall_body(cue: str, i: int, rng: np.random.Generator) -> dict[str, Any]:
    if cue == "text":
        return {"cue": sentence(i), "top_k": TOP_K}
    return {"cue_embedding": unit_vectors(rng, 1)[0].tolist(), "top_k": TOP_K}


def ms(seconds: list[float]) -> str:
    if not seconds:
        return "n/a | n/a"
    p50, p99 = np.percentile(seconds, [50, 99]) * 1e3
    return f"{p50:.1f} | {p99:.1f}"


def kb(n: float) -> str:
    return f"{n / 1024:,.1f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tenants", type=int, default=200, help="tenants (default 200)")
    parser.add_argument("--memories", type=int, default=20, help="memories per tenant")
    parser.add_argument("--requests", type=int, default=2000, help="recalls of the Zipf load")
    parser.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent of the load")
    parser.add_argument(
        "--max-open",
        type=int,
        default=DEFAULT_MAX_OPEN_TENANTS,
        help=f"the server's open-store bound (default DEFAULT_MAX_OPEN_TENANTS, "
        f"{DEFAULT_MAX_OPEN_TENANTS})",
    )
    parser.add_argument("--cue", choices=("text", "vector"), default="text")
    parser.add_argument("--dir", type=Path, help="data directory (default: a temporary one)")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    n, m = args.tenants, args.memories
    max_open = min(args.max_open, n)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        data = Path(tmp)
        started = time.perf_counter()
        store = KeyStore(data)
        keys = [store.create(tenant_name(i), "admin")[0] for i in range(n)]
        store.close()
        print(f"{n} tenants x {m} memories, server bound max_open_tenants={args.max_open}")
        print(f"keys created in {time.perf_counter() - started:.1f} s", flush=True)

        with server(data, args.max_open) as running:
            client = Client(running.url, keys)
            started = time.perf_counter()
            for t in range(n):
                vectors = unit_vectors(rng, m)
                items = [
                    {"content": sentence(t * m + j), "embedding": vectors[j].tolist()}
                    for j in range(m)
                ]
                client.post(t, "/v1/memories/bulk", {"items": items})
                if (t + 1) % 1000 == 0:
                    print(f"  loaded {t + 1} tenants", flush=True)
            load_s = time.perf_counter() - started
            client.close()
        print(f"loaded in {load_s:.1f} s ({n / load_s:.1f} tenants/s)", flush=True)

        tenants = data / TENANTS_DIR
        total_alloc, total_apparent = sizes(tenants)
        stores = sorted(p for p in tenants.iterdir() if p.is_dir())
        parts: dict[str, list[int]] = {name: [0, 0] for name, _ in STORE_PARTS}
        for one in stores:
            for name, (alloc, apparent) in store_parts(one).items():
                parts[name][0] += alloc
                parts[name][1] += apparent
        payload = m * (DIM * 4 + len(sentence(0)))

        with server(data, args.max_open) as running:
            client = Client(running.url, keys)
            rss_start = rss_mb(running.pid)
            for i in range(WARM_UP):
                client.post(0, "/v1/memories/recall", recall_body(args.cue, i, rng))
            rss_one, fds_one = rss_mb(running.pid), open_files(running.pid)
            cold: list[float] = []
            for t in range(1, max_open):
                cold.append(client.post(t, "/v1/memories/recall", recall_body(args.cue, t, rng)))
            rss_all, fds_all = rss_mb(running.pid), open_files(running.pid)
            open_alloc, _ = sizes(tenants)
            lru: OrderedDict[int, None] = OrderedDict((t, None) for t in range(max_open))
            ranks = list(range(n))
            random.Random(SEED).shuffle(ranks)
            weights = 1.0 / np.arange(1, n + 1) ** args.zipf
            drawn = rng.choice(n, size=args.requests, p=weights / weights.sum())
            warm_s: list[float] = []
            cold_s: list[float] = []
            for i, rank in enumerate(drawn):
                tenant = ranks[int(rank)]
                was_open = tenant in lru
                took = client.post(tenant, "/v1/memories/recall", recall_body(args.cue, i, rng))
                (warm_s if was_open else cold_s).append(took)
                lru[tenant] = None
                lru.move_to_end(tenant)
                while len(lru) > args.max_open:
                    lru.popitem(last=False)
            rss_end, fds_end = rss_mb(running.pid), open_files(running.pid)
            client.close()

    per_store_rss = (rss_all - rss_one) / max(max_open - 1, 1)
    print()
    print("| figure | value |")
    print("|---|---:|")
    print(f"| tenants x memories | {n} x {m} |")
    print(f"| server tenant cache | max_open_tenants={args.max_open} (LRU of idle stores) |")
    print(f"| load (one bulk request a tenant) | {n / load_s:.1f} tenants/s |")
    print(f"| disk, all closed (du) | {total_alloc / 2**20:,.1f} MB |")
    print(f"| disk, all closed (apparent) | {total_apparent / 2**20:,.1f} MB |")
    print(
        f"| closed store, mean (du / apparent) | {kb(total_alloc / n)} / {kb(total_apparent / n)} |"
    )
    print(f"| raw payload of a store (vectors + text) | {kb(payload)} |")
    print(f"| disk with {max_open} stores open (du) | {open_alloc / 2**20:,.1f} MB |")
    print(
        f"| server RSS: started / 1 store open / {max_open} open / after the load | "
        f"{rss_start:.0f} / {rss_one:.0f} / {rss_all:.0f} / {rss_end:.0f} MB |"
    )
    print(f"| RSS per open store | {per_store_rss:.2f} MB |")
    print(
        f"| open files: 1 store / {max_open} stores / after the load | "
        f"{fds_one} / {fds_all} / {fds_end} |"
    )
    print(
        f"| cold open + recall, {max_open - 1} in a row, p50 / p99 ms "
        f"| {ms(cold).replace('|', '/')} |"
    )
    print()
    print(f"Zipf load: {args.requests} recalls ({args.cue} cue), exponent {args.zipf}, one client")
    print("| tenant | recalls | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|")
    print(f"| store open | {len(warm_s)} | {ms(warm_s)} |")
    print(f"| store opened first | {len(cold_s)} | {ms(cold_s)} |")
    if warm_s and cold_s:
        added = (float(np.median(cold_s)) - float(np.median(warm_s))) * 1e3
        print()
        print(f"What an open adds to a recall (p50 opened first - p50 open): {added:.1f} ms")
    print()
    print("A closed store, mean per part (du / apparent):")
    print("| part | du | apparent |")
    print("|---|---:|---:|")
    for name, (alloc, apparent) in parts.items():
        print(f"| {name} | {kb(alloc / n)} | {kb(apparent / n)} |")


if __name__ == "__main__":
    main()
