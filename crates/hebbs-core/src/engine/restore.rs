//! Restoring what an export recorded (`hebbs import`): memories with their own ids, times,
//! kinds, superseded flags, access statistics, conversations and token vectors
//! ([`Engine::restore_many`]), and tombstones
//! ([`Engine::restore_tombstones`]). Edges are restored with [`Engine::add_edges`] once every
//! memory they join exists. Restored memories are indexed like new ones but are not pushed to
//! subscriptions: they are not new events.

use super::keys::check_keys_free;
use super::Engine;
use crate::error::{HebbsError, Result};
use crate::index::vector::normalize;
use crate::memory::checks::{
    check_content, check_context, check_entity_id, check_key, check_unit, check_vector,
};
use crate::memory::{MemoryId, StoredMemory, TokenVectors, Tombstone};
use crate::store::{AccessStats, ConversationTurn};

/// How far from 1 the norm of a vector may be for a restore to keep it as it is: an exported
/// vector was normalised once already, and normalising it again would change its last bits.
pub const UNIT_NORM_TOLERANCE: f32 = 1e-5;

fn is_unit(vector: &[f32]) -> bool {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    (norm - 1.0).abs() <= UNIT_NORM_TOLERANCE
}

/// One memory as an export recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct RestoreInput {
    /// Its id (which fixes its place in id order).
    pub id: MemoryId,
    /// Its record: kind, importance, times, entity, content, context, superseded flag.
    pub record: StoredMemory,
    /// Its embedding; normalised by the engine unless its norm is 1 within
    /// [`UNIT_NORM_TOLERANCE`] (then kept bit for bit).
    pub embedding: Vec<f32>,
    /// How often and when it was last recalled.
    pub access: AccessStats,
    /// Its turn in a conversation (`session_id` at remember time): the restored turns of one
    /// conversation are ordered by their times, then by their order in the batch.
    pub conversation: Option<ConversationTurn>,
    /// Its late-interaction token vectors, when the export carried them.
    pub token_vectors: Option<TokenVectors>,
}

impl RestoreInput {
    fn validate(&self, prefix: &str) -> Result<()> {
        let field = |name: &str| format!("{prefix}{name}");
        check_content(&self.record.content, &field("content"))?;
        check_unit(self.record.importance, &field("importance"))?;
        check_context(&self.record.context, &field("context"))?;
        if let Some(entity) = &self.record.entity_id {
            check_entity_id(entity, &field("entity_id"))?;
        }
        if let Some(turn) = &self.conversation {
            check_entity_id(&turn.session_id, &field("session_id"))?;
        }
        if let Some(key) = &self.record.key {
            check_key(key, &field("key"))?;
        }
        if let Some(vectors) = &self.token_vectors {
            vectors.check(&field("token_vectors"))?;
        }
        if self.record.updated_at < self.record.created_at {
            return Err(HebbsError::invalid(
                field("updated_at"),
                "is before created_at",
            ));
        }
        check_vector(&self.embedding, &field("embedding"))
    }
}

impl Engine {
    /// Stores `inputs` with their own ids in one atomic write, then indexes them (a large
    /// batch in one parallel insert). Every input is
    /// checked first (fields as `remember` checks them, `items[i].` before the name); an id
    /// twice in `inputs` is `InvalidInput` and an id the store holds already is `Conflict`,
    /// both naming `items[i].id`; the same for a caller key (`items[i].key`): a restore never
    /// replaces a memory. If any input is refused nothing is stored.
    pub fn restore_many(&self, inputs: Vec<RestoreInput>) -> Result<()> {
        self.check_open()?;
        let Some(first) = inputs.first() else {
            return Ok(());
        };
        let dimension = first.embedding.len();
        for (i, input) in inputs.iter().enumerate() {
            let prefix = format!("items[{i}].");
            input.validate(&prefix)?;
            if input.embedding.len() != dimension {
                return Err(HebbsError::invalid(
                    format!("{prefix}embedding"),
                    format!(
                        "dimension {} differs from the batch's {dimension}",
                        input.embedding.len()
                    ),
                ));
            }
        }
        let mut seen = std::collections::HashSet::with_capacity(inputs.len());
        let mut writer = self.writer.lock();
        let index = self.index_for(dimension)?;
        if index.dimension() != dimension {
            return Err(HebbsError::invalid(
                "items[0].embedding",
                format!(
                    "dimension {dimension} does not match the store's {}",
                    index.dimension()
                ),
            ));
        }
        for (i, input) in inputs.iter().enumerate() {
            if !seen.insert(input.id) {
                return Err(HebbsError::invalid(
                    format!("items[{i}].id"),
                    format!("id {} appears twice in the batch", input.id),
                ));
            }
            if self.store.contains(&input.id)? {
                return Err(HebbsError::conflict(
                    format!("items[{i}].id"),
                    format!("a memory with id {} exists already", input.id),
                ));
            }
        }
        check_keys_free(&self.store, inputs.iter().map(|input| &input.record.key))?;
        let mut batch = self.store.batch();
        let mut prepared = Vec::with_capacity(inputs.len());
        for (i, input) in inputs.into_iter().enumerate() {
            let mut vector = input.embedding;
            if !is_unit(&vector) {
                normalize(&mut vector);
            }
            let seq = writer.next_seq + i as u64;
            batch.put_restored(&input.id, &input.record, &vector, input.access, seq);
            if let Some(turn) = &input.conversation {
                batch.put_conversation_turn(&turn.session_id, turn.at, seq, &input.id);
            }
            if let Some(vectors) = &input.token_vectors {
                batch.put_token_vectors(&input.id, vectors);
            }
            prepared.push((input.id, input.record, vector));
        }
        self.commit_new(&mut writer, batch, &index, &prepared)?;
        self.checkpoint_if_due(&mut writer, &index)
    }

    /// Writes `tombstones` in one batch; a tombstone whose id is a stored memory is
    /// `Conflict` naming `items[i].id` (nothing is written).
    pub fn restore_tombstones(&self, tombstones: &[Tombstone]) -> Result<()> {
        self.check_open()?;
        let writer = self.writer.lock();
        for (i, tombstone) in tombstones.iter().enumerate() {
            if self.store.contains(&tombstone.id)? {
                return Err(HebbsError::conflict(
                    format!("items[{i}].id"),
                    format!("{} is a stored memory", tombstone.id),
                ));
            }
        }
        let mut batch = self.store.batch();
        for tombstone in tombstones {
            batch.put_tombstone(tombstone);
        }
        self.store.commit(batch, self.config.sync_writes)?;
        drop(writer);
        Ok(())
    }
}
