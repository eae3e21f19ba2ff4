"""Each operation's keyword method, written once: its parameters, their defaults, its
documentation and the request model it builds (:mod:`hebbs.api.requests`).

A method checks its arguments as its request model and hands the model to :meth:`Operations.run`:
:class:`hebbs.Hebbs` runs it in this process, :class:`hebbs.HebbsClient` sends it to a server.
The server, the MCP tools, the CLI and gRPC build the same models from their own input and call
``run`` with them, so a new parameter is a field of the model and a parameter here, nowhere else.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Union

from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_DIRECTION,
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
    Edge,
    EdgeType,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryKind,
    MemoryPage,
    PrimeOutput,
    RecallOutput,
    RecallStrategyConfig,
    ScoringWeights,
    Tombstone,
)
from hebbs.api.requests import (
    AddEdgesRequest,
    ChatContextRequest,
    CheckpointRequest,
    CommitInsight,
    ConfirmContradictionRequest,
    CountMemoriesRequest,
    FindContradictionsRequest,
    ForgetDecayedRequest,
    ForgetRequest,
    GetManyRequest,
    GetRequest,
    GetTokenVectorsRequest,
    HealthRequest,
    IndexDocumentsRequest,
    InsightsRequest,
    LineageRequest,
    ListMemoriesRequest,
    OptimizeRequest,
    OrphansRequest,
    PrimeRequest,
    PutTokenVectorsRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    RememberManyRequest,
    RememberRequest,
    Returns,
    ReviseRequest,
    SubscribeRequest,
    TombstoneRequest,
    TombstonesRequest,
    by_keyword,
    parse,
)
from hebbs.consolidate.constants import (
    DEFAULT_CONTRADICTION_LIMIT,
    DEFAULT_CONTRADICTION_SIMILARITY,
    DEFAULT_DEDUP_THRESHOLD,
)
from hebbs.reflect.constants import (
    DEFAULT_MIN_CLUSTER_SIZE,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_MAX_MEMORIES,
    DEFAULT_SESSION_TTL_S,
)
from hebbs.types import MemoryIdLike, TimestampLike, TokenVectors, TokenVectorsItem

if TYPE_CHECKING:
    from hebbs.consolidate import ContradictionCandidate
    from hebbs.ingest import IndexResult
    from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession

#: What ``kind=`` accepts: a :class:`MemoryKind` or its name.
KindLike = Union[MemoryKind, str]
#: One entry of ``recall(strategies=...)``: a strategy name or a per-strategy config.
StrategyLike = Union[str, RecallStrategyConfig]

T = TypeVar("T")
#: What ``subscribe`` opens: a local or a remote subscription.
SubscriptionT = TypeVar("SubscriptionT")


def _run_recall(store: Operations[Any], request: RecallRequest) -> RecallOutput:
    return store.run(request)


class Operations(ABC, Generic[SubscriptionT]):
    """The operations of a hebbs store, each a keyword method that builds its request model
    and runs it with :meth:`run`."""

    @abstractmethod
    def run(self, request: Returns[T]) -> T:
        """Runs one checked request (a model of :mod:`hebbs.api.requests`) and returns its
        result: what the keyword methods, the server, MCP, the CLI and gRPC all call."""

    @abstractmethod
    def open_subscription(self, request: SubscribeRequest) -> SubscriptionT:
        """Opens the standing query of a checked request."""

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
        key: str | None = None,
    ) -> Memory:
        """Stores one memory and returns it. ``embedding`` skips the embedder; ``session_id``
        records it as part of that conversation (see :meth:`get_chat_context`). ``kind`` is
        ``episode`` (default), ``insight``, ``document`` or ``proposition``; revisions are made
        by :meth:`revise`.

        ``key`` is the caller's name for the memory (any text up to ``MAX_KEY_BYTES``): a
        memory stored under a key a memory already holds replaces it, every version of it, in
        the same atomic write (an upsert; the new memory has a new id). Read by key with
        ``get_many(keys=...)``, forget with ``forget(keys=...)``, list a key prefix with
        ``list_memories(key_prefix=...)``; a revision takes its memory's key.

        With ``dedup``, a live memory of the same entity whose cosine reaches
        ``dedup_threshold`` and whose content already holds every word and number of
        ``content`` is returned instead, reinforced (one access recorded), and nothing is
        stored (see :mod:`hebbs.consolidate.dedup`)."""
        return self.run(parse(RememberRequest, locals()))

    def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Memory]:
        """Stores many memories with one embedding batch and one atomic write.

        Each item is a dict of :meth:`remember`'s keyword arguments (see
        :class:`hebbs.types.RememberItem`). Returns the memories in input order. If any item is
        invalid, nothing is stored.
        """
        return self.run(parse(RememberManyRequest, locals()))

    def get(self, id: MemoryIdLike, include_embedding: bool = False) -> Memory:
        """The memory with ``id``; raises :class:`~hebbs.errors.NotFoundError`."""
        return self.run(parse(GetRequest, locals()))

    def get_many(
        self,
        ids: Sequence[MemoryIdLike] | None = None,
        include_embedding: bool = False,
        keys: Sequence[str] | None = None,
    ) -> list[Memory | None]:
        """The memories with ``ids``, or the memories caller ``keys`` name (one of the two),
        in their order: None where one does not exist (a malformed id still raises
        :class:`~hebbs.errors.InvalidInputError` naming ``ids[i]``)."""
        return self.run(parse(GetManyRequest, locals()))

    @by_keyword(RecallRequest, _run_recall)
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
        return self.run(parse(RecallRequest, locals()))

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
        return self.run(parse(PrimeRequest, locals()))

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
        return self.run(parse(ReviseRequest, locals()))

    def lineage(self, id: MemoryIdLike) -> list[Memory]:
        """The revision chain through ``id``, oldest first."""
        return self.run(parse(LineageRequest, locals()))

    def add_edges(self, id: MemoryIdLike, edges: Sequence[Edge]) -> None:
        """Adds edges from memory ``id`` to existing memories, stored in both directions. All
        or nothing: a missing target raises :class:`~hebbs.errors.InvalidInputError` naming
        ``edges[i].target``."""
        return self.run(parse(AddEdgesRequest, locals()))

    def put_token_vectors(self, items: Iterable[TokenVectorsItem]) -> None:
        """Stores the quantised per-token vectors of existing memories (what a
        late-interaction re-ranker matches against; see
        :class:`hebbs.rerank.TokenVectorCache`), replacing any stored before. Each item is
        ``(id, codes, scales)``: int8 codes ``[tokens, dimension]`` and one positive float32
        scale per token. Durable; forget deletes them with the memory. All or nothing: a bad
        shape or an unknown id raises :class:`~hebbs.errors.InvalidInputError` naming
        ``items[i].codes``, ``items[i].scales``, ``items[i].dimension`` or ``items[i].id``."""
        return self.run(parse(PutTokenVectorsRequest, locals()))

    def get_token_vectors(self, ids: Sequence[MemoryIdLike]) -> list[TokenVectors | None]:
        """The stored ``(codes, scales)`` of each of ``ids`` in one read, None where none are
        stored."""
        return self.run(parse(GetTokenVectorsRequest, locals()))

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
        keys: Sequence[str] | None = None,
    ) -> ForgetResult:
        """Forgets memories, with everything derived from them.

        The selectors are AND-combined and at least one is needed: ``ids``, ``keys`` (the
        memories these caller keys name, every version of each), ``entity_id``
        (erasure of everything about the entity), ``older_than`` (created before),
        ``importance_below``, ``kind``, ``filter`` (docs/filters.md). At most ``limit``
        memories go per call (default ``DEFAULT_FORGET_LIMIT``); ``truncated`` in the result
        says to call again. Vectors,
        edges both ways, access counters, the timeline entry and insights derived from a
        forgotten memory go too; each erased memory leaves a tombstone (a hash of the content,
        never the content). ``purge`` also compacts the store so the bytes leave the disk.
        """
        return self.run(parse(ForgetRequest, locals()))

    def forget_decayed(self, floor: float, limit: int | None = None) -> ForgetResult:
        """Forgets up to ``limit`` memories whose decay score is below ``floor``."""
        return self.run(parse(ForgetDecayedRequest, locals()))

    def tombstone(self, id: MemoryIdLike) -> Tombstone | None:
        """The tombstone of forgotten memory ``id``, or None."""
        return self.run(parse(TombstoneRequest, locals()))

    def tombstones(
        self, after: MemoryIdLike | None = None, limit: int = DEFAULT_TOMBSTONE_PAGE
    ) -> list[Tombstone]:
        """Up to ``limit`` tombstones in id order; pass the last id as ``after`` for the next
        page."""
        return self.run(parse(TombstonesRequest, locals()))

    def get_chat_context(self, session_id: str, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """The memories conversation ``session_id`` touched (remembered with it, or returned
        by a recall that named it), in the order of their first touch."""
        return self.run(parse(ChatContextRequest, locals()))

    def list_orphans(self, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """Memories with no edge in either direction, newest first: candidates to connect."""
        return self.run(parse(OrphansRequest, locals()))

    def list_memories(
        self,
        entity_id: str | None = None,
        kind: KindLike | None = None,
        cursor: MemoryIdLike | None = None,
        limit: int = DEFAULT_LIST_PAGE,
        include_superseded: bool = False,
        filter: Mapping[str, Any] | None = None,
        key_prefix: str | None = None,
    ) -> MemoryPage:
        """One page of the stored memories, oldest first: every memory in id order (the order
        they were stored), or with ``entity_id`` that entity's timeline by ``created_at``.
        ``kind`` keeps one kind and ``filter`` (docs/filters.md) what it selects; superseded
        revisions are left out unless ``include_superseded``. Pass the page's ``next_cursor``
        as ``cursor`` for the next page; the listing is complete when it is None (a page may
        be short, even empty, before that). ``key_prefix`` lists only the memories whose caller
        key starts with it (``""``: every keyed memory), in id order. Listing is not recall:
        access counts are unchanged."""
        return self.run(parse(ListMemoriesRequest, locals()))

    def count_memories(
        self,
        entity_id: str | None = None,
        kind: KindLike | None = None,
        include_superseded: bool = False,
        filter: Mapping[str, Any] | None = None,
        key_prefix: str | None = None,
    ) -> int:
        """How many memories :meth:`list_memories` would list with the same ``entity_id``,
        ``kind``, ``include_superseded``, ``filter`` (docs/filters.md) and ``key_prefix``, over
        every page:
        ``count_memories()`` is the store's live memories, superseded revisions left out.
        Counting reads each selected record, as the listing does, without building it."""
        return self.run(parse(CountMemoriesRequest, locals()))

    def subscribe(
        self,
        cue: str | None = None,
        *,
        embedding: Any = None,
        entity_id: str | None = None,
        confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD,
        queue_capacity: int = DEFAULT_QUEUE_CAPACITY,
        filter: Mapping[str, Any] | None = None,
    ) -> SubscriptionT:
        """Opens a standing query: every memory remembered from now on whose cosine similarity
        to ``cue`` (embedded like a recall cue; or pass ``embedding``) reaches
        ``confidence_threshold`` is pushed to the returned :class:`~hebbs.Subscription`, in
        commit order. ``entity_id`` restricts it to one entity, ``filter`` to the memories it
        selects (docs/filters.md). A consumer more than
        ``queue_capacity`` pushes behind loses the oldest (see :attr:`Subscription.dropped`).
        """
        return self.open_subscription(parse(SubscribeRequest, locals()))

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
        return self.run(parse(FindContradictionsRequest, locals()))

    def confirm_contradiction(
        self, older_id: MemoryIdLike, newer_id: MemoryIdLike, resolution: str = "link"
    ) -> Memory:
        """Records that ``newer_id`` contradicts ``older_id``: ``"link"`` adds a
        ``contradicts`` edge from the newer memory to the older and returns the newer;
        ``"revise"`` revises the older memory with the newer one's content, importance and
        context, forgets the newer, and returns the revision."""
        return self.run(parse(ConfirmContradictionRequest, locals()))

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
        return self.run(parse(IndexDocumentsRequest, locals()))

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
        return self.run(parse(ReflectRequest, locals()))

    def insights(
        self,
        entity_id: str | None = None,
        min_confidence: float = 0.0,
        include_stale: bool = False,
    ) -> list[Insight]:
        """The insights of ``entity_id`` (all when None), oldest first, with their confidence,
        sources and staleness (a source revised since); stale ones only with
        ``include_stale``."""
        return self.run(parse(InsightsRequest, locals()))

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
        return self.run(parse(ReflectPrepareRequest, locals()))

    def reflect_commit(
        self, session_id: str, insights: Sequence[CommitInsight | Mapping[str, Any]]
    ) -> CommitResult:
        """Agent-driven reflection, step two: stores ``insights`` (each ``content``,
        ``sources``: ids of memories of the session, ``confidence``) as :meth:`reflect` does,
        moves the cursor and ends the session. Nothing is stored if one is invalid."""
        return self.run(parse(ReflectCommitRequest, locals()))

    def health(self) -> HealthStatus:
        """Serving state, version, memory count and uptime."""
        return self.run(HealthRequest())

    def optimize(self) -> None:
        """Finishes the vector index work that otherwise runs in the background (links the
        pending vectors into the graph), so the next recalls skip their exact scan."""
        return self.run(OptimizeRequest())

    def checkpoint(self) -> None:
        """Writes the vector index checkpoint now (``close`` does it too)."""
        return self.run(CheckpointRequest())
