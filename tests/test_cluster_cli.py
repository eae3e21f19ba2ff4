"""``hebbs cluster serve --config cluster.toml`` as a user runs it: a subprocess that starts its
own Ray on 127.0.0.1 and serves; ``hebbs cluster add-shard``, ``remove-shard`` and ``shards``
from other processes join it through ``DATA_DIR/ray-address``; SIGINT stops it cleanly. A bad
config is a usage error naming the key."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from cluster_support import free_port
from hebbs import HebbsClient
from hebbs.cluster.hashing import owner
from hebbs.service.keys import KeyStore

HEBBS = [str(Path(sys.executable).with_name("hebbs"))]
#: Seconds the subprocess may take to deploy (its own Ray, one shard, the ingress).
START_S = 180


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HEBBS, *args], capture_output=True, text=True, timeout=START_S, check=False
    )


def test_cluster_serve_add_shard_and_stop(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "cluster.toml"
    config.write_text(
        f'data_dir = "data"\nport = {port}\nshards = ["one"]\ningress_replicas = 1\n'
        '[ray]\nnum_cpus = 1\n[shard.two]\ndata_dir = "elsewhere/two"\n'
    )
    store = KeyStore(tmp_path / "data")
    key = store.create("acme", "write")[0]
    store.close()
    serving = subprocess.Popen(
        [*HEBBS, "cluster", "serve", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert serving.stdout is not None
        line = serving.stdout.readline()
        assert line.startswith(f"hebbs cluster serving at http://127.0.0.1:{port}"), line
        url = f"http://127.0.0.1:{port}"
        with HebbsClient(url, key) as client:
            client.remember("Acme asked for a discount", entity_id="acme")
        added = run("cluster", "add-shard", "--config", str(config), "two", "--json")
        assert added.returncode == 0, added.stderr
        report = json.loads(added.stdout)
        assert report["shards"] == ["one", "two"]
        listed = run("cluster", "shards", "--config", str(config))
        assert listed.stdout.split() == ["one", "two"]
        with HebbsClient(url, key) as client:
            found = client.recall("discount", entity_id="acme")
            assert [r.memory.content for r in found.results] == ["Acme asked for a discount"]
        again = run("cluster", "add-shard", "--config", str(config), "two")
        assert again.returncode == 2
        assert "already" in again.stderr
        # Shard two's stores are where its [shard.two] table says.
        holder = owner("acme", ["one", "two"])
        assert (tmp_path / ("elsewhere/two" if holder == "two" else "data/shards/one")).is_dir()
        removed = run("cluster", "remove-shard", "--config", str(config), "two", "--json")
        assert removed.returncode == 0, removed.stderr
        assert json.loads(removed.stdout)["shards"] == ["one"]
        with HebbsClient(url, key) as client:
            found = client.recall("discount", entity_id="acme")
            assert [r.memory.content for r in found.results] == ["Acme asked for a discount"]
        last = run("cluster", "remove-shard", "--config", str(config), "one")
        assert last.returncode == 2
        assert "last shard" in last.stderr
    finally:
        serving.send_signal(signal.SIGINT)
        out, _ = serving.communicate(timeout=120)
    assert serving.returncode == 0
    assert out.strip().endswith("cluster stopped")
    assert not (tmp_path / "data" / "ray-address").exists()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/v1/health/live", timeout=1)
        except httpx.TransportError:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("the cluster still answers after it stopped")


def test_a_bad_config_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "cluster.toml"
    config.write_text('data_dir = "data"\nshards = ["a"]\ncolour = "red"\n')
    answer = run("cluster", "serve", "--config", str(config))
    assert answer.returncode == 2
    assert "colour" in answer.stderr
