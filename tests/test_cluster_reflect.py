"""``hebbs.ray.reflect_tenants``: reflection over many tenants of the cluster as Ray tasks. The
shards reflect with the OpenAI-compatible provider pointed at :mod:`fake_llm` (a real HTTP
server on 127.0.0.1, through the cluster's ``[shard_env]``); at most ``max_in_flight`` tenants
reflect at once, and the LLM never has more than that times its concurrency limit in flight."""

from __future__ import annotations

from cluster_support import RunningCluster
from hebbs import HebbsClient
from hebbs.llm.constants import DEFAULT_LLM_CONCURRENCY
from hebbs.ray import reflect_tenants

#: Tenants reflected, and how many reflect at once.
TENANTS = tuple(f"reflect-{i}" for i in range(6))
MAX_IN_FLIGHT = 2


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    now = peak = 0
    for _, change in events:
        now += change
        peak = max(peak, now)
    return peak


def test_reflect_over_many_tenants_as_ray_tasks(test_cluster: RunningCluster) -> None:
    keys = {tenant: test_cluster.new_key(tenant) for tenant in TENANTS}
    for tenant, key in keys.items():
        with HebbsClient(test_cluster.url, key) as client:
            client.remember_many(
                [
                    {"content": f"{tenant}: the customer {what} the invoice", "entity_id": "acme"}
                    for what in ("disputed", "questioned", "paid late", "asked again about")
                ]
            )
    test_cluster.llm.max_in_flight = 0
    bad = {"reflect-stranger": "hb_not-a-key"}
    done = reflect_tenants(test_cluster.url, {**keys, **bad}, max_in_flight=MAX_IN_FLIGHT)
    assert set(done) == {*TENANTS, *bad}
    assert done["reflect-stranger"].result is None
    assert "AuthError" in str(done["reflect-stranger"].error)
    for tenant, key in keys.items():
        reflection = done[tenant]
        assert reflection.error is None
        assert reflection.result is not None
        assert reflection.result.insights_created >= 1
        with HebbsClient(test_cluster.url, key) as client:
            insights = client.insights()
            assert len(insights) == reflection.result.insights_created
            # Each insight cites its own tenant's memories only.
            for insight in insights:
                for source in client.get_many(insight.source_ids):
                    assert source is not None
                    assert source.content.startswith(f"{tenant}:")
    intervals = [(r.started, r.finished) for r in done.values()]
    assert 1 <= most_at_once(intervals) <= MAX_IN_FLIGHT
    assert 1 <= test_cluster.llm.max_in_flight <= MAX_IN_FLIGHT * DEFAULT_LLM_CONCURRENCY
