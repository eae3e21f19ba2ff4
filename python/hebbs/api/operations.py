"""Each operation's keyword method, written once: its parameters, their defaults, its
documentation and the request model it builds (:mod:`hebbs.api.requests`).

A method checks its arguments as its request model and hands the model to :meth:`Operations.run`:
:class:`hebbs.Hebbs` runs it in this process, :class:`hebbs.HebbsClient` sends it to a server.
The server, the MCP tools, the CLI and gRPC build the same models from their own input and call
``run`` with them, so a new parameter is a field of the model and a parameter here, nowhere else.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, Union

from hebbs._native import (
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_LIST_PAGE,
    DEFAULT_QUEUE_CAPACITY,
    DEFAULT_TOMBSTONE_PAGE,
    Edge,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryKind,
    MemoryPage,
    Tombstone,
)
from hebbs.api.model import parse
from hebbs.api.recall import Recalling
from hebbs.api.requests import (
    DEFAULT_EDGE_DIRECTION,
    AddEdgesRequest,
    ChatContextRequest,
    CheckpointRequest,
    CommitInsight,
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
    OptimizeRequest,
    OrphansRequest,
    PutTokenVectorsRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    ReinforceRequest,
    RememberManyRequest,
    RememberRequest,
    ReviseRequest,
    SubscribeRequest,
    TombstoneRequest,
    TombstonesRequest,
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

T = TypeVar("T")
#: What ``subscribe`` opens: a local or a remote subscription.
SubscriptionT = TypeVar("SubscriptionT")


class Operations(Recalling, Generic[SubscriptionT]):
    """The operations of a hebbs store, each a keyword method that builds its request model
    and runs it with :meth:`run` (recall and prime are :class:`Recalling`'s)."""

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

    def get_edges(
        self, id: MemoryIdLike, direction: Literal["out", "in"] = DEFAULT_EDGE_DIRECTION
    ) -> list[Edge]:
        """The graph edges of memory ``id``: the ones it holds (``"out"``: each ``target`` is a
        memory it points at), or the ones pointing at it (``"in"``: each ``target`` is the
        memory that holds the edge); :class:`~hebbs.NotFoundError` when ``id`` is not stored."""
        return self.run(parse(GetEdgesRequest, locals()))

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

    def reinforce(self, ids: Sequence[MemoryIdLike]) -> None:
        """Records that the memories ``ids`` were used (the ones an agent put in its prompt,
        say): each counts one more access, as when a recall returns it, which raises its
        reinforcement signal (gated by relevance, docs/hybrid.md) and restarts its decay.
        Ids of memories that do not exist are skipped."""
        return self.run(parse(ReinforceRequest, locals()))

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
