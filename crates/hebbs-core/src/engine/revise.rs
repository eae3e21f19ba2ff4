//! `revise` and `lineage`. A revision is a new memory of kind `revision` that supersedes the
//! old one: it inherits every field the caller does not change, holds a `revised_from` edge to
//! the old memory, and the old record is rewritten with its superseded flag, all in one write
//! batch. The revision takes the old memory's place in its conversation (`session_id` order),
//! so the re-rank stage reads it among the same neighbours, and its caller key (the key then
//! names the newest version; the old record keeps none). Recall skips superseded memories
//! unless the request includes them; `lineage` walks the `revised_from` chain both ways.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{now_us, Engine};
use crate::error::{HebbsError, Result};
use crate::index::vector::normalize;
use crate::memory::checks::{
    check_content, check_context, check_entity_id, check_unit, check_vector,
};
use crate::memory::{Edge, EdgeType, Memory, MemoryId, MemoryKind, StoredMemory, TokenVectors};

/// What changes in a revision; `None` fields are inherited from the revised memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RevisionInput {
    /// New text; needs `embedding` (the engine does not embed).
    pub content: Option<String>,
    /// New embedding; without it the old vector is kept.
    pub embedding: Option<Vec<f32>>,
    /// New importance, 0..=1.
    pub importance: Option<f32>,
    /// New context (replaces the old one).
    pub context: Option<Map<String, Value>>,
    /// New entity scope.
    pub entity_id: Option<String>,
    /// The per-token vectors of the new content (from the embedding pass that made
    /// `embedding`), stored for the revision. Without them a revision that keeps the content
    /// keeps the old memory's token vectors, and one with new content has none.
    pub token_vectors: Option<TokenVectors>,
}

impl RevisionInput {
    fn validate(&self) -> Result<()> {
        if self.content.is_none()
            && self.embedding.is_none()
            && self.importance.is_none()
            && self.context.is_none()
            && self.entity_id.is_none()
        {
            return Err(HebbsError::invalid(
                "content",
                "a revision must change content, embedding, importance, context or entity_id",
            ));
        }
        if let Some(content) = &self.content {
            check_content(content, "content")?;
            if self.embedding.is_none() {
                return Err(HebbsError::invalid(
                    "embedding",
                    "new content needs its embedding",
                ));
            }
        }
        if let Some(vector) = &self.embedding {
            check_vector(vector, "embedding")?;
        }
        if let Some(importance) = self.importance {
            check_unit(importance, "importance")?;
        }
        if let Some(context) = &self.context {
            check_context(context, "context")?;
        }
        if let Some(entity) = &self.entity_id {
            check_entity_id(entity, "entity_id")?;
        }
        if let Some(vectors) = &self.token_vectors {
            vectors.check("token_vectors")?;
        }
        Ok(())
    }
}

impl Engine {
    /// Revises memory `id`: stores a `revision` memory with the changes in `input` and the
    /// other fields of `id`, linked to it by a `revised_from` edge, and marks `id` superseded.
    /// Returns the revision. `id` must exist (`NotFound`) and not be superseded already
    /// (`Conflict` naming `id`, pointing at the newer revision; nothing is written).
    pub fn revise(&self, id: &MemoryId, input: RevisionInput) -> Result<Memory> {
        self.check_open()?;
        input.validate()?;
        let mut writer = self.writer.lock();
        let old = self
            .store
            .record(id)?
            .ok_or_else(|| HebbsError::NotFound { id: id.to_hex() })?;
        if old.superseded {
            let newer = self
                .store
                .edges_in(id)?
                .into_iter()
                .find(|edge| edge.edge_type == EdgeType::RevisedFrom)
                .map_or_else(
                    || "a later revision".to_owned(),
                    |edge| edge.target.to_hex(),
                );
            return Err(HebbsError::conflict(
                "id",
                format!("memory {id} is superseded by {newer}; revise the newest revision"),
            ));
        }
        let index = self.current_index().ok_or_else(|| {
            HebbsError::corrupt("store", "it holds memories but has no vector dimension")
        })?;
        let vector = match input.embedding {
            Some(mut vector) => {
                if vector.len() != index.dimension() {
                    return Err(HebbsError::invalid(
                        "embedding",
                        format!(
                            "dimension {} does not match the store's {}",
                            vector.len(),
                            index.dimension()
                        ),
                    ));
                }
                normalize(&mut vector);
                vector
            }
            None => self.store.vector(id)?.ok_or_else(|| {
                HebbsError::corrupt("store", format!("memory {id} has no vector"))
            })?,
        };
        let token_vectors = match input.token_vectors {
            Some(vectors) => Some(vectors),
            None if input.content.is_none() => self.store.token_vectors(&[*id])?.remove(0),
            None => None,
        };
        let now = now_us();
        let revision = StoredMemory {
            kind: MemoryKind::Revision,
            importance: input.importance.unwrap_or(old.importance),
            created_at: now,
            updated_at: now,
            entity_id: input.entity_id.or_else(|| old.entity_id.clone()),
            content: input.content.unwrap_or_else(|| old.content.clone()),
            context: input.context.unwrap_or_else(|| old.context.clone()),
            superseded: false,
            key: old.key.clone(),
        };
        let new_id = MemoryId::new();
        let mut batch = self.store.batch();
        let edge = Edge::new(*id, EdgeType::RevisedFrom);
        batch.put_memory(&new_id, &revision, &vector, &[edge], writer.next_seq);
        if let Some(vectors) = &token_vectors {
            batch.put_token_vectors(&new_id, vectors);
        }
        batch.replace_conversation_turn(id, &new_id)?;
        batch.put_record(
            id,
            &StoredMemory {
                superseded: true,
                updated_at: now,
                key: None,
                ..old
            },
        );
        batch.put_counters(writer.memory_count + 1, writer.next_seq + 1);
        self.store.commit(batch, self.config.sync_writes)?;
        writer.memory_count += 1;
        writer.next_seq += 1;
        self.text.add(
            std::iter::once((
                new_id,
                revision.entity_id.as_deref(),
                revision.content.as_str(),
            )),
            writer.next_seq,
        )?;
        self.subscriptions.publish(
            std::iter::once((&new_id, &revision, vector.as_slice())),
            now,
            |id| self.session_of(id),
        );
        index.insert_deferred(new_id, revision.entity_id.as_deref(), vector);
        drop(writer);
        Ok(Memory::assemble(new_id, revision, 0, 0, None, now))
    }

    /// The revision chain through `id`, oldest first: the memories it was revised from, `id`,
    /// and the revisions of it, following `revised_from` edges both ways.
    pub fn lineage(&self, id: &MemoryId) -> Result<Vec<Memory>> {
        self.check_open()?;
        if !self.store.contains(id)? {
            return Err(HebbsError::NotFound { id: id.to_hex() });
        }
        self.lineage_ids(id)?
            .iter()
            .map(|id| self.get(id, false))
            .collect()
    }

    /// The ids of [`Engine::lineage`], oldest first.
    pub(super) fn lineage_ids(&self, id: &MemoryId) -> Result<Vec<MemoryId>> {
        let mut seen = HashSet::from([*id]);
        let mut older = Vec::new();
        let mut at = *id;
        while let Some(previous) = self.revision_link(&at, true)? {
            if !seen.insert(previous) {
                break;
            }
            older.push(previous);
            at = previous;
        }
        let mut chain: Vec<MemoryId> = older.into_iter().rev().collect();
        chain.push(*id);
        at = *id;
        while let Some(next) = self.revision_link(&at, false)? {
            if !seen.insert(next) {
                break;
            }
            chain.push(next);
            at = next;
        }
        Ok(chain)
    }

    /// The memory `id` was revised from (`back`) or the newest revision of it.
    fn revision_link(&self, id: &MemoryId, back: bool) -> Result<Option<MemoryId>> {
        let edges = if back {
            self.store.edges_out(id)?
        } else {
            self.store.edges_in(id)?
        };
        Ok(edges
            .into_iter()
            .filter(|edge| edge.edge_type == EdgeType::RevisedFrom)
            .map(|edge| edge.target)
            .max())
    }
}
