//! Standing queries: a subscription holds a cue vector (and optionally an entity), and every later
//! `remember` whose memory matches it above a confidence threshold is pushed to the subscriber
//! with a per-subscription sequence number (seed 003 `SubscribePush`).
//!
//! - [`request`]: what `Engine::subscribe` takes, its defaults and validation.
//! - [`push`]: the [`SubscribePush`] a subscriber receives.
//! - `channel`: the bounded per-subscription queue (overflow policy: drop the oldest).
//! - `hub`: the engine's registry of live subscriptions and the matching on each commit.
//! - [`subscription`]: the [`Subscription`] handle a consumer receives from.
//!
//! Guarantees: pushes are produced under the engine's writer lock right after each commit, so
//! every subscription sees matching memories in commit order with strictly increasing sequence
//! numbers starting at 1. A writer never waits for a consumer: when a subscription's queue is
//! full the oldest queued push is discarded and counted in [`Subscription::dropped`], which
//! leaves a visible gap in the sequence numbers.

mod channel;
mod hub;
pub mod push;
pub mod request;
pub mod subscription;

pub(crate) use hub::SubscriptionHub;
pub use push::SubscribePush;
pub use request::{
    SubscribeRequest, DEFAULT_CONFIDENCE_THRESHOLD, DEFAULT_QUEUE_CAPACITY, MAX_QUEUE_CAPACITY,
};
pub use subscription::{RecvError, Subscription};
