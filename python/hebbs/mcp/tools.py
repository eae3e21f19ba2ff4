"""The MCP tools: one :class:`Tool` per operation in :data:`TOOLS`, the one table a new tool
is added to.

A tool's input schema is its operation's request model's JSON schema
(:mod:`hebbs.api.requests`) without the fields a model cannot fill sensibly (vectors, the
switch that returns them), with a description on the fields a model must understand to use the
tool. A call's arguments are checked by the same model, so a bad argument is the embedded API's
:class:`~hebbs.InvalidInputError` naming the field; the result is the JSON the REST server
sends for the same operation (:mod:`hebbs.api.responses`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Final, cast

from hebbs._inputs import invalid
from hebbs._native import (
    DEFAULT_IMPORTANCE,
    DEFAULT_PRIME_MAX_MEMORIES,
    DEFAULT_TOP_K,
    MAX_CAUSAL_DEPTH,
    STRATEGIES,
)
from hebbs.api import (
    ForgetRequest,
    GetRequest,
    InsightsRequest,
    LineageRequest,
    PrimeRequest,
    RecallRequest,
    ReflectRequest,
    ReinforceRequest,
    RememberRequest,
    ReviseRequest,
    parse,
)
from hebbs.api.model import Request, Returns
from hebbs.api.operations import Operations
from hebbs.api.responses import JsonObject, wire
from hebbs.errors import InvalidTypeError

#: Request fields no tool offers: vectors (the store embeds text itself) and the switch that
#: returns them (hundreds of floats a model cannot use).
VECTOR_FIELDS: Final = frozenset({"embedding", "cue_embedding", "include_embedding"})

_ID = "a memory id: 32 hex digits, as returned in the `id` field of a memory"
_ENTITY = (
    "who or what the memory is about (a customer, a user, a project): recall and prime can "
    "then be restricted to it"
)


@dataclass(frozen=True)
class Tool:
    """One MCP tool: the request model it runs on the store, how its result becomes JSON, and
    the key scope it needs on a server (``read`` or ``write``)."""

    name: str
    request: type[Request]
    description: str
    encode: Callable[[Any], JsonObject]
    scope: str
    fields: Mapping[str, str] = field(default_factory=dict)
    read_only: bool = True

    def input_schema(self) -> JsonObject:
        """The request model's JSON schema, less :data:`VECTOR_FIELDS`, with :attr:`fields`
        as the properties' descriptions."""
        schema = copy.deepcopy(self.request.model_json_schema())
        properties: dict[str, Any] = schema.get("properties", {})
        for name in VECTOR_FIELDS & properties.keys():
            del properties[name]
        for name, text in self.fields.items():
            properties[name]["description"] = text
        if "required" in schema:
            schema["required"] = [name for name in schema["required"] if name in properties]
        schema.pop("title", None)
        return schema

    def checked(self, given: Mapping[str, Any] | None) -> Request:
        """The tool's request for the call's arguments ``given``, checked by the request model
        (the fields the caller left out keep the store's defaults)."""
        given = dict(given or {})
        for name in VECTOR_FIELDS & given.keys():
            raise invalid(name, f"unknown field {name!r}", InvalidTypeError)
        return parse(self.request, given)

    def run(self, store: Operations[Any], given: Mapping[str, Any] | None) -> JsonObject:
        """Calls the tool on ``store`` (a :class:`~hebbs.Hebbs` or a
        :class:`~hebbs.HebbsClient`) and returns its JSON result."""
        return self.encode(store.run(cast(Returns[Any], self.checked(given))))


def _memories(memories: list[Any]) -> JsonObject:
    return {"memories": wire(memories)}


def _insights(insights: list[Any]) -> JsonObject:
    return {"insights": wire(insights)}


def _done(_result: None) -> JsonObject:
    return {"ok": True}


_STRATEGY_TEXT = (
    "how to search, one or more run in parallel and fused: `similarity` (meaning of `cue`), "
    "`keyword` (BM25 on the words of `cue`; exact names, codes, ids), `hybrid` (similarity and "
    "keyword fused: the best default for mixed questions), `temporal` (the timeline of "
    "`entity_id`, newest first, optionally within `time_range`), `causal` (walk the edges from "
    "`seed_memory_id`, or from the memory nearest `cue`), `analogical` (memories shaped like "
    "`cue_context`), `regex` (`cue` as a regular expression). An entry may also be an object "
    "`{strategy, top_k, entity_id, ...}` overriding this call's parameters for that strategy."
)

#: Every tool, in the order ``tools/list`` shows them.
TOOLS: Final[tuple[Tool, ...]] = (
    Tool(
        name="remember",
        request=RememberRequest,
        scope="write",
        read_only=False,
        encode=wire,
        description=(
            "Store one memory: a fact, event, decision, preference or observation worth "
            "recalling later, in one or two self-contained sentences. Set `entity_id` to whom "
            "it concerns and `importance` (0..1) to how much it matters. Link it to earlier "
            "memories with `edges` (e.g. this decision `caused_by` that request). Returns the "
            "stored memory with its `id`."
        ),
        fields={
            "content": "the memory itself, self-contained (names, not pronouns)",
            "importance": f"0..1, how much it matters (default {DEFAULT_IMPORTANCE})",
            "context": "structured details as a JSON object (channel, topic, amounts, ...)",
            "entity_id": _ENTITY,
            "edges": (
                "links to existing memories: `{target: id, edge_type: caused_by | related_to "
                "| followed_by, confidence: 0..1}`"
            ),
            "session_id": "the conversation this belongs to",
        },
    ),
    Tool(
        name="recall",
        request=RecallRequest,
        scope="read",
        encode=wire,
        description=(
            "Search memory. Give a natural-language `cue` and get the best memories ranked by "
            "a composite of relevance, recency, importance and reinforcement (tune with "
            "`scoring_weights`). Leave `strategies` out for most questions: the default is "
            "the best search (meaning and words fused, then re-ranked). Name them for a "
            "special question: `keyword` for exact names or codes, `temporal` with "
            "`entity_id` for 'what happened lately with X', `causal` for 'why' and 'what "
            "followed', `analogical` for 'something like this before'. Each result carries "
            "the memory, its score and why it matched; use `get` for details of one."
        ),
        fields={
            "cue": "the question or topic, in natural language (the pattern with `regex`)",
            "strategies": "leave out for the default (best) search; else "
            + _STRATEGY_TEXT
            + f" Names: {', '.join(STRATEGIES)}.",
            "top_k": f"how many results (default {DEFAULT_TOP_K})",
            "entity_id": "only memories about this entity (needed by `temporal`)",
            "time_range": "[start, end] in microseconds since the epoch (either may be null)",
            "scoring_weights": (
                "the ranking blend: `{w_relevance, w_recency, w_importance, w_reinforcement}` "
                "(defaults 0.5, 0.2, 0.2, 0.1); raise `w_recency` for 'latest'"
            ),
            "seed_memory_id": "for `causal`: the memory to walk from (" + _ID + ")",
            "max_depth": f"for `causal`: hops to walk (at most {MAX_CAUSAL_DEPTH})",
            "direction": "for `causal`: `causes` (backwards), `effects` (forwards) or `both`",
            "cue_context": "for `analogical`: the structure to match, as a JSON object",
            "min_relevance": "drop results less relevant than this (0..1)",
            "session_id": "the conversation asking: its context remembers what was returned",
            "filter": (
                "only memories this metadata filter selects, e.g. "
                '`{"context.channel": "email", "context.priority": {"$gte": 2}}`: fields '
                "context.<key>, kind, entity_id, session_id, created_at, importance; operators "
                "$eq $ne $gt $gte $lt $lte $in $nin $exists $contains; $and, $or, $not"
            ),
        },
    ),
    Tool(
        name="prime",
        request=PrimeRequest,
        scope="read",
        encode=wire,
        description=(
            "Load what you should know about an entity before talking about it: its most "
            "recent memories blended with those nearest an optional `cue`. Call it at the "
            "start of a conversation about a customer, user or project."
        ),
        fields={
            "entity_id": "the entity to prime for",
            "cue": "what the conversation is about, to add its nearest memories",
            "max_memories": f"how many memories (default {DEFAULT_PRIME_MAX_MEMORIES})",
        },
    ),
    Tool(
        name="revise",
        request=ReviseRequest,
        scope="write",
        read_only=False,
        encode=wire,
        description=(
            "Correct or update a memory: stores a revision that replaces memory `id` in "
            "recall (the old version stays in its lineage). Give only what changes; the rest "
            "is kept. Returns the new revision with its own `id`."
        ),
        fields={"id": "the memory to revise (" + _ID + ")", "content": "the corrected text"},
    ),
    Tool(
        name="forget",
        request=ForgetRequest,
        scope="write",
        read_only=False,
        encode=wire,
        description=(
            "Erase memories for good: by `ids`, everything about an `entity_id` (a deletion "
            "request), or those older than `older_than` or less important than "
            "`importance_below`; the selectors are combined with AND. Leaves a tombstone "
            "without the content. Use it when asked to forget, not to correct (use `revise`)."
        ),
        fields={
            "ids": "the memories to erase (" + _ID + " each)",
            "entity_id": "erase everything about this entity",
            "older_than": "erase memories created before this time (microseconds)",
            "importance_below": "erase memories whose importance is below this",
        },
    ),
    Tool(
        name="get",
        request=GetRequest,
        scope="read",
        encode=wire,
        description=(
            "Fetch one memory by `id` with all its fields (content, context, entity, times, "
            "access count, kind)."
        ),
        fields={"id": _ID},
    ),
    Tool(
        name="lineage",
        request=LineageRequest,
        scope="read",
        encode=_memories,
        description=(
            "The revision history of a memory: every version from the original to the "
            "latest, oldest first."
        ),
        fields={"id": _ID},
    ),
    Tool(
        name="reinforce",
        request=ReinforceRequest,
        scope="write",
        read_only=False,
        encode=_done,
        description=(
            "Tell memory which recalled memories you actually used (in an answer, a plan or a "
            "decision): each counts as used once more, so it ranks a little higher for later "
            "questions it is relevant to. Call it after acting on what `recall` gave you."
        ),
        fields={"ids": "the memories you used (" + _ID + " each)"},
    ),
    Tool(
        name="reflect",
        request=ReflectRequest,
        scope="write",
        read_only=False,
        encode=wire,
        description=(
            "Consolidate what was remembered since the last reflection into insights: "
            "clusters of related episodes become `insight` memories linked to their sources "
            "(the server's LLM provider, or its offline summariser). Call it after a batch of "
            "new memories, for all of them or one `entity_id`; then read them with "
            "`insights`. Returns how many clusters and insights it made."
        ),
        fields={
            "entity_id": "reflect only on the memories of this entity",
            "since": "only memories created after this time (microseconds since the epoch)",
            "min_confidence": "store only insights at least this confident (0..1)",
        },
    ),
    Tool(
        name="insights",
        request=InsightsRequest,
        scope="read",
        encode=_insights,
        description=(
            "The insights reflection made: general statements learned from many memories, "
            "each with its confidence, the ids of the memories it came from, and whether one "
            "of those was revised since (stale). Use them as background before answering."
        ),
        fields={
            "entity_id": "only the insights about this entity",
            "min_confidence": "only insights at least this confident (0..1)",
            "include_stale": "also the insights whose sources were revised since",
        },
    ),
)

#: The tools by name.
TOOLS_BY_NAME: Final = {tool.name: tool for tool in TOOLS}
