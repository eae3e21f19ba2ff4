"""The ``remember``, ``recall``, ``prime``, ``get`` and ``health`` commands: each turns parsed
arguments into engine calls and returns a :class:`CommandOutput` (a JSON payload and its text
form)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_GRAPH_CONTEXT,
    DEFAULT_IMPORTANCE,
    DEFAULT_TOP_K,
)
from hebbs.cli import format as fmt
from hebbs.cli.errors import UsageError
from hebbs.cli.values import DEFAULT_DIRECTION, EdgeSpec, Weights
from hebbs.types import Edge, Memory, RecallOutput, ScoringWeights

if TYPE_CHECKING:
    from hebbs.cli.store import Store

#: Strategy used when a recall has a cue and names none.
CUE_STRATEGY = "similarity"
#: Strategy used when a recall has only ``--entity-id`` and names none.
ENTITY_STRATEGY = "temporal"
#: Strategy used when a recall has only ``--seed`` and names none.
SEED_STRATEGY = "causal"
#: The strategy that ``--since`` and ``--until`` apply to.
TIME_RANGE_STRATEGY = "temporal"


@dataclass(frozen=True)
class CommandOutput:
    """What a command prints: ``payload`` with ``--json``, ``text`` otherwise."""

    payload: fmt.JsonObject
    text: str


@dataclass(frozen=True)
class RecallQuery:
    """One recall, as the command line describes it."""

    cue: str | None
    strategies: tuple[str, ...]
    top_k: int = DEFAULT_TOP_K
    entity_id: str | None = None
    since: int | None = None
    until: int | None = None
    ef_search: int | None = None
    weights: Weights | None = None
    seed: str | None = None
    max_depth: int = DEFAULT_CAUSAL_DEPTH
    edge_types: tuple[str, ...] = ()
    direction: str = DEFAULT_DIRECTION
    alpha: float = DEFAULT_ANALOGICAL_ALPHA
    cue_context: dict[str, Any] | None = None
    min_relevance: float | None = None
    regex: bool = False
    session: str | None = None
    graph_context: int = DEFAULT_GRAPH_CONTEXT

    def time_range(self) -> tuple[int | None, int | None] | None:
        """``(since, until)`` when either is set."""
        if self.since is None and self.until is None:
            return None
        return (self.since, self.until)

    def scoring_weights(self) -> ScoringWeights | None:
        """The composite-score weights when ``--weights`` was given."""
        if self.weights is None:
            return None
        relevance, recency, importance, reinforcement = self.weights
        return ScoringWeights(
            w_relevance=relevance,
            w_recency=recency,
            w_importance=importance,
            w_reinforcement=reinforcement,
        )


def remember(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Stores one memory; prints its id and a summary."""
    edge_specs: list[EdgeSpec] = args.edges
    edges = [Edge(spec.target, spec.edge_type, spec.confidence) for spec in edge_specs]
    importance: float | None = args.importance
    memory = engine.remember(
        args.content,
        importance=DEFAULT_IMPORTANCE if importance is None else importance,
        context=args.context,
        entity_id=args.entity_id,
        edges=edges,
        created_at=args.created_at,
        session_id=args.session,
    )
    payload = fmt.memory_json(memory)
    payload["edges"] = [fmt.edge_json(edge) for edge in edges]
    return CommandOutput(payload, fmt.remember_text(memory, edges))


def check_recall(args: argparse.Namespace) -> None:
    """Something to recall from, and ``--since``/``--until`` only for a timeline: checked
    before the database is opened."""
    strategies = resolve_strategies(args.strategies, args.cue, args.entity_id, args.seed)
    check_time_range(strategies, args.since, args.until)


def check_time_range(strategies: Sequence[str], since: int | None, until: int | None) -> None:
    """``--since``/``--until`` without the temporal strategy is bad input."""
    if (since is not None or until is not None) and TIME_RANGE_STRATEGY not in strategies:
        raise UsageError("--since/--until", f"apply to the {TIME_RANGE_STRATEGY} strategy only")


def recall(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Recalls memories and prints them ranked by score."""
    query = RecallQuery(
        cue=args.cue,
        strategies=resolve_strategies(args.strategies, args.cue, args.entity_id, args.seed),
        top_k=args.top_k,
        entity_id=args.entity_id,
        since=args.since,
        until=args.until,
        ef_search=args.ef_search,
        weights=args.weights,
        seed=args.seed,
        max_depth=args.max_depth,
        edge_types=tuple(args.edge_types),
        direction=args.direction,
        alpha=args.alpha,
        cue_context=args.cue_context,
        min_relevance=args.min_relevance,
        regex=args.regex,
        session=args.session,
        graph_context=args.graph_context,
    )
    output = run_recall(engine, query)
    strategies = ("regex",) if query.regex else query.strategies
    return CommandOutput(fmt.recall_json(output), fmt.recall_text(output, strategies))


def get(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Prints every field of one memory."""
    memory = engine.get(args.id, include_embedding=args.with_embedding)
    return CommandOutput(fmt.memory_json(memory), fmt.memory_text(memory))


def health(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Prints serving state, version, memory count and uptime."""
    status = engine.health()
    return CommandOutput(fmt.health_json(status), fmt.health_text(status))


def run_recall(engine: Store, query: RecallQuery) -> RecallOutput:
    """Runs ``query``; ``--since``/``--until`` without the temporal strategy is bad input."""
    check_time_range(query.strategies, query.since, query.until)
    time_range = query.time_range()
    return engine.recall(
        query.cue,
        strategies=query.strategies,
        top_k=query.top_k,
        entity_id=query.entity_id,
        time_range=time_range,
        ef_search=query.ef_search,
        scoring_weights=query.scoring_weights(),
        seed_memory_id=query.seed,
        edge_types=list(query.edge_types) or None,
        max_depth=query.max_depth,
        direction=query.direction,
        analogical_alpha=query.alpha,
        cue_context=query.cue_context,
        min_relevance=query.min_relevance,
        session_id=query.session,
        force_regex=query.regex,
        graph_context=query.graph_context,
    )


def chat_context(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Lists the memories a conversation touched, in order."""
    return _memory_list(engine.get_chat_context(args.session, limit=args.limit))


def orphans(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Lists memories with no edges, newest first."""
    return _memory_list(engine.list_orphans(limit=args.limit))


def list_memories(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Prints one page of the stored memories and the cursor of the next."""
    page = engine.list_memories(
        entity_id=args.entity_id,
        kind=args.kind,
        cursor=args.cursor,
        limit=args.limit,
        include_superseded=args.include_superseded,
    )
    cursor = None if page.next_cursor is None else page.next_cursor.hex()
    payload: fmt.JsonObject = {
        "memories": [fmt.memory_json(memory) for memory in page.memories],
        "next_cursor": cursor,
    }
    lines = [f"{memory.id_hex}  {memory.content}" for memory in page.memories] or ["no memories"]
    if cursor is not None:
        lines.append(f"next page: --cursor {cursor}")
    return CommandOutput(payload, "\n".join(lines))


def _memory_list(memories: Sequence[Memory]) -> CommandOutput:
    payload: fmt.JsonObject = {"memories": [fmt.memory_json(memory) for memory in memories]}
    lines = [f"{memory.id_hex}  {memory.content}" for memory in memories]
    return CommandOutput(payload, "\n".join(lines) if lines else "no memories")


def prime(args: argparse.Namespace, engine: Store) -> CommandOutput:
    """Prints an entity's recent memories blended with those nearest the cue."""
    output = engine.prime(args.entity_id, args.cue, max_memories=args.max_memories)
    strategies = ("temporal", "similarity") if args.cue is not None else ("temporal",)
    payload = fmt.recall_json(output)
    payload["temporal_count"] = output.temporal_count
    payload["similarity_count"] = output.similarity_count
    summary = f"{output.temporal_count} from the timeline, {output.similarity_count} near the cue"
    return CommandOutput(payload, f"{fmt.recall_text(output, strategies)}\n{summary}")


def resolve_strategies(
    named: Sequence[str], cue: str | None, entity_id: str | None, seed: str | None = None
) -> tuple[str, ...]:
    """The strategies named (duplicates dropped), else similarity for a cue, else causal from
    a seed, else temporal for an entity."""
    if named:
        return tuple(dict.fromkeys(named))
    if cue is not None:
        return (CUE_STRATEGY,)
    if seed is not None:
        return (SEED_STRATEGY,)
    if entity_id is not None:
        return (ENTITY_STRATEGY,)
    raise UsageError(
        "CUE", "give a CUE to recall, --seed for a causal walk, or --entity-id for a timeline"
    )
