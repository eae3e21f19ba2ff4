"""``hebbs.ray.ingest`` on the tests' Ray: rows embedded on Ray Data by two workers (one model
load each) and written to the owning shard through the cluster, compared with the same rows
stored by one process with ``remember_many`` (same memories, same vectors, same recall
answers); a failed ingest resumed from its checkpoint; reruns that write nothing; an ingest into
a store on disk, with the token vectors remember_many would store.

CI ingests :data:`INGEST_ROWS` rows (2 000); the issue's 20 000 are
``HEBBS_CLUSTER_INGEST_ROWS=20000`` here, and ``benches/cluster_bench.py`` times them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ray.exceptions import RayTaskError

from cluster_support import RunningCluster
from hebbs import Hebbs, HebbsClient
from hebbs.cluster.hashing import owner
from hebbs.embedder import Embedder
from hebbs.ray import ingest

#: Rows of the comparison (``HEBBS_CLUSTER_INGEST_ROWS`` overrides).
INGEST_ROWS = int(os.environ.get("HEBBS_CLUSTER_INGEST_ROWS", "2000"))
#: Rows per batch in the comparison.
BATCH = 256
#: Cues whose answers are compared.
CUES = (
    "who asked about invoices",
    "renewal discussions in spring",
    "support tickets about login problems",
    "a discount on the annual plan",
    "shipping delays in Europe",
)
_SUBJECTS = ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka")
_TOPICS = (
    "asked about invoices",
    "wants a discount on the annual plan",
    "reported a login problem",
    "discussed the renewal",
    "complained about shipping delays in Europe",
    "requested a new feature for exports",
    "moved the meeting to Friday",
    "praised the support team",
    "needs a security review",
    "changed its billing address",
    "is evaluating a competitor",
)
_WHEN = ("in spring", "last week", "on Monday", "this quarter", "before the audit", "at lunch")


def make_rows(n: int) -> list[dict[str, Any]]:
    """``n`` distinct rows: a text and its customer."""
    rows = []
    for i in range(n):
        subject = _SUBJECTS[i % len(_SUBJECTS)]
        topic = _TOPICS[(i // len(_SUBJECTS)) % len(_TOPICS)]
        when = _WHEN[(i // 7) % len(_WHEN)]
        rows.append({"text": f"{subject} {topic} {when} (case {i})", "customer": subject.lower()})
    return rows


def all_memories(client: Any) -> list[Any]:
    out = []
    cursor = None
    while True:
        page = client.list_memories(cursor=cursor, limit=1000)
        out.extend(page.memories)
        if page.next_cursor is None:
            return out
        cursor = page.next_cursor


def answers(store: Any, cue: str) -> list[str]:
    weights = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}
    found = store.recall(cue, strategies=["similarity"], top_k=5, scoring_weights=weights)
    return [result.memory.content for result in found.results]


def test_ray_data_ingest_matches_a_single_process_ingest(
    test_cluster: RunningCluster, tmp_path: Path, embedder: Embedder
) -> None:
    rows = make_rows(INGEST_ROWS)
    key = test_cluster.new_key("ingest")
    result = ingest(
        rows,
        test_cluster.url,
        api_key=key,
        entity_column="customer",
        batch_size=BATCH,
        workers=2,
        checkpoint=tmp_path / "checkpoint.json",
    )
    assert result.rows == INGEST_ROWS
    assert result.written == INGEST_ROWS
    assert result.skipped == 0
    # Two worker processes, each its own model load.
    assert len(result.workers) == 2
    # The same rows stored by one process.
    with Hebbs.open(tmp_path / "single", embedder=embedder) as single:
        for start in range(0, INGEST_ROWS, BATCH):
            chunk = rows[start : start + BATCH]
            items = [{"content": r["text"], "entity_id": r["customer"]} for r in chunk]
            single.remember_many(items)
        expected = sorted((m.content, m.entity_id) for m in all_memories(single))
        with HebbsClient(test_cluster.url, key) as client:
            stored = all_memories(client)
            assert sorted((m.content, m.entity_id) for m in stored) == expected
            # The same vectors (a sample), on the one shard that owns the tenant.
            sample = stored[:: max(1, len(stored) // 50)]
            remote = client.get_many([m.id for m in sample], include_embedding=True)
            by_content = {m.content: m for m in all_memories(single)}
            for memory in remote:
                assert memory is not None
                local = single.get(by_content[memory.content].id, include_embedding=True)
                np.testing.assert_allclose(memory.embedding, local.embedding, atol=1e-5)
            for cue in CUES:
                assert answers(client, cue) == answers(single, cue)
    shard = owner("ingest", test_cluster.cluster.shards())
    holders = [
        p.parent.parent.name for p in test_cluster.data_dir.parent.glob("*/*/tenants/ingest")
    ]
    assert holders == [shard]


def test_a_failed_ingest_resumes_from_its_checkpoint_without_writing_twice(
    test_cluster: RunningCluster, tmp_path: Path
) -> None:
    rows = make_rows(600)
    broken = [dict(row) for row in rows]
    broken[450]["text"] = None
    key = test_cluster.new_key("resume")
    checkpoint = tmp_path / "checkpoint.json"
    options: dict[str, Any] = {
        "api_key": key,
        "entity_column": "customer",
        "batch_size": 100,
        "workers": 1,
        "checkpoint": checkpoint,
    }
    with pytest.raises(RayTaskError, match="not a text"):
        ingest(broken, test_cluster.url, **options)
    recorded = json.loads(checkpoint.read_text())["batches"]
    assert recorded, "no batch was recorded before the failure"
    with HebbsClient(test_cluster.url, key) as client:
        partial = [m.content for m in all_memories(client)]
    assert len(partial) == len(set(partial)) >= 100 * len(recorded)
    # The rerun skips the recorded batches and any written row, and completes the rest.
    resumed = ingest(rows, test_cluster.url, **options)
    assert resumed.checkpointed == len(recorded)
    assert resumed.written == 600 - len(partial)
    assert resumed.written + resumed.skipped == 600
    # Without the checkpoint a rerun finds every row in the store and writes none.
    again = ingest(rows, test_cluster.url, **{**options, "checkpoint": None, "workers": 2})
    assert again.written == 0
    assert again.skipped == 600
    with HebbsClient(test_cluster.url, key) as client:
        stored = sorted(m.content for m in all_memories(client))
    assert stored == sorted(r["text"] for r in rows)


def test_an_ingest_into_a_store_on_disk(
    test_cluster: RunningCluster, tmp_path: Path, embedder: Embedder
) -> None:
    rows = make_rows(300)
    path = tmp_path / "memory"
    first = ingest(rows, path, entity_column="customer", batch_size=64, workers=2)
    assert (first.written, first.skipped) == (300, 0)
    again = ingest(rows, path, entity_column="customer", batch_size=64, workers=1)
    assert (again.written, again.skipped) == (0, 300)
    with Hebbs.open(path, embedder=embedder) as mem:
        assert mem.health().memory_count == 300
        top = mem.recall("Acme asked about invoices", entity_id="acme", top_k=1)
        assert top.results[0].memory.content.startswith("Acme asked about invoices")
        # The token vectors of the same pass, as remember_many stores them.
        ingested = all_memories(mem)[:20]
        tokens = mem._native.get_token_vectors([m.id for m in ingested])
    with Hebbs.open(tmp_path / "single", embedder=embedder) as single:
        made = single.remember_many([{"content": m.content} for m in ingested])
        expected = single._native.get_token_vectors([m.id for m in made])
    for got, want in zip(tokens, expected):
        assert got is not None
        assert want is not None
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
