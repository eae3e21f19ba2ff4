"""`Hebbs`: the embedded engine. It embeds text with the configured embedder and hands vectors
to the native core, which stores, indexes and recalls them with the GIL released."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any, Callable, Final, Optional, Union

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
    DEFAULT_TOKEN_VECTORS,
    AddEdgesRequest,
    ChatContextRequest,
    CommitInsight,
    ConfirmContradictionRequest,
    FindContradictionsRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetManyRequest,
    GetRequest,
    IdRequest,
    IdsRequest,
    IndexDocumentsRequest,
    InsightsRequest,
    ListMemoriesRequest,
    ListRequest,
    OpenRequest,
    PrimeRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    RememberManyRequest,
    RememberRequest,
    ReviseRequest,
    SubscribeRequest,
    TombstonesRequest,
    by_keyword,
    parse,
    resolve_quality,
    to_scoring_weights,
)
from hebbs.consolidate import ContradictionCandidate, contradictions
from hebbs.consolidate.constants import (
    DEFAULT_CONTRADICTION_LIMIT,
    DEFAULT_CONTRADICTION_SCAN,
    DEFAULT_CONTRADICTION_SIMILARITY,
    DEFAULT_DEDUP_THRESHOLD,
    RESOLUTIONS,
)
from hebbs.consolidate.dedup import duplicate_of
from hebbs.embedder import Embedder, as_embedder
from hebbs.embedder.token_vectors import quantize_int8, token_embedder
from hebbs.errors import EmbeddingError, InvalidInputError, InvalidTypeError, NotFoundError
from hebbs.index import IndexResult
from hebbs.index import pipeline as index_pipeline
from hebbs.llm import LLMProvider, provider_from_env
from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession
from hebbs.reflect import agent as reflect_agent
from hebbs.reflect import insights as reflect_insights
from hebbs.reflect import pipeline as reflect_pipeline
from hebbs.reflect.constants import (
    DEFAULT_MIN_CLUSTER_SIZE,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_MAX_MEMORIES,
    DEFAULT_SESSION_TTL_S,
)
from hebbs.reflect.trigger import ReflectTrigger
from hebbs.subscription import Subscription
from hebbs.types import MemoryIdLike, TimestampLike, TokenVectors, TokenVectorsItem

#: What ``embedder=`` accepts: None (the bundled model), an Embedder, or a callable
#: ``list[str] -> array [n, d]``.
EmbedderLike = Union[Embedder, Callable[[list[str]], Any], None]

#: What ``kind=`` accepts: a :class:`MemoryKind` or its name.
KindLike = Union[MemoryKind, str]

#: Strategies that read the cue's embedding: the cue is embedded only when one of them runs.
_VECTOR_STRATEGIES = frozenset(VECTOR_STRATEGIES)

#: Threads that run organizations' recalls in parallel with their members' recalls.
ORGANIZATION_THREADS: Final = 8

#: One entry of ``recall(strategies=...)``: a strategy name or a per-strategy config.
StrategyLike = Union[str, RecallStrategyConfig]

#: A memory's int8 token vectors as the engine stores them: codes and one scale per token.
TokenPair = tuple[NDArray[np.int8], NDArray[np.float32]]

#: A recall cue as the engine takes it: the pooled vector and, for the late-interaction stage,
#: the token vectors (each None when not needed).
Cue = tuple[Optional[NDArray[np.float32]], Optional[NDArray[np.float32]]]


def _recall_checked(member: Hebbs, request: RecallRequest) -> RecallOutput:
    """:meth:`Hebbs.recall` of a checked request: also on the organization's store when the
    request includes it."""
    organization = None
    if request.include_organization:
        if member._organization is None:
            reason = "this store was opened without one (Hebbs.open(..., organization=PATH))"
            raise invalid("include_organization", reason)
        organization = member._organization
    return recall_with(member, organization, request)


class Hebbs:
    """An open hebbs database, in this process.

    Open with :meth:`Hebbs.open`; use as a context manager or call :meth:`close`. Safe to share
    between threads: every engine call releases the GIL.
    """

    def __init__(
        self,
        native: NativeEngine,
        embedder: EmbedderLike = None,
        organization: Hebbs | None = None,
        llm: LLMProvider | None = None,
        *,
        token_vectors: bool = DEFAULT_TOKEN_VECTORS,
    ) -> None:
        self._native = native
        self._token_vectors = token_vectors
        self._embedder_arg = embedder
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()
        self._organization = organization
        self._llm = llm
        self._reflect_lock = threading.Lock()
        self._trigger: ReflectTrigger | None = None

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
        organization: str | os.PathLike[str] | None = None,
        llm: LLMProvider | None = None,
        reflect_after_memories: int | None = None,
        reflect_interval: float | timedelta | None = None,
        token_vectors: bool = DEFAULT_TOKEN_VECTORS,
        vector_format: str | None = None,
    ) -> Hebbs:
        """Opens (creating if needed) the database in directory ``path``.

        ``embedder`` turns text into vectors: None uses the bundled all-MiniLM-L6-v2 (loaded on
        first use), or pass an :class:`~hebbs.embedder.Embedder` or any callable
        ``list[str] -> array [n, d]``. HNSW parameters default to M=16, ef_construction=200,
        ef_search=50. ``sync_writes`` fsyncs every write (survives power loss, slower).
        ``vector_format`` ``"int8"`` holds the vectors in memory as 8-bit codes, 4x smaller, the
        final candidates re-scored exactly (docs/scale.md); None keeps the store's (``"f32"``
        for a new store), and another format rebuilds the vector index in it.

        ``auto_forget_floor`` switches on the automatic decay pass (off by default): every
        ``auto_forget_interval`` (seconds or a timedelta, default one hour) a background thread
        forgets up to ``auto_forget_limit`` memories whose decay score is below the floor.

        ``organization`` opens a second store, the organization's memory, beside this one:
        ``recall(..., include_organization=True)`` then runs the same recall against it in
        parallel and returns its answer as ``organization_memory``. This store never writes to
        it (write with a store opened on that path itself); :meth:`close` closes both.

        ``llm`` is the provider :meth:`reflect` thinks with (a :mod:`hebbs.llm` provider); None
        reads the environment (:func:`hebbs.llm.provider_from_env`: offline unless
        ``HEBBS_LLM_PROVIDER`` says otherwise). ``reflect_after_memories`` and / or
        ``reflect_interval`` start the background reflection: a thread that runs
        :meth:`reflect` once the store has that many more memories, or that many seconds
        passed (off the write path; stopped by :meth:`close`).

        ``token_vectors`` (on by default) stores each memory's int8 token vectors, taken from
        the embedding pass ``remember`` runs anyway (about 11 KB a memory with the bundled
        model), for the late-interaction re-rank stage of ``recall(quality="best")``; it needs
        an embedder that gives token vectors (an :class:`~hebbs.embedder.OnnxEmbedder`, as the
        bundled one) and applies to texts the embedder embeds, not to given embeddings.
        """
        arguments = {k: v for k, v in locals().items() if k not in ("cls", "embedder", "llm")}
        request = parse(OpenRequest, arguments)
        _check_embedder(embedder)
        _check_llm(llm)
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
            vector_format=request.vector_format,
        )
        organization_store = None
        if request.organization is not None:
            try:
                organization_store = cls.open(request.organization, embedder=embedder)
            except BaseException:
                native.close()
                raise
        engine = cls(
            native,
            embedder,
            organization=organization_store,
            llm=llm,
            token_vectors=request.token_vectors,
        )
        if request.reflect_after_memories is not None or request.reflect_interval is not None:
            engine._trigger = ReflectTrigger(
                engine, request.reflect_after_memories, request.reflect_interval
            )
        return engine

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
        dedup: bool = False,
        dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD,
    ) -> Memory:
        """Stores one memory and returns it. ``embedding`` skips the embedder; ``session_id``
        records it as part of that conversation (see :meth:`get_chat_context`). ``kind`` is
        ``episode`` (default), ``insight``, ``document`` or ``proposition``; revisions are made
        by :meth:`revise`.

        With ``dedup``, a live memory of the same entity whose cosine reaches
        ``dedup_threshold`` and whose content already holds every word and number of
        ``content`` is returned instead, reinforced (one access recorded), and nothing is
        stored (see :mod:`hebbs.consolidate.dedup`)."""
        request = parse(RememberRequest, locals())
        tokens: TokenPair | None = None
        if request.embedding is not None:
            vector = request.embedding
        else:
            vectors, pairs = self._embed_documents([request.content])
            vector, tokens = vectors[0], pairs[0] if pairs else None
        if request.dedup:
            found = duplicate_of(
                self._native, vector, request.content, request.entity_id, request.dedup_threshold
            )
            if found is not None:
                return found
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
        return self._native.remember_many(*self._remember_rows(requests))

    def _remember_rows(
        self, requests: Sequence[RememberRequest]
    ) -> tuple[list[dict[str, Any]], NDArray[np.float32]]:
        """The native rows and embedding matrix of parsed ``remember_many`` items (embedding
        the ones without a vector in one batch)."""
        for index, item in enumerate(requests):
            if item.dedup:
                raise invalid(f"items[{index}].dedup", "dedup applies to remember one at a time")
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
        return rows, matrix

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

    @by_keyword(RecallRequest, _recall_checked)
    def recall(
        self,
        cue: str | None = None,
        strategies: Sequence[StrategyLike] | None = None,
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
        include_organization: bool = False,
        rerank: str | None = None,
        rerank_top_n: int = DEFAULT_RERANK_TOP_N,
        cue_token_vectors: Any = None,
        quality: str | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> RecallOutput:
        """Recalls memories for ``cue``: by default the best pipeline, or the strategies named.

        Without ``strategies``, a cue runs the default pipeline (docs/hybrid.md): dense and
        BM25 searches fused by reciprocal rank (``hybrid``), then the late-interaction stage
        re-scores the ``rerank_top_n`` most relevant candidates: IDF-weighted max-sim of the
        cue's token vectors (from the same forward pass as its vector, or
        ``cue_token_vectors``) against the memories' stored token vectors, plus the turns
        around each one in its conversation (``session_id`` at remember time) and the entity
        and the month or year the cue names. That score, calibrated to 0..1, is each result's
        relevance, and results are ordered by seed 000's composite score
        (``scoring_weights``): ``result.scores`` shows the four signals it combines. A cue
        given only as ``cue_embedding`` runs ``similarity``. ``quality="fast"`` skips the stage;
        ``quality="best"`` ranks by relevance alone. Each preset fills only what the call leaves
        unset.

        ``strategies`` holds names (``similarity``, ``temporal``, ``causal``, ``analogical``,
        ``hybrid``, ``keyword``, ``regex``: ``hebbs._native.STRATEGIES``) or
        :class:`RecallStrategyConfig` objects that override this call's parameters for one
        strategy; naming them runs them without the stage (unless ``rerank`` asks for it).
        ``similarity`` (the raw cosine path, for the tightest latency budgets) needs a cue (or
        ``cue_embedding``); ``temporal`` needs
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
        ``include_organization`` runs the same recall against the organization's store (see
        :meth:`open`) in parallel and returns its answer as ``organization_memory``.
        ``filter`` narrows every strategy to the memories it selects, in the filter language of
        docs/filters.md: ``{"context.channel": "email", "context.priority": {"$gte": 2}}``.

        A strategy whose own input is missing (``temporal`` without ``entity_id``, a strategy
        that reads vectors without a cue) is reported in ``strategy_errors`` while the others
        answer; only if every strategy fails does the call raise.
        """
        return _recall_checked(self, parse(RecallRequest, locals()))

    def _cue(self, request: RecallRequest) -> Cue:
        """The cue's vector (see :meth:`_cue_vector`) and, for the late-interaction stage, its
        token vectors from the same forward pass (unless the request brings them)."""
        items = ["regex"] if request.force_regex else request.strategies or ()
        cue_tokens = request.cue_token_vectors
        if request.rerank == "late_interaction" and cue_tokens is None:
            vector, cue_tokens = self._cue_with_tokens(request.cue, request.cue_embedding)
        else:
            vector = self._cue_vector(request.cue, request.cue_embedding, items)
        return vector, cue_tokens

    def _recall(self, request: RecallRequest, cue: Cue, *, member: bool) -> RecallOutput:
        """The native recall of a checked request with the ``cue`` of :meth:`_cue`; as an
        organization's store (``member`` False) it writes nothing: no chat context, no access
        (a member's read never changes the organization's reinforcement or decay).

        Only the fields the request sets are passed (their defaults are the native call's, both
        read from the same constants), so a typical call converts four arguments, not 23."""
        vector, cue_tokens = cue
        given = request.model_fields_set
        arguments: dict[str, Any] = {
            name: getattr(request, name) for name in _NATIVE_RECALL_FIELDS.intersection(given)
        }
        if request.force_regex:
            arguments["strategies"] = ["regex"]
        if request.scoring_weights is not None:
            arguments["scoring_weights"] = to_scoring_weights(request.scoring_weights)
        if request.cue is not None:
            arguments["cue_text"] = request.cue
        if cue_tokens is not None:
            arguments["cue_token_vectors"] = cue_tokens
        if not member:
            arguments.pop("session_id", None)
            arguments["record_access"] = False
        return self._native.recall(vector, **arguments)

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
        filter: Mapping[str, Any] | None = None,
    ) -> ForgetResult:
        """Forgets memories, with everything derived from them.

        The selectors are AND-combined and at least one is needed: ``ids``, ``entity_id``
        (erasure of everything about the entity), ``older_than`` (created before),
        ``importance_below``, ``kind``, ``filter`` (docs/filters.md). At most ``limit``
        memories go per call (default ``DEFAULT_FORGET_LIMIT``); ``truncated`` in the result
        says to call again. Vectors,
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
            filter=request.filter,
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
        filter: Mapping[str, Any] | None = None,
    ) -> MemoryPage:
        """One page of the stored memories, oldest first: every memory in id order (the order
        they were stored), or with ``entity_id`` that entity's timeline by ``created_at``.
        ``kind`` keeps one kind and ``filter`` (docs/filters.md) what it selects; superseded
        revisions are left out unless ``include_superseded``. Pass the page's ``next_cursor``
        as ``cursor`` for the next page; the listing is complete when it is None (a page may
        be short, even empty, before that). Listing is not recall: access counts are
        unchanged."""
        request = parse(ListMemoriesRequest, locals())
        return self._native.list_memories(
            entity_id=request.entity_id,
            kind=request.kind,
            cursor=request.cursor,
            limit=request.limit,
            include_superseded=request.include_superseded,
            filter=request.filter,
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
        filter: Mapping[str, Any] | None = None,
    ) -> PrimeOutput:
        """Warms an agent's context for ``entity_id``: its most recent memories blended with
        its memories nearest ``cue`` (when given), ranked by the composite score; only those
        ``filter`` selects when given (docs/filters.md).
        :class:`PrimeOutput` says how many results each part found."""
        request = parse(PrimeRequest, locals())
        vector = self._cue_vector(request.cue, request.cue_embedding, ("similarity",))
        return self._native.prime(
            request.entity_id,
            vector,
            max_memories=request.max_memories,
            time_range=request.time_range,
            ef_search=request.ef_search,
            scoring_weights=to_scoring_weights(request.scoring_weights),
            include_embedding=request.include_embedding,
            filter=request.filter,
        )

    def _can_embed_cue_tokens(self) -> bool:
        """Whether this store keeps token vectors and its embedder gives a cue's: what the
        default recall's late-interaction stage needs."""
        return self._token_vectors and token_embedder(self.embedder) is not None

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
        if cue_embedding is not None:
            return self._given_cue(cue_embedding), tokens[0]
        vector: NDArray[np.float32] = pooled[0]
        return vector, tokens[0]

    def _given_cue(self, cue_embedding: NDArray[np.float32]) -> NDArray[np.float32]:
        """``cue_embedding`` if its dimension is the store's and its numbers are finite, else an
        error naming ``cue_embedding`` (the native call would name its own argument, ``cue``)."""
        dimension = self._native.dimension()
        if dimension is not None and cue_embedding.shape[0] != dimension:
            reason = f"dimension {cue_embedding.shape[0]} does not match the store's {dimension}"
            raise invalid("cue_embedding", reason)
        if not np.isfinite(cue_embedding).all():
            raise invalid("cue_embedding", "must hold finite numbers only")
        return cue_embedding

    def _cue_vector(
        self, cue: str | None, cue_embedding: Any, items: Sequence[StrategyLike]
    ) -> NDArray[np.float32] | None:
        """The cue's vector: ``cue_embedding`` if given, else the embedded ``cue`` when one of
        the strategies ``items`` reads vectors. Without either, None: the engine reports each
        strategy that needed one in ``strategy_errors`` (and raises if none could run)."""
        if cue_embedding is not None:
            return self._given_cue(cue_embedding)
        if cue is not None and not cue.strip():
            raise invalid("cue", "must not be empty")
        if cue is not None and _strategy_names(items) & _VECTOR_STRATEGIES:
            vector: NDArray[np.float32] = self._embed([cue], query=True)[0]
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
        filter: Mapping[str, Any] | None = None,
    ) -> Subscription:
        """Opens a standing query: every memory remembered from now on whose cosine similarity
        to ``cue`` (embedded like a recall cue; or pass ``embedding``) reaches
        ``confidence_threshold`` is pushed to the returned :class:`~hebbs.Subscription`, in
        commit order. ``entity_id`` restricts it to one entity, ``filter`` to the memories it
        selects (docs/filters.md). A consumer more than
        ``queue_capacity`` pushes behind loses the oldest (see :attr:`Subscription.dropped`).
        """
        request = parse(SubscribeRequest, locals())
        vector = self._subscription_cue(request.cue, request.embedding)
        native = self._native.subscribe(
            vector,
            entity_id=request.entity_id,
            confidence_threshold=request.confidence_threshold,
            queue_capacity=request.queue_capacity,
            filter=request.filter,
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

    def find_contradictions(
        self,
        entity_id: str | None = None,
        threshold: float = DEFAULT_CONTRADICTION_SIMILARITY,
        limit: int = DEFAULT_CONTRADICTION_LIMIT,
    ) -> list[ContradictionCandidate]:
        """Candidate contradictions for an LLM or an agent to judge: pairs of live memories of
        one entity (``entity_id``'s, or each entity's) whose cosine reaches ``threshold`` and
        whose texts look opposed (a negation, an antonym pair, other numbers), most similar
        first, at most ``limit``. Confirm one with :meth:`confirm_contradiction`."""
        request = parse(FindContradictionsRequest, locals())
        return contradictions.find(
            self._native,
            request.entity_id,
            request.threshold,
            DEFAULT_CONTRADICTION_SCAN,
            request.limit,
        )

    def confirm_contradiction(
        self, older_id: MemoryIdLike, newer_id: MemoryIdLike, resolution: str = "link"
    ) -> Memory:
        """Records that ``newer_id`` contradicts ``older_id``: ``"link"`` adds a
        ``contradicts`` edge from the newer memory to the older and returns the newer;
        ``"revise"`` revises the older memory with the newer one's content, importance and
        context, forgets the newer, and returns the revision."""
        request = parse(ConfirmContradictionRequest, locals())
        if request.resolution not in RESOLUTIONS:
            raise invalid("resolution", f"expected one of {', '.join(RESOLUTIONS)}")
        older_id, newer_id = request.older_id, request.newer_id
        older, newer = self._native.get(older_id), self._native.get(newer_id)
        if older.id == newer.id:
            raise invalid("newer_id", "is the same memory as older_id")
        if request.resolution == "link":
            return contradictions.link(self._native, older.id, newer.id)
        revision = self.revise(
            request.older_id,
            content=newer.content,
            importance=newer.importance,
            context=newer.context or None,
        )
        self._native.forget(ids=[newer.id])
        return revision

    def index_documents(
        self, paths: Sequence[str | os.PathLike[str]], progress: bool | None = None
    ) -> IndexResult:
        """Indexes Markdown and text files, or folders of them (``.md``, ``.markdown``,
        ``.txt``): one ``document`` memory per file and a ``proposition`` memory per
        statement, extracted by :attr:`llm` (offline: sentence segmentation and rule-based
        entities), each with its main entity as ``entity_id`` (normalised), a role triple in
        ``context`` and ``related_to`` / ``caused_by`` / ``followed_by`` edges. Incremental:
        unchanged files cost a hash, changed files replace only their changed sections, files
        gone from an indexed folder are forgotten. ``progress`` shows a bar (default: when
        stderr is a terminal). See ``docs/indexing.md``."""
        request = parse(IndexDocumentsRequest, locals())
        return index_pipeline.index_documents(self, self.llm, request.paths, request.progress)

    @property
    def llm(self) -> LLMProvider:
        """The LLM provider of :meth:`reflect`, from the environment when none was given."""
        if self._llm is None:
            self._llm = provider_from_env()
        return self._llm

    @property
    def reflect_trigger(self) -> ReflectTrigger | None:
        """The background reflection, when ``open`` started one."""
        return self._trigger

    def reflect(
        self,
        entity_id: str | None = None,
        since: TimestampLike | None = None,
        max_memories: int = DEFAULT_REFLECT_MAX_MEMORIES,
        min_cluster_size: int = DEFAULT_MIN_CLUSTER_SIZE,
        min_confidence: float = DEFAULT_MIN_CONFIDENCE,
    ) -> ReflectResult:
        """Consolidates the scope's new memories into insights.

        Reads the episodes, live revisions and indexed propositions of ``entity_id`` (or of the
        whole store) stored after the scope's reflection cursor, created at or after ``since``
        when given, at most ``max_memories``; clusters them; for each cluster of at least
        ``min_cluster_size`` asks :attr:`llm` for insights and validates them against their
        sources; stores the accepted ones (confidence at least ``min_confidence``) as
        ``insight`` memories with ``insight_from`` edges to each source; moves the cursor. See
        ``docs/reflection.md``.
        Raises :class:`~hebbs.errors.LLMError` when the provider fails (the cursor stays).
        """
        request = parse(ReflectRequest, locals())
        with self._reflect_lock:
            return reflect_pipeline.reflect(
                self,
                self.llm,
                entity_id=request.entity_id,
                since=request.since,
                max_memories=request.max_memories,
                min_cluster_size=request.min_cluster_size,
                min_confidence=request.min_confidence,
            )

    def insights(
        self,
        entity_id: str | None = None,
        min_confidence: float = 0.0,
        include_stale: bool = False,
    ) -> list[Insight]:
        """The insights of ``entity_id`` (all when None), oldest first, with their confidence,
        sources and staleness (a source revised since); stale ones only with
        ``include_stale``."""
        request = parse(InsightsRequest, locals())
        return reflect_insights.list_insights(
            self._native, request.entity_id, request.min_confidence, request.include_stale
        )

    def reflect_prepare(
        self,
        entity_id: str | None = None,
        max_memories: int = DEFAULT_REFLECT_MAX_MEMORIES,
        min_cluster_size: int = DEFAULT_MIN_CLUSTER_SIZE,
        ttl: float | timedelta = DEFAULT_SESSION_TTL_S,
    ) -> ReflectSession:
        """Agent-driven reflection, step one: the clusters :meth:`reflect` would think about,
        with their memories and the exact proposal prompts, in a session that expires after
        ``ttl`` seconds. Answer with :meth:`reflect_commit`."""
        request = parse(ReflectPrepareRequest, locals())
        with self._reflect_lock:
            return reflect_agent.prepare(
                self,
                entity_id=request.entity_id,
                max_memories=request.max_memories,
                min_cluster_size=request.min_cluster_size,
                ttl=request.ttl,
            )

    def reflect_commit(
        self, session_id: str, insights: Sequence[CommitInsight | Mapping[str, Any]]
    ) -> CommitResult:
        """Agent-driven reflection, step two: stores ``insights`` (each ``content``,
        ``sources``: ids of memories of the session, ``confidence``) as :meth:`reflect` does,
        moves the cursor and ends the session. Nothing is stored if one is invalid."""
        request = parse(ReflectCommitRequest, locals())
        with self._reflect_lock:
            return reflect_agent.commit(self, request.session_id, request.insights)

    def health(self) -> HealthStatus:
        """Serving state, version, memory count and uptime."""
        return self._native.health()

    def optimize(self) -> None:
        """Finishes the vector index work that otherwise runs in the background (links the
        pending vectors into the graph), so the next recalls skip their exact scan."""
        self._native.optimize()

    def checkpoint(self) -> None:
        """Writes the vector index checkpoint now (``close`` does it too)."""
        self._native.checkpoint()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return bool(self._native.closed)

    def close(self) -> None:
        """Stops the background reflection, checkpoints the index, flushes and releases the
        database (and the organization's, if one was opened with it). Idempotent."""
        if self._trigger is not None:
            self._trigger.stop()
        try:
            self._native.close()
        finally:
            if self._organization is not None:
                self._organization.close()

    def __enter__(self) -> Hebbs:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


#: The :class:`RecallRequest` fields the native ``recall`` takes under the same name and as
#: they are (``_recall`` maps the others: the cue, its vectors, the weights, ``force_regex``).
_NATIVE_RECALL_FIELDS: frozenset[str] = frozenset(
    {
        "strategies",
        "top_k",
        "entity_id",
        "time_range",
        "ef_search",
        "rerank",
        "rerank_top_n",
        "include_embedding",
        "seed_memory_id",
        "edge_types",
        "max_depth",
        "direction",
        "analogical_alpha",
        "cue_context",
        "rrf_k",
        "min_relevance",
        "graph_context",
        "session_id",
        "include_superseded",
        "filter",
    }
)


def recall_with(member: Hebbs, organization: Hebbs | None, request: RecallRequest) -> RecallOutput:
    """Runs a checked recall on ``member`` (its ``quality`` preset applied), and, when
    ``organization`` is given, the same
    recall on the organization's store in parallel, its answer as ``organization_memory`` (what
    :meth:`Hebbs.recall` and the server's recall share). The cue is embedded once, by the
    member. When the recall fails on the organization's store (a seed memory that only the
    member has, say) its answer carries the failure in ``strategy_errors`` instead of raising:
    the member's answer stands."""
    request = resolve_quality(request, member._can_embed_cue_tokens())
    items = ["regex"] if request.force_regex else request.strategies or ()
    cue = member._cue(request)
    if organization is None:
        return member._recall(request, cue, member=True)
    pending = _organization_pool().submit(organization._recall, request, cue, member=False)
    own = member._recall(request, cue, member=True)
    try:
        theirs = pending.result()
    except (InvalidInputError, NotFoundError) as error:
        theirs = _failed_recall(items, error)
    return own.with_organization_memory(theirs)


def _failed_recall(
    items: Sequence[StrategyLike], error: InvalidInputError | NotFoundError
) -> RecallOutput:
    """The answer of a recall whose every strategy failed with ``error``."""
    field = error.field if isinstance(error, InvalidInputError) else None
    failures = [
        {"strategy": name, "message": str(error), "field": field}
        for name in sorted(_strategy_names(items))
    ]
    return RecallOutput.from_dict(
        {"results": [], "strategy_errors": failures, "below_threshold": 0}
    )


@functools.cache
def _organization_pool() -> ThreadPoolExecutor:
    """The threads that run organizations' recalls beside their members' (made on first use;
    the engine releases the GIL, so they run in parallel)."""
    return ThreadPoolExecutor(ORGANIZATION_THREADS, "hebbs-organization")


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


def _check_llm(llm: object) -> None:
    """``llm=`` is None or an LLM provider."""
    if llm is not None and not isinstance(llm, LLMProvider):
        reason = "expected None or an LLM provider (see hebbs.llm)"
        raise invalid("llm", reason, InvalidTypeError)


def _check_embedder(embedder: object) -> None:
    """``embedder=`` is None, an :class:`Embedder` or a callable."""
    if embedder is not None and not isinstance(embedder, Embedder) and not callable(embedder):
        reason = "expected None, an Embedder or a callable list[str] -> [n, d]"
        raise invalid("embedder", reason, InvalidTypeError)


def _strategy_names(items: Sequence[StrategyLike]) -> set[str]:
    return {
        item.strategy if isinstance(item, RecallStrategyConfig) else item.lower() for item in items
    }
