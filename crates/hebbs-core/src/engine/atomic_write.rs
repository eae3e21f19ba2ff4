//! `write_atomic`: new memories, edges between them, the forgetting of other memories (with
//! forget's cascade) and state entries, committed in one RocksDB write batch, so a caller that
//! replaces a unit of content (the document indexer: one file) leaves either all of it or none
//! of it, whatever stops the process. Everything is validated before the batch is built; an
//! invalid part refuses the whole write, naming its field, with nothing stored.

use std::collections::HashSet;

use super::input::RememberInput;
use super::state::check_state_entry;
use super::{assemble_new, now_us, validate_inputs, Engine, NewSlot};
use crate::error::{HebbsError, Result};
use crate::forget::{check_limit, Cascade, ForgetResult};
use crate::memory::checks::check_unit;
use crate::memory::{Edge, EdgeType, Memory, MemoryId, MAX_EDGES_PER_MEMORY};

/// An edge between two memories of one [`AtomicWrite`], named by their places in `items`.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemEdge {
    /// The item holding the edge.
    pub source: usize,
    /// The item it points at.
    pub target: usize,
    /// The relationship.
    pub edge_type: EdgeType,
    /// Strength, 0..=1.
    pub confidence: f32,
}

/// One atomic write: see the module docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AtomicWrite {
    /// Memories to store (their `edges` point at existing memories).
    pub items: Vec<RememberInput>,
    /// The ids of `items`, when the caller chose them (fresh [`MemoryId::new`] ids, so that a
    /// state entry of the same write can name them); empty: the engine picks them.
    pub ids: Vec<MemoryId>,
    /// Edges between `items`.
    pub item_edges: Vec<ItemEdge>,
    /// Existing memories to forget, with forget's cascade; unknown ids are skipped.
    pub forget: Vec<MemoryId>,
    /// State entries to set (`Some`) or delete (`None`).
    pub state: Vec<(String, Option<Vec<u8>>)>,
}

/// What an [`AtomicWrite`] did: the memories stored, in `items` order, and the forget's counts.
#[derive(Clone, Debug)]
pub struct AtomicWriteOutput {
    /// The new memories, in `items` order.
    pub memories: Vec<Memory>,
    /// What the forget erased (`truncated` is always false: the whole list is forgotten).
    pub forgotten: ForgetResult,
}

impl AtomicWrite {
    /// Checks everything that needs no store: the items (`items[i].…`), the item edges
    /// (`item_edges[k].…`), the forget list's size and the state entries (`state[k].…`).
    /// Returns the items' embedding dimension (0 without items).
    fn validate(&self, now: u64, prefix: &dyn Fn(usize) -> String) -> Result<usize> {
        let dimension = validate_inputs(&self.items, now, prefix)?;
        if !self.ids.is_empty() {
            if self.ids.len() != self.items.len() {
                return Err(HebbsError::invalid(
                    "ids",
                    format!("{} ids for {} items", self.ids.len(), self.items.len()),
                ));
            }
            let mut seen = HashSet::new();
            if let Some(i) = self.ids.iter().position(|id| !seen.insert(*id)) {
                return Err(HebbsError::invalid(
                    format!("ids[{i}]"),
                    format!("{} appears twice", self.ids[i]),
                ));
            }
        }
        let mut held: Vec<usize> = self.items.iter().map(|item| item.edges.len()).collect();
        for (k, edge) in self.item_edges.iter().enumerate() {
            let field = |name: &str| format!("item_edges[{k}].{name}");
            for (name, at) in [("source", edge.source), ("target", edge.target)] {
                if at >= self.items.len() {
                    return Err(HebbsError::invalid(
                        field(name),
                        format!("{at} is not an item (there are {})", self.items.len()),
                    ));
                }
            }
            if edge.source == edge.target {
                return Err(HebbsError::invalid(
                    field("target"),
                    "an edge may not point at its own memory",
                ));
            }
            check_unit(edge.confidence, &field("confidence"))?;
            held[edge.source] += 1;
            if held[edge.source] > MAX_EDGES_PER_MEMORY {
                return Err(HebbsError::invalid(
                    field("source"),
                    format!(
                        "item {} would hold more than {MAX_EDGES_PER_MEMORY} edges",
                        edge.source
                    ),
                ));
            }
        }
        if !self.forget.is_empty() {
            check_limit(self.forget.len(), "forget")?;
        }
        for (k, (name, value)) in self.state.iter().enumerate() {
            check_state_entry(
                name,
                value.as_deref(),
                &format!("state[{k}].name"),
                &format!("state[{k}].value"),
            )?;
        }
        Ok(dimension)
    }
}

impl Engine {
    /// Commits `write` as one atomic batch (see the module docs): all of it, or nothing and an
    /// `InvalidInput` naming the field at fault. Chosen ids must be new (`ids[i]`: not
    /// repeated; one stored or forgotten is a `Conflict`). An item's edge to an existing memory needs its
    /// target to exist and not be forgotten by this same write (`items[i].edges[e].target`).
    /// An item with a caller key replaces the memory that holds it, as `remember` does.
    pub fn write_atomic(&self, write: AtomicWrite) -> Result<AtomicWriteOutput> {
        self.commit_write(write, &|i| format!("items[{i}]."))
    }

    /// [`Engine::write_atomic`], naming item `i`'s fields after `prefix(i)` (`remember_many`
    /// names a lone item's fields bare).
    pub(super) fn commit_write(
        &self,
        write: AtomicWrite,
        prefix: &dyn Fn(usize) -> String,
    ) -> Result<AtomicWriteOutput> {
        self.check_open()?;
        let now = now_us();
        let dimension = write.validate(now, prefix)?;
        let AtomicWrite {
            items,
            ids,
            item_edges,
            mut forget,
            state,
        } = write;
        let chosen = !ids.is_empty();
        let ids: Vec<MemoryId> = if chosen {
            ids
        } else {
            items.iter().map(|_| MemoryId::new()).collect()
        };
        let mut extra: Vec<Vec<Edge>> = vec![Vec::new(); items.len()];
        for edge in &item_edges {
            extra[edge.source].push(Edge {
                target: ids[edge.target],
                edge_type: edge.edge_type,
                confidence: edge.confidence,
            });
        }
        let mut writer = self.writer.lock();
        if chosen {
            for (i, id) in ids.iter().enumerate() {
                if self.store.contains(id)? || self.store.tombstone(id)?.is_some() {
                    return Err(HebbsError::conflict(
                        format!("ids[{i}]"),
                        format!("memory {id} exists or was forgotten; pass a fresh id"),
                    ));
                }
            }
        }
        forget.extend(self.replaced_by_keys(&items)?);
        let mut selected = Vec::new();
        let mut seen = HashSet::new();
        for id in forget {
            if seen.insert(id) {
                if let Some(record) = self.store.record(&id)? {
                    selected.push((id, record));
                }
            }
        }
        let cascade = Cascade::plan(&self.store, selected)?;
        let erased: HashSet<MemoryId> = cascade.erase.iter().map(|(id, _)| *id).collect();
        for (i, item) in items.iter().enumerate() {
            if let Some(e) = item.edges.iter().position(|e| erased.contains(&e.target)) {
                return Err(HebbsError::invalid(
                    format!("{}edges[{e}].target", prefix(i)),
                    format!("memory {} is forgotten by this write", item.edges[e].target),
                ));
            }
        }
        let index = if items.is_empty() {
            self.current_index()
        } else {
            Some(self.index_for(dimension)?)
        };
        let added = items.len() as u64;
        let mut batch = self.store.batch();
        let mut prepared = Vec::with_capacity(items.len());
        if let Some(index) = &index {
            for (i, (input, id)) in items.into_iter().zip(&ids).enumerate() {
                let slot = NewSlot {
                    id: *id,
                    seq: writer.next_seq + i as u64,
                    now,
                    prefix: &prefix(i),
                };
                prepared.push(self.prepare_new(&mut batch, index, input, &extra[i], slot)?);
            }
        }
        let removed = cascade.erase.len() as u64;
        cascade.apply(&mut batch, writer.next_seq + added, now)?;
        for (name, value) in &state {
            batch.put_state(name, value.as_deref());
        }
        let memory_count = (writer.memory_count + added).saturating_sub(removed);
        batch.put_counters(memory_count, writer.next_seq + added + removed);
        if added > 0 && !writer.dimension_stored {
            batch.put_dimension(dimension);
        }
        self.store.commit(batch, self.config.sync_writes)?;
        writer.dimension_stored = writer.dimension_stored || added > 0;
        writer.memory_count = memory_count;
        writer.next_seq += added + removed;
        let forgotten = ForgetResult {
            forgotten_count: cascade.selected as u64,
            cascade_count: (cascade.erase.len() - cascade.selected + cascade.edges.len()) as u64,
            tombstone_count: removed,
            truncated: false,
        };
        if let Some(index) = &index {
            if added > 0 {
                self.index_committed(&writer, index, &prepared)?;
            }
            if removed > 0 {
                let gone: Vec<MemoryId> = erased.iter().copied().collect();
                self.text.delete(&gone, writer.next_seq)?;
                for id in &gone {
                    index.delete(id);
                }
                self.shared().maybe_rebuild(&mut writer, index);
            }
            self.publish_new(&prepared, now);
            self.checkpoint_if_due(&mut writer, index)?;
        }
        drop(writer);
        Ok(AtomicWriteOutput {
            memories: assemble_new(prepared, now),
            forgotten,
        })
    }
}
