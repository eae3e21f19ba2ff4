"""hebbs in LangChain (``hebbs.integrations.langchain``): LangChain's own standard suites
(``langchain-tests``' ``VectorStoreIntegrationTests``, ``RetrieversIntegrationTests``,
``BaseStoreSyncTests``, ``BaseStoreAsyncTests``) subclassed unchanged, each on a real store in a
tmp dir, plus what the suites leave out: metadata's JSON types, the metadata filter, the
options passed to ``recall``, the errors, a remote store, and docs/integrations/langchain.md's
example."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.stores import BaseStore
from langchain_tests.integration_tests import (
    BaseStoreAsyncTests,
    BaseStoreSyncTests,
    RetrieversIntegrationTests,
    VectorStoreIntegrationTests,
)

import hebbs
from hebbs._native import MAX_STATE_SCAN, MAX_STATE_VALUE_BYTES
from hebbs.embedder import Embedder
from hebbs.errors import InvalidInputError, InvalidTypeError
from hebbs.integrations.langchain import HebbsByteStore, HebbsRetriever, HebbsVectorStore
from hebbs.integrations.langchain.documents import metadata_filter
from remote import Store

DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations" / "langchain.md"

#: What the retriever suite's store holds: more memories than its largest ``k`` (3).
RETRIEVER_MEMORIES = (
    "Alice drinks green tea every morning",
    "Bob prefers espresso after lunch",
    "Carol brews coffee with a French press",
    "Dan never drinks anything hot",
    "Erin keeps a tea diary",
)


@pytest.fixture
def open_store(tmp_path: Path, embedder: Embedder) -> Iterator[hebbs.Hebbs]:
    """An empty embedded store on the session's embedder."""
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as store:
        yield store


@pytest.fixture(scope="module")
def retriever_store(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[hebbs.Hebbs]:
    """A store holding :data:`RETRIEVER_MEMORIES`, shared by the retriever suite."""
    with hebbs.Hebbs.open(tmp_path_factory.mktemp("retriever"), embedder=embedder) as store:
        store.remember_many(
            [{"content": text, "context": {"n": n}} for n, text in enumerate(RETRIEVER_MEMORIES)]
        )
        yield store


class TestHebbsVectorStore(VectorStoreIntegrationTests):
    @pytest.fixture
    def vectorstore(self, open_store: hebbs.Hebbs) -> HebbsVectorStore:
        return HebbsVectorStore(open_store, self.get_embeddings())


class TestHebbsRetriever(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _store(self, retriever_store: hebbs.Hebbs) -> None:
        """The suite builds its retrievers from properties: they read the store from here."""
        self.store = retriever_store

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return HebbsRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"store": self.store}

    @property
    def retriever_query_example(self) -> str:
        return "who drinks tea?"


@pytest.fixture(scope="module")
def shared_store(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> Iterator[hebbs.Hebbs]:
    """One store for the byte store suites: each test takes a namespace of its own."""
    with hebbs.Hebbs.open(tmp_path_factory.mktemp("bytes"), embedder=embedder) as store:
        yield store


def new_byte_store(store: hebbs.Hebbs) -> HebbsByteStore:
    """An empty byte store: a namespace no other test uses."""
    return HebbsByteStore(store, namespace=uuid.uuid4().hex)


class TestHebbsByteStoreSync(BaseStoreSyncTests[bytes]):
    @pytest.fixture
    def kv_store(self, shared_store: hebbs.Hebbs) -> BaseStore[str, bytes]:
        return new_byte_store(shared_store)

    @pytest.fixture
    def three_values(self) -> tuple[bytes, bytes, bytes]:
        return b"foo", b"\x00bar\xff", b"buzz" * 1000


class TestHebbsByteStoreAsync(BaseStoreAsyncTests[bytes]):
    @pytest.fixture
    async def kv_store(self, shared_store: hebbs.Hebbs) -> BaseStore[str, bytes]:
        return new_byte_store(shared_store)

    @pytest.fixture
    def three_values(self) -> tuple[bytes, bytes, bytes]:
        return b"foo", b"\x00bar\xff", b"buzz" * 1000


#: Metadata of every JSON type, nested: each must come back with its type.
TYPED_METADATA = {
    "int": 1,
    "float": 1.0,
    "big": 2**53 + 1,
    "negative": -7,
    "text": "1",
    "flag": True,
    "nothing": None,
    "list": [1, 1.5, "a", False, None, {"deep": [2]}],
    "object": {"x": {"y": 0}, "empty": {}},
}


def fake_embeddings() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=6)


def test_metadata_keeps_its_json_types(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings())
    docs.add_documents([Document("typed", metadata=TYPED_METADATA)], ids=["t"])
    (got,) = docs.get_by_ids(["t"])
    assert got.metadata == TYPED_METADATA
    for name, value in TYPED_METADATA.items():
        assert type(got.metadata[name]) is type(value), name
    assert type(got.metadata["list"][1]) is float
    (found,) = docs.similarity_search("typed", k=1)
    assert found.metadata == TYPED_METADATA


def test_hebbs_embeds_without_langchain_embeddings(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store)
    assert docs.embeddings is None
    docs.add_texts(
        ["The deploy runbook lives in the ops wiki", "Alice prefers tea over coffee"],
        [{"team": "ops"}, {"team": "people"}],
        ids=["runbook", "tea"],
    )
    assert [d.id for d in docs.similarity_search("what does Alice like to drink?", k=1)] == ["tea"]
    (memory,) = open_store.get_many(keys=["tea"])
    assert memory is not None
    assert memory.content == "Alice prefers tea over coffee"


def test_metadata_filter_selects_by_metadata_keys(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings())
    docs.add_texts(
        ["one", "two", "three", "four"],
        [{"page": 1, "src": "a"}, {"page": 2, "src": "a"}, {"page": 3, "src": "b"}, {}],
        ids=["1", "2", "3", "4"],
    )

    def ids(filter: dict[str, Any]) -> list[str]:
        return sorted(d.id or "" for d in docs.similarity_search("one", k=4, filter=filter))

    assert ids({"src": "a"}) == ["1", "2"]
    assert ids({"page": {"$gte": 2}}) == ["2", "3"]
    assert ids({"$or": [{"src": "b"}, {"page": 1}]}) == ["1", "3"]
    assert ids({"$not": {"src": "a"}}) == ["3", "4"]
    assert ids({"$and": [{"src": "a"}, {"$not": {"page": 1}}]}) == ["2"]


def test_metadata_filter_translation_and_its_errors() -> None:
    assert metadata_filter({"a.b": 1, "$or": [{"c": {"$in": [1]}}], "$not": {"d": None}}) == {
        "context.a.b": 1,
        "$or": [{"context.c": {"$in": [1]}}],
        "$not": {"context.d": None},
    }
    with pytest.raises(InvalidTypeError) as error:
        metadata_filter({"$and": [{"a": 1}, "b"]})
    assert error.value.field == "filter.$and[1]"
    with pytest.raises(InvalidTypeError) as error:
        metadata_filter({"$or": {"a": 1}})
    assert error.value.field == "filter.$or"


def test_bad_filter_is_named_by_the_engine(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings())
    docs.add_texts(["one"], ids=["1"])
    with pytest.raises(InvalidInputError) as error:
        docs.similarity_search("one", filter={"page": {"$gte": None}})
    assert error.value.field is not None
    assert "context.page" in error.value.field


def test_scores_rank_and_relevance(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings())
    docs.add_texts(["alpha", "beta", "gamma"], ids=["a", "b", "c"])
    scored = docs.similarity_search_with_score("beta", k=3)
    assert next(d.id for d, _ in scored) == "b"
    scores = [score for _, score in scored]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= score <= 1.0 for score in scores)
    relevance = docs.similarity_search_with_relevance_scores("beta", k=3)
    assert [score for _, score in relevance] == pytest.approx(scores, abs=0.05)
    by_vector = docs.similarity_search_by_vector(fake_embeddings().embed_query("gamma"), k=1)
    assert [d.id for d in by_vector] == ["c"]


def test_search_options_reach_recall(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings(), recall_options={"entity_id": "e1"})
    docs.add_texts(["mine"], ids=["m"], entity_id="e1")
    docs.add_texts(["theirs"], ids=["t"], entity_id="e2")
    assert [d.id for d in docs.similarity_search("theirs", k=2)] == ["m"]
    assert [d.id for d in docs.similarity_search("mine", k=2, entity_id="e2")] == ["t"]
    (memory,) = open_store.get_many(keys=["t"])
    assert memory is not None
    assert memory.entity_id == "e2"


def test_from_texts_and_upsert_replace_the_memory(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore.from_texts(
        ["first"], fake_embeddings(), [{"v": 1}], ids=["x"], store=open_store
    )
    before = open_store.get_many(keys=["x"])[0]
    docs.add_texts(["second"], [{"v": 2}], ids=["x"])
    after = open_store.get_many(keys=["x"])[0]
    assert before is not None
    assert after is not None
    assert after.id != before.id
    assert open_store.count_memories() == 1
    assert docs.get_by_ids(["x"]) == [Document("second", metadata={"v": 2}, id="x")]


def test_errors_name_their_field(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings())
    with pytest.raises(InvalidInputError) as error:
        docs.add_documents([Document("a")], ids=["1", "2"])
    assert error.value.field == "ids"
    with pytest.raises(InvalidInputError) as error:
        docs.add_documents([Document("a"), Document("b")], ids=["1", "1"])
    assert error.value.field == "items[1].key"
    with pytest.raises(InvalidInputError) as error:
        docs.delete()
    assert error.value.field == "ids"
    with pytest.raises(InvalidInputError) as error:
        HebbsVectorStore.from_texts(["a"], fake_embeddings())
    assert error.value.field == "store"
    with pytest.raises(InvalidInputError) as error:
        docs.add_documents([Document("a", metadata={"when": object()})])
    assert error.value.field is not None
    assert error.value.field.startswith("items[0].context")
    assert open_store.count_memories() == 0


def test_retriever_options_reach_recall(retriever_store: hebbs.Hebbs) -> None:
    only_two = HebbsRetriever(store=retriever_store, top_k=5, filter={"context.n": {"$lt": 2}})
    assert sorted(d.metadata["n"] for d in only_two.invoke("drinks")) == [0, 1]
    keyword = HebbsRetriever(store=retriever_store, k=5, strategies=["keyword"])
    assert [d.metadata["n"] for d in keyword.invoke("espresso")] == [1]
    assert len(keyword.invoke("tea", top_k=1)) == 1
    with pytest.raises(InvalidInputError) as error:
        keyword.invoke("tea", k=1, top_k=2)
    assert error.value.field == "top_k"
    (doc,) = HebbsRetriever(store=retriever_store, k=1, strategies=["keyword"]).invoke("diary")
    memory = retriever_store.get(doc.id or "")
    assert memory.content == doc.page_content
    assert memory.key is None


def test_byte_store_namespaces_and_errors(open_store: hebbs.Hebbs) -> None:
    first, second = HebbsByteStore(open_store), HebbsByteStore(open_store, namespace="other")
    first.mset([("k", b"1"), ("k/sub", b"2"), ("kz", b"3")])
    second.mset([("k", b"other")])
    assert first.mget(["k"]) == [b"1"]
    assert second.mget(["k"]) == [b"other"]
    assert list(first.yield_keys(prefix="k/")) == ["k/sub"]
    assert list(second.yield_keys()) == ["k"]
    assert open_store.count_memories() == 0, "the byte store writes no memory"
    with pytest.raises(InvalidInputError) as error:
        first.mset([("a", b"1"), ("b", "text")])  # type: ignore[list-item]
    assert error.value.field == "key_value_pairs[1]"
    with pytest.raises(InvalidInputError) as error:
        first.mset([("new", b"1"), ("k" * 2000, b"1")])
    assert error.value.field == "key_value_pairs[1]"
    with pytest.raises(InvalidInputError) as error:
        first.mset([("new", b"1"), ("big", b"x" * (MAX_STATE_VALUE_BYTES + 1))])
    assert error.value.field == "key_value_pairs[1]"
    with pytest.raises(InvalidInputError) as error:
        first.mdelete(["k", "k" * 2000])
    assert error.value.field == "keys[1]"
    assert first.mget(["a", "new", "big", "k"]) == [None, None, None, b"1"], (
        "a refused call writes nothing"
    )
    assert list(first.yield_keys(prefix="k" * 2000)) == []
    with pytest.raises(InvalidInputError) as error:
        first.mget(["ok", ""])
    assert error.value.field == "keys[1]"
    for namespace in ("", "a/b"):
        with pytest.raises(InvalidInputError) as error:
            HebbsByteStore(open_store, namespace=namespace)
        assert error.value.field == "namespace"


def test_byte_store_survives_a_reopen(tmp_path: Path, embedder: Embedder) -> None:
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as store:
        HebbsByteStore(store).mset([("k", b"kept")])
    with hebbs.Hebbs.open(tmp_path / "db", embedder=embedder) as store:
        assert HebbsByteStore(store).mget(["k"]) == [b"kept"]


def test_vector_store_on_a_remote_store(store: Store) -> None:
    """The same adapter over ``HebbsClient`` (a real ``hebbs serve``) as over ``Hebbs``."""
    docs = HebbsVectorStore(store, fake_embeddings())
    ids = docs.add_documents(
        [Document("foo", metadata={"id": 1}), Document("bar", metadata={"id": 2.0})],
        ids=["1", "2"],
    )
    assert ids == ["1", "2"]
    assert docs.similarity_search("bar", k=1) == [Document("bar", metadata={"id": 2.0}, id="2")]
    docs.delete(["2"])
    assert docs.get_by_ids(["1", "2"]) == [Document("foo", metadata={"id": 1}, id="1")]
    assert isinstance(docs.get_by_ids(["1"])[0].metadata["id"], int)


def test_docs_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (example,) = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, str(DOC), "exec"), {})


def test_byte_store_refuses_a_listing_the_engine_would_cut(shared_store: hebbs.Hebbs) -> None:
    """The engine's state scan returns at most MAX_STATE_SCAN entries: a listing that
    reaches it is refused, never silently short; a narrower prefix lists completely."""
    bytes_store = new_byte_store(shared_store)
    bytes_store.mset([(f"k{i:06d}", b"") for i in range(MAX_STATE_SCAN)])
    with pytest.raises(InvalidInputError) as error:
        list(bytes_store.yield_keys())
    assert error.value.field == "prefix"
    assert len(list(bytes_store.yield_keys(prefix="k00"))) == 10_000
    bytes_store.mdelete([f"k{i:06d}" for i in range(MAX_STATE_SCAN)])
    assert list(bytes_store.yield_keys()) == []


def test_ids_fall_back_to_the_document_id_then_a_new_uuid(open_store: hebbs.Hebbs) -> None:
    docs = HebbsVectorStore(open_store, fake_embeddings())
    ids = docs.add_documents(
        [Document("a", id="doc-a"), Document("b"), Document("c", id="doc-c")], ids=[None, "b", None]
    )
    assert ids[:2] == ["doc-a", "b"]
    assert ids[2] == "doc-c"
    (generated,) = docs.add_documents([Document("d")])
    assert uuid.UUID(generated)
    assert sorted(d.id or "" for d in docs.get_by_ids([*ids, generated])) == sorted(
        [*ids, generated]
    )


class TableEmbeddings(Embeddings):
    """LangChain embeddings that look each text up in a table: vectors chosen by the test."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.table[text] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.table[text]


def test_max_marginal_relevance_trades_relevance_for_diversity(open_store: hebbs.Hebbs) -> None:
    table = {
        "query": [1.0, 0.0, 0.0],
        "first": [1.0, 0.02, 0.0],
        "near copy of first": [1.0, 0.03, 0.0],
        "another angle": [0.6, 0.0, 0.8],
    }
    docs = HebbsVectorStore(open_store, TableEmbeddings(table))
    docs.add_texts(["first", "near copy of first", "another angle"], ids=["f", "c", "a"])
    assert [d.id for d in docs.similarity_search_by_vector(table["query"], k=2)] == ["f", "c"]
    assert [d.id for d in docs.max_marginal_relevance_search("query", k=2, fetch_k=3)] == [
        "f",
        "a",
    ]
    relevance_only = docs.max_marginal_relevance_search_by_vector(
        table["query"], k=2, lambda_mult=1.0
    )
    assert [d.id for d in relevance_only] == ["f", "c"]
    assert docs.max_marginal_relevance_search("query", k=1, filter={"missing": 1}) == []


def test_max_marginal_relevance_with_hebbs_own_model(store: Store) -> None:
    """Without LangChain embeddings the query's vector is the embedded store's embedder's; a
    remote store has none, so the search says what it needs."""
    docs = HebbsVectorStore(store)
    docs.add_texts(["Alice drinks tea", "Alice drinks green tea", "Bob rides a bike"])
    if isinstance(store, hebbs.HebbsClient):
        with pytest.raises(InvalidInputError) as error:
            docs.max_marginal_relevance_search("what does Alice drink?", k=2)
        assert error.value.field == "embedding"
    else:
        found = docs.max_marginal_relevance_search("what does Alice drink?", k=2)
        assert len(found) == 2
        assert "tea" in found[0].page_content
