//! # hebbs-core
//!
//! An embeddable cognitive memory engine for AI agents: RocksDB column families are the source of
//! truth, an HNSW index (its own graph on one copy of each vector) answers similarity queries, the `(entity, time)` index answers
//! timelines, and recall ranks results with the composite score of relevance, recency, importance
//! and reinforcement.
//!
//! The engine takes vectors; embedding text is the caller's job (the Python package brings an
//! embedder).
//!
//! ```no_run
//! use hebbs_core::{Engine, EngineConfig, RecallRequest, RememberInput};
//!
//! let engine = Engine::open("/tmp/hebbs-doc", EngineConfig::default())?;
//! let mut input = RememberInput::new("The customer asked about pricing", vec![0.1, 0.7, 0.2]);
//! input.entity_id = Some("acme".into());
//! let memory = engine.remember(input)?;
//! let output = engine.recall(&RecallRequest::similarity(vec![0.1, 0.6, 0.3]))?;
//! assert_eq!(output.results[0].memory.id, memory.id);
//! # Ok::<(), hebbs_core::HebbsError>(())
//! ```

pub(crate) mod clock;
mod codec;
#[cfg(test)]
mod decode_fuzz;
pub mod engine;
pub mod error;
pub mod filter;
pub mod forget;
pub mod index;
pub mod memory;
pub mod recall;
pub mod store;
pub mod subscribe;

pub use engine::{
    AutoForget, Engine, EngineConfig, HealthStatus, ListRequest, MemoryPage, RememberInput,
    RevisionInput,
};
pub use error::{HebbsError, Result};
pub use filter::Filter;
pub use forget::{ForgetRequest, ForgetResult};
pub use memory::{Edge, EdgeType, Memory, MemoryId, MemoryKind, TokenVectors, Tombstone};
pub use recall::{
    CausalDirection, PrimeOutput, PrimeRequest, RecallOutput, RecallRequest, RecallResult,
    ScoringWeights, Strategy, StrategyConfig, StrategyDetail, StrategyError,
};
pub use subscribe::{RecvError, SubscribePush, SubscribeRequest, Subscription};
