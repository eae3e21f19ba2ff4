"""hebbs as a Haystack document store: Haystack's own suite (``haystack.testing.document_store``,
``DocumentStoreBaseExtendedTests``, haystack-ai 3.4.1) run unchanged against
:class:`HebbsDocumentStore` on a real store in a tmp dir, plus the retrievers, serialisation,
documents without text, and the example of docs/integrations/haystack.md.

The suite's documents carry 768-dimensional embeddings of its own (random vectors), so its store
is opened at that dimension with :func:`word_hash_embed` for the documents it writes without
one; the retriever tests and the docs example use the bundled model."""

from __future__ import annotations

import asyncio
import functools
import random
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from haystack import Document
from haystack.dataclasses import ByteStream, SparseEmbedding
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.document_stores.types import DuplicatePolicy
from haystack.errors import FilterError
from haystack.testing import document_store_async as async_suite
from haystack.testing.document_store import (
    CountDocumentsByFilterTest,
    DocumentStoreBaseExtendedTests,
)
from haystack.utils.filters import document_matches_filter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hebbs
from conftest import word_hash_embed
from hebbs import InvalidValueError
from hebbs._native import MAX_CONTENT_BYTES
from hebbs.embedder import Embedder
from hebbs.integrations.haystack import (
    HebbsBM25Retriever,
    HebbsDocumentStore,
    HebbsEmbeddingRetriever,
    HebbsRetriever,
)
from hebbs.integrations.haystack.document_store import WRITE_BATCH

#: The dimension of the suite's embeddings (``haystack.testing.document_store._random_embeddings``).
SUITE_DIM = 768
DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations" / "haystack.md"


class TestHebbsDocumentStore(
    DocumentStoreBaseExtendedTests,
    CountDocumentsByFilterTest,
    async_suite.CountDocumentsAsyncTest,
    async_suite.CountDocumentsByFilterAsyncTest,
    async_suite.DeleteAllAsyncTest,
    async_suite.DeleteByFilterAsyncTest,
    async_suite.DeleteDocumentsAsyncTest,
    async_suite.FilterDocumentsAsyncTest,
    async_suite.UpdateByFilterAsyncTest,
    async_suite.WriteDocumentsAsyncTest,
):
    """The suite, unchanged, with the optional mixins of what the store implements: only
    ``document_store``, ``test_write_documents`` and ``test_write_documents_async`` (whose
    bases raise NotImplementedError: "Override this test in your custom test class") are
    given."""

    @pytest.fixture
    def document_store(self, tmp_path: Path) -> Iterator[HebbsDocumentStore]:
        embed = functools.partial(word_hash_embed, dim=SUITE_DIM)
        with hebbs.Hebbs.open(tmp_path / "db", embedder=embed) as mem:
            yield HebbsDocumentStore(mem)

    def test_write_documents(self, document_store: HebbsDocumentStore) -> None:
        """The default policy (``DuplicatePolicy.NONE``) is ``FAIL``, as in Haystack's own store."""
        doc = Document(content="test doc")
        assert document_store.write_documents([doc]) == 1
        with pytest.raises(DuplicateDocumentError):
            document_store.write_documents([doc])
        self.assert_documents_are_equal(document_store.filter_documents(), [doc])

    async def test_write_documents_async(self, document_store: HebbsDocumentStore) -> None:
        """The same default policy through the async methods."""
        doc = Document(content="test doc")
        assert await document_store.write_documents_async([doc]) == 1
        with pytest.raises(DuplicateDocumentError):
            await document_store.write_documents_async([doc])
        self.assert_documents_are_equal(await document_store.filter_documents_async(), [doc])


@pytest.fixture
def haystack_store(tmp_path: Path, embedder: Embedder) -> Iterator[HebbsDocumentStore]:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        yield HebbsDocumentStore(mem)


PARIS = Document(content="The Eiffel Tower stands in Paris.", meta={"country": "France"})
ROME = Document(content="The Colosseum stands in Rome.", meta={"country": "Italy"})
LOUVRE = Document(content="The Louvre is a museum in Paris.", meta={"country": "France"})


def test_retrievers_rank_and_filter(haystack_store: HebbsDocumentStore) -> None:
    haystack_store.write_documents([PARIS, ROME, LOUVRE])
    france = {"field": "meta.country", "operator": "==", "value": "France"}
    found = HebbsRetriever(haystack_store, top_k=1).run(query="Where is the Eiffel Tower?")[
        "documents"
    ]
    assert [d.id for d in found] == [PARIS.id]
    assert found[0].score is not None
    found = HebbsBM25Retriever(haystack_store).run(query="museum")["documents"]
    assert [d.id for d in found] == [LOUVRE.id]
    cue = haystack_store.store.embedder.embed_query(["an amphitheatre in Italy"])[0].tolist()
    found = HebbsEmbeddingRetriever(haystack_store, top_k=1).run(query_embedding=cue)["documents"]
    assert [d.id for d in found] == [ROME.id]
    found = HebbsRetriever(haystack_store, filters=france).run(query="Colosseum Rome")["documents"]
    assert {d.id for d in found} == {PARIS.id, LOUVRE.id}
    assert HebbsBM25Retriever(haystack_store).run(query="museum", top_k=0)["documents"] == []
    found = asyncio.run(HebbsBM25Retriever(haystack_store).run_async(query="museum"))["documents"]
    assert [d.id for d in found] == [LOUVRE.id]
    found = asyncio.run(HebbsEmbeddingRetriever(haystack_store, top_k=1).run_async(cue))[
        "documents"
    ]
    assert [d.id for d in found] == [ROME.id]


def test_documents_without_text_round_trip(haystack_store: HebbsDocumentStore) -> None:
    """A document with only a blob (or empty content) keeps exactly what it had; BM25 leaves
    it out."""
    blob = Document(blob=ByteStream(b"\x00\xffpng", meta={"page": 1}, mime_type="image/png"))
    empty = Document(content="", sparse_embedding=SparseEmbedding([3, 7], [0.5, 0.25]))
    haystack_store.write_documents([blob, empty, PARIS])
    assert haystack_store.filter_documents() == [blob, empty, PARIS]
    found = HebbsBM25Retriever(haystack_store).run(query="Haystack document without text content")
    assert [d.id for d in found["documents"]] == []


def test_unsupported_filter_fields_raise(haystack_store: HebbsDocumentStore) -> None:
    for field in ("content", "embedding", "blob"):
        with pytest.raises(FilterError):
            haystack_store.filter_documents({"field": field, "operator": "==", "value": "x"})
    haystack_store.write_documents([PARIS, ROME])
    by_id = {"field": "id", "operator": "in", "value": [ROME.id]}
    assert haystack_store.filter_documents(by_id) == [ROME]
    legacy = {"field": "country", "operator": "==", "value": "Italy"}
    assert haystack_store.filter_documents(legacy) == [ROME]
    whole = {"field": "meta", "operator": "==", "value": {"country": "Italy"}}
    assert haystack_store.filter_documents(whole) == [ROME]


def test_datetime_filter_values_are_iso_text(haystack_store: HebbsDocumentStore) -> None:
    """A ``datetime`` in a filter compares with the ISO 8601 text dates have in meta."""
    old = Document(content="old", meta={"date": "1969-07-21T20:17:40"})
    new = Document(content="new", meta={"date": "1989-11-09T17:53:00"})
    haystack_store.write_documents([old, new])
    moon = datetime(1969, 7, 21, 20, 17, 40)
    after = {"field": "meta.date", "operator": ">", "value": moon}
    assert haystack_store.filter_documents(after) == [new]
    listed = {"field": "meta.date", "operator": "in", "value": [moon]}
    assert haystack_store.filter_documents(listed) == [old]


def test_on_the_embedded_store_and_a_server(store: Any) -> None:
    """The same document store over ``hebbs.Hebbs`` and over ``hebbs.HebbsClient`` (a tenant
    of a running ``hebbs serve``: conftest's ``store``)."""
    documents = HebbsDocumentStore(store)
    blob = Document(blob=ByteStream(b"\x00\x01", mime_type="application/octet-stream"))
    assert documents.write_documents([PARIS, ROME, blob]) == 3
    assert documents.write_documents([PARIS, LOUVRE], policy=DuplicatePolicy.SKIP) == 1
    assert documents.filter_documents() == [PARIS, ROME, blob, LOUVRE]
    france = {"field": "meta.country", "operator": "==", "value": "France"}
    assert documents.filter_documents(france) == [PARIS, LOUVRE]
    found = HebbsBM25Retriever(documents).run(query="museum")["documents"]
    assert [d.id for d in found] == [LOUVRE.id]
    documents.delete_documents([ROME.id, "unknown"])
    assert documents.count_documents() == 3
    assert documents.delete_by_filter(france) == 2
    assert documents.filter_documents() == [blob]


def test_bad_documents_write_nothing(haystack_store: HebbsDocumentStore) -> None:
    """A document hebbs cannot hold is refused with an error naming it; nothing is written,
    even from the batches before it."""
    many = [Document(content=f"document {i}") for i in range(WRITE_BATCH + 1)]
    with pytest.raises(InvalidValueError) as refused:
        haystack_store.write_documents([*many, Document(content="x", meta={"big": 2**70})])
    assert refused.value.field == f"documents[{WRITE_BATCH + 1}].context"
    with pytest.raises(InvalidValueError) as refused:
        haystack_store.write_documents([PARIS, Document(content="x" * (MAX_CONTENT_BYTES + 1))])
    assert refused.value.field == "documents[1].content"
    with pytest.raises(InvalidValueError) as refused:
        haystack_store.write_documents([Document(id="x" * 1100, content="a long id")])
    assert refused.value.field == "documents[0].key"
    assert haystack_store.count_documents() == 0


def test_indexes_share_a_store(tmp_path: Path, embedder: Embedder) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as mem:
        first, second = HebbsDocumentStore(mem), HebbsDocumentStore(mem, index="other")
        first.write_documents([PARIS])
        second.write_documents([PARIS, ROME])
        second.delete_documents([PARIS.id])
        assert first.filter_documents() == [PARIS]
        assert second.filter_documents() == [ROME]
        assert first.count_documents() == 1
    with pytest.raises(ValueError, match="index"):
        HebbsDocumentStore(path=tmp_path / "x", index="a:b")


def test_serialisation_round_trip(tmp_path: Path) -> None:
    store = HebbsDocumentStore(path=tmp_path / "db", index="docs")
    retriever = HebbsBM25Retriever(
        store, top_k=3, filters={"field": "id", "operator": "==", "value": "1"}
    )
    data = retriever.to_dict()
    again = HebbsBM25Retriever.from_dict(data)
    assert again.to_dict() == data
    assert again.document_store.index == "docs"
    with hebbs.Hebbs.open(tmp_path / "other") as mem, pytest.raises(TypeError, match="path="):
        HebbsDocumentStore(mem).to_dict()


def test_docs_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/integrations/haystack.md's example runs as written (in a tmp dir)."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert blocks, f"no python example in {DOC}"
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], str(DOC), "exec"), {})


#: The values of each meta field of :func:`varied_documents` (``MISSING``: the key is absent),
#: and what a filter compares them with.
MISSING = object()
NUMBERS = [None, -2, 0, 1, 1.0, 2.5, 100]
STRINGS = [None, "a", "b", "A", ""]
DATES = [None, "1969-07-21T20:17:40", "1972-12-11T19:54:58", "1989-11-09T17:53:00"]
LISTS = [None, [], ["a"], ["a", "b"], ["b", "a"], [1, 2]]


def varied_documents() -> list[Document]:
    rng = random.Random(31)
    documents = []
    for i in range(48):
        meta: dict[str, Any] = {}
        for key, pool in (("n", NUMBERS), ("s", STRINGS), ("d", DATES), ("tags", LISTS)):
            value = rng.choice([MISSING, *pool])
            if value is not MISSING:
                meta[key] = value
        if rng.random() < 0.5:
            meta["nested"] = {"x": rng.choice(STRINGS)}
        documents.append(Document(content=f"document {i}", meta=meta))
    return documents


def _comparisons() -> st.SearchStrategy[dict[str, Any]]:
    def one(field: str, pool: list[Any], ordering: bool) -> st.SearchStrategy[dict[str, Any]]:
        operators = ["==", "!=", "in", "not in"] + ([">", ">=", "<", "<="] if ordering else [])
        return st.sampled_from(operators).flatmap(
            lambda op: st.fixed_dictionaries(
                {
                    "field": st.just(field),
                    "operator": st.just(op),
                    "value": st.lists(st.sampled_from(pool), max_size=3)
                    if op in ("in", "not in")
                    else st.sampled_from(pool),
                }
            )
        )

    return st.one_of(
        one("meta.n", NUMBERS, True),
        one("meta.s", STRINGS, False),
        one("meta.d", DATES, True),
        one("meta.nested.x", STRINGS, False),
        one("meta.tags", LISTS, False),
        one("n", NUMBERS, True),
    )


haystack_filters = st.recursive(
    _comparisons(),
    lambda children: st.fixed_dictionaries(
        {
            "operator": st.sampled_from(["AND", "OR", "NOT"]),
            "conditions": st.lists(children, max_size=3),
        }
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def varied_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HebbsDocumentStore]:
    with hebbs.Hebbs.open(
        tmp_path_factory.mktemp("varied") / "db", embedder=word_hash_embed
    ) as mem:
        store = HebbsDocumentStore(mem)
        store.write_documents(varied_documents())
        yield store


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(filters=haystack_filters)
def test_filters_select_what_haystacks_own_evaluator_selects(
    varied_store: HebbsDocumentStore, filters: dict[str, Any]
) -> None:
    """The translated filter, run by the core, selects the documents Haystack's in-memory
    evaluator (``haystack.utils.filters.document_matches_filter``) selects, in write order."""
    expected = [d.id for d in varied_documents() if document_matches_filter(filters, d)]
    assert [d.id for d in varied_store.filter_documents(filters)] == expected
