//! [`SubscribeRequest`]: what `Engine::subscribe` takes, its defaults and its validation. Every
//! error names its field.

use crate::error::{HebbsError, Result};
use crate::filter::Filter;
use crate::memory::checks::{check_entity_id, check_unit, check_vector};

/// Lowest confidence (cosine similarity, clamped to 0..=1) a memory needs to be pushed when the
/// caller does not say. Calibrated on the bundled all-MiniLM-L6-v2: a query and a related
/// sentence ("a customer wants a discount" / "The client asked for a lower price") score about
/// 0.3 to 0.7, unrelated sentences below 0.2.
pub const DEFAULT_CONFIDENCE_THRESHOLD: f32 = 0.3;
/// Pushes a subscription queues for its consumer when the caller does not say.
pub const DEFAULT_QUEUE_CAPACITY: usize = 1024;
/// Largest accepted queue capacity: bounds the memory one slow subscriber can hold.
pub const MAX_QUEUE_CAPACITY: usize = 1 << 20;

/// A standing query. Build one with [`SubscribeRequest::new`] and adjust the public fields.
#[derive(Clone, Debug, PartialEq)]
pub struct SubscribeRequest {
    /// The cue's embedding, of the store's dimension; normalised by the engine.
    pub cue_vector: Vec<f32>,
    /// Only memories of this entity are pushed when given.
    pub entity_id: Option<String>,
    /// Lowest confidence pushed, 0..=1.
    pub confidence_threshold: f32,
    /// Pushes queued for the consumer, 1..=[`MAX_QUEUE_CAPACITY`]; when full the oldest is
    /// dropped.
    pub queue_capacity: usize,
    /// Only memories this filter selects are pushed (see [`crate::filter`]).
    pub filter: Option<Filter>,
}

impl SubscribeRequest {
    /// A subscription to `cue_vector` with every other field at its default.
    pub fn new(cue_vector: Vec<f32>) -> Self {
        Self {
            cue_vector,
            entity_id: None,
            confidence_threshold: DEFAULT_CONFIDENCE_THRESHOLD,
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            filter: None,
        }
    }

    /// Checks every field except the cue's dimension (the engine compares it with the store's).
    pub fn validate(&self) -> Result<()> {
        check_vector(&self.cue_vector, "cue")?;
        if let Some(entity) = &self.entity_id {
            check_entity_id(entity, "entity_id")?;
        }
        check_unit(self.confidence_threshold, "confidence_threshold")?;
        if !(1..=MAX_QUEUE_CAPACITY).contains(&self.queue_capacity) {
            return Err(HebbsError::invalid(
                "queue_capacity",
                format!(
                    "{} is outside 1..={MAX_QUEUE_CAPACITY}",
                    self.queue_capacity
                ),
            ));
        }
        Ok(())
    }
}
