//! `put_token_vectors` and `get_token_vectors`: the quantised per-token vectors a
//! late-interaction re-ranker keeps per memory, stored durably so a reopened engine re-ranks
//! without re-encoding its candidates. Written in one batch after every shape and every id was
//! checked; forget deletes them with their memory.

use super::Engine;
use crate::error::{HebbsError, Result};
use crate::memory::{MemoryId, TokenVectors};

impl Engine {
    /// Stores the token vectors of existing memories, replacing any stored before. Each entry
    /// is checked ([`TokenVectors::check`], errors name `items[i].codes` and so on) and each id
    /// must name a stored memory (`InvalidInput` naming `items[i].id`). All or nothing.
    pub fn put_token_vectors(&self, items: &[(MemoryId, TokenVectors)]) -> Result<()> {
        self.check_open()?;
        for (i, (_, vectors)) in items.iter().enumerate() {
            vectors.check(&format!("items[{i}]"))?;
        }
        let ids: Vec<MemoryId> = items.iter().map(|(id, _)| *id).collect();
        let writer = self.writer.lock();
        let found = self.store.pinned_records(&ids)?;
        if let Some(i) = found.iter().position(Option::is_none) {
            return Err(HebbsError::invalid(
                format!("items[{i}].id"),
                format!("no memory with id {}", ids[i]),
            ));
        }
        drop(found);
        let mut batch = self.store.batch();
        for (id, vectors) in items {
            batch.put_token_vectors(id, vectors);
        }
        self.store.commit(batch, self.config.sync_writes)?;
        drop(writer);
        Ok(())
    }

    /// The stored token vectors of `ids`, in input order: None for a memory without any (or
    /// no memory at all).
    pub fn get_token_vectors(&self, ids: &[MemoryId]) -> Result<Vec<Option<TokenVectors>>> {
        self.check_open()?;
        self.store.token_vectors(ids)
    }
}
