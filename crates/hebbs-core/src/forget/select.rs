//! Selecting the memories a forget erases, at most `limit` of them, streaming: by ids or caller
//! keys (each read once), by entity (a scan of the entity's `temporal` range, oldest first, bounded by
//! `older_than`), by a selective filter (the memories its plan finds, `filter/plan.rs`), by
//! criteria alone (a scan of the `memories` headers in creation order), or by decay score. A
//! filter is checked on every record selected. Memory use is bounded by `limit`; the scan stops at the first match past it,
//! which sets `truncated`.

use std::collections::HashSet;

use super::request::ForgetRequest;
use crate::error::Result;
use crate::filter::{select_records, FilterPlan};
use crate::memory::{MemoryId, RecordHeader, StoredMemory};
use crate::recall::decay_score;
use crate::store::{AccessStats, Store};

/// Candidates read per multi-get while scanning.
const SCAN_CHUNK: usize = 1024;

/// The memories to erase and whether more matched.
#[derive(Debug, Default)]
pub(crate) struct Selection {
    /// The selected memories with their records, in selection order.
    pub targets: Vec<(MemoryId, StoredMemory)>,
    /// Whether at least one more memory matched beyond the limit.
    pub truncated: bool,
}

impl Selection {
    /// Adds `target` unless the limit is reached; returns false (and marks the selection
    /// truncated) when it is.
    fn offer(&mut self, limit: usize, target: (MemoryId, StoredMemory)) -> bool {
        if self.targets.len() == limit {
            self.truncated = true;
            return false;
        }
        self.targets.push(target);
        true
    }
}

/// The memories a validated `request` selects.
pub(crate) fn select(store: &Store, request: &ForgetRequest) -> Result<Selection> {
    let keyed = match &request.keys {
        Some(keys) => Some(store.keyed_versions(keys)?),
        None => None,
    };
    let listed = match (&request.ids, keyed) {
        (Some(ids), Some(keyed)) => Some(
            ids.iter()
                .copied()
                .filter(|id| keyed.contains(id))
                .collect(),
        ),
        (Some(ids), None) => Some(ids.clone()),
        (None, keyed) => keyed,
    };
    if let Some(ids) = listed {
        let mut seen = HashSet::with_capacity(ids.len());
        let unique: Vec<MemoryId> = ids.into_iter().filter(|id| seen.insert(*id)).collect();
        return select_from(store, request, &unique);
    }
    if let Some(entity) = &request.entity_id {
        let end = match request.older_than_us {
            Some(0) => return Ok(Selection::default()),
            Some(before) => before - 1,
            None => u64::MAX,
        };
        let mut selection = Selection::default();
        let mut chunk = Vec::with_capacity(SCAN_CHUNK);
        for key in store.temporal_oldest_first(entity, 0, end) {
            chunk.push(key?.id);
            if chunk.len() == SCAN_CHUNK {
                if !extend(store, request, &chunk, &mut selection)? {
                    return Ok(selection);
                }
                chunk.clear();
            }
        }
        extend(store, request, &chunk, &mut selection)?;
        return Ok(selection);
    }
    if let Some(filter) = &request.filter {
        if let Some(members) = FilterPlan::new(store, filter)?.candidates {
            return select_from(store, request, &members.sorted());
        }
    }
    scan(store, request, false, |header, _| {
        request.matches(None, header.kind, header.importance, header.created_at)
    })
}

/// Memories whose decay score at `now_us` is below `floor`, at most `limit`.
pub(crate) fn select_decayed(
    store: &Store,
    floor: f32,
    limit: usize,
    now_us: u64,
) -> Result<Selection> {
    let request = ForgetRequest {
        limit,
        ..ForgetRequest::default()
    };
    scan(store, &request, true, |header, access| {
        let last_active = access.last_access_us.max(header.created_at);
        decay_score(header.importance, last_active, access.count, now_us) < floor
    })
}

/// Reads the records of `ids` and offers those matching `request`; false once the limit is hit.
fn extend(
    store: &Store,
    request: &ForgetRequest,
    ids: &[MemoryId],
    selection: &mut Selection,
) -> Result<bool> {
    let found: Vec<(MemoryId, StoredMemory)> = ids
        .iter()
        .zip(store.records(ids)?)
        .filter_map(|(id, record)| Some((*id, record?)))
        .filter(|(_, record)| {
            request.matches(
                record.entity_id.as_deref(),
                record.kind,
                record.importance,
                record.created_at,
            )
        })
        .collect();
    offer_selected(store, request, found, selection)
}

/// Offers each of `found` that the request's filter (if any) selects; false once the
/// selection is full.
fn offer_selected(
    store: &Store,
    request: &ForgetRequest,
    found: Vec<(MemoryId, StoredMemory)>,
    selection: &mut Selection,
) -> Result<bool> {
    let selected = match &request.filter {
        Some(filter) => {
            let ids: Vec<MemoryId> = found.iter().map(|(id, _)| *id).collect();
            let records: Vec<&StoredMemory> = found.iter().map(|(_, record)| record).collect();
            select_records(store, filter, &ids, &records)?
        }
        None => vec![true; found.len()],
    };
    for (target, selected) in found.into_iter().zip(selected) {
        if selected && !selection.offer(request.limit, target) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn select_from(store: &Store, request: &ForgetRequest, ids: &[MemoryId]) -> Result<Selection> {
    let mut selection = Selection::default();
    for chunk in ids.chunks(SCAN_CHUNK) {
        if !extend(store, request, chunk, &mut selection)? {
            break;
        }
    }
    Ok(selection)
}

/// Streams every memory header in creation order, keeping those `keep` accepts (with their
/// access statistics when `with_access`), and reads the full records of the kept ones.
fn scan(
    store: &Store,
    request: &ForgetRequest,
    with_access: bool,
    keep: impl Fn(&RecordHeader, &AccessStats) -> bool,
) -> Result<Selection> {
    let mut selection = Selection::default();
    let mut chunk: Vec<(MemoryId, RecordHeader)> = Vec::with_capacity(SCAN_CHUNK);
    let mut headers = store.scan_headers();
    loop {
        chunk.clear();
        for item in headers.by_ref().take(SCAN_CHUNK) {
            chunk.push(item?);
        }
        if chunk.is_empty() {
            return Ok(selection);
        }
        let ids: Vec<MemoryId> = chunk.iter().map(|(id, _)| *id).collect();
        let access = if with_access {
            store.access_stats(&ids)?
        } else {
            vec![AccessStats::default(); ids.len()]
        };
        let kept: Vec<MemoryId> = chunk
            .iter()
            .zip(&access)
            .filter(|((_, header), stats)| keep(header, stats))
            .map(|((id, _), _)| *id)
            .collect();
        let found = kept
            .iter()
            .zip(store.records(&kept)?)
            .filter_map(|(id, record)| Some((*id, record?)))
            .collect();
        if !offer_selected(store, request, found, &mut selection)? {
            return Ok(selection);
        }
    }
}
