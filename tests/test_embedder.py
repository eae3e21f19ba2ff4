"""Tests of hebbs.embedder on the real bundled model (all-MiniLM-L6-v2, int8 ONNX).

Sessions are built once per module: the machine is small and each costs about half a second.
"""

from __future__ import annotations

import copy
import hashlib
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from hebbs.embedder import (
    BUNDLED_DIMENSION,
    DEFAULT_MAX_LENGTH,
    DEFAULT_SPIN,
    CallableEmbedder,
    Embedder,
    OnnxEmbedder,
    as_embedder,
    bundled_model_path,
    bundled_tokenizer_path,
    default_embedder,
)
from hebbs.embedder import bundled as bundled_module
from hebbs.embedder.constants import BUNDLED_TOKENIZER_SHA256, BUNDLED_WEIGHTS_SHA256
from hebbs.embedder.onnx_embedder import _model_inputs, load_tokenizer

# Deliberately not in length order, with one empty text and repeats of a prefix.
TEXTS = [
    "The cat sat on the mat",
    "Quarterly revenue grew 12% on strong subscription sales in Europe and Asia, "
    "beating analyst expectations for the third quarter running.",
    "",
    "Paris",
    "Remind me to call the dentist on Tuesday morning before the team stand-up.",
    "A cat was sitting on a rug",
    "The cat sat on the mat and looked out of the window at the rain for a long time.",
]


def cosine_rows(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """Row-wise cosine of two arrays of unit vectors."""
    cosines: NDArray[np.float32] = np.einsum("ij,ij->i", a, b)
    return cosines


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return default_embedder()


@pytest.fixture(scope="module")
def small_batches() -> OnnxEmbedder:
    """The bundled model with batches of 3, so TEXTS spans several padded batches."""
    return OnnxEmbedder(bundled_model_path(), bundled_tokenizer_path(), batch_size=3)


@pytest.fixture(scope="module")
def one_at_a_time(embedder: OnnxEmbedder) -> NDArray[np.float32]:
    return np.vstack([embedder.embed([text]) for text in TEXTS])


def assert_unit_rows(vectors: NDArray[np.float32]) -> None:
    assert vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


# --- bundled files ---------------------------------------------------------------------------


def test_bundled_model_matches_pinned_hash() -> None:
    digest = hashlib.sha256(bundled_model_path().read_bytes()).hexdigest()
    assert digest == BUNDLED_WEIGHTS_SHA256


def test_bundled_tokenizer_ships_with_licence() -> None:
    digest = hashlib.sha256(bundled_tokenizer_path().read_bytes()).hexdigest()
    assert digest == BUNDLED_TOKENIZER_SHA256
    folder = bundled_tokenizer_path().parent
    assert (folder / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert (folder / "NOTICE").is_file()


def test_tokenizer_padding_and_truncation_are_reset() -> None:
    tokenizer = load_tokenizer(bundled_tokenizer_path(), DEFAULT_MAX_LENGTH)
    padding = tokenizer.padding
    truncation = tokenizer.truncation
    assert padding is not None
    assert truncation is not None
    assert padding["length"] is None  # the file says Fixed(128): now longest-in-batch
    assert padding["pad_token"] == "[PAD]"
    assert padding["pad_id"] == 0
    assert truncation["max_length"] == DEFAULT_MAX_LENGTH
    short, longer = tokenizer.encode_batch(["hi", "a somewhat longer sentence here"])
    assert len(short.ids) == len(longer.ids) < 128
    assert sum(short.attention_mask) == 3  # [CLS] hi [SEP]


# --- the embedding contract ------------------------------------------------------------------


def test_shape_dtype_and_unit_norm(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert embedder.dimension == BUNDLED_DIMENSION
    assert vectors.shape == (len(TEXTS), BUNDLED_DIMENSION)
    assert_unit_rows(vectors)
    assert_unit_rows(embedder.embed_query(TEXTS))


def test_empty_input_gives_empty_matrix(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, BUNDLED_DIMENSION)
    assert vectors.dtype == np.float32
    assert embedder.embed_query(()).shape == (0, BUNDLED_DIMENSION)
    assert embedder.token_embeddings([]) == []


def test_accepts_any_sequence_but_not_a_bare_string(embedder: OnnxEmbedder) -> None:
    np.testing.assert_allclose(embedder.embed(tuple(TEXTS[:2])), embedder.embed(TEXTS[:2]))
    with pytest.raises(TypeError, match="single string"):
        embedder.embed("The cat sat on the mat")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        embedder.embed(["fine", 3])  # type: ignore[list-item]


def test_deterministic(embedder: OnnxEmbedder) -> None:
    np.testing.assert_array_equal(embedder.embed(TEXTS), embedder.embed(TEXTS))


def test_batched_equals_one_at_a_time(
    embedder: OnnxEmbedder, small_batches: OnnxEmbedder, one_at_a_time: NDArray[np.float32]
) -> None:
    for batched in (embedder.embed(TEXTS), small_batches.embed(TEXTS)):
        cosines = cosine_rows(batched, one_at_a_time)
        assert cosines.min() > 0.999, cosines


def test_order_restored_after_length_sort(
    small_batches: OnnxEmbedder, one_at_a_time: NDArray[np.float32]
) -> None:
    for order in (
        list(range(len(TEXTS))),
        list(reversed(range(len(TEXTS)))),
        [3, 0, 6, 2, 5, 1, 4],
    ):
        batched = small_batches.embed([TEXTS[i] for i in order])
        similarity = batched @ one_at_a_time.T
        assert similarity.argmax(axis=1).tolist() == order


def test_paraphrase_is_nearer_than_unrelated(embedder: OnnxEmbedder) -> None:
    anchor, paraphrase, unrelated = embedder.embed(
        ["The cat sat on the mat", "A cat was sitting on a rug", "Quarterly revenue grew 12%"]
    )
    near = float(anchor @ paraphrase)
    far = float(anchor @ unrelated)
    assert near > 0.5
    assert near - far > 0.3, (near, far)


def test_long_input_is_truncated(embedder: OnnxEmbedder) -> None:
    head = "Hebbian learning strengthens connections between neurons that fire together. "
    long_text = head + "filler words keep going on and on " * 2000
    vectors = embedder.embed([long_text, "short"])
    assert vectors.shape == (2, BUNDLED_DIMENSION)
    assert_unit_rows(vectors)
    (tokens,) = embedder.token_embeddings([long_text])
    assert tokens.shape == (DEFAULT_MAX_LENGTH, BUNDLED_DIMENSION)
    # Only the first max_length tokens count: more text past the cut changes nothing.
    longer = embedder.embed([long_text + " completely different ending about finance"])
    assert float(vectors[0] @ longer[0]) > 0.9999


# --- per-token vectors -----------------------------------------------------------------------


def test_token_embeddings_follow_the_attention_mask(small_batches: OnnxEmbedder) -> None:
    tokenizer = load_tokenizer(bundled_tokenizer_path(), DEFAULT_MAX_LENGTH)
    expected = [sum(e.attention_mask) for e in tokenizer.encode_batch(TEXTS)]
    per_text = small_batches.token_embeddings(TEXTS)
    assert [len(t) for t in per_text] == expected
    assert len(set(expected)) > 3  # mixed lengths, so padding had to be removed
    for tokens in per_text:
        assert tokens.shape[1] == BUNDLED_DIMENSION
        assert_unit_rows(tokens)


def test_token_embeddings_independent_of_batch_company(
    embedder: OnnxEmbedder, small_batches: OnnxEmbedder
) -> None:
    alone = embedder.token_embeddings([TEXTS[0]])[0]
    together = small_batches.token_embeddings(TEXTS)[0]
    assert alone.shape == together.shape
    assert cosine_rows(alone, together).min() > 0.999


# --- pooling and prefixes --------------------------------------------------------------------


@pytest.fixture(scope="module")
def cls_with_prefix() -> OnnxEmbedder:
    return OnnxEmbedder(
        bundled_model_path(), bundled_tokenizer_path(), pooling="cls", query_prefix="query: "
    )


def test_cls_pooling_differs_from_mean(
    embedder: OnnxEmbedder, cls_with_prefix: OnnxEmbedder
) -> None:
    cls_vectors = cls_with_prefix.embed(TEXTS)
    assert cls_vectors.shape == (len(TEXTS), BUNDLED_DIMENSION)
    assert_unit_rows(cls_vectors)
    assert cosine_rows(cls_vectors, embedder.embed(TEXTS)).max() < 0.99
    # CLS pooling is the first token's vector, normalised.
    first_tokens = np.vstack([t[0] for t in cls_with_prefix.token_embeddings(TEXTS)])
    assert cosine_rows(cls_vectors, first_tokens).min() > 0.9999


def test_query_prefix_changes_queries_only(cls_with_prefix: OnnxEmbedder) -> None:
    texts = TEXTS[:3]
    documents = cls_with_prefix.embed(texts)
    queries = cls_with_prefix.embed_query(texts)
    prefixed_by_hand = cls_with_prefix.embed(["query: " + t for t in texts])
    assert cosine_rows(queries, documents).max() < 0.999
    assert cosine_rows(queries, prefixed_by_hand).min() > 0.9999
    plain = cls_with_prefix.token_embeddings(texts)
    as_query = cls_with_prefix.token_embeddings(texts, query=True)
    assert [len(q) - len(p) for p, q in zip(plain, as_query)] == [2, 2, 2]  # "query", ":"


def test_default_embedder_has_no_prefix(embedder: OnnxEmbedder) -> None:
    np.testing.assert_array_equal(embedder.embed(TEXTS), embedder.embed_query(TEXTS))


# --- model inputs ----------------------------------------------------------------------------


class _Node:
    def __init__(self, name: str, type_: str, shape: list[Any]) -> None:
        self.name = name
        self.type = type_
        self.shape = shape


class _FakeSession:
    """Declares input_ids and attention_mask only (as int32), and records what it is fed."""

    def __init__(self) -> None:
        self.feeds: list[dict[str, NDArray[Any]]] = []

    def get_inputs(self) -> list[_Node]:
        return [
            _Node("input_ids", "tensor(int32)", ["batch", "seq"]),
            _Node("attention_mask", "tensor(int32)", ["batch", "seq"]),
        ]

    def run(self, names: list[str], feeds: dict[str, NDArray[Any]]) -> list[NDArray[np.float32]]:
        self.feeds.append(feeds)
        batch, seq = feeds["input_ids"].shape
        rng = np.random.default_rng(0)
        return [rng.standard_normal((batch, seq, BUNDLED_DIMENSION)).astype(np.float32)]


def test_feeds_only_declared_inputs(embedder: OnnxEmbedder) -> None:
    fake = _FakeSession()
    patched = copy.copy(embedder)
    patched._session = fake
    patched._input_types = _model_inputs(fake, Path("fake.onnx"))
    vectors = patched.embed(["one", "two words"])
    assert vectors.shape == (2, BUNDLED_DIMENSION)
    (feeds,) = fake.feeds
    assert sorted(feeds) == ["attention_mask", "input_ids"]
    assert all(array.dtype == np.int32 for array in feeds.values())


def test_unknown_model_input_is_refused() -> None:
    class Odd(_FakeSession):
        def get_inputs(self) -> list[_Node]:
            return [_Node("pixel_values", "tensor(float)", ["batch", 3, 224, 224])]

    with pytest.raises(ValueError, match="pixel_values"):
        _model_inputs(Odd(), Path("odd.onnx"))


def test_constructor_validation() -> None:
    model, tokenizer = bundled_model_path(), bundled_tokenizer_path()
    with pytest.raises(ValueError, match="pooling"):
        OnnxEmbedder(model, tokenizer, pooling="max")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        OnnxEmbedder(model, tokenizer, batch_size=0)
    with pytest.raises(ValueError, match="max_length"):
        OnnxEmbedder(model, tokenizer, max_length=1)
    with pytest.raises(FileNotFoundError, match="model"):
        OnnxEmbedder(model.with_name("missing.onnx"), tokenizer)


def test_threads_option(embedder: OnnxEmbedder) -> None:
    single = OnnxEmbedder(bundled_model_path(), bundled_tokenizer_path(), threads=1)
    assert cosine_rows(single.embed(TEXTS), embedder.embed(TEXTS)).min() > 0.9999


def test_spin_option_sets_the_session_and_keeps_the_vectors(embedder: OnnxEmbedder) -> None:
    """``spin`` (the default) lets the workers spin within a pass and stops them when it
    returns; ``spin=False`` never spins. Neither changes a vector."""
    assert embedder.spin is DEFAULT_SPIN is True
    still = OnnxEmbedder(bundled_model_path(), bundled_tokenizer_path(), spin=False)
    spinning = embedder._session.get_session_options()
    assert spinning.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    assert spinning.get_session_config_entry("session.force_spinning_stop") == "1"
    sleeping = still._session.get_session_options()
    assert sleeping.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    with pytest.raises(RuntimeError, match="force_spinning_stop"):
        sleeping.get_session_config_entry("session.force_spinning_stop")
    assert np.array_equal(still.embed(TEXTS), embedder.embed(TEXTS))


# --- CallableEmbedder ------------------------------------------------------------------------


def fixed_vectors(texts: list[str]) -> list[list[int]]:
    return [[len(t) + 1, 2, 0] for t in texts]


def test_callable_embedder_normalises_and_converts() -> None:
    wrapped = CallableEmbedder(fixed_vectors, dimension=3)
    vectors = wrapped.embed(["ab", "c"])
    assert vectors.shape == (2, 3)
    assert_unit_rows(vectors)
    np.testing.assert_allclose(vectors[0], np.array([3, 2, 0]) / np.sqrt(13), rtol=1e-6)
    assert wrapped.embed_query(["ab"]).tolist() == vectors[:1].tolist()
    assert wrapped.embed([]).shape == (0, 3)


def test_callable_embedder_learns_dimension() -> None:
    calls: list[list[str]] = []

    def fn(texts: list[str]) -> NDArray[np.float64]:
        calls.append(texts)
        return np.ones((len(texts), 5))

    wrapped = CallableEmbedder(fn)
    assert wrapped.embed(["x", "y"]).shape == (2, 5)
    assert wrapped.dimension == 5
    assert calls == [["x", "y"]]  # a plain list, and no extra probe call

    probed = CallableEmbedder(fn)
    assert probed.dimension == 5
    assert len(calls) == 2


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (np.ones((3, 4)), "3 rows for 2 texts"),
        (np.ones(4), "2-D"),
        (np.ones((2, 4, 1)), "2-D"),
        (np.array([[1.0, np.nan, 0, 0], [1, 1, 1, 1]]), "NaN or infinity in rows 0"),
        (np.array([[1.0, 1, 1, 1], [np.inf, 1, 1, 1]]), "NaN or infinity in rows 1"),
        (np.zeros((2, 4)), "all-zero vectors in rows 0, 1"),
        (np.ones((2, 0)), "dimension 0"),
        ([[1.0, 2.0], [3.0]], "ragged"),
        ([["a", "b"], ["c", "d"]], "real numbers"),
        (np.ones((2, 3)), "dimension 3, expected 4"),
    ],
)
def test_callable_embedder_validation(result: object, message: str) -> None:
    wrapped = CallableEmbedder(lambda texts: result, dimension=4)
    with pytest.raises(ValueError, match=message):
        wrapped.embed(["a", "b"])


def test_callable_embedder_keeps_learned_dimension() -> None:
    sizes = iter([3, 4])
    wrapped = CallableEmbedder(lambda texts: np.ones((len(texts), next(sizes))))
    wrapped.embed(["a"])
    with pytest.raises(ValueError, match="dimension 4, expected 3"):
        wrapped.embed(["b"])


def test_callable_embedder_rejects_non_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        CallableEmbedder(42)  # type: ignore[arg-type]


# --- as_embedder and the protocol ------------------------------------------------------------


class ConstantEmbedder:
    """Structurally an Embedder, without subclassing it."""

    dimension = 2

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (len(texts), 1))

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.embed(texts)


class SubclassEmbedder(Embedder):
    """Subclasses the protocol and inherits ``embed_query``."""

    dimension = 2

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.tile(np.array([[0.0, 1.0]], dtype=np.float32), (len(texts), 1))


def test_protocol_is_runtime_checkable(embedder: OnnxEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert isinstance(ConstantEmbedder(), Embedder)
    assert isinstance(CallableEmbedder(fixed_vectors, dimension=3), Embedder)
    assert not isinstance(fixed_vectors, Embedder)
    assert SubclassEmbedder().embed_query(["a"]).tolist() == [[0.0, 1.0]]


def test_as_embedder_dispatch(embedder: OnnxEmbedder) -> None:
    assert as_embedder(None) is default_embedder()
    assert as_embedder(embedder) is embedder
    structural = ConstantEmbedder()
    assert as_embedder(structural) is structural
    subclass = SubclassEmbedder()
    assert as_embedder(subclass) is subclass
    wrapped = as_embedder(fixed_vectors)
    assert isinstance(wrapped, CallableEmbedder)
    assert wrapped.fn is fixed_vectors
    with pytest.raises(TypeError, match="got int"):
        as_embedder(3)  # type: ignore[arg-type]


def test_as_embedder_does_not_call_the_function() -> None:
    calls: list[list[str]] = []

    def fn(texts: list[str]) -> NDArray[np.float64]:
        calls.append(texts)
        return np.ones((len(texts), 3))

    lazy = CallableEmbedder(fn)
    assert as_embedder(lazy) is lazy
    assert isinstance(as_embedder(fn), CallableEmbedder)
    assert calls == []


# --- process-wide default and isolation ------------------------------------------------------


def test_default_embedder_is_built_once_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundled_module, "_default", None)
    results: list[OnnxEmbedder] = []
    barrier = threading.Barrier(4)

    def get() -> None:
        barrier.wait()
        results.append(default_embedder())

    threads = [threading.Thread(target=get) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    assert all(result is results[0] for result in results)


def test_concurrent_embedding_is_consistent(embedder: OnnxEmbedder) -> None:
    expected = embedder.embed(TEXTS)
    outputs: list[NDArray[np.float32]] = []

    def work() -> None:
        outputs.append(embedder.embed(TEXTS))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outputs) == 3
    for output in outputs:
        assert cosine_rows(output, expected).min() > 0.9999


OFFLINE_SCRIPT = textwrap.dedent(
    """
    import socket
    import sys

    def refuse(*args, **kwargs):
        raise OSError("network access attempted")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    from hebbs.embedder import default_embedder

    vectors = default_embedder().embed(["offline works"])
    assert vectors.shape == (1, 384), vectors.shape
    for name in ("huggingface_hub", "transformers", "sentence_transformers", "requests"):
        assert name not in sys.modules, name
    print("OFFLINE-OK")
    """
)


def test_runs_offline_without_the_hub() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("HF_")}
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_HOME="/nonexistent/hf-home",
        PYTHONPATH=os.pathsep.join(entry for entry in sys.path if entry),
    )
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "OFFLINE-OK" in done.stdout
