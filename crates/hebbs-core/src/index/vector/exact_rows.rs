//! [`ExactRows`]: the exact `f32` vectors of a quantised (int8) index, one row per slot in a
//! file beside the store, so the final candidates of a search are re-scored by reading each row
//! at its offset (the slot is the offset: one `pread` from the page cache) instead of through
//! RocksDB's point lookups (an index search and a block checksum per vector; docs/scale.md has
//! the figures). The workspace forbids `unsafe`, so the file is read, not memory-mapped.
//!
//! The file is a cache of the `vectors` column family, which stays the source of truth. A row
//! is the memory's id (16 bytes), its vector (`dimension` little-endian `f32`) and a CRC-32 of
//! both, so a row that is missing (a hole or past the end reads as zeroes or short), torn,
//! corrupt or of another slot numbering (a rebuild renumbers slots; a crash can replay inserts
//! in another order) fails its check and is read from the store instead, then written back
//! (the re-score calls [`ExactRows::write`]): the file heals as it is used, and an upgraded
//! store needs no pass over it at open. The old and the new index of a rebuild share one
//! `ExactRows` (the engine hands the live one on).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::dot::dot;
use crate::error::{HebbsError, Result};
use crate::memory::MemoryId;

/// Bytes of the id at the start of a row.
const ID_BYTES: usize = 16;
/// Bytes of the CRC-32 at the end of a row.
const CRC_BYTES: usize = 4;

/// The exact vectors of an int8 index, by slot, in a file.
pub struct ExactRows {
    file: File,
    path: PathBuf,
    dimension: usize,
}

impl ExactRows {
    /// Opens (or creates) the rows file at `path` for vectors of `dimension`.
    pub fn open(path: &Path, dimension: usize) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|source| HebbsError::io(path, source))?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
            dimension,
        })
    }

    /// Bytes of one row: id, vector, CRC.
    fn row_bytes(&self) -> usize {
        ID_BYTES + self.dimension * 4 + CRC_BYTES
    }

    fn offset(&self, slot: usize) -> u64 {
        (slot as u64).saturating_mul(self.row_bytes() as u64)
    }

    /// Writes the row of `slot`: `id` and its normalised `vector`.
    pub fn write(&self, slot: usize, id: &MemoryId, vector: &[f32]) -> Result<()> {
        if vector.len() != self.dimension {
            return Err(HebbsError::invalid(
                "vector",
                format!("{} values for a {}-d index", vector.len(), self.dimension),
            ));
        }
        let mut row = Vec::with_capacity(self.row_bytes());
        row.extend_from_slice(id.as_bytes());
        row.extend_from_slice(bytemuck::cast_slice(vector));
        let crc = crc32fast::hash(&row);
        row.extend_from_slice(&crc.to_le_bytes());
        self.file
            .write_all_at(&row, self.offset(slot))
            .map_err(|source| HebbsError::io(&self.path, source))
    }

    /// `1 - cosine` of `query` to the row of `slot`, if the row holds `id`'s vector intact.
    /// `row` is the caller's buffer, reused across reads.
    pub fn distance(
        &self,
        slot: usize,
        id: &MemoryId,
        query: &[f32],
        row: &mut Vec<f32>,
    ) -> Option<f32> {
        // A row of f32 words, so the vector needs no copy to be aligned: the id is 4 words
        // and the CRC one.
        row.resize(self.row_bytes() / 4, 0.0);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(row.as_mut_slice());
        self.file.read_exact_at(bytes, self.offset(slot)).ok()?;
        let (body, crc) = bytes.split_at(bytes.len() - CRC_BYTES);
        if &body[..ID_BYTES] != id.as_bytes() || crc32fast::hash(body).to_le_bytes() != crc {
            return None;
        }
        let vector = &row[ID_BYTES / 4..ID_BYTES / 4 + self.dimension];
        Some((1.0 - dot(query, vector)).max(0.0))
    }

    /// Flushes written rows to disk (called with each checkpoint, so the rows of checkpointed
    /// slots survive a power loss; rows after it are rewritten by the changelog's replay).
    pub fn sync(&self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|source| HebbsError::io(&self.path, source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u32, dimension: usize) -> Vec<f32> {
        let mut vector: Vec<f32> = (0..dimension)
            .map(|i| ((seed as usize * 31 + i * 7) % 13) as f32 - 6.0)
            .collect();
        assert!(super::super::normalize(&mut vector));
        vector
    }

    #[test]
    fn a_written_row_scores_exactly_and_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exact.f32");
        let id = MemoryId::new();
        let vector = unit(1, 8);
        let far_slot = 100_000;
        {
            let rows = ExactRows::open(&path, 8).unwrap();
            rows.write(3, &id, &vector).unwrap();
            rows.write(far_slot, &id, &vector).unwrap();
            let mut row = Vec::new();
            assert!(rows.distance(3, &id, &vector, &mut row).unwrap().abs() < 1e-6);
            assert_eq!(rows.distance(4, &id, &vector, &mut row), None, "a hole");
            let other = MemoryId::new();
            assert_eq!(
                rows.distance(3, &other, &vector, &mut row),
                None,
                "another id"
            );
            assert_eq!(
                rows.distance(far_slot + 1, &id, &vector, &mut row),
                None,
                "past the end"
            );
            rows.sync().unwrap();
        }
        let rows = ExactRows::open(&path, 8).unwrap();
        let other = unit(2, 8);
        let expected = 1.0 - dot(&vector, &other);
        let found = rows
            .distance(far_slot, &id, &other, &mut Vec::new())
            .unwrap();
        assert!(
            (found - expected.max(0.0)).abs() < 1e-6,
            "{found} vs {expected}"
        );
    }

    #[test]
    fn a_corrupt_row_fails_its_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exact.f32");
        let id = MemoryId::new();
        let vector = unit(3, 8);
        let rows = ExactRows::open(&path, 8).unwrap();
        rows.write(0, &id, &vector).unwrap();
        rows.file.write_all_at(&[0x55], 20).unwrap();
        let mut row = Vec::new();
        assert_eq!(rows.distance(0, &id, &vector, &mut row), None);
        rows.write(0, &id, &vector).unwrap();
        assert!(
            rows.distance(0, &id, &vector, &mut row).is_some(),
            "a rewrite heals it"
        );
    }

    #[test]
    fn a_vector_of_another_dimension_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let rows = ExactRows::open(&dir.path().join("exact.f32"), 8).unwrap();
        let error = rows.write(0, &MemoryId::new(), &[1.0; 4]).unwrap_err();
        assert!(error.to_string().contains("vector"), "{error}");
    }
}
