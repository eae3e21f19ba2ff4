//! The seven recall strategies ([`Strategy::ALL`]: similarity, temporal, causal, analogical,
//! hybrid, keyword and regex), the direction a causal walk follows, and the per-strategy
//! configuration of seed 003 (`RecallStrategyConfig`).

use std::fmt;
use std::str::FromStr;

use crate::error::{HebbsError, Result};
use crate::memory::{EdgeType, MemoryId};

/// A recall strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// HNSW k-NN on the cue's embedding.
    Similarity,
    /// One entity's memories, newest first.
    Temporal,
    /// A typed, weighted walk over the edge graph from a seed memory.
    Causal,
    /// Embedding candidates re-ranked by structural similarity to the cue.
    Analogical,
    /// Dense and BM25 searches fused by reciprocal rank.
    Hybrid,
    /// BM25 over content for the cue's text.
    Keyword,
    /// A bounded regular-expression scan of content and context (the cue's text is the pattern).
    Regex,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 7] = [
        Self::Similarity,
        Self::Temporal,
        Self::Causal,
        Self::Analogical,
        Self::Hybrid,
        Self::Keyword,
        Self::Regex,
    ];

    /// Whether the strategy reads the cue's embedding: similarity, analogical and hybrid
    /// search with it; causal starts from the memory nearest it when no seed is given.
    /// Temporal, keyword and regex never read it.
    pub const fn reads_cue_vector(self) -> bool {
        matches!(
            self,
            Self::Similarity | Self::Causal | Self::Analogical | Self::Hybrid
        )
    }

    /// The lower-case name used across the APIs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Similarity => "similarity",
            Self::Temporal => "temporal",
            Self::Causal => "causal",
            Self::Analogical => "analogical",
            Self::Hybrid => "hybrid",
            Self::Keyword => "keyword",
            Self::Regex => "regex",
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
                    format!(
                        "unknown strategy {text:?} (expected similarity, temporal, causal, analogical, hybrid, keyword or regex)"
                    ),
                )
            })
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which way a causal walk follows edges. An edge held by memory A and pointing at B reads "A
/// caused_by / followed_by / revised_from / insight_from B": B is the antecedent of A.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CausalDirection {
    /// Towards antecedents: follow the edges a memory holds (what caused it, what it followed).
    Causes,
    /// Towards consequents: follow the edges pointing at a memory (what it caused, what followed).
    Effects,
    /// Both ways.
    #[default]
    Both,
}

impl CausalDirection {
    /// Every direction.
    pub const ALL: [CausalDirection; 3] = [Self::Causes, Self::Effects, Self::Both];

    /// The lower-case name used across the APIs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Causes => "causes",
            Self::Effects => "effects",
            Self::Both => "both",
        }
    }
}

impl FromStr for CausalDirection {
    type Err = HebbsError;

    fn from_str(text: &str) -> Result<Self> {
        let folded = text.to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|direction| direction.as_str() == folded)
            .ok_or_else(|| {
                HebbsError::invalid(
                    "direction",
                    format!("unknown direction {text:?} (expected causes, effects or both)"),
                )
            })
    }
}

impl fmt::Display for CausalDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One strategy of a recall with optional overrides of the request-wide parameters
/// (seed 003 `RecallStrategyConfig`). A field left `None` takes the request's value.
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyConfig {
    /// Which strategy.
    pub strategy: Strategy,
    /// Entity scope (temporal, similarity) or the cue's own entity (analogical).
    pub entity_id: Option<String>,
    /// Candidates this strategy contributes before the merge.
    pub top_k: Option<usize>,
    /// HNSW candidate list size.
    pub ef_search: Option<usize>,
    /// Inclusive creation-time bounds in microseconds (temporal).
    pub time_range: Option<(u64, u64)>,
    /// Where the causal walk starts; the structural reference of an analogical recall.
    pub seed_memory_id: Option<MemoryId>,
    /// Edge types the causal walk follows (all when `None`).
    pub edge_types: Option<Vec<EdgeType>>,
    /// Most hops of the causal walk, 1..=[`super::MAX_CAUSAL_DEPTH`].
    pub max_depth: Option<usize>,
    /// Which way the causal walk goes.
    pub direction: Option<CausalDirection>,
    /// Weight of embedding similarity against structural similarity (analogical), 0..=1.
    pub analogical_alpha: Option<f32>,
}

impl StrategyConfig {
    /// `strategy` with every parameter taken from the request.
    pub fn new(strategy: Strategy) -> Self {
        Self {
            strategy,
            entity_id: None,
            top_k: None,
            ef_search: None,
            time_range: None,
            seed_memory_id: None,
            edge_types: None,
            max_depth: None,
            direction: None,
            analogical_alpha: None,
        }
    }
}

impl From<Strategy> for StrategyConfig {
    fn from(strategy: Strategy) -> Self {
        Self::new(strategy)
    }
}
