"""reflect, insights and reflect_prepare / reflect_commit through the public API, on the
embedded store and on a real server through the client (the ``store`` fixture)."""

from __future__ import annotations

import pytest

import hebbs
from remote import Store
from test_reflect import MORE_COFFEE, TOPICS


def _fill(store: Store) -> list[hebbs.Memory]:
    items = [{"content": text} for texts in TOPICS.values() for text in texts]
    return store.remember_many(items)


def test_reflect_then_insights(store: Store) -> None:
    sources = _fill(store)
    result = store.reflect()
    assert isinstance(result, hebbs.ReflectResult)
    assert (result.insights_created, result.clusters_processed, result.memories_processed) == (
        2,
        2,
        8,
    )
    found = store.insights()
    assert len(found) == 2
    assert all(isinstance(i, hebbs.Insight) and not i.stale for i in found)
    assert {s for i in found for s in i.source_ids} == {m.id_hex for m in sources}
    assert all(i.memory.kind == hebbs.MemoryKind.INSIGHT for i in found)
    assert store.insights(min_confidence=1.0) == []
    assert store.reflect().memories_processed == 0
    store.revise(sources[0].id, content="The Friday deploy went fine in the end.")
    assert len(store.insights()) == 1
    assert [i.stale for i in store.insights(include_stale=True)].count(True) == 1


def test_prepare_commit_round_trip(store: Store) -> None:
    _fill(store)
    for text in MORE_COFFEE:
        store.remember(text)
    session = store.reflect_prepare(entity_id=None)
    assert isinstance(session, hebbs.ReflectSession)
    assert session.memories_processed == 11
    cluster = session.clusters[0]
    ids = [m.id_hex for m in cluster.memories]
    with pytest.raises(hebbs.InvalidValueError) as caught:
        store.reflect_commit(session.session_id, [{"content": "x", "sources": ["00" * 16]}])
    assert caught.value.field == "insights[0].sources[0]"
    done = store.reflect_commit(
        session.session_id, [{"content": "A host's insight", "sources": ids, "confidence": 0.6}]
    )
    assert done.insights_created == 1
    assert done.insights[0].content == "A host's insight"
    [insight] = store.insights()
    assert insight.confidence == pytest.approx(0.6)
    assert sorted(insight.source_ids) == sorted(ids)
    with pytest.raises(hebbs.InvalidValueError) as caught:
        store.reflect_commit(session.session_id, [])
    assert caught.value.field == "session_id"


def test_bad_reflect_input_names_the_field(store: Store) -> None:
    with pytest.raises(hebbs.InvalidValueError) as caught:
        store.reflect(min_cluster_size=0)
    assert caught.value.field == "min_cluster_size"
    with pytest.raises(hebbs.InvalidTypeError) as caught:
        store.reflect_commit("s", [{"content": "x", "sources": "not a list"}])
    assert caught.value.field.startswith("insights[0].sources")
    with pytest.raises(hebbs.InvalidTypeError) as caught:
        store.insights(include_stale="yes")  # type: ignore[arg-type]
    assert caught.value.field == "include_stale"
