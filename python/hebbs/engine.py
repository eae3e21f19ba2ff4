"""`Hebbs`: the embedded engine. It embeds text with the configured embedder and hands vectors
to the native core, which stores, indexes and recalls them with the GIL released."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any, Callable, Final, Optional, TypeVar, Union, cast

import numpy as np
from numpy.typing import NDArray

from hebbs._inputs import invalid
from hebbs._native import (
    DEFAULT_FORGET_LIMIT,
    VECTOR_STRATEGIES,
    Edge,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryPage,
    NativeEngine,
    PrimeOutput,
    RecallOutput,
    RecallStrategyConfig,
    Tombstone,
)
from hebbs.api import (
    DEFAULT_TOKEN_POOL_FACTOR,
    DEFAULT_TOKEN_VECTORS,
    AddEdgesRequest,
    ChatContextRequest,
    CheckpointRequest,
    ConfirmContradictionRequest,
    CountMemoriesRequest,
    FindContradictionsRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetEdgesRequest,
    GetManyRequest,
    GetRequest,
    GetTokenVectorsRequest,
    HealthRequest,
    IndexDocumentsRequest,
    InsightsRequest,
    LineageRequest,
    ListMemoriesRequest,
    OpenRequest,
    OptimizeRequest,
    OrphansRequest,
    PrimeRequest,
    PutTokenVectorsRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    ReinforceRequest,
    RememberManyRequest,
    RememberRequest,
    Request,
    Returns,
    ReviseRequest,
    SubscribeRequest,
    TombstoneRequest,
    TombstonesRequest,
    parse,
    resolve_quality,
    to_scoring_weights,
)
from hebbs.api.operations import KindLike, Operations
from hebbs.api.recall import StrategyLike
from hebbs.consolidate import ContradictionCandidate, contradictions
from hebbs.consolidate.constants import DEFAULT_CONTRADICTION_SCAN, RESOLUTIONS
from hebbs.consolidate.dedup import duplicate_of
from hebbs.embedder import Embedder, as_embedder
from hebbs.embedder.token_vectors import pool_tokens, quantize_int8, token_embedder
from hebbs.errors import EmbeddingError, InvalidInputError, InvalidTypeError, NotFoundError
from hebbs.ingest import IndexResult
from hebbs.ingest import pipeline as index_pipeline
from hebbs.llm import LLMProvider, provider_from_env
from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession
from hebbs.reflect import agent as reflect_agent
from hebbs.reflect import insights as reflect_insights
from hebbs.reflect import pipeline as reflect_pipeline
from hebbs.reflect.trigger import ReflectTrigger
from hebbs.subscription import Subscription
from hebbs.types import TokenVectors

#: What ``embedder=`` accepts: None (the bundled model), an Embedder, or a callable
#: ``list[str] -> array [n, d]``.
EmbedderLike = Union[Embedder, Callable[[list[str]], Any], None]

#: Strategies that read the cue's embedding: the cue is embedded only when one of them runs.
_VECTOR_STRATEGIES = frozenset(VECTOR_STRATEGIES)

#: Threads that run organizations' recalls in parallel with their members' recalls.
ORGANIZATION_THREADS: Final = 8

T = TypeVar("T")

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


class Hebbs(Operations[Subscription]):
    """An open hebbs database, in this process.

    Open with :meth:`Hebbs.open`; use as a context manager or call :meth:`close`. Safe to share
    between threads: every engine call releases the GIL. Each operation (:class:`Operations`)
    runs its checked request with :meth:`run`.
    """

    def __init__(
        self,
        native: NativeEngine,
        embedder: EmbedderLike = None,
        organization: Hebbs | None = None,
        llm: LLMProvider | None = None,
        *,
        token_vectors: bool = DEFAULT_TOKEN_VECTORS,
        token_pool_factor: int = DEFAULT_TOKEN_POOL_FACTOR,
    ) -> None:
        self._native = native
        self._token_vectors = token_vectors
        self._token_pool_factor = token_pool_factor
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
        token_pool_factor: int = DEFAULT_TOKEN_POOL_FACTOR,
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
        ``token_pool_factor`` 2 or 3 stores a half or a third as many token vectors a memory,
        each the mean of a group of similar tokens (``pool_tokens``; disk and quality measured
        in docs/hybrid.md); 1, the default, stores one a token.
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
            token_pool_factor=request.token_pool_factor,
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

    def run(self, request: Returns[T]) -> T:
        """Runs one checked request of :mod:`hebbs.api.requests` on this store."""
        handler = _HANDLERS.get(type(request))
        if handler is None:
            reason = f"{type(request).__name__} is not an operation's request"
            raise invalid("request", reason, InvalidTypeError)
        return cast(T, handler(self, request))

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
        factor = self._token_pool_factor
        return pooled, [quantize_int8(pool_tokens(matrix, factor)) for matrix in tokens]

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

    def _run_remember(self, request: RememberRequest) -> Memory:
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
        item = {**_stored_fields(request), "token_vectors": tokens}
        return self._native.remember(item, vector)

    def _run_remember_many(self, request: RememberManyRequest) -> list[Memory]:
        requests = request.items
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
            {**_stored_fields(item), "token_vectors": pair} for item, pair in zip(requests, tokens)
        ]
        dims = {vector.shape[0] for vector in vectors if vector is not None}
        if len(dims) != 1:
            raise invalid("items", f"embeddings of different dimensions {sorted(dims)}")
        matrix = np.stack([vector for vector in vectors if vector is not None])
        return rows, matrix

    def _run_get(self, request: GetRequest) -> Memory:
        return self._native.get(request.id, include_embedding=request.include_embedding)

    def _run_get_many(self, request: GetManyRequest) -> list[Memory | None]:
        ids, keys = request.ids, request.keys
        if keys is not None and ids is None:
            return self._native.get_by_keys(keys, include_embedding=request.include_embedding)
        if ids is None or keys is not None:
            raise invalid("ids", "give ids or keys, not both and not neither")
        found: list[Memory | None] = []
        for index, id in enumerate(ids):
            try:
                found.append(self._native.get(id, include_embedding=request.include_embedding))
            except NotFoundError:
                found.append(None)
            except InvalidInputError as error:
                raise invalid(f"ids[{index}]", error.reason, type(error)) from None
        return found

    def _run_recall(self, request: RecallRequest) -> RecallOutput:
        return _recall_checked(self, request)

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

        The native call takes the fields the request sets (the others keep the core's
        defaults), less the ones this layer resolves itself (:data:`_RESOLVED_RECALL_FIELDS`)."""
        vector, cue_tokens = cue
        fields = _set_fields(request, leave_out=_RESOLVED_RECALL_FIELDS)
        if request.force_regex:
            fields["strategies"] = ["regex"]
        if request.scoring_weights is not None:
            fields["scoring_weights"] = to_scoring_weights(request.scoring_weights)
        if vector is not None:
            fields["cue_embedding"] = vector
        if cue_tokens is not None:
            fields["cue_token_vectors"] = cue_tokens
        if not member:
            fields.pop("session_id", None)
        return self._native.recall(fields, record_access=member)

    def _run_add_edges(self, request: AddEdgesRequest) -> None:
        self._native.add_edges(request.id, request.edges)

    def _run_put_token_vectors(self, request: PutTokenVectorsRequest) -> None:
        self._native.put_token_vectors(request.items)

    def _run_get_token_vectors(self, request: GetTokenVectorsRequest) -> list[TokenVectors | None]:
        return self._native.get_token_vectors(request.ids)

    def _run_revise(self, request: ReviseRequest) -> Memory:
        fields = _set_fields(request)
        if request.embedding is None and request.content is not None:
            vectors, pairs = self._embed_documents([request.content])
            fields["embedding"] = vectors[0]
            if pairs:
                fields["token_vectors"] = pairs[0]
        return self._native.revise(fields)

    def _run_lineage(self, request: LineageRequest) -> list[Memory]:
        return self._native.lineage(request.id)

    def _run_get_edges(self, request: GetEdgesRequest) -> list[Edge]:
        edges = self._native.edges(request.id, request.direction)
        if not edges:
            self._native.get(request.id)  # raises NotFoundError when the memory is not stored
        return edges

    def _run_reinforce(self, request: ReinforceRequest) -> None:
        self._native.reinforce(request.ids)

    def _run_forget(self, request: ForgetRequest) -> ForgetResult:
        return self._native.forget(_set_fields(request))

    def _run_forget_decayed(self, request: ForgetDecayedRequest) -> ForgetResult:
        limit = DEFAULT_FORGET_LIMIT if request.limit is None else request.limit
        return self._native.forget_decayed(request.floor, limit=limit)

    def _run_tombstone(self, request: TombstoneRequest) -> Tombstone | None:
        return self._native.tombstone(request.id)

    def _run_tombstones(self, request: TombstonesRequest) -> list[Tombstone]:
        return self._native.tombstones(after=request.after, limit=request.limit)

    def _run_get_chat_context(self, request: ChatContextRequest) -> list[Memory]:
        return self._native.chat_context(request.session_id, limit=request.limit)

    def _run_list_orphans(self, request: OrphansRequest) -> list[Memory]:
        return self._native.list_orphans(limit=request.limit)

    def _run_list_memories(self, request: ListMemoriesRequest) -> MemoryPage:
        return self._native.list_memories(_set_fields(request))

    def _run_count_memories(self, request: CountMemoriesRequest) -> int:
        return self._native.count_memories(_set_fields(request))

    def _run_prime(self, request: PrimeRequest) -> PrimeOutput:
        vector = self._cue_vector(request.cue, request.cue_embedding, ("similarity",))
        fields = _set_fields(request, leave_out=_RESOLVED_PRIME_FIELDS)
        fields["entity_id"] = request.entity_id
        if vector is not None:
            fields["cue_embedding"] = vector
        if request.scoring_weights is not None:
            fields["scoring_weights"] = to_scoring_weights(request.scoring_weights)
        return self._native.prime(fields)

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

    def open_subscription(self, request: SubscribeRequest) -> Subscription:
        fields = _set_fields(request, leave_out=frozenset({"cue"}))
        fields["embedding"] = self._subscription_cue(request.cue, request.embedding)
        return Subscription(self._native.subscribe(fields))

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

    def _run_find_contradictions(
        self, request: FindContradictionsRequest
    ) -> list[ContradictionCandidate]:
        return contradictions.find(
            self._native,
            request.entity_id,
            request.threshold,
            DEFAULT_CONTRADICTION_SCAN,
            request.limit,
        )

    def _run_confirm_contradiction(self, request: ConfirmContradictionRequest) -> Memory:
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
        self._native.forget({"ids": [newer.id]})
        return revision

    def _run_index_documents(self, request: IndexDocumentsRequest) -> IndexResult:
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

    def _run_reflect(self, request: ReflectRequest) -> ReflectResult:
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

    def _run_insights(self, request: InsightsRequest) -> list[Insight]:
        return reflect_insights.list_insights(
            self._native, request.entity_id, request.min_confidence, request.include_stale
        )

    def _run_reflect_prepare(self, request: ReflectPrepareRequest) -> ReflectSession:
        with self._reflect_lock:
            return reflect_agent.prepare(
                self,
                entity_id=request.entity_id,
                max_memories=request.max_memories,
                min_cluster_size=request.min_cluster_size,
                ttl=request.ttl,
            )

    def _run_reflect_commit(self, request: ReflectCommitRequest) -> CommitResult:
        with self._reflect_lock:
            return reflect_agent.commit(self, request.session_id, request.insights)

    def _run_health(self, request: HealthRequest) -> HealthStatus:
        return self._native.health()

    def _run_optimize(self, request: OptimizeRequest) -> None:
        self._native.optimize()

    def _run_checkpoint(self, request: CheckpointRequest) -> None:
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


__all__ = ["EmbedderLike", "Hebbs", "KindLike", "StrategyLike", "recall_with"]

#: The :class:`RecallRequest` fields this layer resolves before the native call: the preset, the
#: organization, the regular-expression switch, the cue's vectors and a weights dict.
_RESOLVED_RECALL_FIELDS: Final = frozenset(
    {
        "quality",
        "include_organization",
        "force_regex",
        "cue_embedding",
        "cue_token_vectors",
        "scoring_weights",
    }
)


#: The fields of a ``RememberRequest`` this layer resolves before the native call: the vector
#: (given, or the embedder's) is passed beside the item, and dedup runs here.
_RESOLVED_REMEMBER_FIELDS: Final = frozenset({"embedding", "dedup", "dedup_threshold"})

#: The fields of a ``PrimeRequest`` this layer resolves before the native call: the cue's text
#: becomes its vector, a weights dict a ``ScoringWeights``.
_RESOLVED_PRIME_FIELDS: Final = frozenset({"cue", "cue_embedding", "scoring_weights"})


#: The method that runs each operation's request on a :class:`Hebbs`.
_HANDLERS: Final[dict[type[Any], Callable[[Hebbs, Any], Any]]] = {
    RememberRequest: Hebbs._run_remember,
    RememberManyRequest: Hebbs._run_remember_many,
    GetRequest: Hebbs._run_get,
    GetManyRequest: Hebbs._run_get_many,
    RecallRequest: Hebbs._run_recall,
    PrimeRequest: Hebbs._run_prime,
    ReviseRequest: Hebbs._run_revise,
    LineageRequest: Hebbs._run_lineage,
    AddEdgesRequest: Hebbs._run_add_edges,
    PutTokenVectorsRequest: Hebbs._run_put_token_vectors,
    GetTokenVectorsRequest: Hebbs._run_get_token_vectors,
    ReinforceRequest: Hebbs._run_reinforce,
    GetEdgesRequest: Hebbs._run_get_edges,
    ForgetRequest: Hebbs._run_forget,
    ForgetDecayedRequest: Hebbs._run_forget_decayed,
    TombstoneRequest: Hebbs._run_tombstone,
    TombstonesRequest: Hebbs._run_tombstones,
    ChatContextRequest: Hebbs._run_get_chat_context,
    OrphansRequest: Hebbs._run_list_orphans,
    ListMemoriesRequest: Hebbs._run_list_memories,
    CountMemoriesRequest: Hebbs._run_count_memories,
    FindContradictionsRequest: Hebbs._run_find_contradictions,
    ConfirmContradictionRequest: Hebbs._run_confirm_contradiction,
    IndexDocumentsRequest: Hebbs._run_index_documents,
    ReflectRequest: Hebbs._run_reflect,
    InsightsRequest: Hebbs._run_insights,
    ReflectPrepareRequest: Hebbs._run_reflect_prepare,
    ReflectCommitRequest: Hebbs._run_reflect_commit,
    HealthRequest: Hebbs._run_health,
    OptimizeRequest: Hebbs._run_optimize,
    CheckpointRequest: Hebbs._run_checkpoint,
}


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


def _set_fields(request: Request, leave_out: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The fields ``request``'s caller set, but ``leave_out``: what a native call that takes
    the model's fields as one dict reads (the others keep the core's defaults)."""
    return {name: getattr(request, name) for name in request.model_fields_set - leave_out}


def _stored_fields(request: RememberRequest) -> dict[str, Any]:
    """The native ``remember`` item of a checked request: every field but the ones this layer
    resolves (:data:`_RESOLVED_REMEMBER_FIELDS`); the binding refuses a key it does not read."""
    return {
        name: getattr(request, name)
        for name in RememberRequest.model_fields
        if name not in _RESOLVED_REMEMBER_FIELDS
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
