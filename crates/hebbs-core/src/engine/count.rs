//! `count_memories`: how many memories a listing with the same selection would return, all
//! pages together, without building them.
//!
//! It reads what a listing reads (the `memories` column family in id order, the entity's
//! prefix of `temporal`, or a key prefix's entries) to the end: a selection by kind or supersession only peeks at each
//! record's header; a filter is evaluated a batch of [`COUNT_BATCH`] records at a time, as the
//! filtered listing and recall evaluate it.

use super::Engine;
use crate::error::Result;
use crate::filter::{select_records, Filter};
use crate::memory::checks::check_entity_id;
use crate::memory::{MemoryId, MemoryKind, RecordHeader, StoredMemory};

/// Records whose filter is evaluated together.
pub const COUNT_BATCH: usize = 1024;

/// What `count_memories` counts: the memories `list_memories` would return with the same
/// fields, over every page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CountRequest {
    /// Only this entity's memories; all memories if `None`.
    pub entity_id: Option<String>,
    /// Only memories of this kind.
    pub kind: Option<MemoryKind>,
    /// Also count memories a revision superseded (left out by default, as in recall).
    pub include_superseded: bool,
    /// Only memories this filter selects (see [`crate::filter`]).
    pub filter: Option<Filter>,
    /// Only memories whose caller key starts with this.
    pub key_prefix: Option<String>,
}

impl CountRequest {
    fn admits(&self, header: &RecordHeader) -> bool {
        (self.include_superseded || !header.superseded)
            && self.kind.is_none_or(|kind| kind == header.kind)
    }
}

impl Engine {
    /// How many memories `request` selects, see [`CountRequest`].
    pub fn count_memories(&self, request: &CountRequest) -> Result<u64> {
        self.check_open()?;
        if let Some(entity) = &request.entity_id {
            check_entity_id(entity, "entity_id")?;
        }
        let mut counter = Counter::new(self, request.filter.as_ref());
        match (&request.key_prefix, &request.entity_id) {
            (Some(prefix), entity) => {
                for id in self.keyed_ids_after(prefix, None)? {
                    if let Some(record) = self.store.record(&id)? {
                        let in_entity = entity
                            .as_deref()
                            .is_none_or(|entity| record.entity_id.as_deref() == Some(entity));
                        if in_entity && request.admits(&record.header()) {
                            counter.add(id, || Ok(record))?;
                        }
                    }
                }
            }
            (None, None) => {
                for item in self.store.records_after(None) {
                    let (id, bytes) = item?;
                    if request.admits(&StoredMemory::peek_scoring_fields(&bytes)?) {
                        counter.add(id, || StoredMemory::decode(&bytes))?;
                    }
                }
            }
            (None, Some(entity)) => {
                for item in self.store.temporal_after(entity, None) {
                    let id = item?.id;
                    if let Some(record) = self.store.record(&id)? {
                        if request.admits(&record.header()) {
                            counter.add(id, || Ok(record))?;
                        }
                    }
                }
            }
        }
        counter.finish()
    }
}

/// Counts the admitted records, through the filter when there is one.
struct Counter<'a> {
    engine: &'a Engine,
    filter: Option<&'a Filter>,
    batch: Vec<(MemoryId, StoredMemory)>,
    count: u64,
}

impl<'a> Counter<'a> {
    fn new(engine: &'a Engine, filter: Option<&'a Filter>) -> Self {
        Self {
            engine,
            filter,
            batch: Vec::new(),
            count: 0,
        }
    }

    /// Counts memory `id`; `record` is read only when a filter must see it.
    fn add(&mut self, id: MemoryId, record: impl FnOnce() -> Result<StoredMemory>) -> Result<()> {
        if self.filter.is_none() {
            self.count += 1;
            return Ok(());
        }
        self.batch.push((id, record()?));
        if self.batch.len() == COUNT_BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let Some(filter) = self.filter else {
            return Ok(());
        };
        let ids: Vec<MemoryId> = self.batch.iter().map(|(id, _)| *id).collect();
        let records: Vec<&StoredMemory> = self.batch.iter().map(|(_, record)| record).collect();
        let selected = select_records(&self.engine.store, filter, &ids, &records)?;
        self.count += selected.iter().filter(|picked| **picked).count() as u64;
        self.batch.clear();
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        self.flush()?;
        Ok(self.count)
    }
}
