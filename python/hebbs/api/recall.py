"""Recall and prime, each spelled once: the request model (its fields, types and defaults) and
the keyword method that checks its arguments as the model and runs it (:class:`Recalling`,
inherited by :class:`hebbs.api.operations.Operations`), with the presets of ``quality`` that
fill what a call leaves unset (:func:`resolve_quality`).

A new recall parameter is a field of :class:`RecallRequest` and a parameter of
:meth:`Recalling.recall`, in this file, its default the core's (``_CORE["name"]``); the binding
hands it to the core request's serde form by its name (CONTRIBUTING.md has the file list).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, Optional, Union

from hebbs import _native
from hebbs._native import (
    DEFAULT_DIRECTION,
    EdgeType,
    PrimeOutput,
    RecallOutput,
    RecallStrategyConfig,
    ScoringWeights,
)
from hebbs.api.fields import (
    Count,
    Count32,
    EdgeTypeList,
    FilterObject,
    Flag,
    JsonObject,
    Matrix,
    MemoryIdField,
    Number,
    StrategyList,
    Text,
    TimeRange,
    Vector,
    WeightsLike,
)
from hebbs.api.model import Request, Returns, Runner, by_keyword, parse
from hebbs.types import MemoryIdLike, TimestampLike

#: Strategies of the default recall of a cue with text (``strategies`` not given): dense and BM25
#: searches fused by reciprocal rank, whose most relevant candidates the ``DEFAULT_RERANK`` stage
#: re-scores (see :func:`resolve_quality`); the engine's constants.
DEFAULT_STRATEGIES: tuple[str, ...] = _native.DEFAULT_STRATEGIES
#: Strategies of the default recall of a cue given only as a vector (``cue_embedding`` without
#: ``cue``): there is no text for BM25.
VECTOR_CUE_STRATEGIES: tuple[str, ...] = ("similarity",)
#: Re-rank stages ``recall(rerank=...)`` accepts (the engine's ``Rerank``).
RerankName = Literal["none", "late_interaction"]
#: Presets ``recall(quality=...)`` accepts, each applied to the fields the caller leaves unset
#: (docs/hybrid.md has their figures). Without one, a recall of a cue runs the default
#: pipeline: ``hybrid``, the late-interaction stage, seed 000's composite weights.
#: ``"fast"``: ``hybrid`` without the stage. ``"best"``: the default pipeline ranked by
#: relevance alone (composite weights 1, 0, 0, 0).
QualityName = Literal["fast", "best"]
#: The core's defaults of a recall's plain options (``top_k``, ``max_depth``, ``rrf_k``...),
#: by their names here: each default is spelled once, in the core's ``RecallRequest``.
_CORE: Final = _native.RECALL_DEFAULTS
#: The core's defaults of a prime's plain options (``max_memories``).
_PRIME: Final = _native.PRIME_DEFAULTS
#: One entry of ``recall(strategies=...)``: a strategy name or a per-strategy config.
StrategyLike = Union[str, RecallStrategyConfig]


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
    top_k: Count = _CORE["top_k"]
    entity_id: Optional[Text] = None
    seed_memory_id: Optional[MemoryIdField] = None
    edge_types: Optional[EdgeTypeList] = None
    max_depth: Count = _CORE["max_depth"]
    direction: Text = DEFAULT_DIRECTION
    analogical_alpha: Number = _CORE["analogical_alpha"]
    cue_context: Optional[JsonObject] = None
    rrf_k: Count32 = _CORE["rrf_k"]
    min_relevance: Optional[Number] = None
    min_score: Number = _CORE["min_score"]
    graph_context: Count = _CORE["graph_context"]
    session_id: Optional[Text] = None
    force_regex: Flag = False
    include_superseded: Flag = False
    include_organization: Flag = False
    rerank: Optional[RerankName] = None
    rerank_top_n: Count = _CORE["rerank_top_n"]
    cue_token_vectors: Optional[Matrix] = None
    quality: Optional[QualityName] = None


class PrimeRequest(RankedRequest, Returns[PrimeOutput]):
    entity_id: Text
    max_memories: Count = _PRIME["max_memories"]


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


def to_scoring_weights(value: object, field: str = "scoring_weights") -> ScoringWeights | None:
    """A :class:`ScoringWeights` from itself or a dict of its fields (missing ones default)."""
    if value is None or isinstance(value, ScoringWeights):
        return value
    given = parse(WeightsInput, value, prefix=field)  # type: ignore[arg-type]
    return ScoringWeights(**given.model_dump(exclude_none=True))


def _run_recall(store: Recalling, request: RecallRequest) -> RecallOutput:
    return store.run(request)


class Recalling(Runner):
    """The keyword methods of recall and prime."""

    @by_keyword(RecallRequest, _run_recall)
    def recall(
        self,
        cue: str | None = None,
        strategies: Sequence[StrategyLike] | None = None,
        top_k: int = _CORE["top_k"],
        entity_id: str | None = None,
        time_range: tuple[TimestampLike | None, TimestampLike | None] | None = None,
        ef_search: int | None = None,
        scoring_weights: ScoringWeights | Mapping[str, float] | None = None,
        cue_embedding: Any = None,
        include_embedding: bool = False,
        *,
        seed_memory_id: MemoryIdLike | None = None,
        edge_types: Sequence[EdgeType | str] | None = None,
        max_depth: int = _CORE["max_depth"],
        direction: str = DEFAULT_DIRECTION,
        analogical_alpha: float = _CORE["analogical_alpha"],
        cue_context: Mapping[str, Any] | None = None,
        rrf_k: int = _CORE["rrf_k"],
        min_relevance: float | None = None,
        min_score: float = _CORE["min_score"],
        graph_context: int = _CORE["graph_context"],
        session_id: str | None = None,
        force_regex: bool = False,
        include_superseded: bool = False,
        include_organization: bool = False,
        rerank: str | None = None,
        rerank_top_n: int = _CORE["rerank_top_n"],
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
        in ``below_threshold``; ``min_score`` leaves out results whose composite score (the
        order of the results) is below it. ``session_id`` records the returned memories for
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
        max_memories: int = _PRIME["max_memories"],
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
