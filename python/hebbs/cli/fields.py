"""The command line's request fields: which request model each data command builds, the flag
that spells each field, and the flags made for the fields no command spells by hand.

A field added to a request model gets its flag here without an edit: ``--name-with-dashes``,
its value JSON (``--min-score 0.5``, ``--names '["a", "b"]'``) or, for a text field, the text
itself, and a bool field a switch. The value reaches the command's request through
:func:`generated_values`, and its errors name the flag.
"""

from __future__ import annotations

import argparse
import json
import types
import typing
from typing import Any, Final

from pydantic_core import PydanticUndefined

from hebbs.api import (
    ChatContextRequest,
    ConfirmContradictionRequest,
    FindContradictionsRequest,
    ForgetRequest,
    GetRequest,
    IndexDocumentsRequest,
    InsightsRequest,
    ListMemoriesRequest,
    OrphansRequest,
    PrimeRequest,
    RecallRequest,
    ReflectCommitRequest,
    ReflectPrepareRequest,
    ReflectRequest,
    RememberRequest,
    Request,
    ReviseRequest,
)
from hebbs.cli import values

#: Where a generated flag keeps its value in the parsed arguments: the prefix of its ``dest``.
GENERATED_DEST: Final = "generated__"

#: The one table from request-model (and engine) field names to the command-line spelling that
#: error messages show: an ``InvalidInputError.field`` becomes the flag the user typed.
FIELD_FLAGS: Final = {
    "content": "CONTENT",
    "cue": "CUE",
    "id": "ID",
    "importance": "--importance",
    "context": "--context",
    "entity_id": "--entity-id",
    "created_at": "--created-at",
    "edge": "--edge",
    "edges": "--edge",
    "edge_type": "--edge",
    "edge_types": "--edge-type",
    "confidence": "--edge",
    "strategies": "--strategy",
    "top_k": "--top-k",
    "time_range": "--since/--until",
    "ef_search": "--ef-search",
    "scoring_weights": "--weights",
    "seed_memory_id": "--seed",
    "max_depth": "--max-depth",
    "direction": "--direction",
    "analogical_alpha": "--alpha",
    "cue_context": "--cue-context",
    "max_memories": "--max-memories",
    "min_relevance": "--min-relevance",
    "session_id": "--session",
    "force_regex": "--regex",
    "include_embedding": "--with-embedding",
    "purge": "--purge",
    "progress": "--no-progress",
    "include_superseded": "--include-superseded",
    "include_organization": "--include-organization",
    "organization": "--organization",
    "graph_context": "--graph-context",
    "rerank": "--rerank",
    "rerank_top_n": "--rerank-top-n",
    "quality": "--quality",
    "filter": "--filter",
    "ids": "ID",
    "older_than": "--older-than",
    "importance_below": "--importance-below",
    "kind": "--kind",
    "limit": "--limit",
    "cursor": "--cursor",
    "tenant": "--tenant",
    "scope": "--scope",
    "since": "--since",
    "min_cluster_size": "--min-cluster-size",
    "min_confidence": "--min-confidence",
    "include_stale": "--include-stale",
    "ttl": "--ttl",
    "insights": "INSIGHTS",
    "dedup": "--dedup",
    "dedup_threshold": "--dedup-threshold",
    "threshold": "--threshold",
    "older_id": "OLDER",
    "newer_id": "NEWER",
    "resolution": "--resolution",
    "paths": "PATH",
}
#: The request model each data command builds. Every field of it has a flag: its hand-written
#: one (:data:`FIELD_FLAGS`, :data:`COMMAND_FIELD_FLAGS`), or one :func:`add_generated_flags`
#: makes, unless it is one of :data:`UNOFFERED_FIELDS` (tests/test_cli_flags.py).
COMMAND_REQUESTS: Final[dict[str, type[Request]]] = {
    "remember": RememberRequest,
    "recall": RecallRequest,
    "get": GetRequest,
    "revise": ReviseRequest,
    "forget": ForgetRequest,
    "prime": PrimeRequest,
    "chat-context": ChatContextRequest,
    "orphans": OrphansRequest,
    "list": ListMemoriesRequest,
    "index": IndexDocumentsRequest,
    "reflect": ReflectRequest,
    "insights": InsightsRequest,
    "reflect-prepare": ReflectPrepareRequest,
    "reflect-commit": ReflectCommitRequest,
    "contradictions": FindContradictionsRequest,
    "confirm-contradiction": ConfirmContradictionRequest,
}
#: Fields no command offers: vectors (the command line embeds text itself).
UNOFFERED_FIELDS: Final = frozenset({"embedding", "cue_embedding", "cue_token_vectors"})
#: Where a command spells a field otherwise than :data:`FIELD_FLAGS` does.
COMMAND_FIELD_FLAGS: Final = {
    "prime": {"entity_id": "ENTITY"},
    "chat-context": {"session_id": "SESSION"},
    "revise": {"content": "--content"},
    "reflect-commit": {"session_id": "SESSION"},
}


def hand_flag(command: str, field: str) -> str | None:
    """The hand-written spelling of ``field`` in ``command``, if it has one."""
    return COMMAND_FIELD_FLAGS.get(command, {}).get(field) or FIELD_FLAGS.get(field)


def generated_flag(command: str, field: str) -> str | None:
    """The flag made for ``field`` of ``command``'s request, if one was."""
    model = COMMAND_REQUESTS.get(command)
    if model is None or field not in model.model_fields or field in UNOFFERED_FIELDS:
        return None
    return "--" + field.replace("_", "-")


def add_generated_flags(parser: argparse.ArgumentParser, command: str) -> None:
    """Adds to ``command``'s ``parser`` a flag for each field of its request that has no
    hand-written one in it."""
    spelled = {text for action in parser._actions for text in _spellings(action)}
    for field, info in COMMAND_REQUESTS[command].model_fields.items():
        flag = generated_flag(command, field)
        hand = hand_flag(command, field)
        if flag is None or (hand is not None and set(hand.split("/")) <= spelled):
            continue
        dest = GENERATED_DEST + field
        default = "" if info.default in (None, PydanticUndefined) else f" (default {info.default})"
        if _core_type(info.annotation) is bool:
            parser.add_argument(
                flag, dest=dest, action="store_true", default=None, help=f"sets {field}"
            )
        elif _core_type(info.annotation) is str:
            help_text = (info.description or f"{field} of the request") + default
            parser.add_argument(
                flag, dest=dest, metavar="TEXT", type=values.unicode_text, help=help_text
            )
        else:
            help_text = (info.description or f"{field} of the request") + f", as JSON{default}"
            parser.add_argument(flag, dest=dest, metavar="JSON", type=_json, help=help_text)


def generated_values(args: argparse.Namespace, model: type[Request]) -> dict[str, Any]:
    """The values of ``model``'s fields given with generated flags."""
    return {
        field: value
        for field in model.model_fields
        if (value := getattr(args, GENERATED_DEST + field, None)) is not None
    }


def _spellings(action: argparse.Action) -> list[str]:
    if action.option_strings:
        return list(action.option_strings)
    return [action.metavar] if isinstance(action.metavar, str) else []


def _core_type(annotation: Any) -> Any:
    """``annotation`` without ``Annotated`` and ``Optional`` around it."""
    while True:
        origin = typing.get_origin(annotation)
        arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
        union = origin in (typing.Union, types.UnionType)
        if origin is typing.Annotated or (union and len(arguments) == 1):
            annotation = arguments[0]
        else:
            return annotation


def _json(text: str) -> Any:
    """A generated flag's value: JSON text, its strings valid Unicode."""
    values.unicode_text(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error.msg})") from None
