"""Caller keys (``remember(key=...)``): a key names one live memory, the newest; storing under
it again replaces the memory in one write; reads, forgets, listings and counts by key, the same
embedded and over the server; the JSON types of the context come back as stored; keys survive
an export and import; bad keys are typed errors naming their field that leave the store as it
was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import hebbs
from hebbs._native import MAX_KEY_BYTES
from hebbs.embedder import Embedder
from hebbs.transfer.export import export_lines
from hebbs.transfer.importer import import_file

CONTEXT = {"n": 1, "x": 1.5, "whole": 2.0, "flag": False, "none": None, "list": [1, "a", [True]]}


def _contents(store: Any, keys: list[str]) -> list[str | None]:
    return [None if m is None else m.content for m in store.get_many(keys=keys)]


def test_a_key_names_the_newest_memory(store: Any) -> None:
    first = store.remember("the first draft", key="doc/1", context=CONTEXT)
    assert first.key == "doc/1"
    assert store.get(first.id).context == CONTEXT
    store.remember("unkeyed")
    second = store.remember("the second draft", key="doc/1", importance=0.9)
    assert second.id != first.id
    assert _contents(store, ["doc/1", "doc/2"]) == ["the second draft", None]
    assert store.get_many([first.id, second.id])[0] is None
    assert store.count_memories() == 2
    assert store.tombstone(first.id) is not None
    revised = store.revise(second.id, content="the third draft")
    assert revised.key == "doc/1"
    assert store.get_many(keys=["doc/1"])[0].id == revised.id
    store.remember("the fourth draft", key="doc/1")
    assert store.count_memories(include_superseded=True) == 2
    hits = store.recall("draft", top_k=5).results
    assert [hit.memory.content for hit in hits if "draft" in hit.memory.content] == [
        "the fourth draft"
    ]


def test_many_keys_list_count_and_forget(store: Any) -> None:
    items = [{"content": f"note {key}", "key": key} for key in ("a/1", "a/2", "b/1", "a")]
    store.remember_many([*items, {"content": "no key at all"}])
    page = store.list_memories(key_prefix="a/", limit=1)
    listed = [memory.key for memory in page.memories]
    while page.next_cursor is not None:
        page = store.list_memories(key_prefix="a/", limit=1, cursor=page.next_cursor)
        listed += [memory.key for memory in page.memories]
    assert sorted(listed) == ["a/1", "a/2"]
    assert [store.count_memories(key_prefix=p) for p in ("a/", "a", "", "z")] == [2, 3, 4, 0]
    result = store.forget(keys=["a/2", "never"])
    assert result.forgotten_count == 1
    assert _contents(store, ["a/1", "a/2"]) == ["note a/1", None]
    replaced = store.remember_many([{"content": "note a/1, again", "key": "a/1"}])
    assert replaced[0].key == "a/1"
    assert store.count_memories() == 4


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: s.remember("x", key=""), "key"),
        (lambda s: s.remember("x", key="k" * (MAX_KEY_BYTES + 1)), "key"),
        (lambda s: s.remember("x", key=7), "key"),
        (
            lambda s: s.remember_many([{"content": "x", "key": "d"}, {"content": "y", "key": "d"}]),
            "items[1].key",
        ),
        (lambda s: s.remember_many([{"content": "x", "key": ""}]), "items[0].key"),
        (
            lambda s: s.remember_many([{"content": "x", "context": {"n": float("nan")}}]),
            "items[0].context",
        ),
        (lambda s: s.get_many(keys=["ok", ""]), "keys[1]"),
        (lambda s: s.get_many(), "ids"),
        (lambda s: s.forget(keys=[""]), "keys[0]"),
        (lambda s: s.list_memories(key_prefix="k" * (MAX_KEY_BYTES + 1)), "key_prefix"),
    ],
)
def test_bad_keys_name_their_field_and_change_nothing(store: Any, call: Any, field: str) -> None:
    store.remember("kept", key="d")
    with pytest.raises(hebbs.InvalidInputError) as caught:
        call(store)
    assert caught.value.field == field
    assert _contents(store, ["d"]) == ["kept"]
    assert store.count_memories() == 1


def test_the_routes_take_keys(remote_key: tuple[str, str]) -> None:
    url, key = remote_key
    headers = {"Authorization": f"Bearer {key}"}
    stored = httpx.post(
        f"{url}/v1/memories", json={"content": "hello", "key": "greeting"}, headers=headers
    )
    assert stored.status_code == 201
    assert stored.json()["key"] == "greeting"
    batch = httpx.post(
        f"{url}/v1/memories/batch", json={"keys": ["greeting", "nope"]}, headers=headers
    )
    assert [m and m["content"] for m in batch.json()] == ["hello", None]
    listed = httpx.get(f"{url}/v1/memories", params={"key_prefix": "greet"}, headers=headers)
    assert [m["key"] for m in listed.json()["memories"]] == ["greeting"]
    counted = httpx.get(f"{url}/v1/memories/count", params={"key_prefix": "x"}, headers=headers)
    assert counted.json() == {"count": 0}
    refused = httpx.post(f"{url}/v1/memories", json={"content": "x", "key": ""}, headers=headers)
    assert refused.status_code == 400
    assert (refused.json()["error_code"], refused.json()["field"]) == ("invalid_input", "key")


def test_keys_survive_an_export_and_an_import(tmp_path: Path, embedder: Embedder) -> None:
    with hebbs.Hebbs.open(tmp_path / "a", embedder=embedder) as a:
        a.remember("kept under a key", key="k1", context=CONTEXT)
        a.remember("no key")
        lines = list(export_lines(a, embeddings=True))
    (tmp_path / "a.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    with hebbs.Hebbs.open(tmp_path / "b", embedder=embedder) as b:
        import_file(b, tmp_path / "a.jsonl")
        got = b.get_many(keys=["k1"])[0]
        assert (got.content, got.context) == ("kept under a key", CONTEXT)
        with pytest.raises(hebbs.ConflictError) as caught:
            import_file(b, tmp_path / "a.jsonl")
        assert caught.value.field.endswith(".id") or caught.value.field.endswith(".key")
        assert b.count_memories() == 2


def test_the_filter_reads_keys(store: Any) -> None:
    store.remember_many(
        [{"content": f"note {n} about the invoice", "key": f"ns{n % 2}/{n}"} for n in range(8)]
    )
    store.remember("an unkeyed note about the invoice")
    prefix = {"key": {"$gte": "ns1/", "$lt": "ns10"}}
    hits = store.recall("invoice", top_k=20, filter=prefix).results
    assert sorted(hit.memory.key for hit in hits) == ["ns1/1", "ns1/3", "ns1/5", "ns1/7"]
    listed = store.list_memories(filter={"key": {"$in": ["ns0/2", "ns0/4", "none"]}})
    assert sorted(memory.key for memory in listed.memories) == ["ns0/2", "ns0/4"]
    assert store.count_memories(filter={"key": {"$exists": False}}) == 1
    assert store.forget(filter={"key": {"$lt": "ns0/4"}}).forgotten_count == 2
    with pytest.raises(hebbs.InvalidInputError) as caught:
        store.recall("invoice", filter={"key": {"$gte": 1}})
    assert caught.value.field == "filter.key.$gte"
