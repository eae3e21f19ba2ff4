//! The cascade of a forget: from the selected memories to everything erased with them.
//!
//! - Insights holding an `insight_from` edge to an erased memory are erased too, transitively.
//! - Every edge of an erased memory goes, in both directions (each edge counted once).
//! - A memory that an erased revision superseded is superseded no more, unless another
//!   surviving revision still points at it.
//! - Each erased memory leaves a [`Tombstone`] (no content, a SHA-256 of it).

use std::collections::{HashMap, HashSet};

use crate::error::Result;
use crate::memory::{content_sha256, EdgeType, MemoryId, StoredMemory, Tombstone};
use crate::store::{Store, StoreBatch};

/// Everything one forget erases or rewrites.
#[derive(Debug, Default)]
pub(crate) struct Cascade {
    /// Memories to erase: the selected ones first, then cascaded insights.
    pub erase: Vec<(MemoryId, StoredMemory)>,
    /// How many of `erase` the request selected.
    pub selected: usize,
    /// Edges to delete, as `(holder, type, target)`.
    pub edges: Vec<(MemoryId, EdgeType, MemoryId)>,
    /// Surviving memories whose superseded flag is cleared, with their rewritten records.
    pub restore: Vec<(MemoryId, StoredMemory)>,
}

impl Cascade {
    /// Expands `selected` into the full cascade, reading edges from `store`.
    pub fn plan(store: &Store, selected: Vec<(MemoryId, StoredMemory)>) -> Result<Self> {
        let mut erased: HashSet<MemoryId> = selected.iter().map(|(id, _)| *id).collect();
        let count = selected.len();
        let mut erase = selected;
        let mut at = 0;
        while at < erase.len() {
            let id = erase[at].0;
            at += 1;
            for edge in store.edges_in(&id)? {
                if edge.edge_type != EdgeType::InsightFrom || !erased.insert(edge.target) {
                    continue;
                }
                if let Some(record) = store.record(&edge.target)? {
                    erase.push((edge.target, record));
                }
            }
        }
        let mut edges = HashSet::new();
        let mut restore = HashMap::new();
        for (id, _) in &erase {
            for edge in store.edges_out(id)? {
                edges.insert((*id, edge.edge_type, edge.target));
                let revised = edge.edge_type == EdgeType::RevisedFrom;
                if revised && !erased.contains(&edge.target) && !restore.contains_key(&edge.target)
                {
                    if let Some(record) = unsuperseded(store, &edge.target, &erased)? {
                        restore.insert(edge.target, record);
                    }
                }
            }
            for edge in store.edges_in(id)? {
                edges.insert((edge.target, edge.edge_type, *id));
            }
        }
        Ok(Self {
            erase,
            selected: count,
            edges: edges.into_iter().collect(),
            restore: restore.into_iter().collect(),
        })
    }

    /// Queues every delete, tombstone and rewrite into `batch`; changelog sequences start at
    /// `first_seq`, one per erased memory. Fails only if reading a memory's conversation place
    /// fails.
    pub fn apply(&self, batch: &mut StoreBatch<'_>, first_seq: u64, now_us: u64) -> Result<()> {
        for (offset, (id, record)) in self.erase.iter().enumerate() {
            batch.delete_memory(id, record, first_seq + offset as u64)?;
            batch.put_tombstone(&Tombstone {
                id: *id,
                entity_id: record.entity_id.clone(),
                kind: record.kind,
                created_at: record.created_at,
                forgotten_at: now_us,
                content_sha256: content_sha256(&record.content),
            });
        }
        for (holder, edge_type, target) in &self.edges {
            batch.delete_edge(holder, *edge_type, target);
        }
        for (id, record) in &self.restore {
            batch.put_record(
                id,
                &StoredMemory {
                    updated_at: now_us,
                    ..record.clone()
                },
            );
        }
        Ok(())
    }
}

/// The record of `target` with its superseded flag cleared, if it is superseded and no
/// revision outside `erased` still points at it.
fn unsuperseded(
    store: &Store,
    target: &MemoryId,
    erased: &HashSet<MemoryId>,
) -> Result<Option<StoredMemory>> {
    let still_revised = store
        .edges_in(target)?
        .iter()
        .any(|edge| edge.edge_type == EdgeType::RevisedFrom && !erased.contains(&edge.target));
    if still_revised {
        return Ok(None);
    }
    Ok(store
        .record(target)?
        .filter(|record| record.superseded)
        .map(|record| StoredMemory {
            superseded: false,
            ..record
        }))
}
