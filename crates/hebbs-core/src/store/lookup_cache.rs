//! The answers of recent index lookups (`Store::context_lookup`), so a filter used call after
//! call (an agent's usual "only the email channel") is planned without scanning its index
//! range again; a broad filter's scan stops at the planner's limit, and that answer is kept
//! too.
//!
//! Every commit that adds, rewrites or erases memories moves the cache's epoch and empties it;
//! a lookup fills it only if the epoch did not move between its scan and its fill, so an answer
//! never outlives a write that could change it.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::memory::MemoryId;

/// Lookups remembered at most; the cache starts over when full.
pub const LOOKUP_CACHE_ENTRIES: usize = 256;

/// One lookup: its key range and limit.
pub(super) type LookupKey = (Vec<u8>, Vec<u8>, usize);
/// Its answer: the ids found, None when there were more than the limit.
pub(super) type LookupAnswer = Option<Arc<[MemoryId]>>;

#[derive(Default)]
struct Entries {
    epoch: u64,
    answers: HashMap<LookupKey, LookupAnswer>,
}

/// The lookup cache of one store.
#[derive(Default)]
pub(super) struct LookupCache {
    entries: Mutex<Entries>,
}

impl LookupCache {
    /// The cached answer of `key` and the epoch to fill with on a miss.
    pub(super) fn get(&self, key: &LookupKey) -> (Option<LookupAnswer>, u64) {
        let entries = self.entries.lock();
        (entries.answers.get(key).cloned(), entries.epoch)
    }

    /// Keeps `answer` for `key` unless a write moved the epoch since `epoch`.
    pub(super) fn fill(&self, key: LookupKey, answer: LookupAnswer, epoch: u64) {
        let mut entries = self.entries.lock();
        if entries.epoch != epoch {
            return;
        }
        if entries.answers.len() >= LOOKUP_CACHE_ENTRIES {
            entries.answers.clear();
        }
        entries.answers.insert(key, answer);
    }

    /// Forgets every answer: a write changed what the index holds.
    pub(super) fn invalidate(&self) {
        let mut entries = self.entries.lock();
        entries.epoch += 1;
        entries.answers.clear();
    }
}
