//! What a recall asks for and what it answers (seed 003 `RecallResult`, `RecallOutput`,
//! `StrategyDetail`, `StrategyError`).

use std::fmt;
use std::str::FromStr;

use super::scoring::ScoringWeights;
use crate::error::{HebbsError, Result};
use crate::index::vector::check_ef_search;
use crate::memory::Memory;

/// Results returned when the caller does not say.
pub const DEFAULT_TOP_K: usize = 10;
/// Most results one recall may ask for.
pub const MAX_TOP_K: usize = 1000;

/// A recall strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// HNSW k-NN on the cue's embedding.
    Similarity,
    /// One entity's memories, newest first.
    Temporal,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 2] = [Self::Similarity, Self::Temporal];

    /// The lower-case name used across the APIs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Similarity => "similarity",
            Self::Temporal => "temporal",
        }
    }
}

impl FromStr for Strategy {
    type Err = HebbsError;

    fn from_str(text: &str) -> Result<Self> {
        let folded = text.to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|strategy| strategy.as_str() == folded)
            .ok_or_else(|| {
                HebbsError::invalid(
                    "strategies",
                    format!("unknown strategy {text:?} (expected similarity or temporal)"),
                )
            })
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A recall request. Build one with [`RecallRequest::similarity`] or
/// [`RecallRequest::temporal`] and adjust the public fields.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallRequest {
    /// The cue's embedding; required by `similarity`. Normalised by the engine.
    pub cue_vector: Option<Vec<f32>>,
    /// Strategies to run (in parallel when more than one), at least one, no duplicates.
    pub strategies: Vec<Strategy>,
    /// Results to return, 1..=[`MAX_TOP_K`].
    pub top_k: usize,
    /// Entity scope: required by `temporal`; restricts `similarity` to the entity when given.
    pub entity_id: Option<String>,
    /// Inclusive `[start, end]` creation-time bounds in microseconds (temporal).
    pub time_range: Option<(u64, u64)>,
    /// HNSW candidate list size for this call (default 50, at most 500).
    pub ef_search: Option<usize>,
    /// Composite score weights.
    pub scoring_weights: ScoringWeights,
    /// Whether returned memories carry their embedding.
    pub include_embedding: bool,
    /// Whether memories superseded by a revision may be returned (default false).
    pub include_superseded: bool,
}

impl RecallRequest {
    /// A similarity recall for `cue_vector` with every other field at its default.
    pub fn similarity(cue_vector: Vec<f32>) -> Self {
        Self {
            cue_vector: Some(cue_vector),
            strategies: vec![Strategy::Similarity],
            top_k: DEFAULT_TOP_K,
            entity_id: None,
            time_range: None,
            ef_search: None,
            scoring_weights: ScoringWeights::default(),
            include_embedding: false,
            include_superseded: false,
        }
    }

    /// A temporal recall of `entity_id` with every other field at its default.
    pub fn temporal(entity_id: impl Into<String>) -> Self {
        Self {
            cue_vector: None,
            strategies: vec![Strategy::Temporal],
            entity_id: Some(entity_id.into()),
            ..Self::similarity(Vec::new())
        }
    }

    /// Checks the request; every error names its field.
    pub fn validate(&self) -> Result<()> {
        if self.strategies.is_empty() {
            return Err(HebbsError::invalid(
                "strategies",
                "at least one strategy is required",
            ));
        }
        for (i, strategy) in self.strategies.iter().enumerate() {
            if self.strategies[..i].contains(strategy) {
                return Err(HebbsError::invalid(
                    "strategies",
                    format!("{strategy} is listed twice"),
                ));
            }
        }
        if !(1..=MAX_TOP_K).contains(&self.top_k) {
            return Err(HebbsError::invalid(
                "top_k",
                format!("{} is outside 1..={MAX_TOP_K}", self.top_k),
            ));
        }
        if let Some(ef) = self.ef_search {
            check_ef_search(ef, "ef_search")?;
        }
        if let Some((start, end)) = self.time_range {
            if start > end {
                return Err(HebbsError::invalid(
                    "time_range",
                    format!("start {start} is after end {end}"),
                ));
            }
        }
        if self.strategies.contains(&Strategy::Temporal) && self.entity_id.is_none() {
            return Err(HebbsError::invalid(
                "entity_id",
                "the temporal strategy needs an entity_id",
            ));
        }
        if self.strategies.contains(&Strategy::Similarity) && self.cue_vector.is_none() {
            return Err(HebbsError::invalid(
                "cue",
                "the similarity strategy needs a cue embedding",
            ));
        }
        self.scoring_weights.validate()
    }
}

/// What one strategy found out about one result.
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyDetail {
    /// Which strategy.
    pub strategy: Strategy,
    /// The strategy's raw relevance, 0..=1.
    pub relevance: f32,
    /// HNSW cosine distance (similarity).
    pub distance: Option<f32>,
    /// The memory's creation time, microseconds (temporal).
    pub timestamp: Option<u64>,
    /// Position in the timeline, 0 = newest (temporal).
    pub rank: Option<u32>,
}

/// One recalled memory.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallResult {
    /// The memory, with its access count after this recall.
    pub memory: Memory,
    /// The composite score.
    pub score: f32,
    /// One entry per strategy that found it.
    pub strategy_details: Vec<StrategyDetail>,
}

/// A strategy that failed while the others answered.
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyError {
    /// Which strategy.
    pub strategy: Strategy,
    /// What went wrong.
    pub message: String,
}

/// The answer to a recall.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecallOutput {
    /// Results, best composite score first.
    pub results: Vec<RecallResult>,
    /// Strategies that failed.
    pub strategy_errors: Vec<StrategyError>,
}
