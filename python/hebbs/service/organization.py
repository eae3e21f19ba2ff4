"""A caller's recall on the server with its organization's memory: what REST's recall routes
and the MCP ``recall`` tool share.

The organization is the one the caller's key store row names (read on every request, so a
``keys leave`` takes effect at once); its store is leased for the call beside the member's and
recalled read-only (:func:`hebbs.engine.recall_with`): a member's read never writes to the
organization's store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Optional, TypeVar, cast

from hebbs._inputs import invalid
from hebbs.api import RecallRequest, Returns, SubscribeRequest
from hebbs.api.operations import Operations
from hebbs.engine import Hebbs, recall_with
from hebbs.service.auth import Caller
from hebbs.service.tenants import TenantStores
from hebbs.subscription import Subscription
from hebbs.types import RecallOutput

T = TypeVar("T")

#: The request field that asks for the organization's memory.
INCLUDE_ORGANIZATION = "include_organization"


@contextmanager
def organization_store(
    tenants: TenantStores, caller: Caller, wanted: bool
) -> Iterator[Optional[Hebbs]]:
    """The store of the caller's organization when ``wanted`` (a 400 naming
    ``include_organization`` if the caller's tenant is a member of none), else None."""
    if not wanted:
        yield None
        return
    if caller.organization is None:
        reason = f"tenant {caller.tenant!r} is a member of no organization (hebbs keys join)"
        raise invalid(INCLUDE_ORGANIZATION, reason)
    with tenants.lease(caller.organization) as engine:
        yield engine


def caller_recall(
    tenants: TenantStores, caller: Caller, engine: Hebbs, request: RecallRequest
) -> RecallOutput:
    """The recall of ``request`` on the caller's store ``engine``, and on its organization's
    when the request includes it."""
    with organization_store(tenants, caller, request.include_organization) as organization:
        return recall_with(engine, organization, request)


class CallerStore(Operations[Subscription]):
    """The caller's store as an MCP tool sees it: the tenant's store, but a recall also answers
    from the caller's organization when asked, as REST's does (the store itself was opened
    without one)."""

    def __init__(self, tenants: TenantStores, caller: Caller, engine: Hebbs) -> None:
        self._tenants = tenants
        self._caller = caller
        self._engine = engine

    def run(self, request: Returns[T]) -> T:
        if isinstance(request, RecallRequest):
            recalled = caller_recall(self._tenants, self._caller, self._engine, request)
            return cast(T, recalled)
        return self._engine.run(request)

    def open_subscription(self, request: SubscribeRequest) -> Subscription:
        return self._engine.open_subscription(request)
