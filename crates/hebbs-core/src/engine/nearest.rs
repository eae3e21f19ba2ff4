//! `nearest`: the k-nearest memories to a vector as a pure read, for the layers above the
//! engine that compare memories with each other (remember's dedup, contradiction candidates).
//! Unlike a recall it records no access and touches no session; `reinforce` records one access
//! of chosen memories, as a recall that returned them would (remember's dedup reinforces the
//! memory it keeps).

use super::now_us;
use super::Engine;
use crate::error::{HebbsError, Result};
use crate::memory::MemoryId;
use crate::recall::{nearest_to, MAX_TOP_K};

impl Engine {
    /// The `k` (1..=[`MAX_TOP_K`]) live memories nearest to `query` by cosine similarity,
    /// nearest first, with their similarity; only `entity`'s when given (searched like a
    /// similarity recall: small entities exactly). Superseded memories are included.
    pub fn nearest(
        &self,
        query: &[f32],
        k: usize,
        entity: Option<&str>,
    ) -> Result<Vec<(MemoryId, f32)>> {
        self.check_open()?;
        if !(1..=MAX_TOP_K).contains(&k) {
            return Err(HebbsError::invalid(
                "k",
                format!("{k} is outside 1..={MAX_TOP_K}"),
            ));
        }
        let index = self.current_index();
        let cue = self.normalized_cue(query, index.as_deref())?;
        let hits = nearest_to(&self.store, index.as_deref(), &self.text, &cue, k, entity)?;
        Ok(hits
            .into_iter()
            .map(|hit| (hit.id, (1.0 - hit.distance).clamp(-1.0, 1.0)))
            .collect())
    }

    /// Records one access of each of `ids` now (missing ids are skipped).
    pub fn reinforce(&self, ids: &[MemoryId]) -> Result<()> {
        self.check_open()?;
        let mut live = Vec::with_capacity(ids.len());
        for id in ids {
            if self.store.contains(id)? {
                live.push(*id);
            }
        }
        if self.store.record_accesses(live.iter(), now_us()) {
            self.access_flusher.wake();
        }
        Ok(())
    }
}
