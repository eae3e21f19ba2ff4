"""The server's table of tenant stores (``hebbs.service.tenants``): the least-recently-used bound,
leases, opens outside the table's lock and closes off the request path, on real stores."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hebbs import Hebbs
from hebbs.errors import ClosedError
from hebbs.service.tenants import TenantStores

DIM = 8
#: Long enough for a stuck thread to be a failure, never a wait the test relies on.
DEADLINE_S = 60.0


def _vector(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _embedder(texts: list[str]) -> np.ndarray:
    return np.stack([_vector(len(t)) for t in texts])


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[TenantStores]:
    table = TenantStores(tmp_path, _embedder, max_open=2)
    yield table
    table.close()


def _remember(table: TenantStores, tenant: str, content: str) -> None:
    with table.lease(tenant) as engine:
        engine.remember(content, embedding=_vector(1))


def _count(table: TenantStores, tenant: str) -> int:
    with table.lease(tenant) as engine:
        return engine.count_memories()


def test_the_least_recently_used_idle_store_is_closed_past_the_bound(
    stores: TenantStores,
) -> None:
    for tenant in ("a", "b", "c"):
        _remember(stores, tenant, f"a memory of {tenant}")
    stores.wait_closed()
    assert stores.open_count == 2
    assert list(stores._open) == ["b", "c"]
    # The closed store opens again, with what it held.
    assert _count(stores, "a") == 1
    stores.wait_closed()
    assert list(stores._open) == ["c", "a"]


def test_a_leased_store_is_never_closed(stores: TenantStores) -> None:
    with stores.lease("a") as held:
        for tenant in ("b", "c", "d"):
            _remember(stores, tenant, "x")
        stores.wait_closed()
        held.remember("still open", embedding=_vector(2))
        assert "a" in stores._open
    assert _count(stores, "a") == 1


def test_the_bound_passed_while_every_store_was_leased_is_restored_when_leases_end(
    stores: TenantStores,
) -> None:
    with stores.lease("a"), stores.lease("b"), stores.lease("c"):
        assert stores.open_count == 3
    stores.wait_closed()
    assert stores.open_count == 2


def test_a_tenant_reopened_while_its_store_closes_waits_for_the_close(tmp_path: Path) -> None:
    table = TenantStores(tmp_path, _embedder, max_open=1)
    try:
        for round_ in range(20):
            # Each lease of the other tenant evicts this one, whose close may still run when
            # it is leased again: RocksDB refuses a second open of a store's folder.
            _remember(table, "a", f"a {round_}")
            _remember(table, "b", f"b {round_}")
        assert _count(table, "a") == 20
        assert _count(table, "b") == 20
    finally:
        table.close()


def test_an_open_does_not_hold_the_table(
    stores: TenantStores, monkeypatch: pytest.MonkeyPatch
) -> None:
    _remember(stores, "fast", "x")
    entered, release = threading.Event(), threading.Event()
    real_open = Hebbs.open

    def slow_open(path: str | Path, **kwargs: object) -> Hebbs:
        if Path(path).name == "slow":
            entered.set()
            assert release.wait(DEADLINE_S)
        return real_open(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Hebbs, "open", slow_open)
    counted: list[int] = []
    slow = threading.Thread(target=lambda: counted.append(_count(stores, "slow")))
    waiter = threading.Thread(target=lambda: counted.append(_count(stores, "slow")))
    slow.start()
    assert entered.wait(DEADLINE_S)
    waiter.start()
    # While "slow" is being opened, another tenant is served.
    assert _count(stores, "fast") == 1
    release.set()
    slow.join(DEADLINE_S)
    waiter.join(DEADLINE_S)
    assert counted == [0, 0]
    # One open for both requests: the table holds one store for "slow".
    assert list(stores._open).count("slow") == 1


def test_a_failed_open_is_raised_to_every_waiter_and_leaves_no_entry(
    stores: TenantStores, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_open(path: str | Path, **kwargs: object) -> Hebbs:
        raise OSError(f"cannot open {path}")

    monkeypatch.setattr(Hebbs, "open", failing_open)
    with pytest.raises(OSError, match="cannot open"):
        _count(stores, "broken")
    assert "broken" not in stores._open
    monkeypatch.undo()
    assert _count(stores, "broken") == 0


def test_close_closes_every_store_and_refuses_later_leases(tmp_path: Path) -> None:
    table = TenantStores(tmp_path, _embedder, max_open=1)
    engines = []
    for tenant in ("a", "b", "c"):
        with table.lease(tenant) as engine:
            engines.append(engine)
    table.close()
    for engine in engines:
        with pytest.raises(ClosedError):
            engine.count_memories()
    with pytest.raises(ClosedError):
        _count(table, "a")


def test_a_closed_table_refuses_to_remove_a_store(tmp_path: Path) -> None:
    table = TenantStores(tmp_path, _embedder, max_open=1)
    _remember(table, "a", "x")
    table.close()
    with pytest.raises(ClosedError):
        table.remove("a")
    assert (tmp_path / "tenants" / "a").is_dir()
