"""The request of each operation, spelled once: its parameters, their types and their defaults
(read from the native module's constants). ``Hebbs`` and ``AsyncHebbs`` build one per call with
:func:`parse`, and so do the CLI (from its parsed flags), the server and the client.

pydantic v2 is the model library: FastAPI (the server) takes its models as they are, so one
definition gives the embedded API's checks, the JSON codec and the OpenAPI schema. Each field's
type (``hebbs.api.fields``) does the checks Python must do; the engine checks ranges, lengths
and dimensions and names the field the same way.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Final, Generic, Literal, Optional, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from hebbs import _native
from hebbs._inputs import invalid
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
    ForgetResult,
    HealthStatus,
    Memory,
    MemoryPage,
    PrimeOutput,
    RecallOutput,
    ScoringWeights,
    Tombstone,
)
from hebbs.api.fields import (
    Content,
    Count,
    Count32,
    EdgeList,
    EdgeTypeList,
    FilterObject,
    Flag,
    Fraction,
    IdList,
    JsonObject,
    Key,
    KeyList,
    KeyPrefix,
    KindField,
    Matrix,
    MemoryIdField,
    Micros,
    Number,
    PathField,
    Positive,
    Seconds,
    StrategyList,
    Text,
    TimeRange,
    Vector,
    WeightsLike,
)
from hebbs.consolidate.constants import (
    DEFAULT_CONTRADICTION_LIMIT,
    DEFAULT_CONTRADICTION_SIMILARITY,
    DEFAULT_DEDUP_THRESHOLD,
)
from hebbs.errors import InvalidInputError, InvalidTypeError, InvalidValueError
from hebbs.reflect.constants import (
    DEFAULT_MIN_CLUSTER_SIZE,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_MAX_MEMORIES,
    DEFAULT_SESSION_TTL_S,
)

if TYPE_CHECKING:
    # Results named in string form by the models' ``Returns`` (their modules import this one).
    from hebbs.consolidate import ContradictionCandidate  # noqa: F401
    from hebbs.ingest import IndexResult  # noqa: F401
    from hebbs.reflect import CommitResult, Insight, ReflectResult, ReflectSession  # noqa: F401
    from hebbs.types import TokenVectors  # noqa: F401

if sys.version_info >= (3, 10):
    from typing import Concatenate, ParamSpec
else:
    from typing_extensions import Concatenate, ParamSpec

#: Strategies of the default recall of a cue with text (``strategies`` not given): dense and BM25
#: searches fused by reciprocal rank, whose most relevant candidates the ``DEFAULT_RERANK`` stage
#: re-scores (see :func:`resolve_quality`); the engine's constants.
DEFAULT_STRATEGIES: tuple[str, ...] = _native.DEFAULT_STRATEGIES
#: Strategies of the default recall of a cue given only as a vector (``cue_embedding`` without
#: ``cue``): there is no text for BM25.
VECTOR_CUE_STRATEGIES: tuple[str, ...] = ("similarity",)
#: Whether a store keeps each memory's token vectors (from the embedding pass ``remember``
#: runs anyway) for the late-interaction re-rank stage. On: measured in docs/hybrid.md, it
#: costs about 11 KB a memory and a few percent of ``remember_many``'s time, and it is what
#: the default recall re-ranks with.
DEFAULT_TOKEN_VECTORS: Final = True
#: Re-rank stages ``recall(rerank=...)`` accepts (the engine's ``Rerank``).
RerankName = Literal["none", "late_interaction"]
#: Presets ``recall(quality=...)`` accepts, each applied to the fields the caller leaves unset
#: (docs/hybrid.md has their figures). Without one, a recall of a cue runs the default
#: pipeline: ``hybrid``, the late-interaction stage, seed 000's composite weights.
#: ``"fast"``: ``hybrid`` without the stage. ``"best"``: the default pipeline ranked by
#: relevance alone (composite weights 1, 0, 0, 0).
QualityName = Literal["fast", "best"]
#: How the vector index holds the vectors in memory (docs/scale.md, "int8 vectors").
VectorFormatName = Literal["f32", "int8"]


Result = TypeVar("Result", covariant=True)


class Request(BaseModel):
    """The base of every request: unknown fields are refused, native values pass as they are."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)


class Returns(Generic[Result]):
    """What an operation's request gives when it runs, for the type checker: ``run`` of a
    ``Returns[T]`` request is a ``T`` (:class:`hebbs.api.operations.Operations`)."""

    __slots__ = ()


class OpenRequest(Request):
    path: PathField
    dimension: Optional[Count] = None
    m: Optional[Count] = None
    ef_construction: Optional[Count] = None
    ef_search: Optional[Count] = None
    sync_writes: Flag = False
    auto_forget_floor: Optional[Number] = None
    auto_forget_interval: Optional[Seconds] = None
    auto_forget_limit: Optional[Count] = None
    organization: Optional[PathField] = None
    reflect_after_memories: Optional[Positive] = None
    reflect_interval: Optional[Seconds] = None
    token_vectors: Flag = DEFAULT_TOKEN_VECTORS
    vector_format: Optional[VectorFormatName] = None


class RememberRequest(Request, Returns[Memory]):
    content: Content
    importance: Number = DEFAULT_IMPORTANCE
    context: Optional[JsonObject] = None
    entity_id: Optional[Text] = None
    edges: EdgeList = []
    created_at: Optional[Micros] = None
    embedding: Optional[Vector] = None
    session_id: Optional[Text] = None
    kind: Optional[KindField] = None
    dedup: Flag = False
    dedup_threshold: Fraction = DEFAULT_DEDUP_THRESHOLD
    key: Optional[Key] = None


class RememberManyRequest(Request, Returns["list[Memory]"]):
    items: list[RememberRequest]


class GetRequest(Request, Returns[Memory]):
    id: MemoryIdField
    include_embedding: Flag = False


class IdRequest(Request):
    id: MemoryIdField


class LineageRequest(IdRequest, Returns["list[Memory]"]):
    """``lineage``: the revision chain through ``id``."""


class TombstoneRequest(IdRequest, Returns[Optional[Tombstone]]):
    """``tombstone``: the tombstone of forgotten memory ``id``."""


class GetTokenVectorsRequest(Request, Returns["list[TokenVectors | None]"]):
    ids: IdList


class PutTokenVectorsRequest(Request, Returns[None]):
    """``put_token_vectors``: the native call checks each ``(id, codes, scales)`` item."""

    items: list[Any]


class HealthRequest(Request, Returns[HealthStatus]):
    """``health``: no parameters."""


class OptimizeRequest(Request, Returns[None]):
    """``optimize``: no parameters."""


class CheckpointRequest(Request, Returns[None]):
    """``checkpoint``: no parameters."""


class GetManyRequest(Request, Returns["list[Memory | None]"]):
    ids: Optional[IdList] = None
    keys: Optional[KeyList] = None
    include_embedding: Flag = False


class WeightsInput(Request):
    """``scoring_weights`` given as a dict: each key one of :class:`ScoringWeights`' fields."""

    w_relevance: Optional[Number] = None
    w_recency: Optional[Number] = None
    w_importance: Optional[Number] = None
    w_reinforcement: Optional[Number] = None
    max_age_us: Optional[Count] = None
    reinforcement_cap: Optional[Count] = None


class RankedRequest(Request):
    """What recall and prime share: the cue, the time window, the search and the ranking."""

    cue: Optional[Text] = None
    time_range: Optional[TimeRange] = None
    ef_search: Optional[Count] = None
    scoring_weights: Optional[WeightsLike] = None
    cue_embedding: Optional[Vector] = None
    include_embedding: Flag = False
    filter: Optional[FilterObject] = None


class RecallRequest(RankedRequest, Returns[RecallOutput]):
    strategies: Optional[StrategyList] = None
    top_k: Count = DEFAULT_TOP_K
    entity_id: Optional[Text] = None
    seed_memory_id: Optional[MemoryIdField] = None
    edge_types: Optional[EdgeTypeList] = None
    max_depth: Count = DEFAULT_CAUSAL_DEPTH
    direction: Text = DEFAULT_DIRECTION
    analogical_alpha: Number = DEFAULT_ANALOGICAL_ALPHA
    cue_context: Optional[JsonObject] = None
    rrf_k: Count32 = DEFAULT_RRF_K
    min_relevance: Optional[Number] = None
    graph_context: Count = DEFAULT_GRAPH_CONTEXT
    session_id: Optional[Text] = None
    force_regex: Flag = False
    include_superseded: Flag = False
    include_organization: Flag = False
    rerank: Optional[RerankName] = None
    rerank_top_n: Count = DEFAULT_RERANK_TOP_N
    cue_token_vectors: Optional[Matrix] = None
    quality: Optional[QualityName] = None


class PrimeRequest(RankedRequest, Returns[PrimeOutput]):
    entity_id: Text
    max_memories: Count = DEFAULT_PRIME_MAX_MEMORIES


class ReviseChanges(Request):
    """What a revision changes (the body of the server's ``PUT /v1/memories/{id}``)."""

    content: Optional[Content] = None
    importance: Optional[Number] = None
    context: Optional[JsonObject] = None
    embedding: Optional[Vector] = None
    entity_id: Optional[Text] = None


class ReviseRequest(ReviseChanges, Returns[Memory]):
    id: MemoryIdField


class EdgesRequest(Request):
    """The edges to add (the body of the server's ``POST /v1/memories/{id}/edges``)."""

    edges: EdgeList


class AddEdgesRequest(EdgesRequest, Returns[None]):
    id: MemoryIdField


class ForgetRequest(Request, Returns[ForgetResult]):
    ids: Optional[IdList] = None
    keys: Optional[KeyList] = None
    entity_id: Optional[Text] = None
    older_than: Optional[Micros] = None
    importance_below: Optional[Number] = None
    kind: Optional[KindField] = None
    filter: Optional[FilterObject] = None
    purge: Flag = False
    limit: Optional[Positive] = None


class ForgetDecayedRequest(Request, Returns[ForgetResult]):
    floor: Number
    limit: Optional[Positive] = None


class TombstonesRequest(Request, Returns["list[Tombstone]"]):
    after: Optional[MemoryIdField] = None
    limit: Positive = DEFAULT_TOMBSTONE_PAGE


class ChatContextRequest(Request, Returns["list[Memory]"]):
    session_id: Text
    limit: Count = DEFAULT_LIST_LIMIT


class OrphansRequest(Request, Returns["list[Memory]"]):
    limit: Count = DEFAULT_LIST_LIMIT


class ListMemoriesRequest(Request, Returns[MemoryPage]):
    entity_id: Optional[Text] = None
    kind: Optional[KindField] = None
    cursor: Optional[MemoryIdField] = None
    limit: Count = DEFAULT_LIST_PAGE
    include_superseded: Flag = False
    filter: Optional[FilterObject] = None
    key_prefix: Optional[KeyPrefix] = None


class CountMemoriesRequest(Request, Returns[int]):
    entity_id: Optional[Text] = None
    kind: Optional[KindField] = None
    include_superseded: Flag = False
    filter: Optional[FilterObject] = None
    key_prefix: Optional[KeyPrefix] = None


class SubscribeRequest(Request):
    cue: Optional[Text] = None
    embedding: Optional[Vector] = None
    entity_id: Optional[Text] = None
    confidence_threshold: Number = DEFAULT_CONFIDENCE_THRESHOLD
    queue_capacity: Count = DEFAULT_QUEUE_CAPACITY
    filter: Optional[FilterObject] = None


class ReflectRequest(Request, Returns["ReflectResult"]):
    entity_id: Optional[Text] = None
    since: Optional[Micros] = None
    max_memories: Positive = DEFAULT_REFLECT_MAX_MEMORIES
    min_cluster_size: Positive = DEFAULT_MIN_CLUSTER_SIZE
    min_confidence: Fraction = DEFAULT_MIN_CONFIDENCE


class InsightsRequest(Request, Returns["list[Insight]"]):
    entity_id: Optional[Text] = None
    min_confidence: Fraction = 0.0
    include_stale: Flag = False


class ReflectPrepareRequest(Request, Returns["ReflectSession"]):
    entity_id: Optional[Text] = None
    max_memories: Positive = DEFAULT_REFLECT_MAX_MEMORIES
    min_cluster_size: Positive = DEFAULT_MIN_CLUSTER_SIZE
    ttl: Seconds = DEFAULT_SESSION_TTL_S


class CommitInsight(Request):
    """One insight an agent host commits: its content, the ids of its sources (memories of the
    session) and its confidence."""

    content: Content
    sources: IdList
    confidence: Fraction = 1.0


class ReflectCommitRequest(Request, Returns["CommitResult"]):
    session_id: Text
    insights: list[CommitInsight]


class IndexDocumentsRequest(Request, Returns["IndexResult"]):
    paths: list[PathField]
    progress: Optional[Flag] = None


class FindContradictionsRequest(Request, Returns["list[ContradictionCandidate]"]):
    entity_id: Optional[Text] = None
    threshold: Fraction = DEFAULT_CONTRADICTION_SIMILARITY
    limit: Positive = DEFAULT_CONTRADICTION_LIMIT


class ConfirmContradictionRequest(Request, Returns[Memory]):
    older_id: MemoryIdField
    newer_id: MemoryIdField
    resolution: Text = "link"


#: The composite weights of ``quality="best"``: the calibrated relevance alone, so recency,
#: importance and reinforcement do not move a less relevant memory up.
BEST_SCORING_WEIGHTS: Final = ScoringWeights(
    w_relevance=1.0, w_recency=0.0, w_importance=0.0, w_reinforcement=0.0
)


def resolve_quality(request: RecallRequest, token_cue: bool = True) -> RecallRequest:
    """``request`` with the default pipeline or its ``quality`` preset applied to the fields the
    caller left unset (see :data:`QualityName`); ``token_cue`` says whether the store can
    embed the cue's token vectors (an embedder that gives them, token vectors kept).

    - ``strategies``: :data:`DEFAULT_STRATEGIES` for a cue with text, else
      :data:`VECTOR_CUE_STRATEGIES`.
    - ``rerank``: ``"late_interaction"`` when the strategies were left unset or ``quality`` is
      ``"best"``, unless ``quality`` is ``"fast"`` or the call is a regular-expression scan.
      Left out of the default (but not of ``"best"``, which then raises) when the cue's token
      vectors cannot be had: no text, or no ``cue_token_vectors`` and no ``token_cue``.
    - ``scoring_weights``: :data:`BEST_SCORING_WEIGHTS` for ``"best"``, else seed 000's.
    """
    text = request.cue is not None and bool(request.cue.strip())
    changes: dict[str, Any] = {}
    defaulted = request.strategies is None
    if defaulted:
        vector_only = not text and request.cue_embedding is not None
        changes["strategies"] = VECTOR_CUE_STRATEGIES if vector_only else DEFAULT_STRATEGIES
    if request.rerank is None and not request.force_regex and request.quality != "fast":
        tokens = request.cue_token_vectors is not None or (text and token_cue)
        if request.quality == "best" or (defaulted and tokens):
            changes["rerank"] = _native.DEFAULT_RERANK
    if request.quality == "best" and request.scoring_weights is None:
        changes["scoring_weights"] = BEST_SCORING_WEIGHTS
    return request.model_copy(update=changes) if changes else request


R = TypeVar("R", bound=Request)
S = TypeVar("S")
T = TypeVar("T")
P = ParamSpec("P")


def parse(model: type[R], arguments: Mapping[str, Any], prefix: str = "") -> R:
    """``model`` built from ``arguments`` (a method's parameters, ``self`` left out), or the
    first problem as an :class:`InvalidTypeError` / :class:`InvalidValueError` naming its field
    (``prefix`` goes before the field names).

    An argument that is its field's default object itself is left out, so it is not checked
    again: a call pays only for the arguments it gives.
    """
    defaults = _defaults(model)
    given = {
        name: value
        for name, value in arguments.items()
        if name != "self" and defaults.get(name, _REQUIRED) is not value
    }
    try:
        # The model's validator itself: ``model_validate`` adds a Python call around it,
        # measured at 4 us of a recall's 100 right after a vector search (docs/architecture.md).
        request: R = model.__pydantic_validator__.validate_python(given)
    except ValidationError as error:
        raise invalid_input(error.errors(include_url=False)[0], prefix) from None
    return request


def by_keyword(
    model: type[R], run: Callable[[S, R], T]
) -> Callable[[Callable[Concatenate[S, P], T]], Callable[Concatenate[S, P], T]]:
    """Gives a method whose body is ``run(self, parse(model, locals()))`` a shorter way for
    calls that pass every argument by keyword: their keywords are already the given arguments,
    so they are checked as ``model`` at once, without the frame's locals (one per parameter)
    and the scan of them. Any other call (an argument by position, a keyword the method does
    not take) runs the method's own body, which binds it as Python does, or raises Python's
    :class:`TypeError`. Both ways build the same request and run it the same way.

    For the hot calls: on a recall it saves about 4 us of 100 (docs/architecture.md)."""

    def decorate(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
        names = frozenset(inspect.signature(method).parameters) - {"self"}
        defaults = _defaults(model)
        validate = model.__pydantic_validator__.validate_python

        def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
            # `parse` inlined: each Python call costs about 1 us right after a vector search.
            if args or not names.issuperset(kwargs):
                return method(self, *args, **kwargs)
            for name, value in list(kwargs.items()):
                if defaults.get(name, _REQUIRED) is value:
                    del kwargs[name]
            try:
                request: R = validate(kwargs)
            except ValidationError as error:
                raise invalid_input(error.errors(include_url=False)[0]) from None
            return run(self, request)

        functools.update_wrapper(call, method)
        return call

    return decorate


_REQUIRED = object()
_DEFAULTS: dict[type[Request], dict[str, Any]] = {}


def _defaults(model: type[Request]) -> dict[str, Any]:
    """Each field's default object (fields without one are left out)."""
    found = _DEFAULTS.get(model)
    if found is None:
        found = {
            name: field.default
            for name, field in model.model_fields.items()
            if not field.is_required()
        }
        _DEFAULTS[model] = found
    return found


def to_scoring_weights(value: object, field: str = "scoring_weights") -> ScoringWeights | None:
    """A :class:`ScoringWeights` from itself or a dict of its fields (missing ones default)."""
    if value is None or isinstance(value, ScoringWeights):
        return value
    given = parse(WeightsInput, value, prefix=field)  # type: ignore[arg-type]
    return ScoringWeights(**given.model_dump(exclude_none=True))


def invalid_input(detail: ErrorDetails, prefix: str = "") -> InvalidInputError:
    """The exception for one pydantic error: a wrong type is an :class:`InvalidTypeError`,
    anything else an :class:`InvalidValueError`; ``field`` is the dotted path of the value."""
    loc = list(detail["loc"])
    kind = detail["type"]
    reason = detail["msg"]
    if kind == "extra_forbidden":
        reason = f"unknown field {loc.pop()!r}"
    is_type = kind == "hebbs_type" or kind.endswith("_type") or kind == "extra_forbidden"
    if kind == "missing":
        reason = "is required"
        is_type = True
    field = _dotted(prefix, loc) + str(detail.get("ctx", {}).get("inside", ""))
    return invalid(field, reason, InvalidTypeError if is_type else InvalidValueError)


def _dotted(prefix: str, loc: list[int | str]) -> str:
    field = prefix
    for part in loc:
        if isinstance(part, int):
            field += f"[{part}]"
        else:
            field += f".{part}" if field else part
    return field
