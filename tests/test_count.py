"""``count_memories``: the number of memories the listing with the same selection holds over
every page, embedded and over the server (``GET /v1/memories/count``), with typed errors that
name the field and leave the store as it was."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import hebbs


def _listed(store: Any, **selection: Any) -> int:
    """The memories every page of ``list_memories(**selection)`` holds."""
    total, cursor = 0, None
    while True:
        page = store.list_memories(cursor=cursor, limit=7, **selection)
        total += len(page.memories)
        cursor = page.next_cursor
        if cursor is None:
            return total


def test_a_count_is_the_listing_it_counts(store: Any) -> None:
    first = store.remember("the invoice was late", entity_id="acme", context={"priority": 1})
    for n in range(20):
        store.remember(
            f"note {n}",
            entity_id="acme" if n % 2 else "globex",
            context={"priority": n % 3},
            kind="insight" if n % 5 == 0 else None,
        )
    store.revise(first.id, content="the invoice was paid")
    selections: list[dict[str, Any]] = [
        {},
        {"entity_id": "acme"},
        {"entity_id": "nobody"},
        {"kind": "insight"},
        {"include_superseded": True},
        {"filter": {"context.priority": {"$gte": 1}}},
        {"entity_id": "globex", "filter": {"$not": {"kind": "insight"}}},
    ]
    for selection in selections:
        assert store.count_memories(**selection) == _listed(store, **selection), selection
    assert store.count_memories() == 21
    assert store.count_memories(include_superseded=True) == 22


def test_bad_input_names_its_field_and_changes_nothing(store: Any) -> None:
    store.remember("one")
    for bad, field in (
        ({"entity_id": ""}, "entity_id"),
        ({"kind": "diary"}, "kind"),
        ({"filter": {"context.n": {"$near": 1}}}, "filter.context.n.$near"),
        ({"include_superseded": "yes"}, "include_superseded"),
    ):
        with pytest.raises(hebbs.InvalidInputError) as caught:
            store.count_memories(**bad)
        assert caught.value.field == field
    assert store.count_memories() == 1


def test_the_route_answers_a_count_and_refuses_bad_json(remote_key: tuple[str, str]) -> None:
    url, key = remote_key
    with hebbs.HebbsClient(url, key) as client:
        client.remember("one", context={"n": 1})
        client.remember("two", context={"n": 2})
    headers = {"Authorization": f"Bearer {key}"}
    answer = httpx.get(
        f"{url}/v1/memories/count", params={"filter": '{"context.n": 2}'}, headers=headers
    )
    assert answer.status_code == 200
    assert answer.json() == {"count": 1}
    refused = httpx.get(f"{url}/v1/memories/count", params={"filter": "{"}, headers=headers)
    assert refused.status_code == 400
    assert refused.json()["field"] == "filter"
    assert httpx.get(f"{url}/v1/memories/count").status_code == 401
