"""``reinforce(ids)``: an agent counts a use of the memories it actually used, on the embedded
store and through the server alike (``store``): each id's ``access_count`` rises by one a
mention, its reinforcement signal with it, ids of missing memories are skipped, and a malformed
id is an error naming it that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

import hebbs

MISSING_ID = "0" * 32


def test_each_mention_counts_one_use(store: Any) -> None:
    used = store.remember("the renewal was signed on Friday")
    other = store.remember("the office moved to the second floor")
    store.reinforce([used.id, used.id])
    assert store.get(used.id).access_count == 2
    assert store.get(other.id).access_count == 0


def test_a_reinforced_memory_carries_a_higher_reinforcement_signal(store: Any) -> None:
    used = store.remember("Acme asked for a refund of the duplicate charge")
    other = store.remember("Acme's invoice was sent twice in March")
    store.reinforce([used.id])
    output = store.recall("Acme billing", strategies=["similarity"], top_k=2)
    signal = {result.memory.id: result.scores["reinforcement"] for result in output.results}
    assert signal[used.id] > signal[other.id] == 0.0


def test_missing_memories_are_skipped(store: Any) -> None:
    kept = store.remember("a memory that stays as it was")
    store.reinforce([MISSING_ID])
    assert store.get(kept.id).access_count == 0


def test_a_malformed_id_is_an_error_naming_it_and_changes_nothing(store: Any) -> None:
    kept = store.remember("a memory that stays as it was")
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.reinforce([kept.id, "nothex"])
    assert caught.value.field == "ids[1]"
    assert store.get(kept.id).access_count == 0
