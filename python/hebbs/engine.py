"""`Hebbs`: the embedded engine. It embeds text with the configured embedder and hands vectors
to the native core, which stores, indexes and recalls them with the GIL released."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, Callable, Union

import numpy as np
from numpy.typing import NDArray

from hebbs._convert import invalid, to_micros, to_time_range, to_vector, to_weights
from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_FORGET_LIMIT,
    DEFAULT_GRAPH_CONTEXT,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_PRIME_MAX_MEMORIES,
    DEFAULT_QUEUE_CAPACITY,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
    Edge,
    EdgeType,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryKind,
    NativeEngine,
    PrimeOutput,
    RecallOutput,
    RecallStrategyConfig,
    ScoringWeights,
    Tombstone,
)
from hebbs.embedder import Embedder, as_embedder
from hebbs.errors import EmbeddingError
from hebbs.subscription import Subscription
from hebbs.types import MemoryIdLike, TimestampLike, TokenVectors, TokenVectorsItem

#: What ``embedder=`` accepts: None (the bundled model), an Embedder, or a callable
#: ``list[str] -> array [n, d]``.
EmbedderLike = Union[Embedder, Callable[[list[str]], Any], None]

#: Strategies run when ``recall`` is not told otherwise.
DEFAULT_STRATEGIES: tuple[str, ...] = ("similarity",)
#: Tombstones one ``tombstones`` call returns when not told otherwise.
DEFAULT_TOMBSTONE_PAGE = 100
#: What ``kind=`` accepts: a :class:`MemoryKind` or its name.
KindLike = Union[MemoryKind, str]

#: Strategies that never read the cue's embedding.
_TEXT_ONLY_STRATEGIES = frozenset({"temporal", "keyword", "regex"})

#: One entry of ``recall(strategies=...)``: a strategy name or a per-strategy config.
StrategyLike = Union[str, RecallStrategyConfig]


class Hebbs:
    """An open hebbs database, in this process.

    Open with :meth:`Hebbs.open`; use as a context manager or call :meth:`close`. Safe to share
    between threads: every engine call releases the GIL.
    """

    def __init__(self, native: NativeEngine, embedder: EmbedderLike = None) -> None:
        self._native = native
        self._embedder_arg = embedder
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        embedder: EmbedderLike = None,
        dimension: int | None = None,
        m: int | None = None,
        ef_construction: int | None = None,
        ef_search: int | None = None,
        sync_writes: bool = False,
        auto_forget_floor: float | None = None,
        auto_forget_interval: float | timedelta | None = None,
        auto_forget_limit: int | None = None,
    ) -> Hebbs:
        """Opens (creating if needed) the database in directory ``path``.

        ``embedder`` turns text into vectors: None uses the bundled all-MiniLM-L6-v2 (loaded on
        first use), or pass an :class:`~hebbs.embedder.Embedder` or any callable
        ``list[str] -> array [n, d]``. HNSW parameters default to M=16, ef_construction=200,
        ef_search=50. ``sync_writes`` fsyncs every write (survives power loss, slower).

        ``auto_forget_floor`` switches on the automatic decay pass (off by default): every
        ``auto_forget_interval`` (seconds or a timedelta, default one hour) a background thread
        forgets up to ``auto_forget_limit`` memories whose decay score is below the floor.
        """
        interval = (
            auto_forget_interval.total_seconds()
            if isinstance(auto_forget_interval, timedelta)
            else auto_forget_interval
        )
        native = NativeEngine(
            os.fspath(path),
            dimension=dimension,
            m=m,
            ef_construction=ef_construction,
            ef_search=ef_search,
            sync_writes=sync_writes,
            auto_forget_floor=auto_forget_floor,
            auto_forget_interval=interval,
            auto_forget_limit=auto_forget_limit,
        )
        return cls(native, embedder)

    @property
    def embedder(self) -> Embedder:
        """The embedder, created on first use."""
        if self._embedder is None:
            with self._embedder_lock:
                if self._embedder is None:
                    self._embedder = as_embedder(self._embedder_arg)
        return self._embedder

    def _embed(self, texts: list[str], *, query: bool) -> NDArray[np.float32]:
        embedder = self.embedder
        try:
            vectors = embedder.embed_query(texts) if query else embedder.embed(texts)
        except Exception as error:
            raise EmbeddingError(f"the embedder failed: {error}") from error
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbeddingError(
                f"the embedder returned shape {vectors.shape} for {len(texts)} texts"
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def remember(
        self,
        content: str,
        importance: float = DEFAULT_IMPORTANCE,
        context: Mapping[str, Any] | None = None,
        entity_id: str | None = None,
        edges: Sequence[Edge] = (),
        created_at: TimestampLike | None = None,
        embedding: Any = None,
        session_id: str | None = None,
        kind: KindLike | None = None,
    ) -> Memory:
        """Stores one memory and returns it. ``embedding`` skips the embedder; ``session_id``
        records it as part of that conversation (see :meth:`get_chat_context`). ``kind`` is
        ``episode`` (default) or ``insight``; revisions are made by :meth:`revise`."""
        _check_content(content, "content")
        vector = (
            to_vector(embedding, "embedding")
            if embedding is not None
            else self._embed([content], query=False)[0]
        )
        return self._native.remember(
            content,
            vector,
            importance=importance,
            context=dict(context) if context is not None else None,
            entity_id=entity_id,
            edges=list(edges),
            created_at=to_micros(created_at, "created_at"),
            session_id=session_id,
            kind=kind,
        )

    def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Memory]:
        """Stores many memories with one embedding batch and one atomic write.

        Each item is a dict of :meth:`remember`'s keyword arguments (see
        :class:`hebbs.types.RememberItem`). Returns the memories in input order. If any item is
        invalid, nothing is stored.
        """
        rows = [dict(item) for item in items]
        if not rows:
            return []
        for i, row in enumerate(rows):
            unknown = set(row) - _REMEMBER_KEYS
            if unknown:
                raise invalid(f"items[{i}]", f"unknown keys {sorted(unknown)}")
            _check_content(row.get("content"), f"items[{i}].content")
            row["created_at"] = to_micros(row.get("created_at"), f"items[{i}].created_at")
        missing = [i for i, row in enumerate(rows) if row.get("embedding") is None]
        given = [i for i, row in enumerate(rows) if row.get("embedding") is not None]
        vectors: list[NDArray[np.float32] | None] = [None] * len(rows)
        for i in given:
            vectors[i] = to_vector(rows[i].pop("embedding"), f"items[{i}].embedding")
        if missing:
            embedded = self._embed([rows[i]["content"] for i in missing], query=False)
            for j, i in enumerate(missing):
                vectors[i] = embedded[j]
        for row in rows:
            row.pop("embedding", None)
        dims = {vector.shape[0] for vector in vectors if vector is not None}
        if len(dims) != 1:
            raise invalid("items", f"embeddings of different dimensions {sorted(dims)}")
        matrix = np.stack([vector for vector in vectors if vector is not None])
        return self._native.remember_many(rows, matrix)

    def get(self, id: MemoryIdLike, include_embedding: bool = False) -> Memory:
        """The memory with ``id``; raises :class:`~hebbs.errors.NotFoundError`."""
        return self._native.get(id, include_embedding=include_embedding)

    def recall(
        self,
        cue: str | None = None,
        strategies: Sequence[StrategyLike] = DEFAULT_STRATEGIES,
        top_k: int = DEFAULT_TOP_K,
        entity_id: str | None = None,
        time_range: tuple[TimestampLike | None, TimestampLike | None] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | Mapping[str, float] | None = None,
        cue_embedding: Any = None,
        include_embedding: bool = False,
        *,
        seed_memory_id: MemoryIdLike | None = None,
        edge_types: Sequence[EdgeType | str] | None = None,
        max_depth: int = DEFAULT_CAUSAL_DEPTH,
        direction: str = "both",
        analogical_alpha: float = DEFAULT_ANALOGICAL_ALPHA,
        cue_context: Mapping[str, Any] | None = None,
        rrf_k: int = DEFAULT_RRF_K,
        min_relevance: float | None = None,
        graph_context: int = DEFAULT_GRAPH_CONTEXT,
        session_id: str | None = None,
        force_regex: bool = False,
        include_superseded: bool = False,
    ) -> RecallOutput:
        """Recalls memories for ``cue`` with one or more strategies, run in parallel.

        ``strategies`` holds names (``similarity``, ``temporal``, ``causal``, ``analogical``) or
        :class:`RecallStrategyConfig` objects that override this call's parameters for one
        strategy. ``similarity`` needs a cue (or ``cue_embedding``); ``temporal`` needs
        ``entity_id`` and takes an optional ``time_range``; ``causal`` walks the edge graph from
        ``seed_memory_id`` (default: the memory nearest the cue) up to ``max_depth`` hops
        (hard cap 10) along ``edge_types`` in ``direction`` (``causes``, ``effects`` or
        ``both``); ``analogical`` blends embedding similarity (weight ``analogical_alpha``)
        with structural similarity to ``cue_context`` (or to the seed memory, or the memory
        nearest the cue); ``hybrid`` fuses dense and BM25 searches by reciprocal rank
        (constant ``rrf_k``); ``keyword`` is BM25 alone. ``force_regex`` replaces the strategies
        with a bounded regular-expression scan of content and context, the cue being the
        pattern. Results are deduplicated, ranked by the composite score, and carry every
        strategy's details and up to ``graph_context`` of their strongest relationships
        (``expansion_context``). ``min_relevance`` drops weaker candidates and reports how many
        in ``below_threshold``. ``session_id`` records the returned memories for
        :meth:`get_chat_context`.
        Memories a revision superseded are left out unless ``include_superseded``.
        """
        if force_regex:
            strategies = ["regex"]
        if isinstance(strategies, (str, RecallStrategyConfig)):
            strategies = [strategies]
        items = list(strategies)
        for i, item in enumerate(items):
            if not isinstance(item, (str, RecallStrategyConfig)):
                raise invalid(f"strategies[{i}]", "expected a name or a RecallStrategyConfig")
        if cue_context is not None and not isinstance(cue_context, Mapping):
            raise invalid("cue_context", "must be a dict")
        vector = self._cue_vector(cue, cue_embedding, _strategy_names(items))
        return self._native.recall(
            vector,
            strategies=items,
            top_k=top_k,
            entity_id=entity_id,
            time_range=to_time_range(time_range),
            ef_search=ef_search,
            scoring_weights=to_weights(scoring_weights),
            include_embedding=include_embedding,
            seed_memory_id=seed_memory_id,
            edge_types=list(edge_types) if edge_types is not None else None,
            max_depth=max_depth,
            direction=direction,
            analogical_alpha=analogical_alpha,
            cue_context=dict(cue_context) if cue_context is not None else None,
            cue_text=cue,
            rrf_k=rrf_k,
            min_relevance=min_relevance,
            graph_context=graph_context,
            session_id=session_id,
            include_superseded=include_superseded,
        )

    def add_edges(self, id: MemoryIdLike, edges: Sequence[Edge]) -> None:
        """Adds edges from memory ``id`` to existing memories, stored in both directions. All
        or nothing: a missing target raises :class:`~hebbs.errors.InvalidInputError` naming
        ``edges[i].target``."""
        self._native.add_edges(id, list(edges))

    def put_token_vectors(self, items: Iterable[TokenVectorsItem]) -> None:
        """Stores the quantised per-token vectors of existing memories (what a
        late-interaction re-ranker matches against; see
        :class:`hebbs.rerank.TokenVectorCache`), replacing any stored before. Each item is
        ``(id, codes, scales)``: int8 codes ``[tokens, dimension]`` and one positive float32
        scale per token. Durable; forget deletes them with the memory. All or nothing: a bad
        shape or an unknown id raises :class:`~hebbs.errors.InvalidInputError` naming
        ``items[i].codes``, ``items[i].scales``, ``items[i].dimension`` or ``items[i].id``."""
        self._native.put_token_vectors(list(items))

    def get_token_vectors(self, ids: Sequence[MemoryIdLike]) -> list[TokenVectors | None]:
        """The stored ``(codes, scales)`` of each of ``ids`` in one read, None where none are
        stored."""
        if isinstance(ids, (str, bytes)):
            raise invalid("ids", "expected a list of ids, not a single id")
        return self._native.get_token_vectors(list(ids))

    def revise(
        self,
        id: MemoryIdLike,
        content: str | None = None,
        importance: float | None = None,
        context: Mapping[str, Any] | None = None,
        embedding: Any = None,
        entity_id: str | None = None,
    ) -> Memory:
        """Stores a revision of memory ``id`` and returns it.

        The revision (kind ``revision``) supersedes ``id``: recall leaves ``id`` out unless
        ``include_superseded``. Fields left None are inherited; new ``content`` is embedded
        with the embedder unless ``embedding`` is given, and without new content the old
        vector is kept.
        """
        vector = None
        if embedding is not None:
            vector = to_vector(embedding, "embedding")
        elif content is not None:
            _check_content(content, "content")
            vector = self._embed([content], query=False)[0]
        return self._native.revise(
            id,
            content=content,
            embedding=vector,
            importance=importance,
            context=dict(context) if context is not None else None,
            entity_id=entity_id,
        )

    def lineage(self, id: MemoryIdLike) -> list[Memory]:
        """The revision chain through ``id``, oldest first."""
        return self._native.lineage(id)

    def forget(
        self,
        ids: Sequence[MemoryIdLike] | None = None,
        entity_id: str | None = None,
        older_than: TimestampLike | None = None,
        importance_below: float | None = None,
        kind: KindLike | None = None,
        purge: bool = False,
        limit: int | None = None,
    ) -> ForgetResult:
        """Forgets memories, with everything derived from them.

        The selectors are AND-combined and at least one is needed: ``ids``, ``entity_id``
        (erasure of everything about the entity), ``older_than`` (created before),
        ``importance_below``, ``kind``. At most ``limit`` memories go per call (default
        ``DEFAULT_FORGET_LIMIT``); ``truncated`` in the result says to call again. Vectors,
        edges both ways, access counters, the timeline entry and insights derived from a
        forgotten memory go too; each erased memory leaves a tombstone (a hash of the content,
        never the content). ``purge`` also compacts the store so the bytes leave the disk.
        """
        if isinstance(ids, (str, bytes)):
            raise invalid("ids", "expected a list of ids, not a single id")
        return self._native.forget(
            ids=None if ids is None else list(ids),
            entity_id=entity_id,
            older_than=to_micros(older_than, "older_than"),
            importance_below=importance_below,
            kind=kind,
            purge=purge,
            limit=_count(limit, "limit"),
        )

    def forget_decayed(self, floor: float, limit: int | None = None) -> ForgetResult:
        """Forgets up to ``limit`` memories whose decay score is below ``floor``."""
        if isinstance(floor, bool) or not isinstance(floor, (int, float)):
            raise invalid("floor", "must be a number")
        return self._native.forget_decayed(float(floor), limit=_count(limit, "limit"))

    def tombstone(self, id: MemoryIdLike) -> Tombstone | None:
        """The tombstone of forgotten memory ``id``, or None."""
        return self._native.tombstone(id)

    def tombstones(
        self, after: MemoryIdLike | None = None, limit: int = DEFAULT_TOMBSTONE_PAGE
    ) -> list[Tombstone]:
        """Up to ``limit`` tombstones in id order; pass the last id as ``after`` for the next
        page."""
        return self._native.tombstones(after=after, limit=_count(limit, field="limit"))

    def get_chat_context(self, session_id: str, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """The memories conversation ``session_id`` touched (remembered with it, or returned
        by a recall that named it), in the order of their first touch."""
        return self._native.chat_context(session_id, limit=limit)

    def list_orphans(self, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """Memories with no edge in either direction, newest first: candidates to connect."""
        return self._native.list_orphans(limit=limit)

    def prime(
        self,
        entity_id: str,
        cue: str | None = None,
        max_memories: int = DEFAULT_PRIME_MAX_MEMORIES,
        time_range: tuple[TimestampLike | None, TimestampLike | None] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | Mapping[str, float] | None = None,
        cue_embedding: Any = None,
        include_embedding: bool = False,
    ) -> PrimeOutput:
        """Warms an agent's context for ``entity_id``: its most recent memories blended with
        its memories nearest ``cue`` (when given), ranked by the composite score.
        :class:`PrimeOutput` says how many results each part found."""
        vector = None
        if cue_embedding is not None:
            vector = to_vector(cue_embedding, "cue_embedding")
        elif cue is not None:
            vector = self._cue_vector(cue, None, {"similarity"})
        return self._native.prime(
            entity_id,
            vector,
            max_memories=max_memories,
            time_range=to_time_range(time_range),
            ef_search=ef_search,
            scoring_weights=to_weights(scoring_weights),
            include_embedding=include_embedding,
        )

    def _cue_vector(
        self, cue: str | None, cue_embedding: Any, names: set[str]
    ) -> NDArray[np.float32] | None:
        """The cue's vector: ``cue_embedding`` if given, else the embedded ``cue`` when a
        strategy that reads vectors runs. Similarity cannot run without one."""
        if cue_embedding is not None:
            return to_vector(cue_embedding, "cue_embedding")
        if cue is not None and names - _TEXT_ONLY_STRATEGIES:
            if not isinstance(cue, str) or not cue.strip():
                raise invalid("cue", "must be a non-empty str")
            vector: NDArray[np.float32] = self._embed([cue], query=True)[0]
            return vector
        if "similarity" in names:
            raise invalid("cue", "the similarity strategy needs a non-empty cue")
        return None

    def subscribe(
        self,
        cue: str | None = None,
        *,
        embedding: Any = None,
        entity_id: str | None = None,
        confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD,
        queue_capacity: int = DEFAULT_QUEUE_CAPACITY,
    ) -> Subscription:
        """Opens a standing query: every memory remembered from now on whose cosine similarity
        to ``cue`` (embedded like a recall cue; or pass ``embedding``) reaches
        ``confidence_threshold`` is pushed to the returned :class:`~hebbs.Subscription`, in
        commit order. ``entity_id`` restricts it to one entity. A consumer more than
        ``queue_capacity`` pushes behind loses the oldest (see :attr:`Subscription.dropped`).
        """
        vector = self._subscription_cue(cue, embedding)
        native = self._native.subscribe(
            vector,
            entity_id=entity_id,
            confidence_threshold=confidence_threshold,
            queue_capacity=queue_capacity,
        )
        return Subscription(native)

    def _subscription_cue(self, cue: str | None, embedding: Any) -> NDArray[np.float32]:
        """``embedding`` as given, or ``cue`` embedded as a query; exactly one is required."""
        if embedding is not None:
            if cue is not None:
                raise invalid("embedding", "give a cue or an embedding, not both")
            return to_vector(embedding, "embedding")
        if cue is None:
            raise invalid("cue", "a cue or an embedding is required")
        _check_content(cue, "cue")
        vector: NDArray[np.float32] = self._embed([cue], query=True)[0]
        return vector

    def health(self) -> HealthStatus:
        """Serving state, version, memory count and uptime."""
        return self._native.health()

    def optimize(self) -> None:
        """Finishes the vector index work that otherwise runs in the background (pending
        vectors into the graph, the graph's flat search copy), so the next recalls run at full
        speed. Call it after a bulk load; index inserts wait while it runs."""
        self._native.optimize()

    def checkpoint(self) -> None:
        """Writes the vector index checkpoint now (``close`` does it too)."""
        self._native.checkpoint()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return bool(self._native.closed)

    def close(self) -> None:
        """Checkpoints the index, flushes and releases the database. Idempotent."""
        self._native.close()

    def __enter__(self) -> Hebbs:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_REMEMBER_KEYS = frozenset(
    {
        "content",
        "importance",
        "context",
        "entity_id",
        "edges",
        "created_at",
        "embedding",
        "session_id",
        "kind",
    }
)


def _check_content(content: object, field: str) -> None:
    if not isinstance(content, str):
        raise invalid(field, "must be a str")
    if not content.strip():
        raise invalid(field, "must not be empty")


def _strategy_names(items: Sequence[StrategyLike]) -> set[str]:
    return {
        item.strategy if isinstance(item, RecallStrategyConfig) else item.lower() for item in items
    }


def _count(value: object, field: str) -> int:
    """A positive int (``None`` means :data:`DEFAULT_FORGET_LIMIT`)."""
    if value is None:
        return DEFAULT_FORGET_LIMIT
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(field, "must be an int")
    if value < 1:
        raise invalid(field, f"{value} is not positive")
    return value
