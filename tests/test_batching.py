"""Micro-batching of embeddings (:class:`hebbs.embedder.BatchingEmbedder`), with real threads:
batched results equal unbatched embedding row for row (the bundled model and a deterministic
one), concurrent callers share calls, a lone caller does not wait for others (callers are
batched only when they overlap), an embedder error
reaches every caller of its batch, documents and queries are never mixed, and the server
batches its tenants' requests unless told not to."""

from __future__ import annotations

import hashlib
import statistics
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Callable

import httpx
import numpy as np
import pytest
from numpy.typing import NDArray

from hebbs.embedder import MAX_WAIT_S, BatchingEmbedder, Embedder
from hebbs.embedder.token_vectors import token_embedder
from hebbs.server.serve import BackgroundServer

DIM = 8
#: Seconds each call of the slow recording embedder takes (a forward pass, roughly).
PASS_S = 0.02
#: Threads in the concurrent tests.
THREADS = 8
#: A wait long enough that every thread of a test has joined the batch before it runs.
LONG_WAIT_S = 5.0
#: Tolerance between the bundled model's rows embedded alone and in a batch (padding to a
#: longer text may change the last bits; measured: identical).
ATOL = 1e-5
#: Seconds a test waits at most for a state it polls (generous: a loaded machine).
STATE_DEADLINE_S = 60.0
#: Scheduling slack allowed over the bound of a lone caller's wait.
SLACK_S = 0.02


class Recording(Embedder):
    """Deterministic vectors from each text's hash (queries hashed apart from documents); records
    the kind and size of every call; fails on texts containing ``"boom"``."""

    dimension = DIM

    def __init__(self, pass_s: float = 0.0) -> None:
        self.pass_s = pass_s
        #: When set, a call with the text ``"gate"`` blocks until it is set.
        self.gate: threading.Event | None = None
        self.calls: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    def _vectors(self, kind: str, texts: Sequence[str]) -> NDArray[np.float32]:
        with self._lock:
            self.calls.append((kind, len(texts)))
        time.sleep(self.pass_s)
        if self.gate is not None and "gate" in texts:
            self.gate.wait()
        if any("boom" in text for text in texts):
            raise RuntimeError("the model failed")
        rows = []
        for text in texts:
            digest = hashlib.blake2b(f"{kind}:{text}".encode(), digest_size=DIM).digest()
            rows.append(np.frombuffer(digest, dtype=np.uint8).astype(np.float32) + 1.0)
        out = np.array(rows, dtype=np.float32).reshape(len(texts), DIM)
        return np.ascontiguousarray(out / np.linalg.norm(out, axis=1, keepdims=True))

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._vectors("document", texts)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._vectors("query", texts)

    def sizes(self) -> list[int]:
        return [size for _, size in self.calls]


def run_threads(work: Callable[[int], object], count: int = THREADS) -> list[object]:
    """``work(i)`` in ``count`` threads started together; each one's result or exception."""
    results: list[object] = [None] * count
    barrier = threading.Barrier(count)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except RuntimeError as error:
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def wait_until(condition: Callable[[], bool]) -> None:
    """Polls ``condition`` until it holds, failing after a generous deadline."""
    deadline = time.monotonic() + STATE_DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, "the state was not reached"
        time.sleep(0.001)


def run_overlapping(
    batcher: BatchingEmbedder, inner: Recording, work: Callable[[int], object]
) -> list[object]:
    """``work(i)`` in :data:`THREADS` threads that all overlap: the wrapped embedder is busy
    with another caller's call (recorded, then dropped from ``inner.calls``) until every thread
    is in flight. Each one's result or exception."""
    gate = inner.gate = threading.Event()
    busy = threading.Thread(target=batcher.embed, args=(["gate"],))
    busy.start()
    wait_until(lambda: len(inner.calls) == 1)
    results: list[object] = []
    threads = threading.Thread(target=lambda: results.extend(run_threads(work)))
    threads.start()
    wait_until(lambda: batcher.in_flight == THREADS + 1)
    gate.set()
    threads.join()
    busy.join()
    inner.calls.pop(0)
    return results


def texts_of(i: int) -> list[str]:
    """One to three texts for thread ``i``, distinct across threads."""
    return [f"thread {i} text {j}" for j in range(1 + i % 3)]


def test_rows_equal_unbatched_embedding() -> None:
    inner = Recording(PASS_S)
    batcher = BatchingEmbedder(inner)
    results = run_threads(lambda i: batcher.embed(texts_of(i)))
    for i, result in enumerate(results):
        assert isinstance(result, np.ndarray)
        assert result.dtype == np.float32
        assert result.flags.c_contiguous
        np.testing.assert_array_equal(result, inner.embed(texts_of(i)))


def test_bundled_model_rows_equal_unbatched(embedder: Embedder) -> None:
    batcher = BatchingEmbedder(embedder)
    texts = [f"memory {i}: a customer from {'Paris ' * (i % 4)}asks for prices" for i in range(12)]
    documents = run_threads(lambda i: batcher.embed([texts[i]]), len(texts))
    queries = run_threads(lambda i: batcher.embed_query([texts[i]]), len(texts))
    for i, text in enumerate(texts):
        np.testing.assert_allclose(documents[i], embedder.embed([text]), atol=ATOL)
        np.testing.assert_allclose(queries[i], embedder.embed_query([text]), atol=ATOL)
    assert max(batcher.batch_sizes) > 1


def test_bundled_model_token_passes_are_batched_and_equal_unbatched(embedder: Embedder) -> None:
    """A store that keeps token vectors embeds through ``embed_with_tokens``: concurrent token
    passes share forward passes too, and give each caller the rows and token vectors it would
    get alone."""
    batcher = BatchingEmbedder(embedder)
    model = token_embedder(batcher)
    assert model is batcher
    texts = [f"note {i}: the {'renewal ' * (i % 3)}call went well" for i in range(10)]
    for query in (False, True):
        passes = run_threads(
            lambda i, query=query: batcher.embed_with_tokens([texts[i]], query=query), 10
        )
        for i, found in enumerate(passes):
            assert isinstance(found, tuple)
            pooled, tokens = found
            alone_pooled, alone_tokens = embedder.embed_with_tokens([texts[i]], query=query)  # type: ignore[attr-defined]
            np.testing.assert_allclose(pooled, alone_pooled, atol=ATOL)
            assert len(tokens) == 1
            np.testing.assert_allclose(tokens[0], alone_tokens[0], atol=ATOL)
    assert max(batcher.batch_sizes) > 1
    assert token_embedder(BatchingEmbedder(Recording())) is None


def test_concurrent_callers_share_calls() -> None:
    inner = Recording(PASS_S)
    batcher = BatchingEmbedder(inner)
    run_threads(lambda i: batcher.embed([f"text {i}"]))
    assert sum(inner.sizes()) == THREADS
    assert max(inner.sizes()) > 1
    assert len(inner.calls) < THREADS
    assert batcher.batch_sizes == {size: inner.sizes().count(size) for size in set(inner.sizes())}


def test_a_batch_is_cut_at_max_batch() -> None:
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_batch=4, max_wait_s=LONG_WAIT_S)
    started = time.monotonic()
    results = run_overlapping(batcher, inner, lambda i: batcher.embed([f"text {i}"]))
    assert time.monotonic() - started < LONG_WAIT_S  # full batches do not wait out their time
    assert inner.sizes() == [4, 4]
    assert batcher.waited == 2
    for i, result in enumerate(results):
        np.testing.assert_array_equal(result, inner.embed([f"text {i}"]))


def test_a_large_request_is_not_split_nor_delayed() -> None:
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_batch=4, max_wait_s=LONG_WAIT_S)
    texts = [f"text {i}" for i in range(10)]
    started = time.monotonic()
    np.testing.assert_array_equal(batcher.embed(texts), inner.embed(texts))
    assert time.monotonic() - started < LONG_WAIT_S
    assert inner.sizes() == [10, 10]
    assert batcher.embed([]).shape == (0, DIM)


def test_a_lone_caller_waits_at_most_the_bound() -> None:
    inner = Recording()
    batcher = BatchingEmbedder(inner)
    waits = []
    for i in range(20):
        started = time.perf_counter()
        batcher.embed([f"alone {i}"])
        waits.append(time.perf_counter() - started)
    assert inner.sizes() == [1] * 20
    assert statistics.median(waits) < MAX_WAIT_S + SLACK_S
    assert max(waits) < MAX_WAIT_S + 10 * SLACK_S


def test_a_lone_caller_does_not_wait_for_a_batch() -> None:
    """With nobody else in flight, a caller runs its call at once: even a window of an hour
    delays nothing (a text-cue recall over REST paid the whole window before)."""
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_wait_s=3600.0)
    alone = threading.Thread(target=lambda: [batcher.embed([f"alone {i}"]) for i in range(3)])
    alone.start()
    alone.join(STATE_DEADLINE_S)
    assert not alone.is_alive()
    assert inner.sizes() == [1, 1, 1]
    assert batcher.waited == 0
    assert batcher.in_flight == 0


def test_an_error_reaches_every_caller_of_its_batch() -> None:
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_batch=THREADS, max_wait_s=LONG_WAIT_S)
    results = run_overlapping(
        batcher, inner, lambda i: batcher.embed(["boom" if i == 3 else f"text {i}"])
    )
    assert inner.sizes() == [THREADS]
    assert all(isinstance(result, RuntimeError) for result in results)
    assert len({id(result) for result in results}) == 1  # the same exception object
    # the next batch is unaffected
    results = run_threads(lambda i: batcher.embed([f"text {i}"]))
    assert all(isinstance(result, np.ndarray) for result in results)


def test_an_error_through_the_engine(tmp_path: Path) -> None:
    import hebbs

    with hebbs.Hebbs.open(tmp_path / "db", embedder=BatchingEmbedder(Recording())) as engine:
        with pytest.raises(hebbs.EmbeddingError, match="the model failed"):
            engine.remember("boom")
        assert engine.remember("fine").content == "fine"


def test_documents_and_queries_are_not_mixed() -> None:
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_batch=THREADS // 2, max_wait_s=LONG_WAIT_S)

    def work(i: int) -> NDArray[np.float32]:
        text = [f"text {i // 2}"]
        return batcher.embed_query(text) if i % 2 else batcher.embed(text)

    results = run_overlapping(batcher, inner, work)
    assert sorted(inner.calls) == [("document", THREADS // 2), ("query", THREADS // 2)]
    for i, result in enumerate(results):
        text = [f"text {i // 2}"]
        expected = inner.embed_query(text) if i % 2 else inner.embed(text)
        np.testing.assert_array_equal(result, expected)
    assert not np.array_equal(results[0], results[1])


@pytest.mark.parametrize("batching", [True, False])
def test_the_server_batches_concurrent_requests(tmp_path: Path, batching: bool) -> None:
    inner = Recording(PASS_S)
    with BackgroundServer(tmp_path, embedder=inner, auth=False, embed_batching=batching) as server:
        clients = [httpx.Client(base_url=server.url, timeout=10) for _ in range(THREADS)]

        def remember(i: int) -> int:
            return clients[i].post("/v1/memories", json={"content": f"memory {i}"}).status_code

        assert run_threads(remember) == [201] * THREADS
        for client in clients:
            client.close()
    assert sum(inner.sizes()) == THREADS
    if batching:
        assert max(inner.sizes()) > 1
    else:
        assert inner.sizes() == [1] * THREADS
