"""Consolidation on hand-made cases, embedded and remote: remember(dedup=True) returns and
reinforces a near-duplicate of the same entity, find_contradictions surfaces opposed pairs,
confirm_contradiction links or revises; and the text heuristics against their definitions."""

from __future__ import annotations

import pytest

import hebbs
from hebbs.consolidate.text import adds_nothing, opposition
from remote import Store


def test_dedup_returns_the_existing_memory_and_reinforces_it(store: Store) -> None:
    first = store.remember("Acme asked for a 10% discount on the annual plan", entity_id="acme")
    same = store.remember("Acme asked for a 10% discount", entity_id="acme", dedup=True)
    assert same.id == first.id
    assert same.access_count == 1
    assert store.health().memory_count == 1
    more = store.remember("Acme asked for a 15% discount", entity_id="acme", dedup=True)
    assert more.id != first.id, "a new number is not a duplicate"
    other = store.remember("Acme asked for a 10% discount", entity_id="globex", dedup=True)
    assert other.id != first.id, "another entity's memory is not a duplicate"
    plain = store.remember("Acme asked for a 10% discount", entity_id="acme")
    assert plain.id != first.id, "without dedup every call stores"
    with pytest.raises(hebbs.InvalidValueError) as caught:
        store.remember("x", dedup=True, dedup_threshold=1.5)
    assert caught.value.field == "dedup_threshold"


def test_contradictions_are_found_and_confirmed(store: Store) -> None:
    older = store.remember("Alice likes the new dashboard layout", entity_id="alice")
    newer = store.remember("Alice dislikes the new dashboard layout", entity_id="alice")
    store.remember("Alice likes the new dashboard layout", entity_id="bob")
    store.remember("The office moved to Berlin in March", entity_id="alice")
    [candidate] = store.find_contradictions()
    assert isinstance(candidate, hebbs.ContradictionCandidate)
    assert (candidate.older.id, candidate.newer.id) == (older.id, newer.id)
    assert candidate.reason == "antonym:likes/dislikes"
    assert candidate.similarity >= 0.7
    assert store.find_contradictions(entity_id="bob") == []
    linked = store.confirm_contradiction(older.id, newer.id)
    assert linked.id == newer.id
    revision = store.confirm_contradiction(older.id, newer.id, resolution="revise")
    assert revision.kind == hebbs.MemoryKind.REVISION
    assert revision.content == newer.content
    assert [m.id for m in store.lineage(revision.id)] == [older.id, revision.id]
    with pytest.raises(hebbs.NotFoundError):
        store.get(newer.id)
    with pytest.raises(hebbs.InvalidValueError) as caught:
        store.confirm_contradiction(older.id, revision.id, resolution="merge")
    assert caught.value.field == "resolution"


def test_adds_nothing_and_opposition_on_hand_made_pairs() -> None:
    assert adds_nothing("Acme wants 10% off", "acme wants 10% off the annual plan")
    assert not adds_nothing("Acme wants 15% off", "Acme wants 10% off the annual plan")
    assert opposition("The deploy succeeded", "The deploy failed") == "antonym:succeeded/failed"
    assert opposition("Bob drinks coffee", "Bob does not drink coffee") == "negation"
    assert opposition("The price is 10 dollars", "The price is 12 dollars") == "numbers"
    assert opposition("Bob drinks coffee", "Bob drinks coffee daily") is None
