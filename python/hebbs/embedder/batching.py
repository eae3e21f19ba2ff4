"""``BatchingEmbedder``: embeds the texts of concurrent callers together (micro-batching).

One forward pass over 16 texts costs far less than 16 passes over one, so when threads embed at
the same time (the server's route handlers, an agent's worker pool) their texts are gathered
into one call of the wrapped embedder. The first caller of a batch leads it. When other callers
are in flight (their batch waits or runs), it waits until the batch holds
:data:`~hebbs.embedder.constants.MAX_BATCH` texts or :data:`~hebbs.embedder.constants.MAX_WAIT_S`
has passed since it arrived; a lone caller does not wait at all. Then it waits until the wrapped
embedder is free (one call runs at a time, so texts that arrive during a forward pass form the
next batch), runs the call and hands every caller its own rows. So requests are batched only
when they overlap, and a lone request costs the call itself (``waited`` counts the batches that
waited for others). Documents (``embed``) and queries
(``embed_query``) are batched apart, as the model may prefix them differently. A failure of the
wrapped call is raised, as the same exception object, in every caller of that batch. A request
of ``MAX_BATCH`` texts or more is a batch already and calls the wrapped embedder directly.

When the wrapped model also gives token vectors (an :class:`OnnxEmbedder`),
:meth:`BatchingEmbedder.embed_with_tokens` batches that pass the same way (documents and
queries apart again), so a store that keeps token vectors still shares forward passes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any, Literal, Union

import numpy as np
from numpy.typing import NDArray

from ._arrays import check_texts
from .constants import MAX_BATCH, MAX_WAIT_S
from .dispatch import EmbedderLike, as_embedder
from .protocol import Embedder

Kind = Literal["document", "query", "document_tokens", "query_tokens"]

_KINDS: tuple[Kind, ...] = ("document", "query", "document_tokens", "query_tokens")

#: What a token pass gives: the pooled vectors and each text's token vectors.
TokenRows = tuple[NDArray[np.float32], list[NDArray[np.float32]]]
#: The outcome of one wrapped call.
Rows = Union[NDArray[np.float32], TokenRows]


def _slice(rows: Rows, part: slice) -> Any:
    """One caller's part of a wrapped call's outcome."""
    if isinstance(rows, tuple):
        pooled, tokens = rows
        return pooled[part], tokens[part]
    return rows[part]


def _count(rows: Rows) -> int:
    return len(rows[0]) if isinstance(rows, tuple) else len(rows)


class _Batch:
    """The texts of one wrapped call, and its outcome once ``done`` is set."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        #: Callers whose texts are in the batch.
        self.callers = 0
        self.done = threading.Event()
        self.rows: Rows | None = None
        self.error: BaseException | None = None

    def add(self, texts: list[str]) -> slice:
        start = len(self.texts)
        self.texts.extend(texts)
        return slice(start, len(self.texts))

    def result(self, rows: slice) -> Any:
        """The caller's rows (and token vectors, for a token pass), or the batch's exception
        raised."""
        self.done.wait()
        if self.error is not None:
            raise self.error
        assert self.rows is not None  # set together with ``done`` when there is no error
        return _slice(self.rows, rows)


class BatchingEmbedder(Embedder):
    """Wraps an embedder so that concurrent calls are embedded together (see the module).

    ``inner`` is what ``embedder=`` accepts (None: the bundled model), resolved on first use.
    ``max_batch`` and ``max_wait_s`` default to :data:`~hebbs.embedder.constants.MAX_BATCH`
    and :data:`~hebbs.embedder.constants.MAX_WAIT_S`. Safe to share between threads and between
    stores that use the same model. ``batch_sizes`` counts the wrapped calls by size.
    """

    def __init__(
        self,
        inner: EmbedderLike = None,
        *,
        max_batch: int = MAX_BATCH,
        max_wait_s: float = MAX_WAIT_S,
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        if max_wait_s < 0:
            raise ValueError(f"max_wait_s must not be negative, got {max_wait_s}")
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self.batch_sizes: dict[int, int] = {}
        #: Batches whose leader waited for others to join (other callers were in flight).
        self.waited = 0
        self._in_flight = 0
        self._inner_arg = inner
        self._inner: Embedder | None = None
        self._inner_lock = threading.Lock()
        self._lock = threading.Lock()
        self._grown = threading.Condition(self._lock)
        self._pending: dict[Kind, _Batch | None] = dict.fromkeys(_KINDS)
        self._running = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"BatchingEmbedder({self._inner_arg!r}, max_batch={self.max_batch}, "
            f"max_wait_s={self.max_wait_s})"
        )

    @property
    def inner(self) -> Embedder:
        """The wrapped embedder, created on first use."""
        inner = self._inner
        if inner is None:
            with self._inner_lock:
                if self._inner is None:
                    self._inner = as_embedder(self._inner_arg)
                inner = self._inner
        return inner

    # The protocol's plain ``dimension: int`` is a read-only property here, as the wrapped
    # embedder is resolved on first use; mypy sees that as an override of a settable attribute.
    @property
    def dimension(self) -> int:  # type: ignore[override]
        """The wrapped embedder's dimension."""
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed texts to be stored, together with other threads' concurrent ``embed`` calls."""
        rows: NDArray[np.float32] = self._submit("document", check_texts(texts))
        return rows

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed search queries, together with other threads' concurrent ``embed_query`` calls."""
        rows: NDArray[np.float32] = self._submit("query", check_texts(texts))
        return rows

    def embed_with_tokens(self, texts: Sequence[str], *, query: bool = False) -> TokenRows:
        """The wrapped model's ``embed_with_tokens`` (pooled vectors and each text's token
        vectors from one pass), together with other threads' concurrent token passes; the
        wrapped embedder must give token vectors (see
        :func:`hebbs.embedder.token_vectors.token_embedder`)."""
        kind: Kind = "query_tokens" if query else "document_tokens"
        found: TokenRows = self._submit(kind, check_texts(texts))
        return found

    def _call(self, kind: Kind, texts: list[str]) -> Rows:
        inner = self.inner
        if kind in ("document_tokens", "query_tokens"):
            from .onnx_embedder import OnnxEmbedder

            if not isinstance(inner, OnnxEmbedder):
                raise TypeError(f"{type(inner).__name__} gives no token vectors")
            return inner.embed_with_tokens(texts, query=kind == "query_tokens")
        return inner.embed_query(texts) if kind == "query" else inner.embed(texts)

    @property
    def in_flight(self) -> int:
        """Callers whose texts wait in a batch or are being embedded now."""
        with self._lock:
            return self._in_flight

    def _submit(self, kind: Kind, texts: list[str]) -> Any:
        if not texts or len(texts) >= self.max_batch:
            return self._call(kind, texts)
        with self._lock:
            self._in_flight += 1
            batch = self._pending[kind]
            leader = batch is None or len(batch.texts) + len(texts) > self.max_batch
            if batch is None or leader:
                batch = _Batch()
                self._pending[kind] = batch
            rows = batch.add(texts)
            batch.callers += 1
            if len(batch.texts) >= self.max_batch:
                self._grown.notify_all()
        try:
            if leader:
                self._lead(kind, batch)
            return batch.result(rows)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _lead(self, kind: Kind, batch: _Batch) -> None:
        """Waits for the batch to fill or its time to pass when other callers are in flight,
        then runs it and sets its outcome."""
        deadline = time.monotonic() + self.max_wait_s
        with self._lock:
            if self._in_flight > batch.callers:
                self.waited += 1
                self._grown.wait_for(
                    lambda: len(batch.texts) >= self.max_batch, deadline - time.monotonic()
                )
        with self._running:
            with self._lock:  # closed: later callers start the next batch
                if self._pending[kind] is batch:
                    self._pending[kind] = None
                size = len(batch.texts)
                self.batch_sizes[size] = self.batch_sizes.get(size, 0) + 1
            try:
                rows = self._call(kind, batch.texts)
                if _count(rows) != size:
                    raise ValueError(f"the embedder returned {_count(rows)} rows for {size} texts")
                batch.rows = rows
            # Not swallowed: every caller of the batch, the leader included, raises it.
            except BaseException as error:
                batch.error = error
            finally:
                batch.done.set()
