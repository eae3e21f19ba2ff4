"""The cluster's pieces that need no Ray: rendezvous hashing against a naive reference (and
what adding a shard moves), ``cluster.toml`` and its errors, ``cluster.json``, which requests
the ingress treats as writes, and the key cache over a real key store."""

from __future__ import annotations

import asyncio
import hashlib
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebbs.cluster.config import ConfigError, Placement, load_config, parse_config
from hebbs.cluster.constants import DEFAULT_INGRESS_REPLICAS
from hebbs.cluster.forward import is_write
from hebbs.cluster.hashing import moves, owner
from hebbs.cluster.key_cache import CachedKeys
from hebbs.cluster.state import initial_state, load_state, state_path
from hebbs.service.keys import KeyInfo, KeyStore

names = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,12}", fullmatch=True)


def naive_owner(tenant: str, shards: list[str]) -> str:
    best = None
    for shard in sorted(shards):
        digest = hashlib.blake2b(
            f"{shard}\x00{tenant}".encode(), digest_size=8, person=b"hebbs-hrw"
        ).digest()
        weight = int.from_bytes(digest, "big")
        if best is None or (weight, shard) > best:
            best = (weight, shard)
    assert best is not None
    return best[1]


@settings(max_examples=200, deadline=None)
@given(
    shards=st.lists(names, min_size=1, max_size=6, unique=True),
    tenants=st.lists(names, min_size=1, max_size=30, unique=True),
    new=names,
)
def test_owners_match_the_reference_and_a_new_shard_takes_only_its_own(
    shards: list[str], tenants: list[str], new: str
) -> None:
    for tenant in tenants:
        assert owner(tenant, shards) == naive_owner(tenant, shards)
        assert owner(tenant, list(reversed(shards))) == owner(tenant, shards)
    if new in shards:
        return
    after = [*shards, new]
    moved = moves(tenants, shards, after)
    for tenant in tenants:
        if tenant in moved:
            assert moved[tenant] == (owner(tenant, shards), new)
        else:
            assert owner(tenant, after) == owner(tenant, shards)


def test_adding_a_shard_moves_about_its_share() -> None:
    tenants = [f"tenant-{i}" for i in range(3000)]
    moved = moves(tenants, ["a", "b", "c"], ["a", "b", "c", "d"])
    assert 600 < len(moved) < 900  # a quarter, 750


def test_a_config_file_and_its_errors(tmp_path: Path) -> None:
    (tmp_path / "plain.toml").write_text('data_dir = "d"\nshards = ["a"]\n')
    file = tmp_path / "cluster.toml"
    file.write_text(
        'data_dir = "data"\nshards = ["a", "b"]\nport = 7000\ningress_replicas = 3\n'
        '[ray]\nnum_cpus = 2\n[shard_env]\nHEBBS_LLM_PROVIDER = "offline"\n'
        '[shard.a]\nresource = "node-a"\ndata_dir = "/srv/a"\n'
        '[shard.c]\ndata_dir = "disk-c"\n'
    )
    config = load_config(file)
    assert config.data_dir == tmp_path / "data"
    assert config.shards == ("a", "b")
    assert config.ingress_replicas == 3
    assert config.placement("a") == Placement("/srv/a", "node-a")
    assert config.placement("b") == Placement(str(tmp_path / "data" / "shards" / "b"))
    assert config.placement("c") == Placement(str(tmp_path / "disk-c"))
    assert load_config(tmp_path / "plain.toml").ingress_replicas == DEFAULT_INGRESS_REPLICAS
    assert (config.port, config.num_cpus, config.ray_address) == (7000, 2, None)
    assert config.shard_env == {"HEBBS_LLM_PROVIDER": "offline"}
    bad = {
        "shards": {"data_dir": "d", "shards": []},
        "shards[1]": {"data_dir": "d", "shards": ["a", "B!"]},
        "port": {"data_dir": "d", "shards": ["a"], "port": "80"},
        "ray.nodes": {"data_dir": "d", "shards": ["a"], "ray": {"nodes": 3}},
        "colour": {"data_dir": "d", "shards": ["a"], "colour": "red"},
        "data_dir": {"shards": ["a"]},
        "shard_env.X": {"data_dir": "d", "shards": ["a"], "shard_env": {"X": 1}},
        "ingress_replicas": {"data_dir": "d", "shards": ["a"], "ingress_replicas": 0},
        "shard.a.disk": {"data_dir": "d", "shards": ["a"], "shard": {"a": {"disk": "x"}}},
        "shard.a.resource": {"data_dir": "d", "shards": ["a"], "shard": {"a": {"resource": 1}}},
        "shard.B!": {"data_dir": "d", "shards": ["a"], "shard": {"B!": {}}},
        "shard.a": {"data_dir": "d", "shards": ["a"], "shard": {"a": "x"}},
    }
    for key, data in bad.items():
        with pytest.raises(ConfigError) as raised:
            parse_config(data, tmp_path)
        assert raised.value.key == key
    file.write_text("shards = [")
    with pytest.raises(ConfigError):
        load_config(file)


def test_the_state_file_is_made_once_and_private(tmp_path: Path) -> None:
    assert load_state(tmp_path) is None
    first = initial_state(tmp_path, ("a", "b"))
    assert initial_state(tmp_path, ("x",)) == first
    assert load_state(tmp_path) == first
    assert len(first.secret) > 40
    assert state_path(tmp_path).stat().st_mode & 0o777 == 0o600


def test_which_requests_are_writes() -> None:
    assert not is_write("GET", "/v1/memories")
    assert not is_write("POST", "/v1/memories/recall")
    assert not is_write("POST", "/v1/subscribe")
    assert is_write("POST", "/v1/memories")
    assert is_write("POST", "/v1/import")
    assert is_write("PUT", "/v1/memories/abc")
    assert is_write("POST", "/v1/memories/forget")


def test_cached_keys_follow_the_key_store_within_their_ttl(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)
    asked: list[str] = []

    def fetch(key: str) -> KeyInfo | None:
        asked.append(key)
        return store.lookup(key)

    cache = CachedKeys(fetch, ttl_s=0.3)
    try:
        key, info = store.create("acme", "write")
        assert cache.lookup(key) == info
        assert cache.lookup("hb_unknown") is None
        assert store.revoke(info.key_id)
        # Within the TTL the cached answers stand, without asking again.
        assert cache.lookup(key) == info
        assert cache.lookup("hb_unknown") is None
        assert len(asked) == 2
        time.sleep(0.35)
        found = cache.lookup(key)
        assert found is not None
        assert found.revoked_at is not None
        assert len(asked) == 3
    finally:
        store.close()


def test_cached_keys_without_a_blocking_fetch_answer_the_prefetch(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)

    async def slow(key: str) -> KeyInfo | None:
        await asyncio.sleep(0.2)
        return store.lookup(key)

    # A prefetch slower than the TTL still answers the lookup right after it.
    cache = CachedKeys(None, slow, ttl_s=0.1)
    try:
        key, info = store.create("acme", "read")
        assert cache.lookup(key) is None
        asyncio.run(cache.prefetch(key))
        assert cache.lookup(key) == info
    finally:
        store.close()


def test_the_state_file_keeps_each_shards_placement(tmp_path: Path) -> None:
    placed = {"a": Placement("/srv/a", "node-a"), "b": Placement("/srv/b")}
    state = initial_state(tmp_path, ("a", "b"), placed)
    assert load_state(tmp_path) == state
    assert state.placements == placed
    fewer = state.with_shards(("a",), placed)
    assert (fewer.shards, fewer.placements, fewer.secret) == (
        ("a",),
        {"a": placed["a"]},
        state.secret,
    )
