//! Recall: the strategies (one file each), the composite score and the executor that runs
//! several strategies in parallel and merges their answers.

mod decay;
mod executor;
mod request;
mod scoring;
mod similarity;
mod temporal;

pub use decay::{decay_score, DEFAULT_DECAY_HALF_LIFE_US};
pub use executor::Candidate;
pub(crate) use executor::{execute, RecallContext};
pub use request::{
    RecallOutput, RecallRequest, RecallResult, Strategy, StrategyDetail, StrategyError,
    DEFAULT_TOP_K, MAX_TOP_K,
};
pub use scoring::{
    composite_score, ScoringWeights, DEFAULT_MAX_AGE_US, DEFAULT_REINFORCEMENT_CAP,
    DEFAULT_W_IMPORTANCE, DEFAULT_W_RECENCY, DEFAULT_W_REINFORCEMENT, DEFAULT_W_RELEVANCE,
};
pub use similarity::EXACT_SCAN_MAX_ENTITY_SIZE;
