"""The cluster (``hebbs.cluster``) on a real Ray started by the tests on 127.0.0.1: two shards
of real hebbs servers on Ray Serve behind the ingress, written and read through the cluster's
URL by the unchanged :class:`~hebbs.HebbsClient`; a third shard added while a tenant that moves
is written to; a shard replica killed during writes. The tests run in this order and build on
each other's data (``written``)."""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx
import pytest

from cluster_support import SHARDS, TENANTS, RunningCluster, ray_listeners
from hebbs import AuthError, HebbsClient, NotFoundError
from hebbs.cluster.hashing import moves, owner
from hebbs.errors import HebbsError

#: Memories written per tenant by the first test (one remember each, then a bulk write).
PER_TENANT = 5
#: Memories of the tenant that moves while it is written to (enough for the move to take a
#: while: each is exported and imported with its vector).
MOVING_TENANT_SIZE = 1500
#: Seconds the tests wait for a restarted shard replica.
RESTART_WAIT_S = 120.0


def tenant_dirs(cluster: RunningCluster) -> dict[str, set[str]]:
    """``{shard: tenants with a store folder on it}``."""
    found = {}
    for shard in (cluster.data_dir / "shards").iterdir():
        tenants = shard / "tenants"
        found[shard.name] = {p.name for p in tenants.iterdir()} if tenants.is_dir() else set()
    return found


def contents(client: HebbsClient) -> list[str]:
    """Every memory's content in the client's store (paged listing, id order)."""
    out: list[str] = []
    cursor = None
    while True:
        page = client.list_memories(cursor=cursor, limit=1000)
        out.extend(memory.content for memory in page.memories)
        if page.next_cursor is None:
            return out
        cursor = page.next_cursor


@pytest.fixture(scope="module")
def written(test_cluster: RunningCluster) -> dict[str, list[str]]:
    """Each tenant's memories, written through the ingress."""
    out: dict[str, list[str]] = {}
    for tenant in TENANTS:
        texts = [
            f"{tenant} note {i}: the {tenant} account prefers email" for i in range(PER_TENANT)
        ]
        with HebbsClient(test_cluster.url, test_cluster.keys[tenant]) as client:
            client.remember(texts[0], entity_id=tenant)
            client.remember_many([{"content": text, "entity_id": tenant} for text in texts[1:]])
        out[tenant] = texts
    return out


def test_each_tenant_lives_on_exactly_one_shard(
    test_cluster: RunningCluster, written: dict[str, list[str]]
) -> None:
    cluster = test_cluster.cluster
    assert cluster.shards() == list(SHARDS)
    dirs = tenant_dirs(test_cluster)
    assert set(dirs) == set(SHARDS)
    for tenant, texts in written.items():
        holders = [shard for shard, tenants in dirs.items() if tenant in tenants]
        assert holders == [owner(tenant, SHARDS)]
        assert cluster.owner(tenant) == holders[0]
        # The owner's own server holds the data (a direct call, bypassing the ingress).
        with HebbsClient(cluster.shard_url(holders[0]), test_cluster.keys[tenant]) as direct:
            assert sorted(contents(direct)) == sorted(texts)
        with HebbsClient(test_cluster.url, test_cluster.keys[tenant]) as client:
            assert sorted(contents(client)) == sorted(texts)
            found = client.recall(f"{tenant} account", top_k=PER_TENANT)
            assert {r.memory.content for r in found.results} == set(texts)
    # Both shards hold some of the six tenants.
    assert all(dirs[shard] for shard in SHARDS)


def test_the_client_works_unchanged_through_the_ingress(
    test_cluster: RunningCluster, written: dict[str, list[str]]
) -> None:
    first, second = TENANTS[0], TENANTS[4]
    assert owner(first, SHARDS) != owner(second, SHARDS)
    with (
        HebbsClient(test_cluster.url, test_cluster.keys[first]) as client,
        HebbsClient(test_cluster.url, test_cluster.keys[second]) as other,
    ):
        assert client.health().memory_count == PER_TENANT
        memory = client.remember("Globex moved its renewal to March", entity_id="globex")
        assert client.get(memory.id).content == memory.content
        revised = client.revise(memory.id, content="Globex moved its renewal to April")
        assert [m.content for m in client.lineage(revised.id)][-1].endswith("April")
        # Another tenant (on the other shard) sees none of it.
        with pytest.raises(NotFoundError):
            other.get(memory.id)
        assert other.recall("Globex renewal", entity_id="globex").results == []
        # A subscription's server-sent events pass through the ingress as they come.
        with client.subscribe("Globex renewal plans", confidence_threshold=0.3) as subscription:
            client.remember("Globex renewal: they want a longer term", entity_id="globex")
            push = subscription.next(timeout=30)
            assert push is not None
            assert push.memory.content == "Globex renewal: they want a longer term"
        forgotten = client.forget(entity_id="globex")
        assert forgotten.forgotten_count >= 2
        # The export streams through the ingress too.
        export = httpx.get(
            test_cluster.url + "/v1/export",
            headers={"Authorization": f"Bearer {test_cluster.keys[first]}"},
            timeout=30,
        )
        assert export.status_code == 200
        assert export.text.splitlines()[-1].startswith('{"type":"end","memories":')
    # A bad key is refused by the ingress itself, with the server's error body.
    with HebbsClient(test_cluster.url, "hb_not-a-key") as stranger, pytest.raises(AuthError):
        stranger.recall("anything")
    answer = httpx.get(test_cluster.url + "/v1/health", timeout=10)
    assert answer.status_code == 401
    assert answer.json()["error_code"] == "unauthorized"
    # The probes and the OpenAPI document answer without a key.
    assert httpx.get(test_cluster.url + "/v1/health/live", timeout=10).json() == {"live": True}
    assert "/v1/memories/recall" in httpx.get(test_cluster.url + "/openapi.json").json()["paths"]


def test_ray_and_every_server_listen_on_loopback_only(test_cluster: RunningCluster) -> None:
    listening = ray_listeners()
    assert len(listening) >= 5
    outward = {a: command for a, command in listening.items() if not _loopback(a)}
    assert outward == {}


def _loopback(address: str) -> bool:
    return address.startswith(("127.", "::ffff:127.")) or address == "::1"


class Writer:
    """A thread that writes to one tenant through the ingress until stopped, recording what was
    acknowledged and every refusal."""

    def __init__(self, url: str, key: str, prefix: str) -> None:
        self.url, self.key, self.prefix = url, key, prefix
        self.acknowledged: list[str] = []
        self.refusals: list[httpx.Response] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.url, headers=headers, timeout=60) as http:
            n = 0
            while not self._stop.is_set():
                content = f"{self.prefix} write {n}"
                n += 1
                try:
                    answer = http.post("/v1/memories", json={"content": content})
                except httpx.TransportError as error:
                    self.failures.append(repr(error))
                    continue
                if answer.status_code == 201:
                    self.acknowledged.append(content)
                elif answer.status_code == 503:
                    self.refusals.append(answer)
                    time.sleep(0.05)
                else:
                    self.failures.append(f"{answer.status_code} {answer.text}")

    def __enter__(self) -> Writer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=90)


def test_adding_a_shard_moves_only_the_tenants_whose_owner_changed(
    test_cluster: RunningCluster, written: dict[str, list[str]], embedder: object
) -> None:
    cluster = test_cluster.cluster
    expected = moves(TENANTS, SHARDS, (*SHARDS, "c"))
    assert set(expected) == {"tenant-1", "tenant-3"}
    big = "tenant-3"
    # The moving tenant gets enough memories (with vectors: no embedding) for a slow move.
    vector = [1.0] + [0.0] * 383
    with HebbsClient(test_cluster.url, test_cluster.keys[big]) as client:
        for start in range(0, MOVING_TENANT_SIZE, 500):
            client.remember_many(
                [{"content": f"bulk {i}", "embedding": vector} for i in range(start, start + 500)]
            )
    before = {}
    for tenant in TENANTS:
        with HebbsClient(test_cluster.url, test_cluster.keys[tenant]) as client:
            found = client.recall(f"{tenant} account", top_k=3, strategies=["similarity"])
            before[tenant] = (sorted(contents(client)), [r.memory.id for r in found.results])
    untouched = {
        shard: tenants - set(expected) for shard, tenants in tenant_dirs(test_cluster).items()
    }
    with Writer(test_cluster.url, test_cluster.keys[big], "during the move") as writer:
        time.sleep(0.5)
        report = cluster.add_shard("c")
        time.sleep(0.5)
    assert report["shards"] == ["a", "b", "c"]
    assert {t: (m["from"], m["to"]) for t, m in report["moved"].items()} == expected
    assert report["moved"][big]["memories"] >= MOVING_TENANT_SIZE + PER_TENANT
    assert all(m["old_copy_removed"] for m in report["moved"].values())
    assert cluster.shards() == ["a", "b", "c"]
    # Writes to the moving tenant were refused with a clear 503 while it moved, none failed.
    assert writer.failures == []
    assert writer.refusals, "no write was refused during the move"
    for refusal in writer.refusals:
        assert refusal.headers["retry-after"] == "1"
        assert refusal.json()["error_code"] == "not_ready"
        assert "moving" in refusal.json()["message"]
    assert writer.acknowledged
    # Only the moved tenants left their shards; each tenant is on exactly one shard.
    dirs = tenant_dirs(test_cluster)
    for shard, tenants in untouched.items():
        assert dirs[shard] == tenants
    assert dirs["c"] == set(expected)
    for tenant in TENANTS:
        with HebbsClient(test_cluster.url, test_cluster.keys[tenant]) as client:
            now = sorted(contents(client))
            found = client.recall(f"{tenant} account", top_k=3, strategies=["similarity"])
            old_contents, old_ids = before[tenant]
            if tenant == big:
                # Nothing lost: what was there and every acknowledged write during the move.
                assert now == sorted(old_contents + writer.acknowledged)
            else:
                assert now == old_contents
            assert [r.memory.id for r in found.results] == old_ids


def test_a_killed_shard_replica_loses_no_acknowledged_write(test_cluster: RunningCluster) -> None:
    cluster = test_cluster.cluster
    victims = [t for t in TENANTS if cluster.owner(t) == "a"]
    assert victims == ["tenant-4", "tenant-5"]
    pid = cluster.shard_pid("a")
    writers = [
        Writer(test_cluster.url, test_cluster.keys[t], f"{t} around the kill") for t in victims
    ]
    for writer in writers:
        writer.__enter__()
    try:
        time.sleep(1.0)
        before_kill = [len(w.acknowledged) for w in writers]
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + RESTART_WAIT_S
        restarted = None
        while time.monotonic() < deadline:
            try:
                restarted = cluster.shard_pid("a")
            except HebbsError:
                restarted = None
            if restarted is not None and restarted != pid:
                break
            time.sleep(0.5)
        assert restarted is not None
        assert restarted != pid
        after_restart = [len(w.acknowledged) for w in writers]
        # Writes go on against the new replica.
        while any(len(w.acknowledged) < n + 20 for w, n in zip(writers, after_restart)):
            assert time.monotonic() < deadline, "no writes acknowledged after the restart"
            time.sleep(0.2)
    finally:
        for writer in writers:
            writer.__exit__(None, None, None)
    assert all(n > 0 for n in before_kill)
    for tenant, writer in zip(victims, writers):
        assert not [f for f in writer.failures if not f.startswith("503")]
        with HebbsClient(test_cluster.url, test_cluster.keys[tenant]) as client:
            stored = set(contents(client))
        lost = [content for content in writer.acknowledged if content not in stored]
        assert lost == []
