"""The ``reflect``, ``insights``, ``reflect-prepare``, ``reflect-commit``, ``contradictions``
and ``confirm-contradiction`` commands. Each
builds the operation's shared request model (:mod:`hebbs.api.requests`) from its flags and
returns the :data:`~hebbs.cli.commands.Run` that calls the store (or the server of ``--url``).

``reflect-commit SESSION INSIGHTS`` takes the insights as a JSON array of
``{"content", "sources", "confidence"}`` objects, or ``-`` to read that array from stdin (what
a host's model answered to the prompts of ``reflect-prepare --json``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from hebbs.api import (
    ConfirmContradictionRequest,
    FindContradictionsRequest,
    InsightsRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
)
from hebbs.cli import format as fmt
from hebbs.cli.commands import CommandOutput, Run, request
from hebbs.cli.errors import UsageError

if TYPE_CHECKING:
    from hebbs.cli.store import Store


def _listing(key: str, entries: list[fmt.JsonObject], lines: list[str]) -> CommandOutput:
    """``{key: entries}`` with ``--json``, else the lines (or ``no <key>``)."""
    return CommandOutput({key: entries}, "\n".join(lines) if lines else f"no {key}")


def reflect(args: argparse.Namespace) -> Run:
    """Consolidates new memories into insights; prints the four counts."""
    given = request(
        ReflectRequest,
        args,
        entity_id=args.entity_id,
        since=args.since,
        max_memories=args.max_memories,
        min_cluster_size=args.min_cluster_size,
        min_confidence=args.min_confidence,
    )

    def run(engine: Store) -> CommandOutput:
        result = engine.run(given)
        text = (
            f"{result.insights_created} insights from {result.clusters_processed} of "
            f"{result.clusters_found} clusters ({result.memories_processed} memories read)"
        )
        return CommandOutput(result.to_dict(), text)

    return run


def insights(args: argparse.Namespace) -> Run:
    """Lists the insights with their confidence, source count and staleness."""
    given = request(
        InsightsRequest,
        args,
        entity_id=args.entity_id,
        min_confidence=args.min_confidence,
        include_stale=args.include_stale or None,
    )

    def run(engine: Store) -> CommandOutput:
        found = engine.run(given)
        return _listing(
            "insights",
            [
                {
                    "memory": fmt.memory_json(i.memory),
                    "confidence": i.confidence,
                    "source_ids": i.source_ids,
                    "stale": i.stale,
                }
                for i in found
            ],
            [
                f"{i.memory.id_hex}  {i.confidence:.2f}  {len(i.source_ids)} sources"
                f"{'  STALE' if i.stale else ''}  {i.memory.content}"
                for i in found
            ],
        )

    return run


def reflect_prepare(args: argparse.Namespace) -> Run:
    """Prints the clusters to think about, their memories and the prompts, in a session."""
    given = request(
        ReflectPrepareRequest,
        args,
        entity_id=args.entity_id,
        max_memories=args.max_memories,
        min_cluster_size=args.min_cluster_size,
        ttl=args.ttl,
    )

    def run(engine: Store) -> CommandOutput:
        session = engine.run(given)
        lines = [f"session {session.session_id}: {len(session.clusters)} clusters"]
        for cluster in session.clusters:
            lines.append(f"\n# cluster {cluster.index} ({len(cluster.memories)} memories)")
            lines.append(cluster.prompt)
        return CommandOutput(session.to_dict(), "\n".join(lines))

    return run


def _insights_json(text: str) -> Any:
    raw = sys.stdin.read() if text == "-" else text
    try:
        return json.loads(raw)
    except ValueError as error:
        raise UsageError("INSIGHTS", f"is not JSON: {error}") from None


def reflect_commit(args: argparse.Namespace) -> Run:
    """Stores a host's insights for a prepared session; prints their ids."""
    given = request(
        ReflectCommitRequest, args, session_id=args.session, insights=_insights_json(args.insights)
    )

    def run(engine: Store) -> CommandOutput:
        result = engine.run(given)
        lines = [f"{memory.id_hex}  {memory.content}" for memory in result.insights]
        text = "\n".join([f"{result.insights_created} insights stored", *lines])
        payload: fmt.JsonObject = {
            "insights_created": result.insights_created,
            "insights": [fmt.memory_json(memory) for memory in result.insights],
        }
        return CommandOutput(payload, text)

    return run


def contradictions(args: argparse.Namespace) -> Run:
    """Lists candidate contradictions, most similar first."""
    given = request(
        FindContradictionsRequest,
        args,
        entity_id=args.entity_id,
        threshold=args.threshold,
        limit=args.limit,
    )

    def run(engine: Store) -> CommandOutput:
        found = engine.run(given)
        return _listing(
            "contradictions",
            [
                {
                    "older": fmt.memory_json(c.older),
                    "newer": fmt.memory_json(c.newer),
                    "similarity": c.similarity,
                    "reason": c.reason,
                }
                for c in found
            ],
            [
                f"{c.similarity:.2f} {c.reason}\n  {c.older.id_hex}  {c.older.content}\n"
                f"  {c.newer.id_hex}  {c.newer.content}"
                for c in found
            ],
        )

    return run


def confirm_contradiction(args: argparse.Namespace) -> Run:
    """Records a confirmed contradiction; prints the memory that now holds it."""
    given = request(
        ConfirmContradictionRequest,
        args,
        older_id=args.older,
        newer_id=args.newer,
        resolution=args.resolution,
    )

    def run(engine: Store) -> CommandOutput:
        memory = engine.run(given)
        return CommandOutput(fmt.memory_json(memory), f"{memory.id_hex}  {memory.content}")

    return run
