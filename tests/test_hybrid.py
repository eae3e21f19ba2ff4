"""Hybrid (dense + BM25) and keyword recall, the relevance floor, graph context, regex mode,
sessions and orphans through the Python API, on the bundled embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

import hebbs
from hebbs.embedder import Embedder


@pytest.fixture
def support(mem: hebbs.Hebbs) -> list[hebbs.Memory]:
    return mem.remember_many(
        [
            {"content": "Ticket INC4711: the invoice export times out", "entity_id": "acme"},
            {"content": "Acme's finance team cannot download their bills", "entity_id": "acme"},
            {"content": "Globex asked for a new dashboard colour", "entity_id": "globex"},
            {"content": "The office coffee machine is broken", "entity_id": "facilities"},
        ]
    )


def test_keyword_finds_exact_codes(mem: hebbs.Hebbs, support: list[hebbs.Memory]) -> None:
    output = mem.recall("INC4711", strategies=["keyword"])
    assert [r.memory.id for r in output.results] == [support[0].id]
    assert output.results[0].scores["bm25"] > 0


def test_hybrid_reports_every_score(mem: hebbs.Hebbs, support: list[hebbs.Memory]) -> None:
    output = mem.recall("INC4711 customers cannot get their invoices", strategies=["hybrid"])
    top = output.results[0]
    assert top.memory.id == support[0].id
    signals = {"relevance", "recency", "importance", "reinforcement"}
    assert set(top.scores) == {"dense", "bm25", "rrf", "final"} | signals
    assert all(0.0 <= top.scores[name] <= 1.0 for name in signals)
    assert top.scores["final"] == pytest.approx(top.score)
    detail = top.strategy_details[0]
    assert detail.strategy == "hybrid"
    assert detail.rrf_score == pytest.approx(top.scores["rrf"])
    found = [r.memory.id for r in output.results]
    assert support[1].id in found, "the paraphrase comes from the dense half"


def test_relevance_floor(mem: hebbs.Hebbs, support: list[hebbs.Memory]) -> None:
    everything = mem.recall("invoice export is slow", top_k=10)
    floored = mem.recall("invoice export is slow", top_k=10, min_relevance=0.5)
    assert len(floored.results) < len(everything.results)
    assert floored.below_threshold == len(everything.results) - len(floored.results)
    assert all(r.strategy_details[0].relevance >= 0.5 for r in floored.results)
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.recall("x", min_relevance=2.0)
    assert caught.value.field == "min_relevance"


def test_graph_context(mem: hebbs.Hebbs) -> None:
    cause = mem.remember("The payments database ran out of disk space.")
    effect = mem.remember(
        "Customers could not pay for an hour.", edges=[hebbs.Edge(cause.id, "caused_by", 0.9)]
    )
    output = mem.recall("customers unable to pay", top_k=1, graph_context=3)
    assert output.results[0].memory.id == effect.id
    (edge,) = output.results[0].expansion_context
    assert edge.neighbor_id == cause.id
    assert edge.edge_type == hebbs.EdgeType.CAUSED_BY
    assert edge.direction == "outgoing"
    assert edge.confidence == pytest.approx(0.9)
    assert edge.preview == cause.content
    plain = mem.recall("customers unable to pay", top_k=1)
    assert plain.results[0].expansion_context == []


def test_force_regex(mem: hebbs.Hebbs, support: list[hebbs.Memory]) -> None:
    output = mem.recall(r"INC\d{4}", force_regex=True)
    assert [r.memory.id for r in output.results] == [support[0].id]
    assert output.results[0].strategy_details[0].strategy == "regex"
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.recall("(unclosed", force_regex=True)
    assert caught.value.field == "cue"


def test_sessions_and_orphans(mem: hebbs.Hebbs) -> None:
    asked = mem.remember("User asked how to reset a password", session_id="chat-7")
    kb = mem.remember("Passwords are reset from the account page", entity_id="kb")
    mem.remember("Unrelated memory about lunch", edges=[hebbs.Edge(kb.id, "related_to")])
    mem.recall("how do I reset my password?", top_k=2, session_id="chat-7")
    context = mem.get_chat_context("chat-7")
    assert [m.id for m in context][:1] == [asked.id]
    assert kb.id in [m.id for m in context]
    assert mem.get_chat_context("nobody") == []
    orphans = [m.id for m in mem.list_orphans()]
    assert orphans == [asked.id]
    with pytest.raises(hebbs.InvalidInputError) as caught:
        mem.remember("x", session_id="")
    assert caught.value.field == "session_id"


async def test_async_hybrid_and_sessions(tmp_path: Path, embedder: Embedder) -> None:
    async with await hebbs.AsyncHebbs.open(tmp_path / "db", embedder=embedder) as mem:
        stored = await mem.remember("Order 5521 shipped late", session_id="s")
        output = await mem.recall("order 5521 delayed", strategies=["hybrid"])
        assert output.results[0].memory.id == stored.id
        assert [m.id for m in await mem.get_chat_context("s")] == [stored.id]
        assert [m.id for m in await mem.list_orphans()] == [stored.id]
