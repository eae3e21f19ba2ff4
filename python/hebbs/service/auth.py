"""Who is calling: ``Authorization: Bearer <key>`` resolved to a tenant and a scope.

:func:`require` makes the FastAPI dependency of a scope: ``read`` for gets, recall, prime,
listings, health and subscribe; ``write`` for remember, revise, forget and edges; ``admin``
for the metrics. A missing, malformed, unknown, revoked or expired key is 401; a key whose
scope is too weak is 403; a key over its rate is 429. A stream outlives its request, so its key
is checked again while it is open (:class:`KeyWatch`, every :data:`KEY_RECHECK_S` seconds).
The tenant comes from the key, never from the request. A server run without auth (loopback
only) serves the tenant ``default`` to everyone, with every scope and no rate limit.

FastAPI reads a JSON body before it runs the dependencies, so a malformed body would be
answered 400 before the key is looked at; :func:`check_route_key` lets the error handlers
authenticate such a request first, so a caller without a valid key learns nothing but 401.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Final

from fastapi import Request

from hebbs.service.errors import ApiError, forbidden, rate_limited, unauthorized
from hebbs.service.keys import SCOPES, KeyInfo, KeyStore, includes
from hebbs.service.limits import TokenBuckets
from hebbs.service.tenants import DEFAULT_TENANT

#: The scheme of the Authorization header.
SCHEME: Final = "bearer"
#: Seconds between two checks of the key of an open stream: a revoked or expired key ends its
#: subscription streams (REST and gRPC) within this long.
KEY_RECHECK_S: Final = 5.0


@dataclass(frozen=True)
class Caller:
    """The tenant a request acts on, the key it came with (None without auth), that key's
    scope (every scope without auth) and the organization whose memory it may read (None: a
    member of none)."""

    tenant: str
    key_id: str | None
    scope: str = SCOPES[-1]
    organization: str | None = None

    def grants(self, scope: str) -> bool:
        """Whether the caller's scope includes ``scope``."""
        return includes(self.scope, scope)


@dataclass
class AuthConfig:
    """How the app authenticates: ``keys`` is None when auth is off."""

    keys: KeyStore | None
    buckets: TokenBuckets


def authenticate(request: Request, scope: str) -> Caller:
    """The caller of ``request`` if its key grants ``scope``; raises the 401/403/429."""
    return authenticate_header(request.app.state.auth, request.headers.get("authorization"), scope)


def authenticate_header(config: AuthConfig, header: str | None, scope: str) -> Caller:
    """The caller whose ``Authorization`` value is ``header`` if its key grants ``scope``
    (what REST, MCP and gRPC all check); raises the 401/403/429."""
    if config.keys is None:
        return Caller(DEFAULT_TENANT, None)
    if header is None:
        raise unauthorized("an API key is required: Authorization: Bearer <key>")
    scheme, _, key = header.partition(" ")
    if scheme.lower() != SCHEME or not key.strip():
        raise unauthorized("the Authorization header must be 'Bearer <key>'")
    info = config.keys.lookup(key.strip())
    refused = refusal(info)
    if refused is not None:
        raise refused
    assert info is not None
    if not info.grants(scope):
        raise forbidden(f"this API key's scope is {info.scope}; this call needs {scope}")
    wait = config.buckets.take(info.key_id)
    if wait:
        raise rate_limited(wait)
    return Caller(info.tenant, info.key_id, info.scope, info.organization)


def refusal(info: KeyInfo | None) -> ApiError | None:
    """The 401 of a key whose record is ``info`` (None: no such key), or None if it is valid."""
    if info is None:
        return unauthorized("unknown API key")
    if info.revoked_at is not None:
        return unauthorized("this API key was revoked")
    if info.expired(time.time()):
        return unauthorized("this API key has expired")
    return None


class KeyWatch:
    """The key of an open stream (REST's ``/v1/subscribe``, gRPC's ``Subscribe``), checked again
    every :data:`KEY_RECHECK_S` seconds: :meth:`refusal` is the 401 that ends the stream once
    the key is revoked, has expired or is gone. A check takes no rate-limit token."""

    def __init__(
        self,
        config: AuthConfig,
        caller: Caller,
        interval_s: float = KEY_RECHECK_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._keys = config.keys
        self._key_id = caller.key_id
        self._interval_s = interval_s
        self._clock = clock
        # Without auth there is no key to check: never due.
        watched = self._keys is not None and self._key_id is not None
        self._due = clock() + interval_s if watched else math.inf

    def wait_s(self) -> float:
        """Seconds until the next check is due (0 if it is; infinite without a key)."""
        return max(0.0, self._due - self._clock())

    def refusal(self) -> ApiError | None:
        """The 401 ending the stream if a check is due and the key fails it, else None."""
        if self._keys is None or self._key_id is None or self._clock() < self._due:
            return None
        self._due = self._clock() + self._interval_s
        return refusal(self._keys.find(self._key_id))


class Require:
    """The FastAPI dependency that authenticates a request for ``scope``.

    A coroutine, so FastAPI runs it on the event loop: the key lookup is one indexed SQLite
    read, far cheaper than the hop to a worker thread that a plain function would cost every
    request (the route itself still runs on a worker thread).
    """

    def __init__(self, scope: str) -> None:
        self.scope = scope

    async def __call__(self, request: Request) -> Caller:
        caller = authenticate(request, self.scope)
        request.state.caller = caller
        return caller


def require(scope: str) -> Require:
    """The dependency of routes that need ``scope``."""
    return Require(scope)


def route_scope(request: Request) -> str | None:
    """The scope the route ``request`` matched needs (None: no key needed, or no route)."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    for dependency in getattr(dependant, "dependencies", ()):
        if isinstance(dependency.call, Require):
            return dependency.call.scope
    return None


def check_route_key(request: Request) -> None:
    """Raises the 401/403/429 of ``request`` if its route needs a key it lacks (a request that
    was authenticated already is not again: that would take a second token)."""
    scope = route_scope(request)
    if scope is not None and getattr(request.state, "caller", None) is None:
        authenticate(request, scope)
