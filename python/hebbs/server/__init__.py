"""The hebbs REST server (``hebbs serve``): FastAPI on uvicorn, one store per tenant, API keys.

Modules, one concern each: :mod:`~hebbs.server.app` (``create_app``), :mod:`~hebbs.server.routes`
(the ``/v1/`` endpoints), :mod:`~hebbs.service.errors` (failures as HTTP answers),
:mod:`~hebbs.service.keys` (the API key store), :mod:`~hebbs.service.tenants` (the tenants'
stores), :mod:`~hebbs.service.auth` (keys to tenant and scope), :mod:`~hebbs.service.limits` (body
size and rate limits), :mod:`~hebbs.server.metrics` (Prometheus) and :mod:`~hebbs.server.serve`
(the uvicorn runner). Needs the ``server`` extra: ``pip install 'hebbs[server]'``; the key store
and the tenant rules (:mod:`~hebbs.service.keys`, :mod:`~hebbs.service.tenants`) import without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hebbs.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from hebbs.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
