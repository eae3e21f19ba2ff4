//! Bringing the derived indexes in line with the store on open: load the vector index checkpoint
//! (and the full-text index's last commit), then replay the changelog after it. Without a usable
//! checkpoint an index is rebuilt from the store. Replay is idempotent (ids already indexed are
//! skipped or replaced), so a crash at any point ends with indexes equal to the store. The
//! background vector index rebuild uses the same two steps (stream the vectors, then replay the
//! changelog from where it started).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{HebbsError, Result};
use crate::index::text::TextIndex;
use crate::index::vector::{ExactRows, HnswParams, VectorFormat, VectorIndex};
use crate::memory::MemoryId;
use crate::store::{ChangeOp, Store};

/// Vectors inserted per parallel batch while replaying or rebuilding.
const REPLAY_BATCH: usize = 4096;
/// The file of an int8 index's exact vectors (see `ExactRows`), in the engine's directory.
const EXACT_ROWS_FILE: &str = "exact-vectors.bin";

/// The exact rows an index of `format` for `dimension` writes and re-scores with: the file in
/// the engine directory `dir` for int8; `None` for f32, whose index holds the exact vectors
/// itself (a file left from an int8 past is then removed).
pub(super) fn exact_rows(
    dir: &Path,
    dimension: usize,
    format: VectorFormat,
) -> Result<Option<Arc<ExactRows>>> {
    let path = dir.join(EXACT_ROWS_FILE);
    match format {
        VectorFormat::Int8 => Ok(Some(Arc::new(ExactRows::open(&path, dimension)?))),
        VectorFormat::F32 => match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(HebbsError::io(&path, error))
            }
            _ => Ok(None),
        },
    }
}

/// How the index was brought up to date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Whether a checkpoint was loaded.
    pub from_checkpoint: bool,
    /// Vectors inserted from the changelog or the full rebuild.
    pub inserted: usize,
    /// Tombstones applied from the changelog.
    pub deleted: usize,
    /// Documents the full-text index added or removed (replay or rebuild).
    pub text_replayed: usize,
}

/// Opens the index for `dimension` in `format` from the checkpoint in `dir` plus the changelog
/// of `store` (a checkpoint of another format is rebuilt in `format`), writing exact `rows`.
pub fn open_index(
    store: &Store,
    dir: &Path,
    params: HnswParams,
    dimension: usize,
    format: VectorFormat,
    rows: Option<Arc<ExactRows>>,
) -> Result<(VectorIndex, Recovery)> {
    let loaded = VectorIndex::load(dir, params, Some(format))
        .ok()
        .flatten()
        .filter(|(index, _)| index.dimension() == dimension);
    let mut recovery = Recovery::default();
    let (index, from_seq) = match loaded {
        Some((index, covered)) => {
            recovery.from_checkpoint = true;
            (index.with_exact_rows(rows), covered)
        }
        None => {
            let index = VectorIndex::new(params, dimension, format).with_exact_rows(rows);
            recovery.inserted += rebuild(store, &index, &AtomicBool::new(false))?;
            (index, 0)
        }
    };
    replay(store, &index, from_seq, &mut recovery)?;
    Ok((index, recovery))
}

/// Applies the changelog from `from_seq` on to `index`; returns the sequence after the last
/// entry applied (`from_seq` if there was none). Idempotent: inserts of indexed ids and of
/// memories since forgotten are skipped.
pub(super) fn replay(
    store: &Store,
    index: &VectorIndex,
    from_seq: u64,
    recovery: &mut Recovery,
) -> Result<u64> {
    let mut next = from_seq;
    let mut pending: Vec<MemoryId> = Vec::new();
    for entry in store.changelog_from(from_seq) {
        let entry = entry?;
        next = entry.seq + 1;
        match entry.op {
            ChangeOp::Insert if !index.contains(&entry.id) => {
                pending.push(entry.id);
                if pending.len() == REPLAY_BATCH {
                    recovery.inserted += insert_ids(store, index, &pending)?;
                    pending.clear();
                }
            }
            ChangeOp::Insert => {}
            ChangeOp::Delete => {
                recovery.inserted += insert_ids(store, index, &pending)?;
                pending.clear();
                if index.delete(&entry.id) {
                    recovery.deleted += 1;
                }
            }
        }
    }
    recovery.inserted += insert_ids(store, index, &pending)?;
    Ok(next)
}

/// Inserts every stored vector (full rebuild), streaming the `vectors` column family; stops
/// early (with what it inserted) once `cancelled` is set.
pub(super) fn rebuild(store: &Store, index: &VectorIndex, cancelled: &AtomicBool) -> Result<usize> {
    let mut inserted = 0;
    let mut batch: Vec<(MemoryId, Vec<f32>)> = Vec::with_capacity(REPLAY_BATCH);
    for item in store.scan_vectors() {
        if cancelled.load(Ordering::Acquire) {
            return Ok(inserted);
        }
        batch.push(item?);
        if batch.len() == REPLAY_BATCH {
            inserted += insert_vectors(store, index, &batch)?;
            batch.clear();
        }
    }
    inserted += insert_vectors(store, index, &batch)?;
    Ok(inserted)
}

fn insert_ids(store: &Store, index: &VectorIndex, ids: &[MemoryId]) -> Result<usize> {
    let vectors = store.vectors(ids)?;
    let found: Vec<(MemoryId, Vec<f32>)> = ids
        .iter()
        .zip(vectors)
        .filter_map(|(id, vector)| vector.map(|vector| (*id, vector)))
        .collect();
    insert_vectors(store, index, &found)
}

fn insert_vectors(
    store: &Store,
    index: &VectorIndex,
    batch: &[(MemoryId, Vec<f32>)],
) -> Result<usize> {
    if batch.is_empty() {
        return Ok(0);
    }
    let ids: Vec<MemoryId> = batch.iter().map(|(id, _)| *id).collect();
    let records = store.records(&ids)?;
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = batch
        .iter()
        .zip(&records)
        .filter_map(|((id, vector), record)| {
            record
                .as_ref()
                .map(|record| (*id, record.entity_id.as_deref(), vector.as_slice()))
        })
        .collect();
    index.insert_many(&items);
    Ok(items.len())
}

/// Opens the full-text index in `dir` and replays the changelog after its last commit, or
/// rebuilds it from the `memories` column family when it was never committed. Returns the index
/// and how many documents were added or removed.
pub fn open_text_index(store: &Store, dir: &Path) -> Result<(std::sync::Arc<TextIndex>, usize)> {
    let (text, covered) = TextIndex::open(dir)?;
    let next_seq = store.next_seq()?;
    let mut changed = 0;
    match covered {
        None => {
            text.clear()?;
            let mut batch = Vec::with_capacity(REPLAY_BATCH);
            for item in store.scan_records() {
                batch.push(item?);
                if batch.len() == REPLAY_BATCH {
                    changed += add_records(&text, &batch, next_seq)?;
                    batch.clear();
                }
            }
            changed += add_records(&text, &batch, next_seq)?;
        }
        Some(from_seq) => {
            for entry in store.changelog_from(from_seq) {
                let entry = entry?;
                match entry.op {
                    ChangeOp::Insert => {
                        if let Some(record) = store.record(&entry.id)? {
                            changed += add_records(&text, &[(entry.id, record)], entry.seq + 1)?;
                        }
                    }
                    ChangeOp::Delete => {
                        text.delete(&[entry.id], entry.seq + 1)?;
                        changed += 1;
                    }
                }
            }
        }
    }
    if changed > 0 || covered.is_none() {
        text.add(std::iter::empty(), next_seq)?;
        text.commit()?;
    }
    Ok((text, changed))
}

fn add_records(
    text: &TextIndex,
    records: &[(MemoryId, crate::memory::StoredMemory)],
    applied_seq: u64,
) -> Result<usize> {
    text.add(
        records
            .iter()
            .map(|(id, record)| (*id, record.entity_id.as_deref(), record.content.as_str())),
        applied_seq,
    )?;
    Ok(records.len())
}
