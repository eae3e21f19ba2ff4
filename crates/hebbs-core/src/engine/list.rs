//! `list_memories`: a paged listing of the store, oldest first, for browsing and export.
//!
//! Without an entity it streams the `memories` column family in id order (UUIDv7 ids sort by the
//! time a memory was stored); with one it streams that entity's prefix of the `temporal` column
//! family (ordered by `created_at`, then id). Nothing is loaded whole: a page seeks to its cursor
//! and reads at most [`LIST_SCAN_MAX`] entries. A listing is not a recall: it leaves access
//! counts alone.
//!
//! The cursor is the id of the last memory a page examined. Without an entity any id is a
//! position (the listing resumes after it); with one the cursor must be a memory of that entity,
//! live or forgotten (its tombstone keeps its `created_at`), so a listing survives `forget`s
//! between pages. A page may hold fewer than `limit` memories, even none, while `next_cursor` is
//! set (the filters skipped [`LIST_SCAN_MAX`] entries); the listing is complete when
//! `next_cursor` is `None`.
//!
//! With a `key_prefix` it lists the memories whose caller key starts with it, still in id
//! order: each page reads the prefix's key entries (`store::memory_keys`), sorts their ids and
//! resumes after the cursor, so a prefix of up to about a hundred thousand keys pages cheaply.

use super::{now_us, Engine};
use crate::error::{HebbsError, Result};
use crate::filter::{select_records, Filter};
use crate::memory::checks::check_entity_id;
use crate::memory::{Memory, MemoryId, MemoryKind, RecordHeader, StoredMemory};
use crate::store::TemporalKey;

/// Memories one page of `list_memories` holds when the caller does not say.
pub const DEFAULT_LIST_PAGE: usize = 100;
/// Most memories one page of `list_memories` may hold.
pub const MAX_LIST_PAGE: usize = 1000;
/// Most entries one page examines (returned or skipped by the filters) before it ends early with
/// a cursor, so a rare `kind` never turns one call into a scan of the whole store.
pub const LIST_SCAN_MAX: usize = 10_000;

/// What `list_memories` returns one page of.
#[derive(Clone, Debug, PartialEq)]
pub struct ListRequest {
    /// Only this entity's memories (its timeline, by `created_at`); all memories (by id) if `None`.
    pub entity_id: Option<String>,
    /// Only memories of this kind.
    pub kind: Option<MemoryKind>,
    /// Resume after this memory: the previous page's `next_cursor`.
    pub cursor: Option<MemoryId>,
    /// Most memories on the page, 1..=[`MAX_LIST_PAGE`].
    pub limit: usize,
    /// Also list memories a revision superseded (skipped by default, as in recall).
    pub include_superseded: bool,
    /// Only memories this filter selects (see [`crate::filter`]); the others count as
    /// examined.
    pub filter: Option<Filter>,
    /// Only memories whose caller key starts with this (`""`: every keyed memory).
    pub key_prefix: Option<String>,
}

impl Default for ListRequest {
    fn default() -> Self {
        Self {
            entity_id: None,
            kind: None,
            cursor: None,
            limit: DEFAULT_LIST_PAGE,
            include_superseded: false,
            filter: None,
            key_prefix: None,
        }
    }
}

impl ListRequest {
    /// Checks the fields that need no store: `entity_id` and `limit`.
    pub fn validate(&self) -> Result<()> {
        if let Some(entity) = &self.entity_id {
            check_entity_id(entity, "entity_id")?;
        }
        if !(1..=MAX_LIST_PAGE).contains(&self.limit) {
            return Err(HebbsError::invalid(
                "limit",
                format!("{} is outside 1..={MAX_LIST_PAGE}", self.limit),
            ));
        }
        Ok(())
    }

    fn admits(&self, header: &RecordHeader) -> bool {
        (self.include_superseded || !header.superseded)
            && self.kind.is_none_or(|kind| kind == header.kind)
    }
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPage {
    /// The page's memories, in listing order, without embeddings.
    pub memories: Vec<Memory>,
    /// Pass as the next request's `cursor` to continue; `None` once the listing is complete.
    pub next_cursor: Option<MemoryId>,
}

impl Engine {
    /// One page of the store's memories, see [`ListRequest`] and the module documentation.
    pub fn list_memories(&self, request: &ListRequest) -> Result<MemoryPage> {
        self.check_open()?;
        request.validate()?;
        let (picked, next_cursor) = match (&request.key_prefix, &request.entity_id) {
            (Some(prefix), entity) => {
                let ids = self.keyed_ids_after(prefix, request.cursor)?;
                let entries = ids.into_iter().map(|id| {
                    let record = match self.store.record(&id)? {
                        Some(record)
                            if request.admits(&record.header())
                                && entity.as_deref().is_none_or(|entity| {
                                    record.entity_id.as_deref() == Some(entity)
                                }) =>
                        {
                            self.selected(request, &id, record)?
                        }
                        _ => None,
                    };
                    Ok((id, record))
                });
                fill_page(entries, request.limit)?
            }
            (None, None) => {
                let entries = self.store.records_after(request.cursor).map(|item| {
                    let (id, bytes) = item?;
                    let header = StoredMemory::peek_scoring_fields(&bytes)?;
                    let record = if request.admits(&header) {
                        self.selected(request, &id, StoredMemory::decode(&bytes)?)?
                    } else {
                        None
                    };
                    Ok((id, record))
                });
                fill_page(entries, request.limit)?
            }
            (None, Some(entity)) => {
                let after = match &request.cursor {
                    Some(id) => Some(self.temporal_position(entity, id)?),
                    None => None,
                };
                let entries = self
                    .store
                    .temporal_after(entity, after.as_ref())
                    .map(|item| {
                        let id = item?.id;
                        let record = match self.store.record(&id)? {
                            Some(record) if request.admits(&record.header()) => {
                                self.selected(request, &id, record)?
                            }
                            _ => None,
                        };
                        Ok((id, record))
                    });
                fill_page(entries, request.limit)?
            }
        };
        let ids: Vec<MemoryId> = picked.iter().map(|(id, _)| *id).collect();
        let stats = self.store.access_stats(&ids)?;
        let now = now_us();
        let memories = picked
            .into_iter()
            .zip(stats)
            .map(|((id, record), stats)| {
                Memory::assemble(id, record, stats.count, stats.last_access_us, None, now)
            })
            .collect();
        Ok(MemoryPage {
            memories,
            next_cursor,
        })
    }

    /// The ids of the memories whose key starts with `prefix`, in id order, after `cursor`.
    pub(super) fn keyed_ids_after(
        &self,
        prefix: &str,
        cursor: Option<MemoryId>,
    ) -> Result<Vec<MemoryId>> {
        let mut ids: Vec<MemoryId> = self
            .store
            .keys_with_prefix(prefix, usize::MAX)?
            .into_iter()
            .map(|(_, id)| id)
            .filter(|id| cursor.is_none_or(|cursor| *id > cursor))
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// `record` when the request's filter (if any) selects it.
    fn selected(
        &self,
        request: &ListRequest,
        id: &MemoryId,
        record: StoredMemory,
    ) -> Result<Option<StoredMemory>> {
        let Some(filter) = &request.filter else {
            return Ok(Some(record));
        };
        let selected = select_records(&self.store, filter, std::slice::from_ref(id), &[&record])?;
        Ok(selected[0].then_some(record))
    }

    /// Where cursor `id` sits in `entity`'s timeline: from its record, or from its tombstone if
    /// it was forgotten since the previous page.
    fn temporal_position(&self, entity: &str, id: &MemoryId) -> Result<TemporalKey> {
        let (owner, created_at) = match self.store.record(id)? {
            Some(record) => (record.entity_id, record.created_at),
            None => match self.store.tombstone(id)? {
                Some(tombstone) => (tombstone.entity_id, tombstone.created_at),
                None => {
                    return Err(HebbsError::invalid(
                        "cursor",
                        format!("no memory with id {id}"),
                    ))
                }
            },
        };
        if owner.as_deref() != Some(entity) {
            return Err(HebbsError::invalid(
                "cursor",
                format!("memory {id} is not in entity {entity:?}'s listing"),
            ));
        }
        Ok(TemporalKey {
            entity: entity.to_owned(),
            created_at,
            id: *id,
        })
    }
}

/// The records a page takes, with their ids, in listing order.
type Picked = Vec<(MemoryId, StoredMemory)>;

/// Takes up to `limit` admitted records from `entries` (each examined id with its record if the
/// filters admit it), and the cursor to continue from: the last memory taken when another
/// admitted one follows, the last id examined when [`LIST_SCAN_MAX`] ran out, `None` at the end.
fn fill_page(
    entries: impl Iterator<Item = Result<(MemoryId, Option<StoredMemory>)>>,
    limit: usize,
) -> Result<(Picked, Option<MemoryId>)> {
    let mut picked: Picked = Vec::with_capacity(limit.min(64));
    for (examined, entry) in entries.enumerate() {
        let (id, record) = entry?;
        if let Some(record) = record {
            if picked.len() == limit {
                let last = picked.last().map(|(id, _)| *id);
                return Ok((picked, last));
            }
            picked.push((id, record));
        }
        if examined + 1 == LIST_SCAN_MAX {
            return Ok((picked, Some(id)));
        }
    }
    Ok((picked, None))
}
