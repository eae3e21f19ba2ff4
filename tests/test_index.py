"""Document indexing on a small corpus the tests write: documents and propositions stored,
entities normalised, temporal recall by an extracted entity in document order, causal recall
along extracted relations, role triples in context, incremental re-index (unchanged files cost
nothing, a changed file replaces only its changed sections, a removed file is forgotten), the
CLI, and the offline extractor's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

import hebbs
from fake_llm import start
from hebbs import Hebbs
from hebbs.cli.errors import EXIT_OK
from hebbs.embedder import Embedder
from hebbs.ingest.extract import normalise_entity, offline_extract
from hebbs.ingest.parse import sections_of
from hebbs.llm import OpenAIProvider
from test_cli import Cli, cli, db

__all__ = ["cli", "db"]

pytestmark = pytest.mark.embedded_only("indexing reads this machine's files")

LAUNCH = """# CloudVault launch

CloudVault launched its backup service in March. It was delayed by two weeks.
As a result, Acme Corp cancelled the pilot.

## Pricing

Then cloudvault cut prices by 20%. Acme Corp signed a yearly contract in June.

- Globex asked CloudVault for a discount.
- Globex renewed after the discount.
"""
NOTES = """Meeting notes from the partner call.

Initech wants an integration with CloudVault before the summer.
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "launch.md").write_text(LAUNCH)
    (folder / "notes.txt").write_text(NOTES)
    (folder / "ignored.json").write_text("{}")
    return folder


def _propositions(mem: Hebbs) -> list[hebbs.Memory]:
    return mem.list_memories(kind="proposition", limit=1000).memories


def test_index_stores_documents_propositions_entities_and_context(mem: Hebbs, corpus: Path) -> None:
    result = mem.index_documents([corpus], progress=False)
    assert result.files_indexed == 2
    assert result.propositions == 9
    assert result.llm_calls == 0
    docs = mem.list_memories(kind="document").memories
    assert sorted(Path(d.context["path"]).name for d in docs) == ["launch.md", "notes.txt"]
    assert any(d.content.startswith("CloudVault launch") for d in docs)
    by_text = {p.content: p for p in _propositions(mem)}
    cut = by_text["Then cloudvault cut prices by 20%."]
    assert cut.entity_id == "cloudvault", "CloudVault and cloudvault meet"
    assert cut.context["action"] == "cut"
    assert cut.context["section"] == "CloudVault launch / Pricing"
    delayed = by_text["It was delayed by two weeks."]
    assert delayed.entity_id == "cloudvault", "the previous subject carries over"
    assert by_text["Globex renewed after the discount."].entity_id == "globex"


def test_temporal_recall_by_an_entity_follows_the_documents(mem: Hebbs, corpus: Path) -> None:
    mem.index_documents([corpus / "launch.md"], progress=False)
    timeline = mem.recall(entity_id="cloudvault", strategies=["temporal"], top_k=10).results
    contents = [r.memory.content for r in sorted(timeline, key=lambda r: r.memory.created_at)]
    assert contents == [
        "CloudVault launched its backup service in March.",
        "It was delayed by two weeks.",
        "Then cloudvault cut prices by 20%.",
    ]


def test_causal_recall_follows_extracted_relations(mem: Hebbs, corpus: Path) -> None:
    mem.index_documents([corpus / "launch.md"], progress=False)
    by_text = {p.content: p for p in _propositions(mem)}
    cancelled = by_text["As a result, Acme Corp cancelled the pilot."]
    edges = mem._native.edges(cancelled.id)
    delayed = by_text["It was delayed by two weeks."]
    assert (delayed.id, hebbs.EdgeType.CAUSED_BY) in {(e.target, e.edge_type) for e in edges}
    walk = mem.recall(
        strategies=["causal"],
        seed_memory_id=cancelled.id,
        edge_types=["caused_by"],
        direction="causes",
        top_k=5,
    )
    assert delayed.id in {r.memory.id for r in walk.results}
    related = {
        e.edge_type for e in mem._native.edges(by_text["Globex renewed after the discount."].id)
    }
    assert hebbs.EdgeType.RELATED_TO in related


def test_reindex_touches_only_what_changed(mem: Hebbs, corpus: Path) -> None:
    first = mem.index_documents([corpus], progress=False)
    count = mem.health().memory_count
    again = mem.index_documents([corpus], progress=False)
    assert (again.files_unchanged, again.files_indexed, again.propositions) == (2, 0, 0)
    assert mem.health().memory_count == count
    kept = {p.id for p in _propositions(mem) if "Globex" in p.content}
    (corpus / "launch.md").write_text(LAUNCH.replace("in June", "in July"))
    changed = mem.index_documents([corpus], progress=False)
    assert (changed.files_indexed, changed.files_unchanged) == (1, 1)
    assert (changed.sections_added, changed.sections_removed) == (1, 1)
    assert changed.sections_kept == 3
    assert changed.propositions == 2
    texts = {p.content for p in _propositions(mem)}
    assert "Acme Corp signed a yearly contract in July." in texts
    assert "Acme Corp signed a yearly contract in June." not in texts
    assert kept <= {p.id for p in _propositions(mem)}, "unchanged sections keep their memories"
    assert len(mem.list_memories(kind="document").memories) == 2
    (corpus / "notes.txt").unlink()
    gone = mem.index_documents([corpus], progress=False)
    assert gone.files_removed == 1
    assert not any("Initech" in p.content for p in _propositions(mem))
    assert len(mem.list_memories(kind="document").memories) == 1
    assert first.propositions == 9


def test_bad_paths_name_the_field(mem: Hebbs, tmp_path: Path) -> None:
    with pytest.raises(hebbs.InvalidValueError) as caught:
        mem.index_documents([tmp_path / "missing"])
    assert caught.value.field == "paths[0]"
    assert mem.health().memory_count == 0


def test_hebbs_index_on_the_command_line(cli: Cli, corpus: Path) -> None:
    run = cli("index", str(corpus), "--json")
    assert run.code == EXIT_OK, run.err
    assert run.json()["propositions"] == 9
    assert run.err == "", "no progress bar when stderr is not a terminal"
    assert "2 unchanged" in cli("index", str(corpus)).out


def test_the_offline_extractor_rules() -> None:
    assert normalise_entity("The CloudVault") == normalise_entity("cloudvault") == "cloudvault"
    answer = offline_extract(
        {"sections": [{"heading": "", "text": "Bob met Alice in Paris. Later they left."}]}
    )
    first, second = answer["propositions"]
    assert first["entities"] == ["bob", "alice", "paris"]
    assert second["main_entity"] == "bob"
    assert answer["relations"] == [{"source": 1, "target": 0, "type": "followed_by"}]
    sections = sections_of(Path("x.md"), "# A\n\npara one.\n\n## B\n\n- item\n\n```\ncode\n```\n")
    assert [(s.heading, s.text) for s in sections] == [("A", "para one."), ("A / B", "item")]


def test_indexing_with_a_provider_makes_one_call_per_file(
    tmp_path: Path, embedder: Embedder, corpus: Path
) -> None:
    fake = start()
    try:
        provider = OpenAIProvider(base_url=fake.url, model="m", backoff=0.01)
        with Hebbs.open(tmp_path / "db", embedder=embedder, llm=provider) as engine:
            result = engine.index_documents([corpus], progress=False)
            assert result.llm_calls == 2
            assert result.propositions == 6, "one per section, as the fake model answers"
            texts = {p.content for p in _propositions(engine)}
            assert "GLOBEX RENEWED AFTER THE DISCOUNT." in texts
            assert {p.entity_id for p in _propositions(engine)} >= {"globex", "initech"}
            prompt = fake.seen[0].body["messages"][-1]["content"]
            assert prompt.startswith("Sections:")
    finally:
        fake.close()


def test_analogical_recall_matches_the_role_triples(mem: Hebbs, corpus: Path) -> None:
    mem.index_documents([corpus / "launch.md"], progress=False)
    output = mem.recall(
        "a vendor lowered what it charges",
        strategies=["analogical"],
        cue_context={"entities": ["cloudvault"], "action": "cut", "outcome": "prices"},
        analogical_alpha=0.3,
        top_k=3,
    )
    best = output.results[0]
    assert best.memory.content == "Then cloudvault cut prices by 20%."
    detail = best.strategy_details[0]
    assert detail.structural_similarity is not None
    assert detail.structural_similarity > 0.5
