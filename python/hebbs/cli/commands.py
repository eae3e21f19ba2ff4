"""The ``remember``, ``recall``, ``prime``, ``get``, ``health``, ``chat-context``, ``orphans``
and ``list`` commands. Each turns its parsed arguments into the operation's shared request
model (:mod:`hebbs.api.requests`) before a store is opened, so bad input creates no store, and
returns a :data:`Run`: the call of the store with the request's fields, giving a
:class:`CommandOutput` (a JSON payload and its text form)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from hebbs.api import (
    ChatContextRequest,
    GetRequest,
    ListMemoriesRequest,
    OrphansRequest,
    PrimeRequest,
    RecallRequest,
    RememberRequest,
    Request,
    parse,
)
from hebbs.cli import format as fmt
from hebbs.cli.errors import UsageError
from hebbs.cli.fields import generated_values
from hebbs.cli.values import WEIGHT_NAMES, EdgeSpec, Weights
from hebbs.types import Edge, Memory, RecallOutput

if TYPE_CHECKING:
    from hebbs.cli.store import Store

#: Strategy used when a recall has only ``--entity-id`` and names none.
ENTITY_STRATEGY = "temporal"
#: Strategy used when a recall has only ``--seed`` and names none.
SEED_STRATEGY = "causal"
#: The strategy that ``--since`` and ``--until`` apply to.
TIME_RANGE_STRATEGY = "temporal"

R = TypeVar("R", bound=Request)


@dataclass(frozen=True)
class CommandOutput:
    """What a command prints: ``payload`` with ``--json``, ``text`` otherwise."""

    payload: fmt.JsonObject
    text: str


#: A command whose request is built: it runs on an open store or a server's client.
Run = Callable[["Store"], CommandOutput]


def request(model: type[R], args: argparse.Namespace, **given: Any) -> R:
    """``model`` from the arguments given on the command line: ``given`` and the values of
    the flags made for the model's other fields (:mod:`hebbs.cli.fields`). None means not
    given, so the model's default applies; a bad value raises the model's
    ``InvalidInputError``, which :mod:`hebbs.cli.runner` reports under the field's flag."""
    fields = {**generated_values(args, model), **given}
    return parse(model, {name: value for name, value in fields.items() if value is not None})


def time_range(since: int | None, until: int | None) -> tuple[int | None, int | None] | None:
    """``--since`` / ``--until`` as the ``time_range`` the models take (None: neither given)."""
    return None if since is None and until is None else (since, until)


def scoring_weights(four: Weights | None) -> dict[str, float] | None:
    """``--weights`` as the ``scoring_weights`` dict the models take."""
    return None if four is None else dict(zip(WEIGHT_NAMES, four))


def remember(args: argparse.Namespace) -> Run:
    """Stores one memory; prints its id and a summary."""
    edge_specs: list[EdgeSpec] = args.edges
    edges = [Edge(spec.target, spec.edge_type, spec.confidence) for spec in edge_specs]
    given = request(
        RememberRequest,
        args,
        content=args.content,
        importance=args.importance,
        context=args.context,
        entity_id=args.entity_id,
        edges=edges,
        created_at=args.created_at,
        session_id=args.session,
        kind=args.kind,
        dedup=args.dedup or None,
        dedup_threshold=args.dedup_threshold,
    )

    def run(engine: Store) -> CommandOutput:
        memory = engine.run(given)
        payload = fmt.memory_json(memory)
        payload["edges"] = [fmt.edge_json(edge) for edge in given.edges]
        return CommandOutput(payload, fmt.remember_text(memory, given.edges))

    return run


def recall_request(args: argparse.Namespace) -> RecallRequest:
    """The recall the command line describes: the strategies resolved (something to recall
    from is required) and ``--since``/``--until`` only for a timeline."""
    strategies = resolve_strategies(args.strategies, args.cue, args.entity_id, args.seed)
    chosen = {} if strategies is None else {"strategies": strategies}  # else the engine's
    return check_time_range(
        request(
            RecallRequest,
            args,
            cue=args.cue,
            **chosen,
            top_k=args.top_k,
            entity_id=args.entity_id,
            time_range=time_range(args.since, args.until),
            ef_search=args.ef_search,
            scoring_weights=scoring_weights(args.weights),
            seed_memory_id=args.seed,
            edge_types=list(args.edge_types) or None,
            max_depth=args.max_depth,
            direction=args.direction,
            analogical_alpha=args.alpha,
            cue_context=args.cue_context,
            min_relevance=args.min_relevance,
            session_id=args.session,
            force_regex=args.regex or None,
            graph_context=args.graph_context,
            include_organization=args.include_organization or None,
            quality=args.quality,
            rerank=args.rerank,
            rerank_top_n=args.rerank_top_n,
            filter=args.filter,
            include_superseded=args.include_superseded or None,
            include_embedding=args.with_embedding or None,
        )
    )


def check_time_range(query: RecallRequest) -> RecallRequest:
    """``query``; ``--since``/``--until`` without the temporal strategy is bad input."""
    if query.time_range is not None and TIME_RANGE_STRATEGY not in (query.strategies or ()):
        raise UsageError("--since/--until", f"apply to the {TIME_RANGE_STRATEGY} strategy only")
    return query


def recall(args: argparse.Namespace) -> Run:
    """Recalls memories and prints them ranked by score."""
    query = recall_request(args)

    def run(engine: Store) -> CommandOutput:
        output = engine.run(query)
        strategies = ("regex",) if query.force_regex else query.strategies or ran(output)
        return CommandOutput(fmt.recall_json(output), fmt.recall_text(output, strategies))

    return run


def get(args: argparse.Namespace) -> Run:
    """Prints every field of one memory."""
    given = request(GetRequest, args, id=args.id, include_embedding=args.with_embedding)

    def run(engine: Store) -> CommandOutput:
        memory = engine.run(given)
        return CommandOutput(fmt.memory_json(memory), fmt.memory_text(memory))

    return run


def health(args: argparse.Namespace) -> Run:
    """Prints serving state, version, memory count and uptime."""

    def run(engine: Store) -> CommandOutput:
        status = engine.health()
        return CommandOutput(fmt.terminal_json(status.to_dict()), fmt.health_text(status))

    return run


def chat_context(args: argparse.Namespace) -> Run:
    """Lists the memories a conversation touched, in order."""
    given = request(ChatContextRequest, args, session_id=args.session, limit=args.limit)
    return lambda engine: _memory_list(engine.run(given))


def orphans(args: argparse.Namespace) -> Run:
    """Lists memories with no edges, newest first."""
    given = request(OrphansRequest, args, limit=args.limit)
    return lambda engine: _memory_list(engine.run(given))


def list_memories(args: argparse.Namespace) -> Run:
    """Prints one page of the stored memories and the cursor of the next."""
    given = request(
        ListMemoriesRequest,
        args,
        entity_id=args.entity_id,
        kind=args.kind,
        cursor=args.cursor,
        limit=args.limit,
        include_superseded=args.include_superseded,
        filter=args.filter,
    )

    def run(engine: Store) -> CommandOutput:
        page = engine.run(given)
        cursor = None if page.next_cursor is None else page.next_cursor.hex()
        payload: fmt.JsonObject = {
            "memories": [fmt.memory_json(memory) for memory in page.memories],
            "next_cursor": cursor,
        }
        lines = [f"{memory.id_hex}  {memory.content}" for memory in page.memories]
        lines = lines or ["no memories"]
        if cursor is not None:
            lines.append(f"next page: --cursor {cursor}")
        return CommandOutput(payload, "\n".join(lines))

    return run


def _memory_list(memories: Sequence[Memory]) -> CommandOutput:
    payload: fmt.JsonObject = {"memories": [fmt.memory_json(memory) for memory in memories]}
    lines = [f"{memory.id_hex}  {memory.content}" for memory in memories]
    return CommandOutput(payload, "\n".join(lines) if lines else "no memories")


def prime(args: argparse.Namespace) -> Run:
    """Prints an entity's recent memories blended with those nearest the cue."""
    given = request(
        PrimeRequest,
        args,
        entity_id=args.entity_id,
        cue=args.cue,
        max_memories=args.max_memories,
        filter=args.filter,
        time_range=time_range(args.since, args.until),
        ef_search=args.ef_search,
        scoring_weights=scoring_weights(args.weights),
        include_embedding=args.with_embedding or None,
    )

    def run(engine: Store) -> CommandOutput:
        output = engine.run(given)
        strategies = ("temporal", "similarity") if given.cue is not None else ("temporal",)
        payload = fmt.recall_json(output)
        payload["temporal_count"] = output.temporal_count
        payload["similarity_count"] = output.similarity_count
        summary = (
            f"{output.temporal_count} from the timeline, {output.similarity_count} near the cue"
        )
        return CommandOutput(payload, f"{fmt.recall_text(output, strategies)}\n{summary}")

    return run


def ran(output: RecallOutput) -> tuple[str, ...]:
    """The strategies whose details the results of ``output`` carry, in first-seen order."""
    return tuple(
        dict.fromkeys(
            detail.strategy for result in output.results for detail in result.strategy_details
        )
    )


def resolve_strategies(
    named: Sequence[str], cue: str | None, entity_id: str | None, seed: str | None = None
) -> tuple[str, ...] | None:
    """The strategies named (duplicates dropped), else None for a cue (the engine's default
    pipeline), else causal from a seed, else temporal for an entity."""
    if named:
        return tuple(dict.fromkeys(named))
    if cue is not None:
        return None
    if seed is not None:
        return (SEED_STRATEGY,)
    if entity_id is not None:
        return (ENTITY_STRATEGY,)
    raise UsageError(
        "CUE", "give a CUE to recall, --seed for a causal walk, or --entity-id for a timeline"
    )
