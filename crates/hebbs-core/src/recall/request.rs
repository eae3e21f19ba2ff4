//! What a recall asks for: [`RecallRequest`], its defaults, and its validation.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::graph_context::{DEFAULT_GRAPH_CONTEXT, MAX_GRAPH_CONTEXT};
use super::hybrid::DEFAULT_RRF_K;
use super::plan::StrategyPlan;
use super::rerank::{check_cue_tokens, Rerank, DEFAULT_RERANK_TOP_N, MAX_RERANK_TOP_N};
use super::scoring::ScoringWeights;
use super::strategy::{CausalDirection, Strategy, StrategyConfig};
use crate::error::{HebbsError, Result};
use crate::filter::Filter;
use crate::index::vector::check_ef_search;
use crate::memory::checks::check_entity_id;
use crate::memory::{EdgeType, MemoryId};

/// Results returned when the caller does not say.
pub const DEFAULT_TOP_K: usize = 10;
/// Most results one recall may ask for.
pub const MAX_TOP_K: usize = 1000;
/// Hops a causal walk takes when the caller does not say (seed 000).
pub const DEFAULT_CAUSAL_DEPTH: usize = 5;
/// The hard cap on causal hops; a larger `max_depth` is an `InvalidInput` error.
pub const MAX_CAUSAL_DEPTH: usize = 10;
/// Weight of embedding similarity in analogical relevance when the caller does not say.
pub const DEFAULT_ANALOGICAL_ALPHA: f32 = 0.5;
/// The composite-score floor when the caller does not say: none (every score is at least 0).
pub const DEFAULT_MIN_SCORE: f32 = 0.0;
/// The strategies of the default recall of a cue ([`RecallRequest::cue`], seed 004's
/// pipeline): dense and BM25 searches fused by reciprocal rank.
pub const DEFAULT_STRATEGIES: [Strategy; 1] = [Strategy::Hybrid];
/// The re-rank stage of the default recall of a cue.
pub const DEFAULT_RERANK: Rerank = Rerank::LateInteraction;

/// A recall request. Build one with [`RecallRequest::similarity`] or
/// [`RecallRequest::temporal`] and adjust the public fields; per-strategy overrides go in
/// [`StrategyConfig`]s.
///
/// Its serde form is the options of a recall by their Python names (`cue` for `cue_text`),
/// each field left out at its [`Default`] (`RecallRequest::default()`, a similarity recall
/// without a cue): what a binding or a JSON caller gives. The fields marked `serde(skip)`
/// (vectors, strategies, ids, enums, weights and the filter) are set by the caller in their
/// own types; a new plain option needs nothing more than its field here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecallRequest {
    /// The cue's embedding: needed by `similarity`, `analogical` and `hybrid`, and by `causal`
    /// without a seed. Normalised by the engine.
    #[serde(skip)]
    pub cue_vector: Option<Vec<f32>>,
    /// The cue's text: needed by `keyword` and `hybrid`.
    #[serde(rename = "cue")]
    pub cue_text: Option<String>,
    /// Strategies to run (in parallel when more than one), at least one, no duplicates.
    #[serde(skip)]
    pub strategies: Vec<StrategyConfig>,
    /// Results to return, 1..=[`MAX_TOP_K`].
    pub top_k: usize,
    /// Entity scope: required by `temporal`; restricts `similarity` to the entity; the cue's own
    /// entity for `analogical` (other entities are preferred).
    pub entity_id: Option<String>,
    /// Inclusive `[start, end]` creation-time bounds in microseconds (temporal).
    pub time_range: Option<(u64, u64)>,
    /// HNSW candidate list size for this call (default 50, at most 500).
    pub ef_search: Option<usize>,
    /// Where the causal walk starts (default: the memory nearest the cue); the structural
    /// reference of an analogical recall.
    #[serde(skip)]
    pub seed_memory_id: Option<MemoryId>,
    /// Edge types the causal walk follows; all when `None`.
    #[serde(skip)]
    pub edge_types: Option<Vec<EdgeType>>,
    /// Most causal hops, 1..=[`MAX_CAUSAL_DEPTH`].
    pub max_depth: usize,
    /// Which way the causal walk goes.
    #[serde(skip)]
    pub direction: CausalDirection,
    /// Analogical relevance = `alpha * embedding + (1 - alpha) * structural`, 0..=1.
    pub analogical_alpha: f32,
    /// The reciprocal-rank-fusion constant of `hybrid`, at least 1.
    pub rrf_k: u32,
    /// Relevance floor: candidates whose best strategy relevance is below it are dropped and
    /// counted in `RecallOutput::below_threshold`. 0..=1.
    pub min_relevance: Option<f32>,
    /// Composite-score floor: results whose composite score (seed 000's blend, the order of
    /// the results) is below it are left out. Finite and at least 0; default
    /// [`DEFAULT_MIN_SCORE`].
    pub min_score: f32,
    /// Relationships attached to each result (`expansion_context`), 0..=[`MAX_GRAPH_CONTEXT`].
    pub graph_context: usize,
    /// The conversation asking: the returned memories are recorded for `Engine::chat_context`.
    pub session_id: Option<String>,
    /// The structure of the situation an analogical recall matches (context keys, value types,
    /// `entities` / `action` / `outcome` roles). Without it the seed memory, or the memory
    /// nearest the cue, provides the structure.
    pub cue_context: Option<Map<String, Value>>,
    /// Composite score weights.
    #[serde(skip)]
    pub scoring_weights: ScoringWeights,
    /// Whether returned memories carry their embedding.
    pub include_embedding: bool,
    /// Whether memories superseded by a revision may be returned (default false).
    pub include_superseded: bool,
    /// The re-rank stage run on the ranked candidates (see [`crate::recall::rerank`]); none by
    /// default, so the composite order of seed 000 stands.
    #[serde(skip)]
    pub rerank: Rerank,
    /// How many of the ranked candidates the re-rank stage re-scores,
    /// 1..=[`MAX_RERANK_TOP_N`]; each strategy then returns at least this many candidates.
    pub rerank_top_n: usize,
    /// The cue's per-token vectors (one row per kept token, any norm: the engine normalises
    /// them), from the same encoder pass as `cue_vector`; needed by late interaction.
    #[serde(skip)]
    pub cue_token_vectors: Option<Vec<Vec<f32>>>,
    /// Only memories this filter selects are returned, by every strategy (see
    /// [`crate::filter`]).
    #[serde(skip)]
    pub filter: Option<Filter>,
}

impl Default for RecallRequest {
    /// A similarity recall without a cue, every field at its default.
    fn default() -> Self {
        Self {
            cue_vector: None,
            ..Self::similarity(Vec::new())
        }
    }
}

impl RecallRequest {
    /// A similarity recall for `cue_vector` with every other field at its default.
    pub fn similarity(cue_vector: Vec<f32>) -> Self {
        Self {
            cue_vector: Some(cue_vector),
            cue_text: None,
            strategies: vec![Strategy::Similarity.into()],
            top_k: DEFAULT_TOP_K,
            entity_id: None,
            time_range: None,
            ef_search: None,
            seed_memory_id: None,
            edge_types: None,
            max_depth: DEFAULT_CAUSAL_DEPTH,
            direction: CausalDirection::default(),
            analogical_alpha: DEFAULT_ANALOGICAL_ALPHA,
            rrf_k: DEFAULT_RRF_K,
            min_relevance: None,
            min_score: DEFAULT_MIN_SCORE,
            graph_context: DEFAULT_GRAPH_CONTEXT,
            session_id: None,
            cue_context: None,
            scoring_weights: ScoringWeights::default(),
            include_embedding: false,
            include_superseded: false,
            rerank: Rerank::None,
            rerank_top_n: DEFAULT_RERANK_TOP_N,
            cue_token_vectors: None,
            filter: None,
        }
    }

    /// The default recall of a cue (seed 004's pipeline under seed 000's composite):
    /// [`DEFAULT_STRATEGIES`] over the cue's text and vector, then the [`DEFAULT_RERANK`] stage
    /// over the [`DEFAULT_RERANK_TOP_N`] most relevant candidates with the cue's token vectors
    /// (from the same encoder pass as `vector`), its calibrated score the relevance of the
    /// default composite; every other field at its default.
    pub fn cue(text: impl Into<String>, vector: Vec<f32>, token_vectors: Vec<Vec<f32>>) -> Self {
        Self {
            cue_text: Some(text.into()),
            rerank: DEFAULT_RERANK,
            cue_token_vectors: Some(token_vectors),
            ..Self::similarity(vector).with_strategies(&DEFAULT_STRATEGIES)
        }
    }

    /// A temporal recall of `entity_id` with every other field at its default.
    pub fn temporal(entity_id: impl Into<String>) -> Self {
        Self {
            cue_vector: None,
            strategies: vec![Strategy::Temporal.into()],
            entity_id: Some(entity_id.into()),
            ..Self::similarity(Vec::new())
        }
    }

    /// A causal walk from `seed` with every other field at its default.
    pub fn causal(seed: MemoryId) -> Self {
        Self {
            cue_vector: None,
            strategies: vec![Strategy::Causal.into()],
            seed_memory_id: Some(seed),
            ..Self::similarity(Vec::new())
        }
    }

    /// Runs `strategies` instead of the current ones, each with the request's parameters.
    pub fn with_strategies(mut self, strategies: &[Strategy]) -> Self {
        self.strategies = strategies.iter().map(|s| (*s).into()).collect();
        self
    }

    /// Whether this request runs `strategy`.
    pub fn runs(&self, strategy: Strategy) -> bool {
        self.strategies
            .iter()
            .any(|config| config.strategy == strategy)
    }

    /// The effective parameters of each strategy, in request order.
    pub(crate) fn plans(&self) -> Vec<StrategyPlan<'_>> {
        self.strategies
            .iter()
            .map(|config| StrategyPlan::resolve(self, config))
            .collect()
    }

    /// How many candidates each strategy returns: `top_k`, or `rerank_top_n` when a re-rank
    /// stage runs and asks for more.
    pub(crate) fn candidate_pool(&self) -> usize {
        match self.rerank {
            Rerank::None => self.top_k,
            Rerank::LateInteraction => self.top_k.max(self.rerank_top_n),
        }
    }

    /// Whether the request has a cue text that is not blank (what keyword, regex and hybrid
    /// read).
    pub(crate) fn has_cue_text(&self) -> bool {
        self.cue_text
            .as_deref()
            .is_some_and(|text| !text.trim().is_empty())
    }

    /// Checks the request's values; every error names its field (`strategies[i].field` for a
    /// per-strategy override). A strategy whose own input is missing (temporal without an
    /// `entity_id`, similarity without a cue vector, ...) is not rejected here: the executor
    /// reports it in `RecallOutput::strategy_errors` while the other strategies answer, and
    /// returns its error only when every strategy fails.
    pub fn validate(&self) -> Result<()> {
        if self.strategies.is_empty() {
            return Err(HebbsError::invalid(
                "strategies",
                "at least one strategy is required",
            ));
        }
        for (i, config) in self.strategies.iter().enumerate() {
            if self.strategies[..i]
                .iter()
                .any(|earlier| earlier.strategy == config.strategy)
            {
                return Err(HebbsError::invalid(
                    "strategies",
                    format!("{} is listed twice", config.strategy),
                ));
            }
        }
        if let Some(entity) = &self.entity_id {
            check_entity_scope(entity, "entity_id")?;
        }
        for (i, config) in self.strategies.iter().enumerate() {
            if let Some(entity) = &config.entity_id {
                check_entity_scope(entity, &format!("strategies[{i}].entity_id"))?;
            }
        }
        check_parameters(
            "",
            Some(self.top_k),
            self.ef_search,
            self.time_range,
            Some(self.max_depth),
            Some(self.analogical_alpha),
        )?;
        for (i, config) in self.strategies.iter().enumerate() {
            check_parameters(
                &format!("strategies[{i}]."),
                config.top_k,
                config.ef_search,
                config.time_range,
                config.max_depth,
                config.analogical_alpha,
            )?;
        }
        if self.rrf_k == 0 {
            return Err(HebbsError::invalid("rrf_k", "must be at least 1"));
        }
        if let Some(floor) = self.min_relevance {
            if !(0.0..=1.0).contains(&floor) {
                return Err(HebbsError::invalid(
                    "min_relevance",
                    format!("{floor} is outside 0..=1"),
                ));
            }
        }
        if !(self.min_score.is_finite() && self.min_score >= 0.0) {
            return Err(HebbsError::invalid(
                "min_score",
                format!("{} is not a finite number of at least 0", self.min_score),
            ));
        }
        if self.graph_context > MAX_GRAPH_CONTEXT {
            return Err(HebbsError::invalid(
                "graph_context",
                format!("{} is above {MAX_GRAPH_CONTEXT}", self.graph_context),
            ));
        }
        if !(1..=MAX_RERANK_TOP_N).contains(&self.rerank_top_n) {
            return Err(HebbsError::invalid(
                "rerank_top_n",
                format!("{} is outside 1..={MAX_RERANK_TOP_N}", self.rerank_top_n),
            ));
        }
        match (&self.cue_token_vectors, self.rerank) {
            (Some(tokens), _) => check_cue_tokens(tokens)?,
            (None, Rerank::LateInteraction) => {
                return Err(HebbsError::invalid(
                    "cue_token_vectors",
                    "the late_interaction re-rank needs the cue's token vectors",
                ))
            }
            (None, Rerank::None) => {}
        }
        if self.runs(Strategy::Regex) {
            super::regex_scan::compile(self.cue_text.as_deref().unwrap_or_default())?;
        }
        self.scoring_weights.validate()
    }
}

/// Checks a recall's entity scope like a stored entity id, except that the empty string is
/// allowed: it selects the memories stored without an entity.
fn check_entity_scope(entity: &str, field: &str) -> Result<()> {
    if entity.is_empty() {
        Ok(())
    } else {
        check_entity_id(entity, field)
    }
}

fn check_parameters(
    prefix: &str,
    top_k: Option<usize>,
    ef_search: Option<usize>,
    time_range: Option<(u64, u64)>,
    max_depth: Option<usize>,
    alpha: Option<f32>,
) -> Result<()> {
    if let Some(top_k) = top_k {
        if !(1..=MAX_TOP_K).contains(&top_k) {
            return Err(HebbsError::invalid(
                format!("{prefix}top_k"),
                format!("{top_k} is outside 1..={MAX_TOP_K}"),
            ));
        }
    }
    if let Some(ef) = ef_search {
        check_ef_search(ef, &format!("{prefix}ef_search"))?;
    }
    if let Some((start, end)) = time_range {
        if start > end {
            return Err(HebbsError::invalid(
                format!("{prefix}time_range"),
                format!("start {start} is after end {end}"),
            ));
        }
    }
    if let Some(depth) = max_depth {
        if !(1..=MAX_CAUSAL_DEPTH).contains(&depth) {
            return Err(HebbsError::invalid(
                format!("{prefix}max_depth"),
                format!("{depth} is outside 1..={MAX_CAUSAL_DEPTH} (the hard cap)"),
            ));
        }
    }
    if let Some(alpha) = alpha {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(HebbsError::invalid(
                format!("{prefix}analogical_alpha"),
                format!("{alpha} is outside 0..=1"),
            ));
        }
    }
    Ok(())
}
