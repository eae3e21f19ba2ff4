"""`AsyncHebbs`: the embedded engine for asyncio code, with the same methods as :class:`Hebbs`
as coroutines. Each call runs in a worker thread; the engine releases the GIL, so calls
proceed in parallel with the event loop and with each other."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, Callable, TypeVar

from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_CONFIDENCE_THRESHOLD,
    DEFAULT_GRAPH_CONTEXT,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_PRIME_MAX_MEMORIES,
    DEFAULT_QUEUE_CAPACITY,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
)
from hebbs.engine import (
    DEFAULT_STRATEGIES,
    DEFAULT_TOMBSTONE_PAGE,
    EmbedderLike,
    Hebbs,
    KindLike,
    StrategyLike,
)
from hebbs.subscription import AsyncSubscription
from hebbs.types import (
    Edge,
    EdgeType,
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryIdLike,
    PrimeOutput,
    RecallOutput,
    ScoringWeights,
    TimestampLike,
    TokenVectors,
    TokenVectorsItem,
    Tombstone,
)

T = TypeVar("T")


async def _in_thread(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(call, *args, **kwargs))


class AsyncHebbs:
    """An open hebbs database for asyncio. Open with ``await AsyncHebbs.open(path)``."""

    def __init__(self, engine: Hebbs) -> None:
        self._engine = engine

    @classmethod
    async def open(
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
    ) -> AsyncHebbs:
        """Opens the database in ``path``; the arguments are those of :meth:`Hebbs.open`."""
        engine = await _in_thread(
            Hebbs.open,
            path,
            embedder=embedder,
            dimension=dimension,
            m=m,
            ef_construction=ef_construction,
            ef_search=ef_search,
            sync_writes=sync_writes,
            auto_forget_floor=auto_forget_floor,
            auto_forget_interval=auto_forget_interval,
            auto_forget_limit=auto_forget_limit,
        )
        return cls(engine)

    @property
    def sync(self) -> Hebbs:
        """The underlying synchronous engine."""
        return self._engine

    async def remember(
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
        """See :meth:`Hebbs.remember`."""
        return await _in_thread(
            self._engine.remember,
            content,
            importance=importance,
            context=context,
            entity_id=entity_id,
            edges=edges,
            created_at=created_at,
            embedding=embedding,
            session_id=session_id,
            kind=kind,
        )

    async def remember_many(self, items: Iterable[Mapping[str, Any]]) -> list[Memory]:
        """See :meth:`Hebbs.remember_many`."""
        return await _in_thread(self._engine.remember_many, list(items))

    async def get(self, id: MemoryIdLike, include_embedding: bool = False) -> Memory:
        """See :meth:`Hebbs.get`."""
        return await _in_thread(self._engine.get, id, include_embedding=include_embedding)

    async def recall(
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
        """See :meth:`Hebbs.recall`."""
        return await _in_thread(
            self._engine.recall,
            cue,
            strategies=strategies,
            top_k=top_k,
            entity_id=entity_id,
            time_range=time_range,
            ef_search=ef_search,
            scoring_weights=scoring_weights,
            cue_embedding=cue_embedding,
            include_embedding=include_embedding,
            seed_memory_id=seed_memory_id,
            edge_types=edge_types,
            max_depth=max_depth,
            direction=direction,
            analogical_alpha=analogical_alpha,
            cue_context=cue_context,
            rrf_k=rrf_k,
            min_relevance=min_relevance,
            graph_context=graph_context,
            session_id=session_id,
            force_regex=force_regex,
            include_superseded=include_superseded,
        )

    async def get_chat_context(
        self, session_id: str, limit: int = DEFAULT_LIST_LIMIT
    ) -> list[Memory]:
        """See :meth:`Hebbs.get_chat_context`."""
        return await _in_thread(self._engine.get_chat_context, session_id, limit)

    async def list_orphans(self, limit: int = DEFAULT_LIST_LIMIT) -> list[Memory]:
        """See :meth:`Hebbs.list_orphans`."""
        return await _in_thread(self._engine.list_orphans, limit)

    async def prime(
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
        """See :meth:`Hebbs.prime`."""
        return await _in_thread(
            self._engine.prime,
            entity_id,
            cue,
            max_memories=max_memories,
            time_range=time_range,
            ef_search=ef_search,
            scoring_weights=scoring_weights,
            cue_embedding=cue_embedding,
            include_embedding=include_embedding,
        )

    async def subscribe(
        self,
        cue: str | None = None,
        *,
        embedding: Any = None,
        entity_id: str | None = None,
        confidence_threshold: float = DEFAULT_CONFIDENCE_THRESHOLD,
        queue_capacity: int = DEFAULT_QUEUE_CAPACITY,
    ) -> AsyncSubscription:
        """See :meth:`Hebbs.subscribe`; iterate the result with ``async for``."""
        subscription = await _in_thread(
            self._engine.subscribe,
            cue,
            embedding=embedding,
            entity_id=entity_id,
            confidence_threshold=confidence_threshold,
            queue_capacity=queue_capacity,
        )
        return AsyncSubscription(subscription)

    async def add_edges(self, id: MemoryIdLike, edges: Sequence[Edge]) -> None:
        """See :meth:`Hebbs.add_edges`."""
        await _in_thread(self._engine.add_edges, id, list(edges))

    async def put_token_vectors(self, items: Iterable[TokenVectorsItem]) -> None:
        """See :meth:`Hebbs.put_token_vectors`."""
        await _in_thread(self._engine.put_token_vectors, list(items))

    async def get_token_vectors(self, ids: Sequence[MemoryIdLike]) -> list[TokenVectors | None]:
        """See :meth:`Hebbs.get_token_vectors`."""
        return await _in_thread(self._engine.get_token_vectors, ids)

    async def revise(
        self,
        id: MemoryIdLike,
        content: str | None = None,
        importance: float | None = None,
        context: Mapping[str, Any] | None = None,
        embedding: Any = None,
        entity_id: str | None = None,
    ) -> Memory:
        """See :meth:`Hebbs.revise`."""
        return await _in_thread(
            self._engine.revise,
            id,
            content=content,
            importance=importance,
            context=context,
            embedding=embedding,
            entity_id=entity_id,
        )

    async def lineage(self, id: MemoryIdLike) -> list[Memory]:
        """See :meth:`Hebbs.lineage`."""
        return await _in_thread(self._engine.lineage, id)

    async def forget(
        self,
        ids: Sequence[MemoryIdLike] | None = None,
        entity_id: str | None = None,
        older_than: TimestampLike | None = None,
        importance_below: float | None = None,
        kind: KindLike | None = None,
        purge: bool = False,
        limit: int | None = None,
    ) -> ForgetResult:
        """See :meth:`Hebbs.forget`."""
        return await _in_thread(
            self._engine.forget,
            ids=ids,
            entity_id=entity_id,
            older_than=older_than,
            importance_below=importance_below,
            kind=kind,
            purge=purge,
            limit=limit,
        )

    async def forget_decayed(self, floor: float, limit: int | None = None) -> ForgetResult:
        """See :meth:`Hebbs.forget_decayed`."""
        return await _in_thread(self._engine.forget_decayed, floor, limit=limit)

    async def tombstone(self, id: MemoryIdLike) -> Tombstone | None:
        """See :meth:`Hebbs.tombstone`."""
        return await _in_thread(self._engine.tombstone, id)

    async def tombstones(
        self, after: MemoryIdLike | None = None, limit: int = DEFAULT_TOMBSTONE_PAGE
    ) -> list[Tombstone]:
        """See :meth:`Hebbs.tombstones`."""
        return await _in_thread(self._engine.tombstones, after=after, limit=limit)

    async def optimize(self) -> None:
        """See :meth:`Hebbs.optimize`."""
        await _in_thread(self._engine.optimize)

    async def health(self) -> HealthStatus:
        """See :meth:`Hebbs.health`."""
        return await _in_thread(self._engine.health)

    async def close(self) -> None:
        """See :meth:`Hebbs.close`."""
        await _in_thread(self._engine.close)

    async def __aenter__(self) -> AsyncHebbs:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
