//! [`StrategyPlan`]: the parameters one strategy runs with, its [`StrategyConfig`] overrides
//! laid over the request-wide values.

use super::request::RecallRequest;
use super::strategy::{CausalDirection, Strategy, StrategyConfig};
use crate::error::{HebbsError, Result};
use crate::memory::{EdgeType, MemoryId};

/// The effective parameters of one strategy in one recall.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StrategyPlan<'a> {
    pub strategy: Strategy,
    pub entity_id: Option<&'a str>,
    pub top_k: usize,
    pub ef_search: Option<usize>,
    pub time_range: Option<(u64, u64)>,
    pub seed_memory_id: Option<MemoryId>,
    pub edge_types: Option<&'a [EdgeType]>,
    pub max_depth: usize,
    pub direction: CausalDirection,
    pub analogical_alpha: f32,
}

impl<'a> StrategyPlan<'a> {
    pub fn resolve(request: &'a RecallRequest, config: &'a StrategyConfig) -> Self {
        Self {
            strategy: config.strategy,
            entity_id: config.entity_id.as_deref().or(request.entity_id.as_deref()),
            top_k: config.top_k.unwrap_or(request.candidate_pool()),
            ef_search: config.ef_search.or(request.ef_search),
            time_range: config.time_range.or(request.time_range),
            seed_memory_id: config.seed_memory_id.or(request.seed_memory_id),
            edge_types: config
                .edge_types
                .as_deref()
                .or(request.edge_types.as_deref()),
            max_depth: config.max_depth.unwrap_or(request.max_depth),
            direction: config.direction.unwrap_or(request.direction),
            analogical_alpha: config.analogical_alpha.unwrap_or(request.analogical_alpha),
        }
    }

    /// Checks that the strategy has what it starts from: temporal an entity, keyword and regex
    /// the cue's text, similarity the cue's embedding, hybrid both, causal and analogical a
    /// seed or the cue's embedding. The executor runs this per strategy, so a strategy missing
    /// its input is reported in `strategy_errors` while the others answer.
    pub fn check_inputs(&self, has_cue: bool, has_text: bool) -> Result<()> {
        let missing = match self.strategy {
            Strategy::Temporal if self.entity_id.is_none() => {
                Some(("entity_id", "the temporal strategy needs an entity_id"))
            }
            Strategy::Similarity if !has_cue => {
                Some(("cue", "the similarity strategy needs a cue embedding"))
            }
            Strategy::Analogical if !has_cue && self.seed_memory_id.is_none() => Some((
                "cue",
                "the analogical strategy needs a cue embedding or a seed_memory_id",
            )),
            Strategy::Keyword | Strategy::Regex if !has_text => {
                Some(("cue", "this strategy needs the cue's text"))
            }
            Strategy::Hybrid if !has_text || !has_cue => Some((
                "cue",
                "the hybrid strategy needs the cue's text and its embedding",
            )),
            Strategy::Causal if !has_cue && self.seed_memory_id.is_none() => Some((
                "seed_memory_id",
                "the causal strategy needs a seed_memory_id or a cue embedding",
            )),
            _ => None,
        };
        match missing {
            Some((field, reason)) => Err(HebbsError::invalid(field, reason)),
            None => Ok(()),
        }
    }
}
