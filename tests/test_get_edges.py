"""``get_edges(id, direction)``: the graph edges of a memory, on the embedded store and through
the server alike (``store``): the ones it holds, or the ones pointing at it with the holder as
``target``, none for a memory without edges, a typed error for one that is not stored and for a
direction that is neither ``"out"`` nor ``"in"``."""

from __future__ import annotations

from typing import Any

import pytest

import hebbs
from hebbs import Edge, EdgeType

MISSING_ID = "0" * 32


def test_the_edges_a_memory_holds_and_the_ones_pointing_at_it(store: Any) -> None:
    cause = store.remember("the payment provider had an outage on Monday")
    effect = store.remember(
        "invoices were sent twice", edges=[Edge(cause.id, EdgeType.CAUSED_BY, 0.8)]
    )
    note = store.remember("support answered the duplicate-invoice tickets")
    store.add_edges(note.id, [Edge(effect.id, "followed_by", 0.5)])

    held = store.get_edges(effect.id)
    assert [(e.target, e.edge_type, e.confidence) for e in held] == [
        (cause.id, EdgeType.CAUSED_BY, pytest.approx(0.8))
    ]
    pointing = store.get_edges(effect.id, direction="in")
    assert [(e.target, e.edge_type) for e in pointing] == [(note.id, EdgeType.FOLLOWED_BY)]
    assert [e.target for e in store.get_edges(cause.id, "in")] == [effect.id]


def test_a_memory_without_edges_has_none(store: Any) -> None:
    alone = store.remember("a memory linked to nothing")
    assert store.get_edges(alone.id) == []
    assert store.get_edges(alone.id, direction="in") == []


def test_a_memory_that_is_not_stored_is_not_found(store: Any) -> None:
    with pytest.raises(hebbs.NotFoundError):
        store.get_edges(MISSING_ID)


def test_a_bad_direction_is_an_error_naming_it(store: Any) -> None:
    kept = store.remember("a memory")
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.get_edges(kept.id, direction="sideways")
    assert caught.value.field == "direction"
