"""hebbs on Ray: bulk embedding and ingest on Ray Data (:func:`ingest`) and reflection over many
tenants as Ray tasks (:func:`reflect_tenants`); serving a cluster is :mod:`hebbs.cluster`. Needs
the ``ray`` extra: ``pip install 'hebbs[ray]'`` (docs/cluster.md)."""

from __future__ import annotations

from hebbs.cluster.runtime import start_ray, stop_ray
from hebbs.ray.ingest import DEFAULT_INGEST_BATCH, DEFAULT_INGEST_WORKERS, IngestResult, ingest
from hebbs.ray.reflect import TenantReflection, reflect_tenants

__all__ = [
    "DEFAULT_INGEST_BATCH",
    "DEFAULT_INGEST_WORKERS",
    "IngestResult",
    "TenantReflection",
    "ingest",
    "reflect_tenants",
    "start_ray",
    "stop_ray",
]
