//! [`SubscribePush`]: one memory delivered to a subscription (seed 003 `SubscribePush`).

use crate::memory::Memory;

/// A memory that matched a subscription, as its consumer receives it.
#[derive(Clone, Debug, PartialEq)]
pub struct SubscribePush {
    /// The subscription that produced this push.
    pub subscription_id: u64,
    /// The newly remembered memory (without its embedding).
    pub memory: Memory,
    /// Cosine similarity of the memory to the subscription's cue, clamped to 0..=1; at or above
    /// the subscription's threshold.
    pub confidence: f32,
    /// When the push was produced, microseconds since the Unix epoch.
    pub push_timestamp_us: u64,
    /// Per-subscription sequence number: 1 for the first push, then +1 for each push produced.
    /// A gap means the pushes in between were dropped by the overflow policy.
    pub sequence_number: u64,
}
