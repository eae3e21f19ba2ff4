"""The API key store: one SQLite file (stdlib ``sqlite3``) in the server's data directory.

A key is ``hb_`` followed by 32 random bytes from :mod:`secrets` (url-safe base64). It is shown
once, when created; the store keeps only its SHA-256, with a public ``key_id``, the tenant it
belongs to, its scope (``read`` < ``write`` < ``admin``: each includes the ones before), when
it was created, when it expires (optional) and when it was revoked. Keys are never logged.
Lookups read the file each time, so a key revoked by ``hebbs keys revoke`` in another process
is refused on the server's next request (and its open streams end within
:data:`hebbs.service.auth.KEY_RECHECK_S`).

The same file holds the organizations: a tenant may be a member of one organization, itself a
tenant (``hebbs keys create --org ORG`` or ``hebbs keys join``). Membership lets the member's
keys read the organization's memory (``recall(..., include_organization=True)``); it grants no
write (an organization's memory is written with a key of the organization's own), and it is
never followed further: an organization's own organization is not searched.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Optional

from hebbs._inputs import conflict
from hebbs.service.tenants import valid_tenant

#: The key store's file name in the data directory.
KEYS_FILE: Final = "keys.sqlite3"
#: What every key starts with.
KEY_PREFIX: Final = "hb_"
#: Random bytes in a key.
KEY_BYTES: Final = 32
#: The scopes, weakest first: a scope grants everything the ones before it grant.
SCOPES: Final = ("read", "write", "admin")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    key_sha256 TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    scope TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL,
    revoked_at REAL
)
"""
_MEMBERSHIP_SCHEMA = """
CREATE TABLE IF NOT EXISTS memberships (
    tenant TEXT PRIMARY KEY,
    organization TEXT NOT NULL,
    joined_at REAL NOT NULL
)
"""
_COLUMNS = (
    "key_id, api_keys.tenant, scope, created_at, expires_at, revoked_at, memberships.organization"
)
_FROM = "api_keys LEFT JOIN memberships ON memberships.tenant = api_keys.tenant"


@dataclass(frozen=True)
class KeyInfo:
    """A key's record (never the key itself). Times are seconds since the epoch."""

    key_id: str
    tenant: str
    scope: str
    created_at: float
    expires_at: Optional[float]
    revoked_at: Optional[float]
    #: The organization the key's tenant is a member of (read when the key is looked up).
    organization: Optional[str] = None

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    def grants(self, scope: str) -> bool:
        """Whether this key's scope includes ``scope``."""
        return includes(self.scope, scope)


def includes(held: str, needed: str) -> bool:
    """Whether scope ``held`` includes scope ``needed`` (each of :data:`SCOPES` includes the
    ones before it)."""
    return SCOPES.index(held) >= SCOPES.index(needed)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class KeyStore:
    """The keys of one data directory. Safe to share between threads."""

    def __init__(self, data_dir: str | Path) -> None:
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / KEYS_FILE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.execute(_MEMBERSHIP_SCHEMA)

    def create(
        self,
        tenant: str,
        scope: str,
        *,
        expires_in_s: float | None = None,
        organization: str | None = None,
    ) -> tuple[str, KeyInfo]:
        """A new key for ``tenant`` with ``scope``: the key (shown once) and its record. With
        ``organization``, the tenant also joins it (see :meth:`join`)."""
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r} (expected {', '.join(SCOPES)})")
        if not valid_tenant(tenant):
            raise ValueError(f"invalid tenant name {tenant!r}")
        if organization is not None:
            self.join(tenant, organization)
        key = KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)
        now = time.time()
        info = KeyInfo(
            key_id=f"key_{secrets.token_hex(8)}",
            tenant=tenant,
            scope=scope,
            created_at=now,
            expires_at=None if expires_in_s is None else now + expires_in_s,
            revoked_at=None,
            organization=organization if organization is not None else self.organization(tenant),
        )
        with self._lock:
            self._db.execute(
                "INSERT INTO api_keys (key_id, key_sha256, tenant, scope, created_at, "
                "expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)",
                (info.key_id, digest(key), tenant, scope, now, info.expires_at),
            )
        return key, info

    def lookup(self, key: str) -> KeyInfo | None:
        """The record of ``key``, or None if no such key was ever created."""
        if not key.startswith(KEY_PREFIX):
            return None
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM {_FROM} WHERE key_sha256 = ?", (digest(key),)
            ).fetchone()
        return None if row is None else KeyInfo(*row)

    def find(self, key_id: str) -> KeyInfo | None:
        """The record of the key ``key_id``, or None if there is no such key."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM {_FROM} WHERE key_id = ?", (key_id,)
            ).fetchone()
        return None if row is None else KeyInfo(*row)

    def list(self) -> list[KeyInfo]:
        """Every key's record, oldest first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM {_FROM} ORDER BY created_at, key_id"
            ).fetchall()
        return [KeyInfo(*row) for row in rows]

    def revoke(self, key_id: str) -> bool:
        """Revokes key ``key_id``; False if there is no such key (revoking twice is fine)."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?",
                (time.time(), key_id),
            )
        return cursor.rowcount > 0

    def join(self, tenant: str, organization: str) -> None:
        """Makes ``tenant`` a member of ``organization`` (joining the same one again is fine; a
        tenant already in another organization must :meth:`leave` it first: joining is a
        :class:`~hebbs.ConflictError` naming ``organization``, and nothing changes)."""
        for name, label in ((tenant, "tenant"), (organization, "organization")):
            if not valid_tenant(name):
                raise ValueError(f"invalid {label} name {name!r}")
        if organization == tenant:
            raise ValueError(f"tenant {tenant!r} cannot be its own organization")
        current = self.organization(tenant)
        if current is not None and current != organization:
            raise conflict(
                "organization",
                f"tenant {tenant!r} is a member of {current!r}: leave it first (hebbs keys leave)",
            )
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO memberships (tenant, organization, joined_at) "
                "VALUES (?, ?, ?)",
                (tenant, organization, time.time()),
            )

    def leave(self, tenant: str) -> bool:
        """Ends ``tenant``'s membership; False if it was a member of none."""
        with self._lock:
            cursor = self._db.execute("DELETE FROM memberships WHERE tenant = ?", (tenant,))
        return cursor.rowcount > 0

    def organization(self, tenant: str) -> str | None:
        """The organization ``tenant`` is a member of, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT organization FROM memberships WHERE tenant = ?", (tenant,)
            ).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
