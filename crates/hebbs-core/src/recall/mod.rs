//! Recall: the strategies (one file each: similarity, temporal, causal, analogical, hybrid,
//! keyword, regex), the composite score, the executor that runs several strategies in parallel and
//! merges their answers, and the re-rank stage (`rerank/`) that re-scores the ranked head.

mod analogical;
mod causal;
mod decay;
mod executor;
mod graph_context;
mod hybrid;
mod keyword;
mod plan;
mod prime;
mod regex_scan;
mod request;
pub mod rerank;
mod rescore;
mod result;
mod scoring;
mod similarity;
mod strategy;
mod structure;
mod temporal;

pub use analogical::{ANALOGICAL_POOL_FACTOR, SAME_ENTITY_FACTOR};
pub use causal::{CAUSAL_DEPTH_DECAY, CAUSAL_EDGES_PER_NODE, CAUSAL_NODE_BUDGET};
pub use decay::{decay_score, DEFAULT_DECAY_HALF_LIFE_US};
pub(crate) use executor::{execute, RecallContext, RecallFilter};
pub use executor::{Candidate, FILTER_MAX_DEPTH};
pub use graph_context::{DEFAULT_GRAPH_CONTEXT, MAX_GRAPH_CONTEXT, PREVIEW_CHARS};
pub use hybrid::{reciprocal_rank_fusion, DEFAULT_RRF_K, HYBRID_MIN_POOL};
pub use prime::{PrimeOutput, PrimeRequest, DEFAULT_PRIME_MAX_MEMORIES};
pub use regex_scan::{REGEX_MAX_SCANNED, REGEX_TIME_BUDGET};
pub use request::{
    RecallRequest, DEFAULT_ANALOGICAL_ALPHA, DEFAULT_CAUSAL_DEPTH, DEFAULT_RERANK,
    DEFAULT_STRATEGIES, DEFAULT_TOP_K, MAX_CAUSAL_DEPTH, MAX_TOP_K,
};
pub use rerank::{Rerank, DEFAULT_RERANK_TOP_N, MAX_RERANK_TOP_N};
pub use result::{ExpansionEdge, RecallOutput, RecallResult, StrategyDetail, StrategyError};
pub use scoring::{
    composite_score, ScoreSignals, ScoringWeights, DEFAULT_MAX_AGE_US, DEFAULT_REINFORCEMENT_CAP,
    DEFAULT_W_IMPORTANCE, DEFAULT_W_RECENCY, DEFAULT_W_REINFORCEMENT, DEFAULT_W_RELEVANCE,
};
pub(crate) use similarity::nearest_to;
pub use similarity::{
    scan_beats_walk, EXACT_SCAN_MAX_ENTITY_SIZE, FILTER_WALK_EXPANSIONS_PER_EF,
    WALK_DISTANCES_PER_EXPANSION,
};
pub use strategy::{CausalDirection, Strategy, StrategyConfig};
pub use structure::{structural_similarity, Structure};
