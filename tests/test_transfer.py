"""Export and import: the round trip gives identical lines and the same recall answers (with
conversations and token vectors, so `quality="best"` ranks alike); a version 1 file still
imports; a bad file is refused naming its line with nothing written; the CLI and the REST
endpoints do the same; and a property test round-trips generated memories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.remote import Server

from hebbs import ConflictError, Edge, Hebbs, InvalidInputError
from hebbs.cli import main
from hebbs.transfer.export import export_lines
from hebbs.transfer.format import FORMAT_VERSION
from hebbs.transfer.importer import import_file

Embed = Callable[[list[str]], np.ndarray]
RELEVANCE_ONLY = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}


def fill(mem: Hebbs) -> None:
    """Every kind of thing an export carries: episodes, an insight, a revision (a superseded
    memory and a revised_from edge), edges, contexts, access counts, a tombstone."""
    ask = mem.remember(
        "Acme asked for a 15% discount — before Q3",
        importance=0.8,
        context={"channel": "email", "amounts": [15, 12.5], "nested": {"ok": True}},
        entity_id="acme",
    )
    approve = mem.remember(
        "The pricing review approved 12% for Acme",
        entity_id="acme",
        edges=[Edge(ask.id, "caused_by", 0.9)],
        session_id="call-1",
    )
    mem.remember("Acme negotiates hard on price", entity_id="acme", kind="insight")
    mem.add_edges(ask.id, [Edge(approve.id, "followed_by")])
    mem.revise(approve.id, content="The pricing review approved 10% for Acme")
    mem.recall("discount for Acme")
    mem.recall("pricing review")
    doomed = mem.remember("Globex pays by PDF invoice", entity_id="globex")
    mem.forget(ids=[doomed.id])


def dump(mem: Hebbs, path: Path, *, embeddings: bool = True) -> list[str]:
    lines = list(export_lines(mem, embeddings=embeddings))
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return lines


def answers(mem: Hebbs) -> list[Any]:
    """Recall answers that depend only on what an export carries: similarity's ids and
    scores; keyword's and hybrid's ids in order (BM25 statistics also count forgotten documents
    until the text index merges them away, so their scores may differ in the last digits)."""
    similar = mem.recall(
        "discount", strategies=["similarity"], scoring_weights=RELEVANCE_ONLY, top_k=5
    )
    found: list[Any] = [[(r.memory.id_hex, round(r.score, 5)) for r in similar.results]]
    for cue, strategies in (("pricing review", ["hybrid"]), ("Acme", ["keyword"])):
        out = mem.recall(cue, strategies=strategies, scoring_weights=RELEVANCE_ONLY, top_k=5)
        found.append([r.memory.id_hex for r in out.results])
    timeline = mem.recall(strategies=["temporal"], entity_id="acme")
    found.append([r.memory.id_hex for r in timeline.results])
    return found


def test_round_trip_gives_identical_lines_and_recall(tmp_path: Path, hash_embed: Embed) -> None:
    with Hebbs.open(tmp_path / "a", embedder=hash_embed) as a:
        fill(a)
        first = dump(a, tmp_path / "a.jsonl")
        before = answers(a)
    header = json.loads(first[0])
    assert header == {
        "type": "header",
        "format": "hebbs-export",
        "version": FORMAT_VERSION,
        "dimension": 64,
        "model": "word_hash_embed",
        "embeddings": True,
    }
    types = [json.loads(line)["type"] for line in first]
    assert types.count("memory") == 4
    assert types.count("tombstone") == 1
    assert types[-1] == "end"
    with Hebbs.open(tmp_path / "b", embedder=hash_embed) as b:
        result = import_file(b, tmp_path / "a.jsonl")
        assert (result.memories, result.edges, result.tombstones) == (4, 3, 1)
        assert dump(b, tmp_path / "b.jsonl") == first
        assert answers(b) == before
        superseded = [json.loads(line) for line in first if '"superseded":true' in line]
        assert len(superseded) == 1
        assert b.get(superseded[0]["id"]).superseded
        assert b.recall("pricing review").results[0].memory.kind.value == "revision"


def test_without_embeddings_the_import_embeds(tmp_path: Path, hash_embed: Embed) -> None:
    with Hebbs.open(tmp_path / "a", embedder=hash_embed) as a:
        fill(a)
        lines = dump(a, tmp_path / "a.jsonl", embeddings=False)
        before = answers(a)
    assert all('"embedding"' not in line for line in lines)
    with Hebbs.open(tmp_path / "b", embedder=hash_embed) as b:
        import_file(b, tmp_path / "a.jsonl")
        assert list(export_lines(b, embeddings=False)) == lines
        assert answers(b) == before


def corrupt(lines: list[str], index: int, change: Callable[[dict[str, Any]], Any]) -> list[str]:
    data = json.loads(lines[index])
    changed = change(data)
    out = list(lines)
    out[index] = changed if isinstance(changed, str) else json.dumps(data)
    return out


def memory_index(lines: list[str], nth: int = 0) -> int:
    return [i for i, line in enumerate(lines) if '"type":"memory"' in line][nth]


def test_a_bad_file_names_its_line_and_writes_nothing(tmp_path: Path, hash_embed: Embed) -> None:
    with Hebbs.open(tmp_path / "a", embedder=hash_embed) as a:
        fill(a)
        good = dump(a, tmp_path / "good.jsonl")
    m0, m1 = memory_index(good), memory_index(good, 1)
    edge = next(i for i, line in enumerate(good) if '"type":"edge"' in line)
    cases: list[tuple[list[str], str]] = [
        (corrupt(good, m1, lambda d: "{not json"), f"line {m1 + 1}"),
        (corrupt(good, m1, lambda d: d.update(colour="red")), f"line {m1 + 1}"),
        (corrupt(good, m1, lambda d: d.update(importance=2.0)), f"line {m1 + 1}.importance"),
        (corrupt(good, m1, lambda d: d.update(content=" ")), f"line {m1 + 1}.content"),
        (corrupt(good, m1, lambda d: d.update(id=json.loads(good[m0])["id"])), f"line {m1 + 1}.id"),
        (corrupt(good, m1, lambda d: d.update(embedding=[0.5] * 3)), f"line {m1 + 1}.embedding"),
        (corrupt(good, edge, lambda d: d.update(target="f" * 32)), f"line {edge + 1}.target"),
        (corrupt(good, 0, lambda d: d.update(version=99)), "line 1.version"),
        (
            corrupt(good, len(good) - 1, lambda d: d.update(memories=99)),
            f"line {len(good)}.memories",
        ),
        (good[1:], "line 1"),
        (good[:-1], f"line {len(good) - 1}"),
    ]
    for number, (lines, field) in enumerate(cases):
        path = tmp_path / f"bad{number}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with Hebbs.open(tmp_path / f"b{number}", embedder=hash_embed) as b:
            with pytest.raises(InvalidInputError) as raised:
                import_file(b, path)
            assert raised.value.field == field, (number, str(raised.value))
            assert b.health().memory_count == 0
            assert b.tombstones() == []


def test_an_import_refuses_ids_the_store_holds(tmp_path: Path, hash_embed: Embed) -> None:
    with Hebbs.open(tmp_path / "a", embedder=hash_embed) as a:
        fill(a)
        dump(a, tmp_path / "a.jsonl")
        count = a.health().memory_count
        with pytest.raises(ConflictError, match="holds a memory with this id") as refused:
            import_file(a, tmp_path / "a.jsonl")
        assert refused.value.field == "line 2.id"
        assert a.health().memory_count == count


_texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40
).filter(str.strip)
_contexts = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.one_of(st.integers(-1000, 1000), st.booleans(), st.text(max_size=10), st.none()),
    max_size=3,
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(_texts, st.floats(0, 1), _contexts, st.sampled_from([None, "a", "b"])),
        min_size=1,
        max_size=6,
    )
)
def test_any_memories_round_trip(
    tmp_path_factory: pytest.TempPathFactory, hash_embed: Embed, items: list[Any]
) -> None:
    root = tmp_path_factory.mktemp("prop")
    with Hebbs.open(root / "a", embedder=hash_embed) as a:
        for content, importance, context, entity in items:
            a.remember(content, importance=importance, context=context, entity_id=entity)
        lines = dump(a, root / "a.jsonl")
    with Hebbs.open(root / "b", embedder=hash_embed) as b:
        import_file(b, root / "a.jsonl")
        assert list(export_lines(b)) == lines


def test_cli_export_and_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "a")
    assert main(["remember", "Acme renewed for two years", "--db", db, "--entity-id", "acme"]) == 0
    capsys.readouterr()
    assert main(["export", "--db", db]) == 0
    exported = capsys.readouterr().out
    assert exported.splitlines()[0].startswith('{"type":"header"')
    (tmp_path / "dump.jsonl").write_text(exported, encoding="utf-8")
    copy = str(tmp_path / "b")
    assert main(["import", "--db", copy, str(tmp_path / "dump.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"memories": 1, "edges": 0, "tombstones": 0}
    assert main(["export", "--db", copy]) == 0
    assert capsys.readouterr().out == exported
    (tmp_path / "bad.jsonl").write_text(exported.replace('"type":"end"', '"type":"fin"'))
    assert main(["import", "--db", str(tmp_path / "c"), str(tmp_path / "bad.jsonl")]) == 2
    assert "line 3" in capsys.readouterr().err


def test_rest_export_and_import(hebbs_server: Server, tmp_path: Path) -> None:
    source, target, reader = (
        hebbs_server.new_key("write"),
        hebbs_server.new_key("write"),
        hebbs_server.new_key("read"),
    )
    url = hebbs_server.url

    def auth(key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    stored = httpx.post(
        url + "/v1/memories", json={"content": "Acme pays yearly"}, headers=auth(source)
    ).json()
    with httpx.stream("GET", url + "/v1/export", headers=auth(source), timeout=60) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/x-ndjson")
        body = "".join(answer.iter_text())
    lines = body.splitlines()
    assert json.loads(lines[1])["id"] == stored["id"]
    imported = httpx.post(url + "/v1/import", content=body, headers=auth(target), timeout=60)
    assert imported.status_code == 200, imported.text
    assert imported.json() == {"memories": 1, "edges": 0, "tombstones": 0}
    again = httpx.get(url + "/v1/export", headers=auth(target), timeout=60).text
    assert again == body
    refused = httpx.post(url + "/v1/import", content=body, headers=auth(reader))
    assert refused.status_code == 403
    bad = body.replace('"memories":1', '"memories":2')
    fresh = hebbs_server.new_key("write")
    answer = httpx.post(url + "/v1/import", content=bad, headers=auth(fresh), timeout=60)
    assert answer.status_code == 400
    assert answer.json()["field"] == f"line {len(lines)}.memories"
    empty = httpx.get(url + "/v1/export", headers=auth(fresh), timeout=60).text.splitlines()
    assert [json.loads(line)["type"] for line in empty] == ["header", "end"]


CHAT = [
    "Ana: we moved the launch to March",
    "Ben: because the payments team needs two more weeks",
    "Ana: then the beta starts in February",
    "Ben: and the press release waits for the launch",
]


def chat_store(mem: Hebbs) -> list[str]:
    """A conversation (one turn revised) beside a memory in none; returns the turns' ids."""
    turns = [
        mem.remember(text, entity_id=text.split(":")[0], session_id="planning", created_at=i + 1)
        for i, text in enumerate(CHAT)
    ]
    mem.remember("Globex pays by PDF invoice", entity_id="globex")
    revised = mem.revise(turns[1].id, content="Ben: because the payments team needs three weeks")
    return [turns[0].id_hex, revised.id_hex, turns[2].id_hex, turns[3].id_hex]


def best(mem: Hebbs) -> list[tuple[str, float]]:
    out = mem.recall("when does the launch happen?", quality="best", top_k=5)
    return [(r.memory.id_hex, round(r.scores["rerank"], 5)) for r in out.results]


def test_conversations_and_token_vectors_survive_the_round_trip(tmp_path: Path) -> None:
    with Hebbs.open(tmp_path / "a") as a:
        order = chat_store(a)
        lines = dump(a, tmp_path / "a.jsonl")
        before = best(a)
        turns = a._native.conversation_turns(order)
        tokens = a._native.get_token_vectors(order)
    memories = [json.loads(line) for line in lines if '"type":"memory"' in line]
    by_id = {memory["id"]: memory for memory in memories}
    assert [by_id[id]["session_id"] for id in order] == ["planning"] * 4
    assert by_id[order[1]]["turn_at"] == 2  # the revision keeps the place of the turn it revised
    assert all("token_vectors" in memory for memory in memories)
    with Hebbs.open(tmp_path / "b") as b:
        import_file(b, tmp_path / "a.jsonl")
        assert dump(b, tmp_path / "b.jsonl") == lines
        assert b._native.conversation_turns(order) == turns
        for got, want in zip(b._native.get_token_vectors(order), tokens):
            assert got is not None
            assert want is not None
            assert np.array_equal(got[0], want[0])
            assert np.array_equal(got[1], want[1])
        assert best(b) == before


def test_a_version_1_file_still_imports(tmp_path: Path, hash_embed: Embed) -> None:
    with Hebbs.open(tmp_path / "a", embedder=hash_embed) as a:
        fill(a)
        lines = dump(a, tmp_path / "a.jsonl")
    old = []
    for line in lines:
        data = json.loads(line)
        if data["type"] == "header":
            data["version"] = 1
        for field in ("session_id", "turn_at", "token_vectors"):
            data.pop(field, None)
        old.append(json.dumps(data))
    (tmp_path / "old.jsonl").write_text("\n".join(old) + "\n", encoding="utf-8")
    with Hebbs.open(tmp_path / "b", embedder=hash_embed) as b:
        result = import_file(b, tmp_path / "old.jsonl")
        assert result.memories == 4
        ids = [json.loads(line)["id"] for line in old if '"type": "memory"' in line]
        assert b._native.conversation_turns(ids) == [None] * 4


def test_bad_token_vectors_and_turns_name_their_line(tmp_path: Path) -> None:
    with Hebbs.open(tmp_path / "a") as a:
        chat_store(a)
        good = dump(a, tmp_path / "good.jsonl")
    m0 = memory_index(good)

    def shrink(data: dict[str, Any]) -> None:
        data["token_vectors"]["dimension"] += 1

    def alone(data: dict[str, Any]) -> None:
        data.pop("session_id")
        data["turn_at"] = 5

    def without_embedding(data: dict[str, Any]) -> None:
        data.pop("embedding")

    cases = [
        (corrupt(good, m0, shrink), f"line {m0 + 1}.token_vectors"),
        (corrupt(good, m0, lambda d: d["token_vectors"].update(codes="%%")), f"line {m0 + 1}"),
        (corrupt(good, m0, alone), f"line {m0 + 1}.turn_at"),
        (corrupt(good, m0, lambda d: d.update(session_id="a\u0000b")), f"line {m0 + 1}.session_id"),
    ]
    for number, (lines, field) in enumerate(cases):
        path = tmp_path / f"bad{number}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with Hebbs.open(tmp_path / f"b{number}") as b:
            with pytest.raises(InvalidInputError) as raised:
                import_file(b, path)
            assert raised.value.field.startswith(field), (number, str(raised.value))
            assert b.health().memory_count == 0


def test_without_embeddings_the_import_makes_token_vectors_again(tmp_path: Path) -> None:
    with Hebbs.open(tmp_path / "a") as a:
        order = chat_store(a)
        lines = dump(a, tmp_path / "a.jsonl", embeddings=False)
        tokens = a._native.get_token_vectors(order)
    assert all('"token_vectors"' not in line for line in lines)
    with Hebbs.open(tmp_path / "b") as b:
        import_file(b, tmp_path / "a.jsonl")
        for got, want in zip(b._native.get_token_vectors(order), tokens):
            assert got is not None
            assert want is not None
            assert np.array_equal(got[0], want[0])
