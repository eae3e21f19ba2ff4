"""The cluster (``hebbs.cluster``) on a real Ray of three nodes started by the tests on
127.0.0.1: two shards of real hebbs servers on Ray Serve, each pinned to its own node and data
directory, behind two ingress replicas, written and read through the cluster's URL by the
unchanged :class:`~hebbs.HebbsClient`; both replicas serving and agreeing on keys (a revoke
refused everywhere within the key cache's TTL); a third shard added, then removed again, while
a tenant that moves is written to; every process holding files of one node's directory only;
the coordinator and then a shard replica killed during writes. Clients that route themselves
(the default of :class:`~hebbs.HebbsClient` given the cluster's URL) go to the owning shard
directly, follow a move and fail over when their shard's replica is killed; any shard forwards
a request it does not own. The tests run in this order and build on each other's data
(``written``)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import httpx
import numpy as np
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from ray.exceptions import RayError

from cluster_support import NODES, SHARDS, TENANTS, RunningCluster, files_by_node, ray_listeners
from hebbs import AsyncHebbsClient, AuthError, HebbsClient, NotFoundError
from hebbs.cluster.constants import (
    INGRESS_HEADER,
    KEY_CACHE_TTL_S,
    MAP_ROUTE,
    MAP_VERSION_HEADER,
    MOVED_STATUS,
    SHARD_HEADER,
)
from hebbs.cluster.hashing import moves, owner
from hebbs.errors import HebbsError, ServerUnavailableError
from hebbs.service.keys import KeyStore

#: Memories written per tenant by the first test (one remember each, then a bulk write).
PER_TENANT = 5
#: Memories of the tenant that moves while it is written to (enough for the move to take a
#: while: each is exported and imported with its vector).
MOVING_TENANT_SIZE = 1500
#: Seconds the tests wait for a restarted shard replica.
RESTART_WAIT_S = 120.0


#: The tenant of the key revoked (on shard b, before and after c is added).
REVOKED_TENANT = "revoked"
#: Requests sent to find both ingress replicas (Serve's proxy picks one at random of two idle).
REPLICA_PROBES = 40


def tenant_dirs(cluster: RunningCluster) -> dict[str, set[str]]:
    """``{shard: tenants with a store folder on it}``, for every shard with a data directory
    (each in its node's directory)."""
    found = {}
    for node, shards in NODES.items():
        for shard in shards:
            tenants = cluster.node_dirs[node] / shard / "tenants"
            if tenants.is_dir():
                found[shard] = {p.name for p in tenants.iterdir()}
    return found


def by_replica(url: str, key: str, n: int = REPLICA_PROBES) -> dict[str, set[int]]:
    """``{ingress replica: the statuses it answered}`` of ``n`` health calls with ``key``."""
    found: dict[str, set[int]] = {}
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as http:
        for _ in range(n):
            answer = http.get("/v1/health", timeout=30)
            found.setdefault(answer.headers[INGRESS_HEADER], set()).add(answer.status_code)
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
    # Each shard's stores are in its node's own directory, nothing under the head's.
    assert not (test_cluster.data_dir / "shards").exists()
    assert not (test_cluster.data_dir / "tenants").exists()
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


class Recorded(httpx.HTTPTransport):
    """A real transport that records where each request went (``scheme://host:port``)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        self.sent.append(f"{url.scheme}://{url.host}:{url.port}")
        return super().handle_request(request)


def test_a_client_routes_to_the_owning_shard_and_any_shard_forwards(
    test_cluster: RunningCluster, written: dict[str, list[str]]
) -> None:
    cluster = test_cluster.cluster
    tenant = TENANTS[1]
    key = test_cluster.keys[tenant]
    shard = cluster.owner(tenant)
    other = next(name for name in cluster.shards() if name != shard)
    auth = {"Authorization": f"Bearer {key}"}
    # The map: every shard's URL, the key's tenant and its owner, from the ingress or a shard.
    shard_map = httpx.get(test_cluster.url + MAP_ROUTE, headers=auth, timeout=30).json()
    assert shard_map["tenant"] == tenant
    assert shard_map["owner"] == shard
    urls = {entry["name"]: entry["url"] for entry in shard_map["shards"]}
    assert urls == {name: cluster.shard_url(name) for name in cluster.shards()}
    from_shard = httpx.get(cluster.shard_url(other) + MAP_ROUTE, headers=auth, timeout=30)
    assert from_shard.json() == shard_map
    assert httpx.get(test_cluster.url + MAP_ROUTE, timeout=30).status_code == 401
    version = shard_map["version"]
    recorded = Recorded()
    with HebbsClient(test_cluster.url, key, transport=recorded) as client:
        assert client.route is None
        assert client.health().memory_count == PER_TENANT
        # The first answer (through the ingress) named the map; the client fetched it.
        assert client.route is not None
        assert (client.route.owner, client.route.url) == (shard, cluster.shard_url(shard))
        assert client.route.version == version
        first = len(recorded.sent)
        assert sorted(contents(client)) == sorted(written[tenant])
        found = client.recall(f"{tenant} account", top_k=PER_TENANT)
        assert {r.memory.content for r in found.results} == set(written[tenant])
        memory = client.remember(f"{tenant} routed write", entity_id=tenant)
        assert client.get(memory.id).content == f"{tenant} routed write"
        client.forget(ids=[memory.id])
        assert set(recorded.sent[first:]) == {cluster.shard_url(shard)}
        assert test_cluster.url not in recorded.sent[first:]

    async def routed_async() -> tuple[str | None, int]:
        async with AsyncHebbsClient(test_cluster.url, key) as aclient:
            await aclient.health()
            count = (await aclient.health()).memory_count
            return (None if aclient.route is None else aclient.route.owner), count

    assert asyncio.run(routed_async()) == (shard, PER_TENANT)
    # A request sent to another shard without a map is forwarded once to the owner.
    answer = httpx.get(cluster.shard_url(other) + "/v1/health", headers=auth, timeout=30)
    assert answer.status_code == 200
    assert answer.headers[SHARD_HEADER] == shard
    assert answer.json()["memory_count"] == PER_TENANT
    # One routed by a map is answered 421, with the owner, before anything is done.
    routed = {**auth, MAP_VERSION_HEADER: str(version)}
    before = len(contents(HebbsClient(cluster.shard_url(shard), key)))
    answer = httpx.post(
        cluster.shard_url(other) + "/v1/memories",
        headers=routed,
        json={"content": "misrouted"},
        timeout=30,
    )
    assert answer.status_code == MOVED_STATUS
    body = answer.json()
    assert (body["error_code"], body["owner"], body["map_version"]) == ("moved", shard, version)
    with HebbsClient(cluster.shard_url(shard), key) as direct:
        assert len(contents(direct)) == before
    # The owner serves the routed request, stamped with its name and the map's version.
    answer = httpx.get(cluster.shard_url(shard) + "/v1/health", headers=routed, timeout=30)
    assert answer.status_code == 200
    assert answer.headers[SHARD_HEADER] == shard
    assert answer.headers[MAP_VERSION_HEADER] == str(version)


def test_an_mcp_host_given_any_shard_reaches_its_tenant(test_cluster: RunningCluster) -> None:
    cluster = test_cluster.cluster
    tenant = TENANTS[2]
    key = test_cluster.keys[tenant]
    shard = cluster.owner(tenant)
    other = next(name for name in cluster.shards() if name != shard)
    other_url, owner_url = cluster.shard_url(other), cluster.shard_url(shard)

    async def session() -> str:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        transport = streamable_http_client(other_url + "/mcp", http_client=http)
        async with http, Client(transport) as client:
            stored = await client.call_tool("remember", {"content": f"{tenant} met us over MCP"})
            memory = stored.structured_content
            assert memory is not None
            found = await client.call_tool("recall", {"cue": "met us over MCP", "top_k": 3})
            assert found.structured_content is not None
            ids = [r["memory"]["id"] for r in found.structured_content["results"]]
            assert memory["id"] in ids
            await client.call_tool("forget", {"ids": [memory["id"]]})
            return str(memory["id"])

    memory_id = asyncio.run(session())
    # The session lived on the owner, where the memory was stored (and is now forgotten).
    with HebbsClient(owner_url, key, route=False) as direct:
        assert not [content for content in contents(direct) if "over MCP" in content]
        assert direct.tombstone(memory_id) is not None


def test_ray_and_every_server_listen_on_loopback_only(test_cluster: RunningCluster) -> None:
    listening = ray_listeners()
    assert len(listening) >= 5
    outward = {a: command for a, command in listening.items() if not _loopback(a)}
    assert outward == {}


def test_two_ingress_replicas_serve_and_agree_on_keys(test_cluster: RunningCluster) -> None:
    store = KeyStore(test_cluster.data_dir)
    try:
        # A tenant that no shard added later takes (the move tests count the movers).
        key, info = store.create(REVOKED_TENANT, "write")
        served = by_replica(test_cluster.url, key)
        assert len(served) == 2
        assert all(statuses == {200} for statuses in served.values())
        # An unknown key is refused by both.
        assert by_replica(test_cluster.url, "hb_unknown") == {r: {401} for r in served}
        shard = test_cluster.cluster.owner(REVOKED_TENANT)
        direct = test_cluster.cluster.shard_url(shard) + "/v1/health"
        auth = {"Authorization": f"Bearer {key}"}
        assert httpx.get(direct, headers=auth, timeout=10).status_code == 200
        # A revoke in the head's key store is refused everywhere within the cache's TTL.
        assert store.revoke(info.key_id)
        time.sleep(KEY_CACHE_TTL_S + 0.1)
        assert by_replica(test_cluster.url, key) == {r: {401} for r in served}
        assert httpx.get(direct, headers=auth, timeout=10).status_code == 401
    finally:
        store.close()


def _loopback(address: str) -> bool:
    return address.startswith(("127.", "::ffff:127.")) or address == "::1"


class Writer:
    """A thread that writes to one tenant through the ingress until stopped, recording what was
    acknowledged and every refusal; ``routed``: with a :class:`HebbsClient`, which routes to
    the owning shard itself (its refusals are its ``ServerUnavailableError`` messages, and
    ``owners`` the shards it routed to)."""

    def __init__(self, url: str, key: str, prefix: str, *, routed: bool = False) -> None:
        self.url, self.key, self.prefix = url, key, prefix
        self.acknowledged: list[str] = []
        self.refusals: list[httpx.Response] = []
        self.unavailable: list[str] = []
        self.owners: list[str | None] = []
        self.failures: list[str] = []
        self.routed = routed
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run_routed if routed else self._run, daemon=True
        )

    def _run_routed(self) -> None:
        with HebbsClient(self.url, self.key, timeout=60) as client:
            n = 0
            while not self._stop.is_set():
                content = f"{self.prefix} routed write {n}"
                n += 1
                try:
                    client.remember(content)
                except ServerUnavailableError as error:
                    self.unavailable.append(str(error))
                    time.sleep(0.05)
                    continue
                except HebbsError as error:
                    self.failures.append(repr(error))
                    continue
                self.acknowledged.append(content)
                self.owners.append(None if client.route is None else client.route.owner)

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


def wait_for_writes(writer: Writer, count: int) -> None:
    """Waits until ``writer`` has ``count`` acknowledged writes (failing on a write that
    failed, or after :data:`RESTART_WAIT_S`)."""
    deadline = time.monotonic() + RESTART_WAIT_S
    while len(writer.acknowledged) < count:
        assert not writer.failures, writer.failures
        assert time.monotonic() < deadline, f"{writer.prefix}: {len(writer.acknowledged)} writes"
        time.sleep(0.05)


#: Relevance alone ranks the recalls compared across a move (recency and reinforcement move
#: with the clock and with the recalls themselves).
RELEVANCE = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}


def snapshot(cluster: RunningCluster) -> dict[str, tuple[list[str], list[str]]]:
    """``{tenant: (its contents sorted, its top-3 similarity recall ids)}``."""
    found = {}
    for tenant in TENANTS:
        with HebbsClient(cluster.url, cluster.keys[tenant]) as client:
            recalled = client.recall(
                f"{tenant} account", top_k=3, strategies=["similarity"], scoring_weights=RELEVANCE
            )
            found[tenant] = (sorted(contents(client)), [r.memory.id for r in recalled.results])
    return found


def move_while_writing(
    cluster: RunningCluster, big: str, expected: dict[str, tuple[str, str]], change: str
) -> dict[str, object]:
    """Adds (``change`` "add:NAME") or removes ("remove:NAME") a shard while a thread writes to
    the moving tenant ``big``; checks the report, the 503s (from both ingress replicas), that
    only ``expected`` moved and that nothing was lost; returns the report."""
    before = snapshot(cluster)
    untouched = {shard: tenants - set(expected) for shard, tenants in tenant_dirs(cluster).items()}
    action, name = change.split(":")
    routed = Writer(cluster.url, cluster.keys[big], f"during {change}", routed=True)
    with Writer(cluster.url, cluster.keys[big], f"during {change}") as writer, routed:
        wait_for_writes(routed, 5)
        if action == "add":
            report = cluster.cluster.add_shard(name)
        else:
            report = cluster.cluster.remove_shard(name)
        wait_for_writes(routed, len(routed.acknowledged) + 5)
    assert {t: (m["from"], m["to"]) for t, m in report["moved"].items()} == expected
    assert report["moved"][big]["memories"] >= MOVING_TENANT_SIZE + PER_TENANT
    assert all(m["old_copy_removed"] for m in report["moved"].values())
    assert cluster.cluster.shards() == report["shards"]
    assert cluster.cluster.moving() == {}
    # Writes to the moving tenant were refused with a clear 503 while it moved, by both
    # ingress replicas; none failed.
    assert writer.failures == []
    assert writer.refusals, "no write was refused during the move"
    for refusal in writer.refusals:
        assert refusal.headers["retry-after"] == "1"
        assert refusal.json()["error_code"] == "not_ready"
        assert "moving" in refusal.json()["message"]
    assert len({refusal.headers[INGRESS_HEADER] for refusal in writer.refusals}) == 2
    assert writer.acknowledged
    # The routed client wrote to the old owner, was refused the same way during the move (its
    # shard froze the tenant) and then wrote to the new owner: its stale map cost a 421 and a
    # fetch, and no write went to a shard that does not own the tenant.
    assert routed.failures == []
    assert routed.unavailable
    assert all("moving" in message for message in routed.unavailable)
    source, target = expected[big]
    assert routed.owners[0] == source
    assert routed.owners[-1] == target
    # Only the moved tenants left their shards; each tenant is on exactly one shard.
    dirs = tenant_dirs(cluster)
    for shard, tenants in untouched.items():
        assert dirs[shard] - set(expected) == tenants
    for tenant, (_, target) in expected.items():
        assert [shard for shard, tenants in dirs.items() if tenant in tenants] == [target]
    after = snapshot(cluster)
    for tenant, (old_contents, old_ids) in before.items():
        now, ids = after[tenant]
        assert ids == old_ids, tenant
        if tenant == big:
            # Nothing lost: what was there and every acknowledged write during the move.
            assert now == sorted(old_contents + writer.acknowledged + routed.acknowledged)
        else:
            assert now == old_contents
    return report


def test_adding_a_shard_moves_only_the_tenants_whose_owner_changed(
    test_cluster: RunningCluster, written: dict[str, list[str]], embedder: object
) -> None:
    expected = moves(TENANTS, SHARDS, (*SHARDS, "c"))
    assert set(expected) == {"tenant-1", "tenant-3"}
    big = "tenant-3"
    # The moving tenant gets enough memories (with vectors: no embedding) for a slow move:
    # random directions, none tied with another (ties would rank in any order after a move),
    # all far from the tenant's own notes that its recall finds. Its export (about 11 MB) is
    # larger than the server's general body limit (8 MB), which the move's import is exempt from.
    vectors = np.random.default_rng(7).standard_normal((MOVING_TENANT_SIZE, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with HebbsClient(test_cluster.url, test_cluster.keys[big]) as client:
        for start in range(0, MOVING_TENANT_SIZE, 500):
            client.remember_many(
                [
                    {"content": f"bulk {i}", "embedding": vectors[i].tolist()}
                    for i in range(start, start + 500)
                ]
            )
    report = move_while_writing(test_cluster, big, expected, "add:c")
    assert report["shards"] == ["a", "b", "c"]
    # Shard c's stores are in node 1's directory: moved over HTTP from shard b on node 2.
    assert tenant_dirs(test_cluster)["c"] == set(expected)
    assert test_cluster.shard_dir("c").parent == test_cluster.node_dirs["node-1"]


def test_each_process_holds_files_of_its_own_node_only(test_cluster: RunningCluster) -> None:
    base = test_cluster.data_dir.parent
    held = files_by_node(base)
    shards_seen = set()
    for pid, (node, files) in held.items():
        assert node is not None, (pid, files)
        for file in files:
            assert file.is_relative_to(test_cluster.node_dirs[node]), (pid, node, file)
        for shard in NODES[node]:
            if any(file.is_relative_to(test_cluster.shard_dir(shard)) for file in files):
                shards_seen.add(shard)
    # The key store is held on the head node only, and every shard's store on its node.
    assert any(node == "head" for node, _ in held.values())
    assert shards_seen == {"a", "b", "c"}
    for shard in ("a", "b", "c"):
        assert test_cluster.cluster.shard_pid(shard) in held


def test_removing_a_shard_moves_its_tenants_to_their_new_owners(
    test_cluster: RunningCluster, written: dict[str, list[str]]
) -> None:
    expected = moves(TENANTS, (*SHARDS, "c"), SHARDS)
    assert expected == {"tenant-1": ("c", "b"), "tenant-3": ("c", "b")}
    report = move_while_writing(test_cluster, "tenant-3", expected, "remove:c")
    assert report["shards"] == list(SHARDS)
    assert tenant_dirs(test_cluster)["c"] == set()
    with pytest.raises(ValueError, match="not in the cluster"):
        test_cluster.cluster.remove_shard("c")


def test_a_killed_coordinator_restarts_on_the_head_and_loses_nothing(
    test_cluster: RunningCluster,
) -> None:
    cluster = test_cluster.cluster
    shards = cluster.shards()
    pid = cluster.coordinator_pid()
    deadline = time.monotonic() + RESTART_WAIT_S
    with Writer(test_cluster.url, test_cluster.keys["tenant-0"], "around it") as writer:
        time.sleep(1.0)
        os.kill(pid, signal.SIGKILL)
        restarted = None
        while restarted in (None, pid):
            assert time.monotonic() < deadline, "the coordinator did not restart"
            try:
                restarted = cluster.coordinator_pid()
            except RayError:
                time.sleep(0.2)
        after_restart = len(writer.acknowledged)
        while len(writer.acknowledged) < after_restart + 20:
            assert time.monotonic() < deadline, "no writes acknowledged after the restart"
            time.sleep(0.2)
    # On the head node again (its key store), with the saved shard list.
    assert files_by_node(test_cluster.data_dir.parent)[restarted][0] == "head"
    assert cluster.shards() == shards
    assert writer.failures == []
    with HebbsClient(test_cluster.url, test_cluster.keys["tenant-0"]) as client:
        stored = set(contents(client))
    assert [content for content in writer.acknowledged if content not in stored] == []


def test_a_killed_shard_replica_loses_no_acknowledged_write(test_cluster: RunningCluster) -> None:
    cluster = test_cluster.cluster
    victims = [t for t in TENANTS if cluster.owner(t) == "a"]
    assert victims == ["tenant-4", "tenant-5"]
    pid = cluster.shard_pid("a")
    writers = [
        Writer(test_cluster.url, test_cluster.keys[t], f"{t} around the kill") for t in victims
    ]
    # A client that routes itself to shard a: it fails over to the cluster's URL while the
    # replica restarts, then routes to the new replica.
    writers.append(
        Writer(test_cluster.url, test_cluster.keys[victims[0]], "routed kill", routed=True)
    )
    for writer in writers:
        writer.__enter__()
    try:
        for writer in writers:
            wait_for_writes(writer, 5)
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
    routed = writers[-1]
    assert routed.failures == []
    assert routed.owners[0] == "a"
    new_url = cluster.shard_url("a")
    with HebbsClient(test_cluster.url, test_cluster.keys[victims[0]]) as client:
        client.health()
        assert client.route is not None
        assert client.route.url == new_url
    for tenant, writer in zip([*victims, victims[0]], writers):
        assert not [f for f in writer.failures if not f.startswith("503")]
        with HebbsClient(test_cluster.url, test_cluster.keys[tenant]) as client:
            stored = set(contents(client))
        lost = [content for content in writer.acknowledged if content not in stored]
        assert lost == []
