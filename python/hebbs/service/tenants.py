"""The tenants' stores: one :class:`~hebbs.Hebbs` per tenant in ``DATA_DIR/tenants/<name>``,
opened on first use, at most :data:`DEFAULT_MAX_OPEN_TENANTS` kept open (least recently used
closed first, on a background thread), all closed on shutdown.

A request holds a *lease* on its tenant's store for as long as it uses it (a subscription's
stream for its whole life), and a leased store is never closed: when every open store is
leased, the bound is exceeded until leases end. Tenant names match :data:`TENANT_NAME` (lower
case letters, digits, ``_`` and ``-``, starting with a letter or digit, at most 63), so a name
is always one directory under ``tenants/`` and never a path trick.
"""

from __future__ import annotations

import logging
import re
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from hebbs.engine import EmbedderLike, Hebbs
from hebbs.errors import ClosedError

LOG = logging.getLogger("hebbs.server")

#: What a tenant name must match.
TENANT_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
#: The folder of the tenants' stores in the data directory.
TENANTS_DIR: Final = "tenants"
#: The tenant of a server run with ``--no-auth``.
DEFAULT_TENANT: Final = "default"
#: Stores kept open at once (the least recently used idle one is closed past it). An open store
#: holds about 11 file descriptors and 1.1 MB of RSS (docs/server.md, "Many tenants"): 64 fit
#: a process's default limit of 1,024 descriptors with room for its sockets.
DEFAULT_MAX_OPEN_TENANTS: Final = 64


def valid_tenant(name: str) -> bool:
    return TENANT_NAME.fullmatch(name) is not None


class _Open:
    """A tenant's store in the table: being opened until ``ready`` is set, then ``engine`` (or
    ``error``, and the entry is gone from the table)."""

    def __init__(self) -> None:
        self.engine: Hebbs | None = None
        self.error: BaseException | None = None
        self.ready = threading.Event()
        self.leases = 0


class TenantStores:
    """The open stores of one data directory. Safe to share between threads.

    A store is opened outside the table's lock, so a request for an open tenant never waits
    for another tenant's open; concurrent requests for a tenant being opened wait for that one
    open. An idle store past the bound is closed on a background thread, off the request that
    went past it; a request for a tenant whose store is still closing waits for the close.
    """

    def __init__(
        self,
        data_dir: str | Path,
        embedder: EmbedderLike,
        *,
        max_open: int = DEFAULT_MAX_OPEN_TENANTS,
        store: str | Path | None = None,
    ) -> None:
        if max_open < 1:
            raise ValueError("max_open must be at least 1")
        self.root = Path(data_dir) / TENANTS_DIR
        #: The one store of the tenant ``default`` when given (``hebbs ui --db DIR``).
        self.store = None if store is None else Path(store)
        self.embedder = embedder
        self.max_open = max_open
        self._open: OrderedDict[str, _Open] = OrderedDict()
        #: Tenants whose evicted store is being closed, and the close's end.
        self._closing: dict[str, Future[None]] = {}
        self._closer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hebbs-close")
        self._lock = threading.Lock()
        self._closed = False

    @property
    def open_count(self) -> int:
        with self._lock:
            return len(self._open)

    @contextmanager
    def lease(self, tenant: str) -> Iterator[Hebbs]:
        """The store of ``tenant``, opened if needed, kept open until the block ends."""
        entry = self._acquire(tenant)
        try:
            assert entry.engine is not None  # _acquire returns ready entries only
            yield entry.engine
        finally:
            with self._lock:
                entry.leases -= 1
                over = len(self._open) > self.max_open
            if over:  # the bound was passed while every store was leased
                self._evict()

    def _acquire(self, tenant: str) -> _Open:
        if not valid_tenant(tenant):
            raise ValueError(f"invalid tenant name {tenant!r}")
        with self._lock:
            if self._closed:
                raise ClosedError("the server is shutting down")
            entry = self._open.get(tenant)
            opener = entry is None
            if entry is None:
                entry = _Open()
                self._open[tenant] = entry
            self._open.move_to_end(tenant)
            entry.leases += 1
            closing = self._closing.get(tenant)
        if opener:
            self._open_entry(tenant, entry, closing)
        entry.ready.wait()
        if entry.error is not None:
            with self._lock:
                entry.leases -= 1
            raise entry.error
        return entry

    def _open_entry(self, tenant: str, entry: _Open, closing: Future[None] | None) -> None:
        """Opens ``entry``'s store (after the close of its last one, if any) and then closes the
        idle stores past the bound."""
        try:
            if closing is not None:
                closing.result()
            engine = Hebbs.open(self._path(tenant), embedder=self.embedder)
        except BaseException as error:
            with self._lock:
                entry.error = error
                if self._open.get(tenant) is entry:
                    del self._open[tenant]
            entry.ready.set()
            raise
        with self._lock:
            closed = self._closed
            if not closed:
                entry.engine = engine
        if closed:
            engine.close()
            entry.error = ClosedError("the server is shutting down")
            entry.ready.set()
            return
        entry.ready.set()
        LOG.info("opened the store of tenant %s", tenant)
        self._evict()

    def _path(self, tenant: str) -> Path:
        """Where ``tenant``'s store lives (its folder is made if needed)."""
        if self.store is not None:
            if tenant != DEFAULT_TENANT:
                raise ValueError(f"this server serves only the tenant {DEFAULT_TENANT}")
            return self.store
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root / tenant

    def _evict(self) -> None:
        """Hands the idle stores past the bound, least recently used first, to the closer."""
        with self._lock:
            excess = len(self._open) - self.max_open
            for name in list(self._open):
                if excess <= 0:
                    break
                entry = self._open[name]
                if entry.leases == 0 and entry.engine is not None:
                    del self._open[name]
                    self._closing[name] = self._closer.submit(self._close_idle, name, entry.engine)
                    excess -= 1

    def _close_idle(self, tenant: str, engine: Hebbs) -> None:
        """Closes an evicted store on the closer's thread. A failure is logged, not raised: the
        next open of the tenant reports what is wrong with its store."""
        try:
            engine.close()
            LOG.info("closed the idle store of tenant %s", tenant)
        except Exception:
            LOG.exception("closing the idle store of tenant %s failed", tenant)
        finally:
            with self._lock:
                del self._closing[tenant]

    def wait_closed(self) -> None:
        """Returns once every store handed to the closer so far is closed."""
        with self._lock:
            if self._closed:
                raise ClosedError("the server is shutting down")
            pending = self._closer.submit(lambda: None)
        pending.result()

    def names(self) -> list[str]:
        """The tenants that have a store in this data directory, sorted."""
        if self.store is not None:
            return [DEFAULT_TENANT]
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and valid_tenant(p.name))

    def remove(self, tenant: str) -> bool:
        """Closes ``tenant``'s store and deletes its folder (a tenant moved to another shard of
        a cluster); False if it had none. Raises :class:`~hebbs.errors.ClosedError` while a
        request still holds it."""
        if not valid_tenant(tenant) or self.store is not None:
            raise ValueError(f"invalid tenant name {tenant!r}")
        self.wait_closed()
        with self._lock:
            entry = self._open.get(tenant)
            if entry is not None:
                if entry.leases:
                    raise ClosedError(f"the store of tenant {tenant} is in use")
                del self._open[tenant]
                assert entry.engine is not None  # an entry being opened holds its opener's lease
                entry.engine.close()
            path = self.root / tenant
            if not path.is_dir():
                return False
            shutil.rmtree(path)
        LOG.info("removed the store of tenant %s", tenant)
        return True

    def close(self) -> None:
        """Closes every store; later leases raise :class:`~hebbs.errors.ClosedError`."""
        with self._lock:
            self._closed = True
            entries = [(name, e.engine) for name, e in self._open.items() if e.engine is not None]
            self._open.clear()
        self._closer.shutdown(wait=True)
        for name, engine in entries:
            try:
                engine.close()
            except Exception:
                LOG.exception("closing the store of tenant %s failed", name)
