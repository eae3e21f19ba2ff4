"""Tests of hebbs.rerank: the late-interaction re-ranker on the real bundled model and its
token-vector cache, the ONNX cross-encoder on a real graph built here, the HTTP client against
a real local server, ``rerank_recall`` on a real store, and the typed errors of bad input."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

import hebbs
from hebbs.embedder import OnnxEmbedder, bundled_tokenizer_path
from hebbs.errors import InvalidInputError, RerankError
from hebbs.rerank import (
    IDF_MATCH_THRESHOLD,
    CrossEncoderReranker,
    HttpReranker,
    LateInteractionReranker,
    MemoryReranker,
    Reranker,
    TokenVectorCache,
    rerank_recall,
)

# all-MiniLM-L6-v2 mean pooling lets the long, mostly off-topic text lose to a short one that
# shares the topic words; token-level matching finds "Jon put his passport" in the long one
# (dense cosine 0.698 against 0.624 for the right one; late interaction 0.606 against 0.746).
QUERY = "Where did Jon put his passport?"
DOCUMENTS = [
    "Jon talked for an hour about passports, visas, travel documents and border rules.",
    "Busy day: cleaned the garage, fixed the bike, called my sister, watched a film, and Jon "
    "put his passport in the blue drawer.",
    "The weather in Lisbon was sunny all week.",
]
RIGHT = 1


@pytest.fixture(scope="module")
def late(embedder: OnnxEmbedder) -> LateInteractionReranker:
    return LateInteractionReranker(embedder)


def test_late_interaction_puts_the_right_document_first_where_dense_does_not(
    embedder: OnnxEmbedder, late: LateInteractionReranker
) -> None:
    dense = embedder.embed(DOCUMENTS) @ embedder.embed_query([QUERY])[0]
    assert int(np.argmax(dense)) != RIGHT, "the case must be one dense similarity gets wrong"
    scores = late.rerank(QUERY, DOCUMENTS)
    assert scores.shape == (len(DOCUMENTS),)
    assert scores.dtype == np.float32
    assert int(np.argmax(scores)) == RIGHT
    assert np.all((scores > -1.0) & (scores <= 1.0 + 1e-5))


def test_late_interaction_matches_a_plain_maxsim(
    embedder: OnnxEmbedder, late: LateInteractionReranker
) -> None:
    """The batched, segmented computation equals a per-document loop over all kept tokens."""
    query = late.query_vectors(QUERY)
    documents = late.document_vectors(DOCUMENTS)
    expected = [float(np.mean((query @ doc.T).max(axis=1))) for doc in documents]
    np.testing.assert_allclose(late.rerank(QUERY, DOCUMENTS), expected, rtol=1e-5, atol=1e-6)
    # One document at a time (other batch padding) gives the same scores.
    single = [float(late.rerank(QUERY, [doc])[0]) for doc in DOCUMENTS]
    np.testing.assert_allclose(single, expected, atol=1e-4)


def test_idf_query_weights_follow_the_bm25_idf_of_matched_tokens(
    embedder: OnnxEmbedder, late: LateInteractionReranker
) -> None:
    idf = LateInteractionReranker(embedder, query_weighting="idf")
    query = late.query_vectors(QUERY)
    best = np.stack([(query @ doc.T).max(axis=1) for doc in late.document_vectors(DOCUMENTS)])
    frequency = (best >= IDF_MATCH_THRESHOLD).sum(axis=0)
    weights = np.log1p((len(DOCUMENTS) - frequency + 0.5) / (frequency + 0.5))
    assert len(set(weights.round(6))) > 1, "the case must give the query tokens unequal weights"
    expected = best @ weights / weights.sum()
    np.testing.assert_allclose(idf.rerank(QUERY, DOCUMENTS), expected, rtol=1e-5, atol=1e-6)
    assert int(np.argmax(idf.rerank(QUERY, DOCUMENTS))) == RIGHT


def test_special_and_punctuation_tokens_are_left_out(embedder: OnnxEmbedder) -> None:
    kept = LateInteractionReranker(embedder).query_vectors("Where, exactly?!")
    every = LateInteractionReranker(
        embedder, skip_special=False, skip_punctuation=False
    ).query_vectors("Where, exactly?!")
    # [CLS] where , exactly ? ! [SEP] -> where exactly
    assert len(every) == 7
    assert len(kept) == 2
    np.testing.assert_allclose(kept, every[[1, 3]], atol=1e-6)
    # A text of punctuation only keeps all of its tokens rather than none.
    assert len(LateInteractionReranker(embedder).query_vectors("?!")) == 4


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32"])
def test_cache_hit_equals_recompute(embedder: OnnxEmbedder, dtype: Any) -> None:
    cache = TokenVectorCache(dtype)
    reranker = LateInteractionReranker(embedder, cache=cache)
    ids = [bytes([i + 1]) * 16 for i in range(len(DOCUMENTS))]
    first = reranker.rerank_memories(QUERY, ids, DOCUMENTS)  # misses: encodes and stores
    assert len(cache) == len(DOCUMENTS)
    second = reranker.rerank_memories(QUERY, [i.hex() for i in ids], DOCUMENTS)  # hits
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, reranker.rerank(QUERY, DOCUMENTS))
    # A hit really is served from the cache: stored vectors are used even for other text.
    third = reranker.rerank_memories(QUERY, ids, ["unrelated"] * len(DOCUMENTS))
    np.testing.assert_array_equal(first, third)
    exact = LateInteractionReranker(embedder).rerank(QUERY, DOCUMENTS)
    np.testing.assert_allclose(first, exact, atol=5e-3 if dtype == "int8" else 1e-3)
    assert int(np.argmax(first)) == RIGHT


def test_cache_space_per_token_and_bounds(embedder: OnnxEmbedder) -> None:
    vectors = LateInteractionReranker(embedder).document_vectors(DOCUMENTS)
    tokens = sum(len(matrix) for matrix in vectors)
    dimension = embedder.dimension
    for dtype, per_token in (("int8", dimension + 4), ("float16", 2 * dimension)):
        cache = TokenVectorCache(dtype)  # type: ignore[arg-type]
        grown = LateInteractionReranker(embedder, cache=cache).index_memories(
            [bytes([i + 1]) * 16 for i in range(len(DOCUMENTS))], DOCUMENTS
        )
        assert grown == cache.nbytes == tokens * per_token
    bounded = TokenVectorCache(max_entries=2)
    for i, matrix in enumerate(vectors):
        bounded.put(bytes([i]) * 16, matrix)
    assert len(bounded) == 2
    assert bytes([0]) * 16 not in bounded
    assert bounded.nbytes == sum(len(m) for m in vectors[1:]) * (dimension + 4)
    assert bounded.discard([bytes([1]) * 16, bytes([9]) * 16]) == 1
    assert bounded.nbytes == len(vectors[2]) * (dimension + 4)


def test_rerank_recall_reorders_the_top_n_of_a_real_recall(
    mem: hebbs.Hebbs, embedder: OnnxEmbedder
) -> None:
    memories = mem.remember_many({"content": text} for text in [*DOCUMENTS, "Jon likes tea."])
    output = mem.recall(QUERY, strategies=["similarity"], top_k=4)
    assert output.results[0].memory.id != memories[RIGHT].id
    # The default recall runs the late-interaction stage in the core and gets it right.
    default = mem.recall(QUERY, top_k=4)
    assert default.results[0].memory.id == memories[RIGHT].id
    assert default.results[0].strategy_details[0].rerank_score is not None
    reranker = LateInteractionReranker(embedder, cache=TokenVectorCache())
    assert isinstance(reranker, MemoryReranker)
    reranked = rerank_recall(QUERY, output, reranker, top_n=3)
    assert reranked.reranked == 3
    assert len(reranked) == len(output)
    assert reranked.results[0].memory.id == memories[RIGHT].id
    head = reranked.results[:3]
    scores = [r.rerank_score for r in head]
    assert None not in scores
    assert scores == sorted(scores, key=lambda score: -(score or 0.0))
    assert sorted(r.fused_rank for r in head) == [0, 1, 2]
    tail = reranked.results[3]
    assert tail.rerank_score is None
    assert tail.fused_rank == 3
    assert tail.memory.id == output.results[3].memory.id
    assert tail.score == output.results[3].score
    assert len(reranker.cache or ()) == 3


# ---------------------------------------------------------------- HTTP re-ranker


class _RerankHandler(BaseHTTPRequestHandler):
    """Answers like a hosted /rerank service: scores = count of query words in the document."""

    requests: ClassVar[list[tuple[dict[str, Any], dict[str, str]]]] = []
    mode: ClassVar[str] = "ok"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((body, dict(self.headers)))
        if self.mode == "error":
            self._send(503, b'{"error": "overloaded"}')
            return
        if self.mode == "not-json":
            self._send(200, b"<html>gateway</html>")
            return
        words = set(body["query"].lower().split())
        results = [
            {"index": i, "relevance_score": float(len(words & set(doc.lower().split())))}
            for i, doc in enumerate(body["documents"])
        ]
        if self.mode == "missing":
            results = results[1:]
        results.sort(key=lambda item: -item["relevance_score"])
        self._send(200, json.dumps({"results": results[: body["top_n"]]}).encode())

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def rerank_server() -> Iterator[str]:
    _RerankHandler.requests = []
    _RerankHandler.mode = "ok"
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RerankHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/rerank"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_http_reranker_sends_the_common_shape_and_maps_scores_back(rerank_server: str) -> None:
    reranker = HttpReranker(rerank_server, model="rerank-v1", api_key="secret", timeout=5)
    assert isinstance(reranker, Reranker)
    documents = ["red apple pie", "blue sky", "red apple"]
    scores = reranker.rerank("red apple", documents)
    np.testing.assert_array_equal(scores, np.array([2.0, 0.0, 2.0], dtype=np.float32))
    body, headers = _RerankHandler.requests[-1]
    assert body == {"model": "rerank-v1", "query": "red apple", "documents": documents, "top_n": 3}
    assert headers["Authorization"] == "Bearer secret"
    assert reranker.rerank("red apple", []).shape == (0,)
    assert len(_RerankHandler.requests) == 1  # no request for no documents


def test_http_reranker_without_model_or_key(rerank_server: str) -> None:
    HttpReranker(rerank_server).rerank("sky", ["blue sky"])
    body, headers = _RerankHandler.requests[-1]
    assert "model" not in body
    assert "Authorization" not in headers


@pytest.mark.parametrize(
    ("mode", "status", "message"),
    [("error", 503, "HTTP 503"), ("not-json", None, "not JSON"), ("missing", None, "2 of 3")],
)
def test_http_reranker_failures_are_typed(
    rerank_server: str, mode: str, status: int | None, message: str
) -> None:
    _RerankHandler.mode = mode
    with pytest.raises(RerankError, match=message) as caught:
        HttpReranker(rerank_server).rerank("red apple", ["a", "b", "c"])
    assert caught.value.status == status
    assert isinstance(caught.value, hebbs.HebbsError)


def test_http_reranker_unreachable_server_is_typed() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RerankHandler)
    port = server.server_address[1]
    server.server_close()  # nothing listens on the port any more
    with pytest.raises(RerankError, match="could not be reached") as caught:
        HttpReranker(f"http://127.0.0.1:{port}/rerank", timeout=2).rerank("q", ["d"])
    assert caught.value.status is None


def test_rerank_recall_with_an_http_reranker(mem: hebbs.Hebbs, rerank_server: str) -> None:
    mem.remember_many({"content": text} for text in ["blue sky today", "red apple pie recipe"])
    output = mem.recall("red apple", top_k=2)
    reranked = rerank_recall("red apple", output, HttpReranker(rerank_server))
    assert reranked.results[0].memory.content == "red apple pie recipe"
    assert reranked.results[0].rerank_score == 2.0


# ---------------------------------------------------------------- ONNX cross-encoder


def _build_cross_encoder(path: Path, token_weights: np.ndarray, *, two_classes: bool) -> Path:
    """A real ONNX graph shaped like a BERT cross-encoder: it takes input_ids, attention_mask
    and token_type_ids and returns logits. The logit is the sum of ``token_weights[id]`` over
    the document segment (type 1) under the attention mask, so the expected score of a pair is
    known exactly; with ``two_classes`` it returns ``[-logit, logit]``."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    width = 2 if two_classes else 1
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", width])
    nodes = [
        helper.make_node("Gather", ["weights", "input_ids"], ["token_weight"]),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["segment"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["token_weight", "mask"], ["masked"]),
        helper.make_node("Mul", ["masked", "segment"], ["document"]),
        helper.make_node("ReduceSum", ["document", "axes"], ["relevant"], keepdims=1),
    ]
    if two_classes:
        nodes.append(helper.make_node("Neg", ["relevant"], ["irrelevant"]))
        nodes.append(helper.make_node("Concat", ["irrelevant", "relevant"], ["logits"], axis=1))
    else:
        nodes.append(helper.make_node("Identity", ["relevant"], ["logits"]))
    initializers = [
        numpy_helper.from_array(token_weights.astype(np.float32), "weights"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"),
    ]
    graph = helper.make_graph(nodes, "cross_encoder", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


@pytest.fixture(scope="module")
def apple_weights() -> tuple[np.ndarray, int]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(bundled_tokenizer_path()))
    apple = tokenizer.token_to_id("apple")
    weights = np.zeros(tokenizer.get_vocab_size(), dtype=np.float32)
    weights[apple] = 1.0
    weights[0] = 100.0  # [PAD]: would swamp the score if padding were not masked
    return weights, apple


@pytest.mark.parametrize("two_classes", [False, True])
def test_cross_encoder_scores_pairs_with_the_onnx_session(
    tmp_path: Path, apple_weights: tuple[np.ndarray, int], two_classes: bool
) -> None:
    weights, _ = apple_weights
    model = _build_cross_encoder(tmp_path / "ce.onnx", weights, two_classes=two_classes)
    reranker = CrossEncoderReranker(model, bundled_tokenizer_path(), batch_size=2)
    assert isinstance(reranker, Reranker)
    documents = [
        "an apple and another apple and a third apple, all on a long table by the window",
        "no fruit here",
        "one apple",
        "apple apple",
    ]
    # The query's own "apple"s are segment 0 and do not count: the pair tokenisation is real.
    scores = reranker.rerank("apple apple apple", documents)
    expected = np.array([3.0, 0.0, 1.0, 2.0], dtype=np.float32)
    np.testing.assert_array_equal(scores, 2 * expected if two_classes else expected)


def test_cross_encoder_truncates_pairs_to_max_length(
    tmp_path: Path, apple_weights: tuple[np.ndarray, int]
) -> None:
    weights, _ = apple_weights
    model = _build_cross_encoder(tmp_path / "ce.onnx", weights, two_classes=False)
    reranker = CrossEncoderReranker(model, bundled_tokenizer_path(), max_length=8)
    # [CLS] q [SEP] + 8 tokens budget: only the first few document tokens survive.
    (score,) = reranker.rerank("q", [" ".join(["apple"] * 20)])
    assert score == 4.0  # 8 - [CLS] - q - [SEP] - final [SEP]


def test_cross_encoder_bad_files_and_models(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as caught:
        CrossEncoderReranker(tmp_path / "missing.onnx", bundled_tokenizer_path())
    assert caught.value.field == "model_path"
    not_onnx = tmp_path / "broken.onnx"
    not_onnx.write_bytes(b"not a model")
    with pytest.raises(RerankError, match="cannot load"):
        CrossEncoderReranker(not_onnx, bundled_tokenizer_path())


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("query", "documents", "field"),
    [
        ("", ["a"], "query"),
        ("   ", ["a"], "query"),
        (3, ["a"], "query"),
        ("q", "a single string", "documents"),
        ("q", None, "documents"),
        ("q", ["ok", b"bytes"], "documents[1]"),
    ],
)
def test_bad_rerank_input_names_the_field(
    late: LateInteractionReranker, query: Any, documents: Any, field: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        late.rerank(query, documents)
    assert caught.value.field == field


def test_bad_ids_and_settings_name_the_field(
    embedder: OnnxEmbedder, late: LateInteractionReranker, mem: hebbs.Hebbs
) -> None:
    cases: list[tuple[Any, str]] = [
        (lambda: late.rerank_memories("q", [b"x" * 16], ["a", "b"]), "ids"),
        (lambda: late.rerank_memories("q", ["zz" * 16], ["a"]), "ids[0]"),
        (lambda: late.rerank_memories("q", [b"short"], ["a"]), "ids[0]"),
        (lambda: TokenVectorCache("int4"), "dtype"),  # type: ignore[arg-type]
        (lambda: LateInteractionReranker(embedder, query_weighting="bm25"), "query_weighting"),
        (lambda: TokenVectorCache(max_entries=0), "max_entries"),
        (lambda: HttpReranker("ftp://host/rerank"), "url"),
        (lambda: HttpReranker("http:///rerank"), "url"),
        (lambda: HttpReranker("http://host/rerank", timeout=0), "timeout"),
        (lambda: HttpReranker("http://host/rerank", model=""), "model"),
        (lambda: CrossEncoderReranker("m.onnx", "t.json", batch_size=0), "batch_size"),
    ]
    mem.remember("a memory")
    output = mem.recall("memory")
    cases += [
        (lambda: rerank_recall("q", output, late, top_n=0), "top_n"),
        (lambda: rerank_recall("q", output, late, top_n=True), "top_n"),
        (lambda: rerank_recall("q", [], late), "output"),
        (lambda: rerank_recall("q", output, object()), "reranker"),
        (lambda: rerank_recall("", output, late), "query"),
    ]
    for call, field in cases:
        with pytest.raises(InvalidInputError) as caught:
            call()
        assert caught.value.field == field
    with pytest.raises(RerankError, match="needs a TokenVectorCache"):
        late.index_memories([b"x" * 16], ["a"])
    with pytest.raises(TypeError, match="OnnxEmbedder"):
        LateInteractionReranker(embedder=object())  # type: ignore[arg-type]
