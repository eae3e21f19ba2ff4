//! [`Subscription`]: the consumer's handle. Receiving blocks on the subscription's condition
//! variable; ending it (by [`Subscription::unsubscribe`], by dropping it, or by closing the
//! engine) wakes every blocked receiver.
//!
//! What a receiver sees once a subscription ends: after `unsubscribe` (or drop) the queue is
//! discarded and every receive reports [`RecvError::Closed`] (`None` from
//! [`Subscription::recv`]); after the engine closes, the pushes already queued are still
//! handed out, then receives report `Closed`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::hub::{Entry, SubscriptionHub};
use super::push::SubscribePush;

/// Why a receive returned no push.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecvError {
    /// Nothing was queued (`try_recv`) or nothing arrived within the timeout (`recv_timeout`).
    #[error("no push arrived")]
    Empty,
    /// The subscription ended (unsubscribed or engine closed) and nothing is left to receive.
    #[error("the subscription is closed")]
    Closed,
}

/// A live subscription. Safe to share between threads; dropping it unsubscribes.
pub struct Subscription {
    hub: Arc<SubscriptionHub>,
    entry: Arc<Entry>,
}

impl Subscription {
    pub(super) fn new(hub: Arc<SubscriptionHub>, entry: Arc<Entry>) -> Self {
        Self { hub, entry }
    }

    /// This subscription's id, unique within its engine (the pushes' `subscription_id`).
    pub fn id(&self) -> u64 {
        self.entry.id
    }

    /// The next push, blocking until one arrives; `None` once the subscription has ended.
    pub fn recv(&self) -> Option<SubscribePush> {
        self.entry.channel.recv(None).ok()
    }

    /// The next push, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<SubscribePush, RecvError> {
        self.entry.channel.recv(Instant::now().checked_add(timeout))
    }

    /// The next push if one is queued, without waiting.
    pub fn try_recv(&self) -> Result<SubscribePush, RecvError> {
        self.entry.channel.recv(Some(Instant::now()))
    }

    /// Pushes discarded because the queue was full (the oldest queued push goes first).
    pub fn dropped(&self) -> u64 {
        self.entry.channel.dropped()
    }

    /// Whether the subscription has ended (it may still hold pushes queued before the engine
    /// closed).
    pub fn is_closed(&self) -> bool {
        self.entry.channel.is_closed()
    }

    /// Ends the subscription: no more pushes, queued ones are discarded, and blocked receivers
    /// wake up with `Closed`. Idempotent.
    pub fn unsubscribe(&self) {
        self.hub.remove(self.entry.id);
        self.entry.channel.close(true);
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.unsubscribe();
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id())
            .field("closed", &self.is_closed())
            .finish()
    }
}
