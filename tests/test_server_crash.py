"""A ``hebbs serve`` process killed with SIGKILL in the middle of writes restarts with every
memory whose write it acknowledged (2xx) present, and serves them. The writes carry their own
vectors, so no model is loaded and the run stays within a few seconds."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

#: Writes the writers attempt in all (the kill lands in the middle of them).
WRITES = 200
#: Acknowledged writes after which the server is killed.
KILL_AFTER = 80
WRITERS = 4
DIM = 8
READY = re.compile(r"Uvicorn running on https?://127\.0\.0\.1:(\d+)")
START_TIMEOUT_S = 60.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def start_server(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """``hebbs serve --no-auth`` on a free port, once it listens, and its base URL."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from hebbs.cli import main; sys.exit(main())",
            "serve",
            "--db",
            str(data_dir),
            "--no-auth",
            "--port",
            "0",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line and process.poll() is not None:
            break
        found = READY.search(line)
        if found:
            threading.Thread(target=process.stderr.read, daemon=True).start()  # drain
            return process, f"http://127.0.0.1:{found.group(1)}"
    process.kill()
    raise AssertionError("hebbs serve did not start")


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    process, url = start_server(tmp_path)
    acknowledged: list[str] = []
    lock = threading.Lock()
    killed = threading.Event()

    def write(worker: int) -> None:
        with httpx.Client(base_url=url, timeout=5) as client:
            for i in range(worker, WRITES, WRITERS):
                vector = [1.0 if d == i % DIM else 0.1 for d in range(DIM)]
                body = {"content": f"write {i}", "embedding": vector, "entity_id": "crash"}
                try:
                    response = client.post("/v1/memories", json=body)
                except httpx.HTTPError:
                    return  # the server is gone
                if response.status_code == 201:
                    with lock:
                        acknowledged.append(response.json()["id"])
                        if len(acknowledged) >= KILL_AFTER and not killed.is_set():
                            killed.set()
                            process.send_signal(signal.SIGKILL)

    writers = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    process.wait(10)
    assert killed.is_set()
    assert process.returncode == -signal.SIGKILL
    assert KILL_AFTER <= len(acknowledged) < WRITES

    process, url = start_server(tmp_path)
    try:
        with httpx.Client(base_url=url, timeout=10) as client:
            found = client.post("/v1/memories/batch", json={"ids": acknowledged}).json()
            assert [m and m["id"] for m in found] == acknowledged
            count = client.get("/v1/health").json()["memory_count"]
            assert count >= len(acknowledged)
            timeline = client.post(
                "/v1/recall",
                json={"strategies": ["temporal"], "entity_id": "crash", "top_k": WRITES},
            ).json()
            assert set(acknowledged) <= {r["memory"]["id"] for r in timeline["results"]}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)
    # uvicorn shuts down cleanly, then re-raises the signal it caught.
    assert process.returncode in (0, -signal.SIGTERM)
