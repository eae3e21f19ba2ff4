//! `conversation`: the memories remembered with one `session_id`, in conversation order
//! (`created_at`, then arrival), the order the re-rank stage reads the turns around a hit in;
//! and each memory's turn in it, for an export.

use super::Engine;
use crate::error::Result;
use crate::memory::checks::check_entity_id;
use crate::memory::MemoryId;
use crate::store::ConversationTurn;

impl Engine {
    /// The ids of the memories remembered with `session_id`, ordered by `created_at` and then
    /// by arrival, at most `limit`. Forgotten memories are gone from it.
    pub fn conversation(&self, session_id: &str, limit: usize) -> Result<Vec<MemoryId>> {
        self.check_open()?;
        check_entity_id(session_id, "session_id")?;
        self.store.conversation(session_id, limit)
    }

    /// The turn each of `ids` takes in its conversation (None for a memory in none, or one
    /// that does not exist): what an export records.
    pub fn conversation_turns(&self, ids: &[MemoryId]) -> Result<Vec<Option<ConversationTurn>>> {
        self.check_open()?;
        self.store.conversation_turns(ids)
    }
}
