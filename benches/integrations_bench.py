"""gRPC beside REST and embedded, and export/import throughput, in one run.

Loads ``--n`` memories (384-d random unit vectors, as ``rest_bench.py`` does, whose helpers this
shares) into the store of the tenant ``default``, then:

1. times recall and remember embedded (``Hebbs``, the bundled model embedding the text), over
   REST and over gRPC (``hebbs serve --grpc-port``, ``--no-auth``, a subprocess on 127.0.0.1),
   with 1 and ``--clients`` concurrent clients. The gRPC protocol carries text only (the
   reference protocol has no vector fields), so every mode embeds server-side here: the cue of
   a recall and the content of a remember. REST and gRPC clients are threads, each with its own
   ``httpx.Client`` or grpcio channel (our ``hebbs_pb2`` messages, no generated stubs);
2. exports the store (``hebbs export`` in a subprocess, with embeddings) and imports the file
   into an empty store (``hebbs import``, a subprocess), reporting memories per second, the file
   size and each process's peak resident memory (its ``VmHWM``), which shows whether the
   memories were held at once.

Prints a table with p50 / p99 per request and the throughput of all clients, and the ratios of
gRPC and REST p50 over embedded. ``python benches/integrations_bench.py --n 10000`` for a quick
run; CI never runs it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
import httpx
import numpy as np

import hebbs
import rest_bench
from hebbs.embedder import default_embedder
from hebbs.rpc import hebbs_pb2 as pb
from rest_bench import (
    TOP_K,
    Call,
    Table,
    free_port,
    loaded_store,
    print_header,
    sentence,
    server,
    timed,
)

SEED = 11


def grpc_calls(channels: list[grpc.Channel]) -> dict[str, Call]:
    def method(channel: grpc.Channel, name: str, request: Any, response: Any) -> Any:
        return channel.unary_unary(
            f"/hebbs.v1.MemoryService/{name}",
            request_serializer=request.SerializeToString,
            response_deserializer=response.FromString,
        )

    recalls = [method(c, "Recall", pb.RecallRequest, pb.RecallResponse) for c in channels]
    remembers = [method(c, "Remember", pb.RememberRequest, pb.RememberResponse) for c in channels]
    return {
        "recall, server embeds": lambda c, i: recalls[c](
            pb.RecallRequest(cue=sentence(i + 1), top_k=TOP_K), timeout=60
        ),
        "remember, server embeds": lambda c, i: remembers[c](
            pb.RememberRequest(content=f"grpc {sentence(i)}"), timeout=60
        ),
    }


def rest_calls(sessions: list[httpx.Client]) -> dict[str, Call]:
    """``rest_bench``'s REST calls that send text (the server embeds it)."""
    unused = np.empty((0, 0), dtype=np.float32)
    calls = rest_bench.rest_calls(sessions, unused, unused)
    return {name: call for name, call in calls.items() if "server embeds" in name}


def wait_for_grpc(port: int) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=60)


#: Runs ``hebbs`` with the arguments after ``-c`` and prints its peak resident memory (kB) last
#: on stderr. It reads ``VmHWM`` (the peak of this program's own address space) rather than
#: ``wait4``'s ``ru_maxrss``, which also counts the pages of the forked bench process.
PEAK_WRAPPER = (
    "import sys\n"
    "from hebbs.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "print(peak, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def measured(arguments: list[str], stdout: Any = None) -> tuple[float, float]:
    """Seconds and peak resident MiB of ``hebbs arguments`` run to completion."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PEAK_WRAPPER, *arguments],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"hebbs {arguments[0]} failed: {done.stderr[-2000:]}")
    return seconds, int(done.stderr.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000, help="memories in the store")
    parser.add_argument("--runs", type=int, default=200, help="calls per client and case")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    table = Table()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        store = loaded_store(data_dir, args.n, rng)

        dump = data_dir / "dump.jsonl"
        with open(dump, "wb") as out:
            export_s, export_mib = measured(["export", "--db", str(store)], stdout=out)
        dump_mib = dump.stat().st_size / 2**20
        copy = data_dir / "copy"
        import_s, import_mib = measured(
            ["import", "--db", str(copy), str(dump)], stdout=subprocess.DEVNULL
        )

        print_header(args.runs)
        with hebbs.Hebbs.open(store, embedder=default_embedder()) as mem:
            embedded: dict[str, Call] = {
                "recall, server embeds": lambda _, i: mem.recall(cue=sentence(i + 1), top_k=TOP_K),
                "remember, server embeds": lambda _, i: mem.remember(f"embedded {sentence(i)}"),
            }
            for name, call in embedded.items():
                timed(call, 1, min(50, args.runs))
                table.add("embedded", name, 1, *timed(call, 1, args.runs))
        grpc_port = free_port()
        with server(data_dir, True, grpc_port) as url:
            wait_for_grpc(grpc_port)
            for clients in (1, args.clients):
                sessions = [httpx.Client(base_url=url, timeout=60) for _ in range(clients)]
                channels = [grpc.insecure_channel(f"127.0.0.1:{grpc_port}") for _ in range(clients)]
                for mode, calls in (("REST", rest_calls(sessions)), ("gRPC", grpc_calls(channels))):
                    for name, call in calls.items():
                        timed(call, clients, min(20, args.runs))
                        table.add(mode, name, clients, *timed(call, clients, args.runs))
                for session in sessions:
                    session.close()
                for channel in channels:
                    channel.close()

    print()
    for name in ("recall, server embeds", "remember, server embeds"):
        base = table.p50["embedded", name, 1]
        for mode in ("REST", "gRPC"):
            p50 = table.p50[mode, name, 1]
            print(f"{name}, 1 client: {mode} p50 {p50:.2f} ms = embedded {p50 - base:+.2f} ms")
        ratio = table.rate["gRPC", name, args.clients] / table.rate["REST", name, args.clients]
        print(f"{name}, {args.clients} clients: gRPC / REST throughput {ratio:.2f}x")
    print(
        f"\nexport of {args.n} memories (with embeddings): {export_s:.1f} s, "
        f"{args.n / export_s:,.0f} memories/s, {dump_mib:.0f} MiB file, "
        f"peak RSS {export_mib:.0f} MiB"
    )
    print(
        f"import of the same file into an empty store: {import_s:.1f} s, "
        f"{args.n / import_s:,.0f} memories/s, peak RSS {import_mib:.0f} MiB"
    )


if __name__ == "__main__":
    main()
