"""A shard's gate (:mod:`hebbs.cluster.gate`) in front of an app, over ASGI, with keys from a
real key store and the coordinator's answers from an in-process stand-in: what a shard serves,
answers 421 or refuses while a tenant moves, and how a freeze whose move is gone ends. The
whole path (forwarding, moves, the real coordinator) runs in tests/test_cluster.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hebbs.cluster.constants import MAP_ROUTE, MAP_VERSION_HEADER, MOVED_STATUS, SHARD_HEADER
from hebbs.cluster.gate import FROZEN_RECHECK_S, ShardGate, ShardGuard
from hebbs.cluster.hashing import owner
from hebbs.cluster.key_cache import CachedKeys
from hebbs.cluster.ownership import ShardView
from hebbs.service.keys import KeyInfo, KeyStore

SHARDS = ("a", "b")
#: A tenant that shard ``a`` owns and one that ``b`` owns.
MINE = next(f"t{i}" for i in range(100) if owner(f"t{i}", SHARDS) == "a")
THEIRS = next(f"t{i}" for i in range(100) if owner(f"t{i}", SHARDS) == "b")


class Coordinator:
    """What the coordinator answers a shard: the list at a version and the moving tenants."""

    def __init__(self) -> None:
        self.view = ShardView(1, SHARDS)
        self.moving: dict[str, str] = {}
        self.asked = 0

    async def view_for(self, shard: str) -> tuple[ShardView, list[str]]:
        self.asked += 1
        return self.view, [t for t, source in self.moving.items() if source == shard]

    async def shard_map(self) -> dict[str, Any]:
        shards = [{"name": name, "url": f"http://127.0.0.1:{i}"} for i, name in enumerate(SHARDS)]
        return {"version": self.view.version, "hashing": "h", "shards": shards}


async def written(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True}, status_code=201)


async def resolve(shard: str) -> str:
    raise AssertionError(f"nothing is forwarded in these tests ({shard})")


def gate(
    tmp_path: Path, coordinator: Coordinator
) -> tuple[httpx.AsyncClient, dict[str, str], ShardGuard]:
    """An HTTP client of shard ``a``'s gate in front of an app that accepts every write, the
    keys of :data:`MINE` and :data:`THEIRS`, and the gate's guard."""
    store = KeyStore(tmp_path)
    keys = {tenant: store.create(tenant, "write")[0] for tenant in (MINE, THEIRS)}

    async def lookup(key: str) -> KeyInfo | None:
        return store.lookup(key)

    app = Starlette(routes=[Route("/v1/memories", written, methods=["POST", "GET"])])
    guard = ShardGuard("a", CachedKeys(store.lookup, lookup), coordinator, resolve)
    transport = httpx.ASGITransport(app=ShardGate(app, guard))
    return httpx.AsyncClient(transport=transport, base_url="http://shard-a"), keys, guard


def auth(key: str, version: int | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    if version is not None:
        headers[MAP_VERSION_HEADER] = str(version)
    return headers


def test_the_gate_serves_its_tenants_and_turns_away_the_others(tmp_path: Path) -> None:
    coordinator = Coordinator()

    async def run() -> None:
        http, keys, _ = gate(tmp_path, coordinator)
        async with http:
            mine = await http.post("/v1/memories", headers=auth(keys[MINE], 1), json={})
            assert mine.status_code == 201
            assert mine.headers[SHARD_HEADER] == "a"
            assert mine.headers[MAP_VERSION_HEADER] == "1"
            theirs = await http.post("/v1/memories", headers=auth(keys[THEIRS], 1), json={})
            assert theirs.status_code == MOVED_STATUS
            body = theirs.json()
            assert (body["error_code"], body["owner"], body["map_version"]) == ("moved", "b", 1)
            assert set(body) == {"error_code", "message", "field", "owner", "map_version"}
            # A request routed by a newer map makes the shard fetch the list first: b is gone.
            coordinator.view = ShardView(2, ("a",))
            now_mine = await http.post("/v1/memories", headers=auth(keys[THEIRS], 2), json={})
            assert now_mine.status_code == 201
            assert now_mine.headers[MAP_VERSION_HEADER] == "2"
            # The map needs a valid key; a bad key goes to the app (which answers it).
            assert (await http.get(MAP_ROUTE)).status_code == 401
            assert (await http.get(MAP_ROUTE, headers=auth("hb_unknown"))).status_code == 401
            shard_map = (await http.get(MAP_ROUTE, headers=auth(keys[MINE]))).json()
            assert (shard_map["tenant"], shard_map["owner"], shard_map["version"]) == (MINE, "a", 2)

    asyncio.run(run())


def test_a_frozen_tenant_refuses_writes_until_its_move_is_gone(tmp_path: Path) -> None:
    coordinator = Coordinator()

    async def run() -> None:
        http, keys, guard = gate(tmp_path, coordinator)
        async with http:
            read = await http.get("/v1/memories", headers=auth(keys[MINE]))
            assert read.status_code == 201
            # A move marks the tenant moving at the coordinator, then freezes it on its shard.
            coordinator.moving[MINE] = "a"
            await (await guard.ownership()).freeze([MINE])
            refused = await http.post("/v1/memories", headers=auth(keys[MINE]), json={})
            assert refused.status_code == 503
            assert refused.headers["retry-after"] == "1"
            assert "moving" in refused.json()["message"]
            # Reads go on during the move.
            assert (await http.get("/v1/memories", headers=auth(keys[MINE]))).status_code == 201
            # The coordinator lost the move (it restarted): the shard asks again at most once
            # per FROZEN_RECHECK_S, then thaws the tenant.
            coordinator.moving.clear()
            asked = coordinator.asked
            await asyncio.sleep(FROZEN_RECHECK_S)
            accepted = await http.post("/v1/memories", headers=auth(keys[MINE]), json={})
            assert accepted.status_code == 201
            assert coordinator.asked == asked + 1

    asyncio.run(run())
