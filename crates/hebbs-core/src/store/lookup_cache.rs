//! The answers of recent index lookups (`Store::context_lookup`), so a filter used call after
//! call (an agent's usual "only the email channel") is planned without scanning its index
//! range again; a broad filter's scan stops at the planner's limit, and that answer is kept
//! too.
//!
//! Every commit that changes the index moves the cache's epoch and brings each answer up to
//! date with the index keys it wrote or deleted (a key in an answer's range adds or removes its
//! memory; a delete under a broad answer drops it); a commit of more than
//! [`LOOKUP_CACHE_MAX_CHANGES`] keys empties the cache instead. A lookup fills it only if the
//! epoch did not move between its scan and its fill, so an answer never misses a write: a scan
//! that began before the write is dropped, and one that saw the write before the update at
//! most repeats an id, which the planner's sets absorb.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::memory::MemoryId;

/// Lookups remembered at most; the cache starts over when full.
pub const LOOKUP_CACHE_ENTRIES: usize = 256;
/// Index keys a commit may write or delete for the cache to be updated rather than emptied:
/// one memory writes a key a context value, so an agent's single writes keep a filter's
/// answer, and a bulk import starts the cache over (checking each key against every answer
/// would cost more than scanning again).
pub const LOOKUP_CACHE_MAX_CHANGES: usize = 256;

/// One index key a commit writes (`added`) or deletes, with the memory it names.
pub(super) struct IndexChange {
    pub key: Vec<u8>,
    pub id: MemoryId,
    pub added: bool,
}

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

    /// Brings every answer up to date with `changes`, a commit's index keys (see the module
    /// docs); forgets them all past [`LOOKUP_CACHE_MAX_CHANGES`].
    pub(super) fn apply(&self, changes: &[IndexChange]) {
        if changes.is_empty() {
            return;
        }
        let mut entries = self.entries.lock();
        entries.epoch += 1;
        if changes.len() > LOOKUP_CACHE_MAX_CHANGES {
            entries.answers.clear();
            return;
        }
        entries.answers.retain(|(lower, upper, limit), answer| {
            let inside = |change: &&IndexChange| {
                change.key.as_slice() >= lower.as_slice()
                    && change.key.as_slice() < upper.as_slice()
            };
            if !changes.iter().any(|change| inside(&change)) {
                return true;
            }
            let Some(ids) = answer else {
                // More than the limit before: still more after adds, unknown after a delete.
                return changes.iter().filter(inside).all(|change| change.added);
            };
            let mut updated = ids.to_vec();
            for change in changes.iter().filter(inside) {
                if change.added {
                    updated.push(change.id);
                } else if let Some(at) = updated.iter().position(|id| *id == change.id) {
                    updated.swap_remove(at);
                }
            }
            *answer = (updated.len() <= *limit).then(|| Arc::from(updated));
            true
        });
    }
}
