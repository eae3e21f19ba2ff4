//! What a recall answers (seed 003 `StrategyDetail`, `RecallResult`, `StrategyError`,
//! `RecallOutput`).

use super::scoring::ScoreSignals;
use super::strategy::Strategy;
use crate::error::HebbsError;
use crate::memory::{EdgeType, Memory, MemoryId};

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
    /// Hops from the seed along the best path (causal).
    pub depth: Option<u32>,
    /// Cosine similarity to the cue (analogical).
    pub embedding_similarity: Option<f32>,
    /// Structural similarity to the cue (analogical).
    pub structural_similarity: Option<f32>,
    /// Cosine similarity in the dense search (hybrid).
    pub dense_score: Option<f32>,
    /// BM25 score in the keyword search (hybrid, keyword).
    pub bm25_score: Option<f32>,
    /// Reciprocal-rank-fusion score (hybrid).
    pub rrf_score: Option<f32>,
    /// Late-interaction (IDF-weighted max-sim) score of the re-rank stage, set on every detail
    /// of a result the stage scored (see `RecallRequest::rerank`).
    pub late_interaction_score: Option<f32>,
    /// The re-rank stage's score (late interaction plus the conversation, entity and time
    /// signals) that ordered the result among the re-ranked head.
    pub rerank_score: Option<f32>,
}

impl StrategyDetail {
    /// A detail with only the strategy and its relevance set.
    pub fn new(strategy: Strategy, relevance: f32) -> Self {
        Self {
            strategy,
            relevance,
            distance: None,
            timestamp: None,
            rank: None,
            depth: None,
            embedding_similarity: None,
            structural_similarity: None,
            dense_score: None,
            bm25_score: None,
            rrf_score: None,
            late_interaction_score: None,
            rerank_score: None,
        }
    }
}

/// One recalled memory.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallResult {
    /// The memory, with its access count after this recall.
    pub memory: Memory,
    /// The composite score: `ScoringWeights::combine` of `signals` with the request's weights.
    pub score: f32,
    /// The four signals the score combines.
    pub signals: ScoreSignals,
    /// One entry per strategy that found it.
    pub strategy_details: Vec<StrategyDetail>,
    /// Its strongest relationships, strongest first (see `RecallRequest::graph_context`).
    pub expansion_context: Vec<ExpansionEdge>,
}

/// One relationship of a recalled memory.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpansionEdge {
    /// The memory at the other end.
    pub neighbor_id: MemoryId,
    /// The relationship, read from the memory that holds the edge.
    pub edge_type: EdgeType,
    /// Whether the recalled memory holds the edge (it points at the neighbour).
    pub outgoing: bool,
    /// Strength, 0..=1.
    pub confidence: f32,
    /// The start of the neighbour's content.
    pub preview: String,
}

/// A strategy that failed while the others answered (seed 003 `StrategyError`, plus the field).
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyError {
    /// Which strategy.
    pub strategy: Strategy,
    /// What went wrong: the error's message.
    pub message: String,
    /// The input the error names when it is an `InvalidInput` (e.g. `entity_id` for a
    /// temporal recall without one, `cue` for a similarity recall without a cue vector);
    /// `None` for other errors (a seed memory not found, a storage failure).
    pub field: Option<String>,
}

impl StrategyError {
    /// The report of `strategy` failing with `error`.
    pub fn new(strategy: Strategy, error: &HebbsError) -> Self {
        let field = match error {
            HebbsError::InvalidInput { field, .. } => Some(field.clone()),
            _ => None,
        };
        Self {
            strategy,
            message: error.to_string(),
            field,
        }
    }
}

/// The answer to a recall.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecallOutput {
    /// Results, best composite score first.
    pub results: Vec<RecallResult>,
    /// Strategies that failed.
    pub strategy_errors: Vec<StrategyError>,
    /// Candidates dropped by the relevance floor (`RecallRequest::min_relevance`).
    pub below_threshold: usize,
}
