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

from hebbs._convert import invalid
from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_DIRECTION,
    DEFAULT_FORGET_LIMIT,
    DEFAULT_GRAPH_CONTEXT,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_LIST_PAGE,
    DEFAULT_PRIME_MAX_MEMORIES,
    DEFAULT_QUEUE_CAPACITY,
    DEFAULT_RERANK_TOP_N,
    DEFAULT_RRF_K,
    DEFAULT_TOMBSTONE_PAGE,
    DEFAULT_TOP_K,
    VECTOR_STRATEGIES,
    Edge,
    EdgeType,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryKind,
    MemoryPage,
    NativeEngine,
    PrimeOutput,
    RecallOutput,
    RecallStrategyConfig,
    ScoringWeights,
    Tombstone,
)
from hebbs.api import (
    DEFAULT_STRATEGIES,
    DEFAULT_TOKEN_VECTORS,
    AddEdgesRequest,
    ChatContextRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetManyRequest,
    GetRequest,
    IdRequest,
    IdsRequest,
    ListMemoriesRequest,
    ListRequest,
    OpenRequest,
    PrimeRequest,
    RecallRequest,
    RememberManyRequest,
    RememberRequest,
    ReviseRequest,
    SubscribeRequest,
    TombstonesRequest,
    parse,
    resolve_quality,
    to_scoring_weights,
)
from hebbs.embedder import Embedder, as_embedder
from hebbs.embedder.token_vectors import quantize_int8, token_embedder
from hebbs.errors import EmbeddingError, InvalidInputError, InvalidTypeError, NotFoundError
from hebbs.subscription import Subscription
from hebbs.types import MemoryIdLike, TimestampLike, TokenVectors, TokenVectorsItem

#: What ``embedder=`` accepts: None (the bundled model), an Embedder, or a callable
#: ``list[str] -> array [n, d]``.
EmbedderLike = Union[Embedder, Callable[[list[str]], Any], None]

#: What ``kind=`` accepts: a :class:`MemoryKind` or its name.
KindLike = Union[MemoryKind, str]

#: Strategies that read the cue's embedding: the cue is embedded only when one of them runs.
_VECTOR_STRATEGIES = frozenset(VECTOR_STRATEGIES)

#: One entry of ``recall(strategies=...)``: a strategy name or a per-strategy config.
StrategyLike = Union[str, RecallStrategyConfig]

#: A memory's int8 token vectors as the engine stores them: codes and one scale per token.
TokenPair = tuple[NDArray[np.int8], NDArray[np.float32]]


class Hebbs:
    """An open hebbs database, in this process.

    Open with :meth:`Hebbs.open`; use as a context manager or call :meth:`close`. Safe to share
    between threads: every engine call releases the GIL.
    """

    def __init__(
        self,
        native: NativeEngine,
        embedder: EmbedderLike = None,
        *,
        token_vectors: bool = DEFAULT_TOKEN_VECTORS,
    ) -> None:
        self._native = native
        self._token_vectors = token_vectors
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
        token_vectors: bool = DEFAULT_TOKEN_VECTORS,
    ) -> Hebbs:
        """Opens (creating if needed) the database in directory ``path``.

        ``embedder`` turns text into vectors: None uses the bundled all-MiniLM-L6-v2 (loaded on
        first use), or pass an :class:`~hebbs.embedder.Embedder` or any callable
        ``list[str] -> array [n, d]``. HNSW parameters default to M=16, ef_construction=200,
        ef_search=50. ``sync_writes`` fsyncs every write (survives power loss, slower).

        ``auto_forget_floor`` switches on the automatic decay pass (off by default): every
        ``auto_forget_interval`` (seconds or a timedelta, default one hour) a background thread
        forgets up to ``auto_forget_limit`` memories whose decay score is below the floor.

        ``token_vectors`` (on by default) stores each memory's int8 token vectors, taken from
        the embedding pass ``remember`` runs anyway (about 11 KB a memory with the bundled
        model), for the late-interaction re-rank stage of ``recall(quality="best")``; it needs
        an embedder that gives token vectors (an :class:`~hebbs.embedder.OnnxEmbedder`, as the
        bundled one) and applies to texts the embedder embeds, not to given embeddings.
        """
        arguments = {k: v for k, v in locals().items() if k not in ("cls", "embedder")}
        request = parse(OpenRequest, arguments)
        _check_embedder(embedder)
        native = NativeEngine(
            request.path,
            dimension=request.dimension,
            m=request.m,
            ef_construction=request.ef_construction,
            ef_search=request.ef_search,
            sync_writes=request.sync_writes,
            auto_forget_floor=request.auto_forget_floor,
            auto_forget_interval=request.auto_forget_interval,
            auto_forget_limit=request.auto_forget_limit,
        )
        return cls(native, embedder, token_vectors=request.token_vectors)

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

    def _embed_documents(
        self, texts: list[str]
    ) -> tuple[NDArray[np.float32], list[TokenPair] | None]:
        """The vectors of texts to store and, when the store keeps token vectors and the
        embedder gives them, their int8 token vectors from the same forward pass."""
        model = token_embedder(self.embedder) if self._token_vectors else None
        if model is None:
            return self._embed(texts, query=False), None
        pooled, tokens = self._embed_tokens(model.embed_with_tokens, texts, query=False)
        return pooled, [quantize_int8(matrix) for matrix in tokens]

    @staticmethod
    def _embed_tokens(
        run: Callable[..., tuple[NDArray[np.float32], list[NDArray[np.float32]]]],
        texts: list[str],
        *,
        query: bool,
    ) -> tuple[NDArray[np.float32], list[NDArray[np.float32]]]:
        try:
            return run(texts, query=query)
        except Exception as error:
            raise EmbeddingError(f"the embedder failed: {error}") from error

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
        request = parse(RememberRequest, locals())
        tokens: TokenPair | None = None
        if request.embedding is not None:
            vector = request.embedding
        else:
            vectors, pairs = self._embed_documents([request.content])
            vector, tokens = vectors[0], pairs[0] if pairs else None
        return self._native.remember(
            request.content, vector, **_stored_fields(request), token_vectors=tokens
        )

    def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Memory]:
        """Stores many memories with one embedding batch and one atomic write.

        Each item is a dict of :meth:`remember`'s keyword arguments (see
        :class:`hebbs.types.RememberItem`). Returns the memories in input order. If any item is
        invalid, nothing is stored.
        """
        requests = parse(RememberManyRequest, locals()).items
        if not requests:
            return []
        vectors: list[NDArray[np.float32] | None] = [item.embedding for item in requests]
        tokens: list[TokenPair | None] = [None] * len(requests)
        missing = [i for i, vector in enumerate(vectors) if vector is None]
        if missing:
            embedded, pairs = self._embed_documents([requests[i].content for i in missing])
            for j, i in enumerate(missing):
                vectors[i] = embedded[j]
                tokens[i] = pairs[j] if pairs else None
        rows = [
            {"content": item.content, **_stored_fields(item), "token_vectors": pair}
            for item, pair in zip(requests, tokens)
        ]
        dims = {vector.shape[0] for vector in vectors if vector is not None}
        if len(dims) != 1:
            raise invalid("items", f"embeddings of different dimensions {sorted(dims)}")
        matrix = np.stack([vector for vector in vectors if vector is not None])
        return self._native.remember_many(rows, matrix)

    def get(self, id: MemoryIdLike, include_embedding: bool = False) -> Memory:
        """The memory with ``id``; raises :class:`~hebbs.errors.NotFoundError`."""
        request = parse(GetRequest, locals())
        return self._native.get(request.id, include_embedding=request.include_embedding)

    def get_many(
        self, ids: Sequence[MemoryIdLike], include_embedding: bool = False
    ) -> list[Memory | None]:
        """The memories with ``ids``, in their order: None where one does not exist (a
        malformed id still raises :class:`~hebbs.errors.InvalidInputError` naming
        ``ids[i]``)."""
        request = parse(GetManyRequest, locals())
        found: list[Memory | None] = []
        for index, id in enumerate(request.ids):
            try:
                found.append(self._native.get(id, include_embedding=request.include_embedding))
            except NotFoundError:
                found.append(None)
            except InvalidInputError as error:
                raise invalid(f"ids[{index}]", error.reason, type(error)) from None
        return found

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
        direction: str = DEFAULT_DIRECTION,
        analogical_alpha: float = DEFAULT_ANALOGICAL_ALPHA,
        cue_context: Mapping[str, Any] | None = None,
        rrf_k: int = DEFAULT_RRF_K,
        min_relevance: float | None = None,
        graph_context: int = DEFAULT_GRAPH_CONTEXT,
        session_id: str | None = None,
        force_regex: bool = False,
        include_superseded: bool = False,
        rerank: str | None = None,
        rerank_top_n: int = DEFAULT_RERANK_TOP_N,
        cue_token_vectors: Any = None,
        quality: str | None = None,
    ) -> RecallOutput:
        """Recalls memories for ``cue`` with one or more strategies, run in parallel.

        ``strategies`` holds names (``similarity``, ``temporal``, ``causal``, ``analogical``,
        ``hybrid``, ``keyword``, ``regex``: ``hebbs._native.STRATEGIES``) or
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

        ``rerank="late_interaction"`` re-scores the first ``rerank_top_n`` ranked candidates
        by IDF-weighted max-sim of the cue's token vectors (from the same forward pass as its
        vector, or ``cue_token_vectors``) against the memories' stored token vectors, plus the
        turns around each one in its conversation (``session_id`` at remember time) and the
        entity and the month or year the cue names, and re-orders them by that score (each
        result's ``scores["rerank"]``; ``score`` stays the composite). ``quality="best"`` is
        the measured best setting: ``strategies=["hybrid"]``, that re-rank, relevance-only
        weights, each unless given (docs/hybrid.md).

        A strategy whose own input is missing (``temporal`` without ``entity_id``, a strategy
        that reads vectors without a cue) is reported in ``strategy_errors`` while the others
        answer; only if every strategy fails does the call raise.
        """
        request = resolve_quality(parse(RecallRequest, locals()))
        items = ["regex"] if request.force_regex else request.strategies
        names = _strategy_names(items)
        cue_tokens = request.cue_token_vectors
        if request.rerank == "late_interaction" and cue_tokens is None:
            vector, cue_tokens = self._cue_with_tokens(request.cue, request.cue_embedding)
        else:
            vector = self._cue_vector(request.cue, request.cue_embedding, names)
        return self._native.recall(
            vector,
            strategies=items,
            top_k=request.top_k,
            entity_id=request.entity_id,
            time_range=request.time_range,
            ef_search=request.ef_search,
            scoring_weights=to_scoring_weights(request.scoring_weights),
            rerank=request.rerank,
            rerank_top_n=request.rerank_top_n,
            cue_token_vectors=cue_tokens,
            include_embedding=request.include_embedding,
            seed_memory_id=request.seed_memory_id,
            edge_types=request.edge_types,
            max_depth=request.max_depth,
            direction=request.direction,
            analogical_alpha=request.analogical_alpha,
            cue_context=request.cue_context,
            cue_text=request.cue,
            rrf_k=request.rrf_k,
            min_relevance=request.min_relevance,
            graph_context=request.graph_context,
            session_id=request.session_id,
            include_superseded=request.include_superseded,
        )

    def add_edges(self, id: MemoryIdLike, edges: Sequence[Edge]) -> None:
        """Adds edges from memory ``id`` to existing memories, stored in both directions. All
        or nothing: a missing target raises :class:`~hebbs.errors.InvalidInputError` naming
        ``edges[i].target``."""
        request = parse(AddEdgesRequest, locals())
        self._native.add_edges(request.id, request.edges)

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
        return self._native.get_token_vectors(parse(IdsRequest, locals()).ids)

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
        request = parse(ReviseRequest, locals())
        vector = request.embedding
        tokens: TokenPair | None = None
        if vector is None and request.content is not None:
            vectors, pairs = self._embed_documents([request.content])
            vector, tokens = vectors[0], pairs[0] if pairs else None
        return self._native.revise(
            request.id,
            content=request.content,
            embedding=vector,
            importance=request.importance,
            context=request.context,
            entity_id=request.entity_id,
            token_vectors=tokens,
        )

    def lineage(self, id: MemoryIdLike) -> list[Memory]:
        """The revision chain through ``id``, oldest first."""
        return self._native.lineage(parse(IdRequest, locals()).id)

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
        request = parse(ForgetRequest, locals())
        return self._native.forget(
            ids=request.ids,
            entity_id=request.entity_id,
            older_than=request.older_than,
            importance_below=request.importance_below,
            kind=request.kind,
            purge=request.purge,
            limit=DEFAULT_FORGET_LIMIT if request.limit is None else request.limit,
        )

    def forget_decayed(self, floor: float, limit: int | None = None) -> ForgetResult:
        """Forgets up to ``limit`` memories whose decay score is below ``floor``."""
        request = parse(ForgetDecayedRequest, locals())
        limit = DEFAULT_FORGET_LIMIT if request.limit is None else request.limit
        return self._native.forget_decayed(request.floor, limit=limit)

    def tombstone(self, id: MemoryIdLike) -> Tombstone | None:
        """The tombstone of forgotten memory ``id``, or None."""
        return self._native.tombstone(parse(IdRequest, locals()).id)

    def tombstones(
        self, after: MemoryIdLike | None = None, limit: int = DEFAULT_TOMBSTONE_PAGE
    ) -> list[Tombstone]:
        """Up to ``limit`` tombstones in id order; pass the last id as ``after`` for the next
        page."""
        request = parse(TombstonesRequest, locals())
        return self._native.tombstones(after=request.after, limit=request.limit)

    def get_chat_context(self, session_id: str, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """The memories conversation ``session_id`` touched (remembered with it, or returned
        by a recall that named it), in the order of their first touch."""
        request = parse(ChatContextRequest, locals())
        return self._native.chat_context(request.session_id, limit=request.limit)

    def list_orphans(self, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """Memories with no edge in either direction, newest first: candidates to connect."""
        return self._native.list_orphans(limit=parse(ListRequest, locals()).limit)

    def list_memories(
        self,
        entity_id: str | None = None,
        kind: KindLike | None = None,
        cursor: MemoryIdLike | None = None,
        limit: int = DEFAULT_LIST_PAGE,
        include_superseded: bool = False,
    ) -> MemoryPage:
        """One page of the stored memories, oldest first: every memory in id order (the order
        they were stored), or with ``entity_id`` that entity's timeline by ``created_at``.
        ``kind`` keeps one kind; superseded revisions are left out unless
        ``include_superseded``. Pass the page's ``next_cursor`` as ``cursor`` for the next page;
        the listing is complete when it is None (a page may be short, even empty, before
        that). Listing is not recall: access counts are unchanged."""
        request = parse(ListMemoriesRequest, locals())
        return self._native.list_memories(
            entity_id=request.entity_id,
            kind=request.kind,
            cursor=request.cursor,
            limit=request.limit,
            include_superseded=request.include_superseded,
        )

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
        request = parse(PrimeRequest, locals())
        vector = self._cue_vector(request.cue, request.cue_embedding, {"similarity"})
        return self._native.prime(
            request.entity_id,
            vector,
            max_memories=request.max_memories,
            time_range=request.time_range,
            ef_search=request.ef_search,
            scoring_weights=to_scoring_weights(request.scoring_weights),
            include_embedding=request.include_embedding,
        )

    def _cue_with_tokens(
        self, cue: str | None, cue_embedding: Any
    ) -> tuple[NDArray[np.float32] | None, NDArray[np.float32]]:
        """The cue's vector (``cue_embedding`` if given) and its token vectors, both from one
        forward pass of the embedder, for the late-interaction stage."""
        if cue is None or not cue.strip():
            raise invalid("cue", "the late_interaction re-rank needs the cue's text")
        model = token_embedder(self.embedder)
        if model is None:
            reason = (
                "needs an embedder that gives token vectors (OnnxEmbedder) or cue_token_vectors"
            )
            raise invalid("rerank", reason)
        pooled, tokens = self._embed_tokens(model.embed_with_tokens, [cue], query=True)
        vector: NDArray[np.float32] = cue_embedding if cue_embedding is not None else pooled[0]
        return vector, tokens[0]

    def _cue_vector(
        self, cue: str | None, cue_embedding: Any, names: set[str]
    ) -> NDArray[np.float32] | None:
        """The cue's vector: ``cue_embedding`` if given, else the embedded ``cue`` when a
        strategy that reads vectors runs. Without either, None: the engine reports each
        strategy that needed one in ``strategy_errors`` (and raises if none could run)."""
        if cue_embedding is not None:
            vector: NDArray[np.float32] = cue_embedding
            return vector
        if cue is not None and not cue.strip():
            raise invalid("cue", "must not be empty")
        if cue is not None and names & _VECTOR_STRATEGIES:
            vector = self._embed([cue], query=True)[0]
            return vector
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
        request = parse(SubscribeRequest, locals())
        vector = self._subscription_cue(request.cue, request.embedding)
        native = self._native.subscribe(
            vector,
            entity_id=request.entity_id,
            confidence_threshold=request.confidence_threshold,
            queue_capacity=request.queue_capacity,
        )
        return Subscription(native)

    def _subscription_cue(
        self, cue: str | None, embedding: NDArray[np.float32] | None
    ) -> NDArray[np.float32]:
        """``embedding`` as given, or ``cue`` embedded as a query; exactly one is required."""
        if embedding is not None:
            if cue is not None:
                raise invalid("embedding", "give a cue or an embedding, not both")
            return embedding
        if cue is None:
            raise invalid("cue", "a cue or an embedding is required")
        if not cue.strip():
            raise invalid("cue", "must not be empty")
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


def _stored_fields(request: RememberRequest) -> dict[str, Any]:
    """The native ``remember`` arguments of a checked request, but content and vector."""
    return {
        "importance": request.importance,
        "context": request.context,
        "entity_id": request.entity_id,
        "edges": request.edges,
        "created_at": request.created_at,
        "session_id": request.session_id,
        "kind": request.kind,
    }


def _check_embedder(embedder: object) -> None:
    """``embedder=`` is None, an :class:`Embedder` or a callable."""
    if embedder is not None and not isinstance(embedder, Embedder) and not callable(embedder):
        reason = "expected None, an Embedder or a callable list[str] -> [n, d]"
        raise invalid("embedder", reason, InvalidTypeError)


def _strategy_names(items: Sequence[StrategyLike]) -> set[str]:
    return {
        item.strategy if isinstance(item, RecallStrategyConfig) else item.lower() for item in items
    }
