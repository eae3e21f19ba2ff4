//! [`Links`]: the neighbour lists of the HNSW graph, readable while inserts rewrite them.
//!
//! Every list is a fixed-size row of atomics: a length, then up to the layer's maximum of slot
//! numbers. Layer 0 (every node, `2M` links) is stored in chunks of [`CHUNK`] rows, the layout of
//! hnswlib's level-0 block; the upper layers (about one node in `M`) in a map by slot. A writer
//! rewrites a list under the stripe lock of its node ([`Links::lock`]), entries first and the
//! length last; a concurrent reader may see a mix of the old and the new list, every entry of
//! which is a node of the graph, which is all a best-first search needs (hnswlib's searches make
//! the same trade). Nothing here is `unsafe`: relaxed atomic loads of `u32` compile to plain
//! loads.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard, RwLock};

/// Layer-0 rows per chunk: 528 KiB of lists at `M` 16, allocated (and zeroed) whole, so a
/// small store's first chunk stays small.
const CHUNK: usize = 1 << 12;

/// Stripe locks for list writers (a node's lock is `slot % STRIPES`).
const STRIPES: usize = 1024;
/// The bit of a layer-0 length word that marks its node completely linked.
const COMPLETE: u32 = 1 << 31;

/// One chunk of layer-0 rows.
type Row0Chunk = Arc<[AtomicU32]>;

/// A reader's view of the layer-0 chunks (the upper layers are looked up per node).
#[derive(Clone)]
pub struct LinkView {
    row0: usize,
    chunks: Arc<Vec<Row0Chunk>>,
}

impl LinkView {
    /// Copies the layer-0 neighbours of `slot` into `out` (cleared first); empty if `slot` is
    /// not in the view.
    #[inline]
    pub fn layer0(&self, slot: u32, out: &mut Vec<u32>) {
        out.clear();
        let slot = slot as usize;
        if let Some(chunk) = self.chunks.get(slot / CHUNK) {
            let start = (slot % CHUNK) * self.row0;
            let row = &chunk[start..start + self.row0];
            let len = ((row[0].load(Ordering::Acquire) & !COMPLETE) as usize).min(self.row0 - 1);
            out.extend(row[1..=len].iter().map(|link| link.load(Ordering::Relaxed)));
        }
    }

    /// Asks the CPU to start loading the layer-0 row of `slot` (the next candidate's list,
    /// as hnswlib prefetches it).
    #[inline]
    pub fn prefetch(&self, slot: u32) {
        let slot = slot as usize;
        if let Some(chunk) = self.chunks.get(slot / CHUNK) {
            prefetch_index::prefetch_index::<AtomicU32>(&chunk[..], (slot % CHUNK) * self.row0);
        }
    }

    /// Whether `slot` is in the view and completely linked (on every layer it reaches).
    #[inline]
    pub fn is_complete(&self, slot: u32) -> bool {
        let slot = slot as usize;
        self.chunks.get(slot / CHUNK).is_some_and(|chunk| {
            chunk[(slot % CHUNK) * self.row0].load(Ordering::Acquire) & COMPLETE != 0
        })
    }
}

/// The neighbour lists of every node.
pub struct Links {
    /// Row length on layer 0: the length word and `2M` links.
    row0: usize,
    /// Row length on the upper layers: the length word and `M` links.
    row: usize,
    chunks: RwLock<Arc<Vec<Row0Chunk>>>,
    /// Rows of layers `1..=level` of the nodes above layer 0, one after the other.
    upper: RwLock<HashMap<u32, Arc<[AtomicU32]>>>,
    stripes: Box<[Mutex<()>]>,
}

impl Links {
    /// No lists, for `m` links per upper-layer node and `2m` on layer 0.
    pub fn new(m: usize) -> Self {
        Self {
            row0: 1 + 2 * m,
            row: 1 + m,
            chunks: RwLock::default(),
            upper: RwLock::default(),
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }

    /// Most links of a node on `level`.
    pub fn capacity(&self, level: u8) -> usize {
        if level == 0 {
            self.row0 - 1
        } else {
            self.row - 1
        }
    }

    /// A view of layer 0 for reading.
    pub fn view(&self) -> LinkView {
        LinkView {
            row0: self.row0,
            chunks: Arc::clone(&self.chunks.read()),
        }
    }

    /// Makes room for the lists of `slot`, which reaches up to `level`, all empty.
    pub fn add_node(&self, slot: u32, level: u8) {
        let chunk = slot as usize / CHUNK;
        if self.chunks.read().len() <= chunk {
            let mut chunks = self.chunks.write();
            if chunks.len() <= chunk {
                let mut grown: Vec<Row0Chunk> = chunks.iter().cloned().collect();
                while grown.len() <= chunk {
                    grown.push((0..CHUNK * self.row0).map(|_| AtomicU32::new(0)).collect());
                }
                *chunks = Arc::new(grown);
            }
        }
        if level > 0 {
            let rows = (0..usize::from(level) * self.row)
                .map(|_| AtomicU32::new(0))
                .collect();
            self.upper.write().insert(slot, rows);
        }
    }

    /// The lock a writer of `slot`'s lists holds.
    pub fn lock(&self, slot: u32) -> MutexGuard<'_, ()> {
        self.stripes[slot as usize % STRIPES].lock()
    }

    /// Copies the neighbours of `slot` on `level` into `out` (cleared first).
    pub fn get(&self, view: &LinkView, slot: u32, level: u8, out: &mut Vec<u32>) {
        if level == 0 {
            view.layer0(slot, out);
            return;
        }
        out.clear();
        let upper = self.upper.read();
        if let Some(rows) = upper.get(&slot) {
            let start = (usize::from(level) - 1) * self.row;
            if let Some(row) = rows.get(start..start + self.row) {
                let len = ((row[0].load(Ordering::Acquire) & !COMPLETE) as usize).min(self.row - 1);
                out.extend(row[1..=len].iter().map(|link| link.load(Ordering::Relaxed)));
            }
        }
    }

    /// Replaces the neighbours of `slot` on `level` with `links` (at most the layer's capacity
    /// are kept). The caller holds [`Links::lock`] of `slot`.
    pub fn set(&self, slot: u32, level: u8, links: &[u32]) {
        let write = |row: &[AtomicU32]| {
            let len = links.len().min(row.len() - 1);
            for (target, link) in row[1..=len].iter().zip(links) {
                target.store(*link, Ordering::Relaxed);
            }
            let flag = row[0].load(Ordering::Relaxed) & COMPLETE;
            row[0].store(len as u32 | flag, Ordering::Release);
        };
        if level == 0 {
            let chunks = Arc::clone(&self.chunks.read());
            let slot = slot as usize;
            if let Some(chunk) = chunks.get(slot / CHUNK) {
                let start = (slot % CHUNK) * self.row0;
                write(&chunk[start..start + self.row0]);
            }
        } else if let Some(rows) = self.upper.read().get(&slot) {
            let start = (usize::from(level) - 1) * self.row;
            if let Some(row) = rows.get(start..start + self.row) {
                write(row);
            }
        }
    }

    /// Marks `slot` completely linked. The caller holds [`Links::lock`] of `slot`.
    pub fn mark_complete(&self, slot: u32) {
        let chunks = Arc::clone(&self.chunks.read());
        let slot = slot as usize;
        if let Some(chunk) = chunks.get(slot / CHUNK) {
            chunk[(slot % CHUNK) * self.row0].fetch_or(COMPLETE, Ordering::Release);
        }
    }

    /// The level of `slot`: how many upper-layer rows it has.
    pub fn level(&self, slot: u32) -> u8 {
        self.upper.read().get(&slot).map_or(0, |rows| {
            u8::try_from(rows.len() / self.row).expect("at most 255 layers")
        })
    }
}

impl Links {
    /// Writes the lists of slots `0..slots` for the checkpoint, as little-endian `u32`s: each
    /// node's level (one byte a slot), the layer-0 rows, then the upper rows of the nodes above
    /// layer 0 in slot order. Streams chunk by chunk: no copy of the whole lists.
    pub fn write_to(&self, slots: usize, out: &mut impl Write) -> io::Result<()> {
        let chunks = Arc::clone(&self.chunks.read());
        let upper = self.upper.read();
        let levels: Vec<u8> = (0..slots)
            .map(|slot| {
                upper
                    .get(&super::vectors::slot_u32(slot))
                    .map_or(0, |rows| {
                        u8::try_from(rows.len() / self.row).expect("at most 255 layers")
                    })
            })
            .collect();
        out.write_all(&levels)?;
        let mut buffer: Vec<u32> = Vec::with_capacity(CHUNK * self.row0);
        for first in (0..slots).step_by(CHUNK) {
            let numbers = (slots - first).min(CHUNK) * self.row0;
            buffer.clear();
            match chunks.get(first / CHUNK) {
                Some(chunk) => buffer.extend(
                    chunk[..numbers]
                        .iter()
                        .map(|link| link.load(Ordering::Acquire)),
                ),
                None => buffer.resize(numbers, 0),
            }
            out.write_all(bytemuck::cast_slice(&buffer))?;
        }
        for (slot, &level) in levels.iter().enumerate() {
            if level > 0 {
                let rows = &upper[&super::vectors::slot_u32(slot)];
                buffer.clear();
                buffer.extend(rows.iter().map(|link| link.load(Ordering::Acquire)));
                out.write_all(bytemuck::cast_slice(&buffer))?;
            }
        }
        Ok(())
    }

    /// Reads the lists of `slots` nodes with `m` links written by [`Links::write_to`] from
    /// `source`, straight into their chunks. An `InvalidData` error if they do not fit
    /// together (a length past a row's capacity, a link to a slot that does not exist).
    pub fn read_from(m: usize, slots: usize, source: &mut impl Read) -> io::Result<Self> {
        let links = Self::new(m);
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
        let valid = |rows: &[u32], row: usize| {
            rows.chunks_exact(row).all(|list| {
                let len = (list[0] & !COMPLETE) as usize;
                len < row && list[1..=len].iter().all(|&link| (link as usize) < slots)
            })
        };
        let mut levels = vec![0u8; slots];
        source.read_exact(&mut levels)?;
        let mut buffer = vec![0u32; CHUNK * links.row0];
        let mut chunks: Vec<Row0Chunk> = Vec::with_capacity(slots.div_ceil(CHUNK));
        for first in (0..slots).step_by(CHUNK) {
            let rows = &mut buffer[..(slots - first).min(CHUNK) * links.row0];
            source.read_exact(bytemuck::cast_slice_mut(rows))?;
            if !valid(rows, links.row0) {
                return Err(invalid("a layer-0 list does not fit the graph"));
            }
            chunks.push(
                rows.iter()
                    .copied()
                    .chain(std::iter::repeat(0))
                    .take(CHUNK * links.row0)
                    .map(AtomicU32::new)
                    .collect(),
            );
        }
        *links.chunks.write() = Arc::new(chunks);
        let mut upper = links.upper.write();
        for (slot, &level) in levels.iter().enumerate() {
            if level > 0 {
                let rows = &mut buffer[..usize::from(level) * links.row];
                source.read_exact(bytemuck::cast_slice_mut(rows))?;
                if !valid(rows, links.row) {
                    return Err(invalid("an upper-layer list does not fit the graph"));
                }
                let rows = rows.iter().copied().map(AtomicU32::new).collect();
                upper.insert(super::vectors::slot_u32(slot), rows);
            }
        }
        drop(upper);
        Ok(links)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_back_what_was_set_capped_at_capacity() {
        let links = Links::new(4);
        links.add_node(0, 0);
        links.add_node(CHUNK as u32 + 2, 2);
        let view = links.view();
        let mut out = Vec::new();
        links.set(0, 0, &[5, 6, 7]);
        links.get(&links.view(), 0, 0, &mut out);
        assert_eq!(out, [5, 6, 7]);
        let far = CHUNK as u32 + 2;
        links.set(far, 2, &[1, 2, 3, 4, 5, 6]);
        links.get(&view, far, 2, &mut out);
        assert_eq!(out, [1, 2, 3, 4]);
        links.get(&view, far, 1, &mut out);
        assert!(out.is_empty());
        assert_eq!((links.level(far), links.level(0)), (2, 0));
        links.set(far, 0, &(0..20).collect::<Vec<_>>());
        links.get(&links.view(), far, 0, &mut out);
        assert_eq!(out, (0..8).collect::<Vec<_>>());
        links.get(&view, far, 0, &mut out);
        assert_eq!(
            out,
            (0..8).collect::<Vec<_>>(),
            "a view holds chunks, not copies"
        );
    }

    #[test]
    fn written_lists_read_back_and_bad_ones_are_refused() {
        let links = Links::new(2);
        let slots = CHUNK as u32 + 5;
        for slot in 0..slots {
            links.add_node(slot, u8::from(slot == 3) * 2);
            links.set(slot, 0, &[(slot + 1) % slots]);
        }
        links.set(3, 2, &[0, 1]);
        links.mark_complete(4);
        let mut bytes = Vec::new();
        links.write_to(slots as usize, &mut bytes).expect("written");
        let back = Links::read_from(2, slots as usize, &mut bytes.as_slice()).expect("valid lists");
        let mut out = Vec::new();
        back.get(&back.view(), 3, 2, &mut out);
        assert_eq!(out, [0, 1]);
        assert_eq!((back.level(3), back.level(4)), (2, 0));
        back.get(&back.view(), CHUNK as u32 + 4, 0, &mut out);
        assert_eq!(out, [0]);
        assert!(back.view().is_complete(4) && !back.view().is_complete(5));
        let mut again = Vec::new();
        back.write_to(slots as usize, &mut again).expect("written");
        assert_eq!(again, bytes, "a round trip writes the same bytes");

        let row0 = |slot: usize| slots as usize + slot * 5 * 4;
        let mut bad = bytes.clone();
        bad[row0(1) + 4..row0(1) + 8].copy_from_slice(&slots.to_le_bytes());
        assert!(
            Links::read_from(2, slots as usize, &mut bad.as_slice()).is_err(),
            "a link to a missing slot"
        );
        let mut bad = bytes.clone();
        bad[row0(1)] = 7;
        assert!(
            Links::read_from(2, slots as usize, &mut bad.as_slice()).is_err(),
            "a length past the capacity"
        );
        assert!(
            Links::read_from(2, slots as usize, &mut &bytes[..bytes.len() - 1]).is_err(),
            "too few numbers"
        );
    }

    #[test]
    fn a_slot_beyond_the_view_has_no_links() {
        let links = Links::new(2);
        let view = links.view();
        links.add_node(3, 0);
        links.set(3, 0, &[1]);
        let mut out = vec![9];
        view.layer0(3, &mut out);
        assert!(out.is_empty());
    }
}
