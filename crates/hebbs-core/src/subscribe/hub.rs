//! [`SubscriptionHub`]: the engine's registry of live subscriptions, and the matching of each
//! committed memory against them. The engine calls [`SubscriptionHub::publish`] under its writer
//! lock after every commit, so pushes follow commit order. With no subscriber, publishing is one
//! read lock and an emptiness check: nothing is allocated.
//!
//! Lock order: the engine's writer lock, then the registry, then one subscription's queue.
//! Consumers take only their queue's lock, and unsubscribing takes only the registry's, so a
//! consumer can never hold up a writer for longer than one queue operation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use super::channel::Channel;
use super::request::SubscribeRequest;
use super::subscription::Subscription;
use crate::error::{HebbsError, Result};
use crate::filter::{Filter, FilterView};
use crate::index::vector::dot;
use crate::memory::{Memory, MemoryId, StoredMemory};

/// One live subscription as the hub matches it.
pub(super) struct Entry {
    pub(super) id: u64,
    /// L2-normalised cue.
    cue: Vec<f32>,
    entity_id: Option<String>,
    threshold: f32,
    filter: Option<Filter>,
    pub(super) channel: Channel,
}

impl Entry {
    /// The confidence of a memory for this subscription, or `None` if it is not pushed.
    fn confidence(&self, entity_id: Option<&str>, vector: &[f32]) -> Option<f32> {
        if self.entity_id.is_some() && self.entity_id.as_deref() != entity_id {
            return None;
        }
        if vector.len() != self.cue.len() {
            return None;
        }
        let confidence = dot(&self.cue, vector).clamp(0.0, 1.0);
        (confidence >= self.threshold).then_some(confidence)
    }
}

#[derive(Default)]
struct Registry {
    entries: Vec<Arc<Entry>>,
    closed: bool,
}

/// The live subscriptions of one engine.
#[derive(Default)]
pub(crate) struct SubscriptionHub {
    registry: RwLock<Registry>,
    last_id: AtomicU64,
}

impl SubscriptionHub {
    /// Registers `request` with its cue already checked against the store and normalised;
    /// fails with `Closed` after [`SubscriptionHub::close_all`].
    pub(crate) fn subscribe(
        self: &Arc<Self>,
        request: SubscribeRequest,
        normalized_cue: Vec<f32>,
    ) -> Result<Subscription> {
        let mut registry = self.registry.write();
        if registry.closed {
            return Err(HebbsError::Closed);
        }
        let entry = Arc::new(Entry {
            id: self.last_id.fetch_add(1, Ordering::Relaxed) + 1,
            cue: normalized_cue,
            entity_id: request.entity_id,
            threshold: request.confidence_threshold,
            filter: request.filter,
            channel: Channel::new(request.queue_capacity),
        });
        registry.entries.push(Arc::clone(&entry));
        Ok(Subscription::new(Arc::clone(self), entry))
    }

    /// Removes the subscription `id` (no-op if already gone).
    pub(super) fn remove(&self, id: u64) {
        self.registry.write().entries.retain(|entry| entry.id != id);
    }

    /// Ends every subscription (their consumers drain what is queued, then see `Closed`) and
    /// refuses new ones.
    pub(crate) fn close_all(&self) {
        let entries = {
            let mut registry = self.registry.write();
            registry.closed = true;
            std::mem::take(&mut registry.entries)
        };
        for entry in entries {
            entry.channel.close(false);
        }
    }

    /// Live subscriptions.
    pub(crate) fn len(&self) -> usize {
        self.registry.read().entries.len()
    }

    /// Pushes each of `memories` (id, record, normalised vector), in order, to every
    /// subscription it matches (its filter, if any, reading the memory's conversation from
    /// `session_of` only when it names `session_id`). `now_us` is the time the memories were
    /// stored.
    pub(crate) fn publish<'a>(
        &self,
        memories: impl IntoIterator<Item = (&'a MemoryId, &'a StoredMemory, &'a [f32])>,
        now_us: u64,
        session_of: impl Fn(&MemoryId) -> Option<String>,
    ) {
        let registry = self.registry.read();
        if registry.entries.is_empty() {
            return;
        }
        for (id, record, vector) in memories {
            let mut memory: Option<Memory> = None;
            let mut session: Option<Option<String>> = None;
            for entry in &registry.entries {
                let Some(confidence) = entry.confidence(record.entity_id.as_deref(), vector) else {
                    continue;
                };
                if let Some(filter) = &entry.filter {
                    let session = if filter.reads_session() {
                        session.get_or_insert_with(|| session_of(id)).as_deref()
                    } else {
                        None
                    };
                    if !filter.matches(&FilterView::of(record, session)) {
                        continue;
                    }
                }
                let memory = memory
                    .get_or_insert_with(|| {
                        Memory::assemble(*id, record.clone(), 0, 0, None, now_us)
                    })
                    .clone();
                entry.channel.push(entry.id, memory, confidence);
            }
        }
    }
}
