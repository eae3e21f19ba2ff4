"""``reflect_tenants``: reflection over many tenants as Ray tasks.

One Ray task per tenant calls ``reflect`` on the server or cluster at ``url`` with that
tenant's key (:class:`~hebbs.HebbsClient`), so the store's own server reflects with the LLM
provider its environment configures (``HEBBS_LLM_PROVIDER``; a cluster's ``[shard_env]``). At
most ``max_in_flight`` tasks run at once (default :data:`DEFAULT_LLM_CONCURRENCY`, the LLM
concurrency limit), and each reflect is itself bounded by its provider's concurrency limit, so
the LLM is never sent more than ``max_in_flight`` x that limit requests at once. The tasks ask
Ray for no CPU: they wait on HTTP. A tenant whose reflect fails (its provider's error, an
unreachable shard) is reported with its error; the others go on.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import ray

from hebbs.client import HebbsClient
from hebbs.errors import HebbsError
from hebbs.llm.constants import DEFAULT_LLM_CONCURRENCY
from hebbs.reflect.results import ReflectResult

#: Seconds one tenant's reflect may take over HTTP.
REFLECT_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class TenantReflection:
    """One tenant's reflect: its result or its error, and when it ran (``time.time()``)."""

    tenant: str
    result: ReflectResult | None
    error: str | None
    started: float
    finished: float


def reflect_one(url: str, tenant: str, api_key: str, options: dict[str, Any]) -> TenantReflection:
    """``tenant``'s reflect at ``url`` (what each Ray task runs)."""
    started = time.time()
    try:
        with HebbsClient(url, api_key, timeout=REFLECT_TIMEOUT_S) as client:
            result = client.reflect(**options)
    except HebbsError as error:
        return TenantReflection(
            tenant, None, f"{type(error).__name__}: {error}", started, time.time()
        )
    return TenantReflection(tenant, result, None, started, time.time())


def reflect_tenants(
    url: str,
    api_keys: Mapping[str, str],
    *,
    max_in_flight: int = DEFAULT_LLM_CONCURRENCY,
    **options: Any,
) -> dict[str, TenantReflection]:
    """Reflects each tenant of ``api_keys`` (tenant -> a key of at least ``write`` scope) on
    the server or cluster at ``url``, as Ray tasks, at most ``max_in_flight`` at once;
    ``options`` are :meth:`hebbs.Hebbs.reflect`'s. Ray must be initialized."""
    if max_in_flight < 1:
        raise ValueError("max_in_flight must be at least 1")
    task: Any = ray.remote(num_cpus=0)(reflect_one)
    pending = list(api_keys.items())
    running: list[Any] = []
    done: dict[str, TenantReflection] = {}
    while pending or running:
        while pending and len(running) < max_in_flight:
            tenant, key = pending.pop(0)
            running.append(task.remote(url, tenant, key, dict(options)))
        finished, running = ray.wait(running, num_returns=1)
        for reflection in ray.get(finished):
            done[reflection.tenant] = reflection
    return done
