//! [`VectorStore`]: the one copy of every indexed vector, by slot, readable while others are
//! appended, without `unsafe` and without a lock on the read path.
//!
//! Vectors live in chunks of [`CHUNK`] slots. A full chunk is *sealed*: its vectors are copied
//! once into one contiguous, immutable buffer (on huge pages where the kernel gives them, see
//! [`PageBuffer`]), so a graph search reads a vector with one indexed load and no pointer chase,
//! as in hnswlib's flat layout. The chunk being filled is *open*: one write-once cell per slot.
//! Appends are serialised (they are a copy); a reader takes a [`VectorView`] (two `Arc` clones)
//! and reads from it without locks. A slot appended after the view was taken is not in it
//! (`None`), which a search treats as a node that did not exist when it started.

use std::sync::{Arc, OnceLock};

use bytemuck::Pod;
use parking_lot::{Mutex, RwLock};

use super::page_buffer::PageBuffer;

/// Slots per chunk (a power of two): 24 MiB of 384-d `f32` vectors or 6.1 MiB of int8 rows,
/// sealed from a huge-page boundary (see [`PageBuffer`]), so a chunk of either format lies on
/// 2 MiB pages all but its last partial one.
pub const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNK_BITS: usize = 14;
/// Bytes of one cache line, the unit [`VectorView::prefetch`] asks for.
const CACHE_LINE: usize = 64;

/// The chunk being filled: one cell per slot, set once.
struct OpenChunk<T> {
    /// The first slot of the chunk.
    base: usize,
    cells: Box<[OnceLock<Box<[T]>>]>,
}

impl<T> OpenChunk<T> {
    fn new(base: usize) -> Self {
        Self {
            base,
            cells: (0..CHUNK).map(|_| OnceLock::new()).collect(),
        }
    }
}

/// A reader's consistent view: the sealed chunks and the open chunk when it was taken.
pub struct VectorView<T> {
    dimension: usize,
    sealed: Arc<Vec<Arc<PageBuffer<T>>>>,
    open: Arc<OpenChunk<T>>,
}

impl<T> Clone for VectorView<T> {
    fn clone(&self) -> Self {
        Self {
            dimension: self.dimension,
            sealed: Arc::clone(&self.sealed),
            open: Arc::clone(&self.open),
        }
    }
}

impl<T: Pod> VectorView<T> {
    /// The vector in `slot`, if it was stored when the view was taken.
    #[inline]
    pub fn get(&self, slot: u32) -> Option<&[T]> {
        let slot = slot as usize;
        match self.sealed.get(slot >> CHUNK_BITS) {
            Some(chunk) => {
                let start = (slot & (CHUNK - 1)) * self.dimension;
                chunk.as_slice().get(start..start + self.dimension)
            }
            None => self
                .open
                .cells
                .get(slot.checked_sub(self.open.base)?)?
                .get()
                .map(|vector| &vector[..]),
        }
    }

    /// A bound on the slots in the view: every slot it holds is below it.
    pub fn slot_bound(&self) -> usize {
        self.open.base + CHUNK
    }

    /// Asks the CPU to start loading every cache line of `slot`'s vector.
    #[inline]
    pub fn prefetch(&self, slot: u32) {
        let slot = slot as usize;
        if let Some(chunk) = self.sealed.get(slot >> CHUNK_BITS) {
            let start = (slot & (CHUNK - 1)) * self.dimension;
            let step = (CACHE_LINE / std::mem::size_of::<T>()).max(1);
            for at in (start..start + self.dimension).step_by(step) {
                prefetch_index::prefetch_index(chunk.as_slice(), at);
            }
        }
    }
}

/// The chunks as one unit, so a view never sees a sealed chunk twice or not at all.
struct Chunks<T> {
    sealed: Arc<Vec<Arc<PageBuffer<T>>>>,
    open: Arc<OpenChunk<T>>,
}

/// Every vector of the index by slot, appended in slot order. `T` is the element of a row
/// (`f32`, or `i8` for the int8 format) and `dimension` the elements of one row.
pub struct VectorStore<T> {
    dimension: usize,
    chunks: RwLock<Chunks<T>>,
    /// The next slot; held while appending, so appends are serialised and in order.
    next: Mutex<usize>,
}

impl<T: Pod + Default + Send + Sync> VectorStore<T> {
    /// An empty store of `dimension`-d vectors.
    pub fn new(dimension: usize) -> Self {
        Self {
            dimension,
            chunks: RwLock::new(Chunks {
                sealed: Arc::default(),
                open: Arc::new(OpenChunk::new(0)),
            }),
            next: Mutex::new(0),
        }
    }

    /// Number of stored vectors.
    pub fn len(&self) -> usize {
        *self.next.lock()
    }

    /// A view for reading.
    pub fn view(&self) -> VectorView<T> {
        let chunks = self.chunks.read();
        VectorView {
            dimension: self.dimension,
            sealed: Arc::clone(&chunks.sealed),
            open: Arc::clone(&chunks.open),
        }
    }

    /// Appends `vector` (of the store's dimension); returns its slot.
    pub fn push(&self, vector: &[T]) -> usize {
        debug_assert_eq!(vector.len(), self.dimension);
        let mut next = self.next.lock();
        let slot = *next;
        let open = Arc::clone(&self.chunks.read().open);
        let _ = open.cells[slot - open.base].set(vector.into());
        *next += 1;
        if *next == open.base + CHUNK {
            self.seal(&open);
        }
        slot
    }

    /// Copies the full open chunk into one sealed buffer and opens the next chunk.
    fn seal(&self, open: &OpenChunk<T>) {
        let mut buffer = PageBuffer::zeroed(CHUNK * self.dimension);
        for (cell, target) in open
            .cells
            .iter()
            .zip(buffer.as_mut_slice().chunks_exact_mut(self.dimension))
        {
            if let Some(vector) = cell.get() {
                target.copy_from_slice(vector);
            }
        }
        let mut chunks = self.chunks.write();
        let mut sealed = Vec::with_capacity(chunks.sealed.len() + 1);
        sealed.extend(chunks.sealed.iter().cloned());
        sealed.push(Arc::new(buffer));
        *chunks = Chunks {
            sealed: Arc::new(sealed),
            open: Arc::new(OpenChunk::new(open.base + CHUNK)),
        };
    }
}

impl<T: Pod + Default + Send + Sync> VectorStore<T> {
    /// Calls `write` with the stored vectors in slot order, a chunk at a time (for the
    /// checkpoint).
    pub fn for_each_chunk(
        &self,
        mut write: impl FnMut(&[T]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let slots = self.len();
        let view = self.view();
        for chunk in view.sealed.iter() {
            write(chunk.as_slice())?;
        }
        for slot in view.open.base..slots {
            write(view.get(slot_u32(slot)).unwrap_or_default())?;
        }
        Ok(())
    }

    /// Reads `slots` vectors of `dimension` written by [`Self::for_each_chunk`] from `source`,
    /// straight into sealed chunks; an error if `source` holds fewer or more bytes.
    pub fn read_from(
        dimension: usize,
        slots: usize,
        mut source: impl std::io::Read,
    ) -> std::io::Result<Self> {
        let store = Self::new(dimension);
        let full = slots / CHUNK;
        let mut sealed = Vec::with_capacity(full);
        for _ in 0..full {
            let mut buffer = PageBuffer::<T>::zeroed(CHUNK * dimension);
            source.read_exact(bytemuck::cast_slice_mut(buffer.as_mut_slice()))?;
            sealed.push(Arc::new(buffer));
        }
        let open = OpenChunk::new(full * CHUNK);
        let mut vector = vec![T::default(); dimension];
        for cell in open.cells.iter().take(slots - full * CHUNK) {
            source.read_exact(bytemuck::cast_slice_mut(&mut vector))?;
            let _ = cell.set(vector.as_slice().into());
        }
        if source.read(&mut [0u8; 1])? != 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "more vectors than slots",
            ));
        }
        *store.next.lock() = slots;
        *store.chunks.write() = Chunks {
            sealed: Arc::new(sealed),
            open: Arc::new(open),
        };
        Ok(store)
    }
}

/// `slot` as the graph's 32-bit slot number.
pub fn slot_u32(slot: usize) -> u32 {
    u32::try_from(slot).expect("fewer than 4 billion slots")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(slot: usize, dimension: usize) -> Vec<f32> {
        (0..dimension).map(|i| (slot * 31 + i) as f32).collect()
    }

    fn flat(store: &VectorStore<f32>) -> Vec<f32> {
        let mut out = Vec::new();
        store
            .for_each_chunk(|values| {
                out.extend_from_slice(values);
                Ok(())
            })
            .unwrap();
        out
    }

    fn bytes_of(store: &VectorStore<f32>) -> Vec<u8> {
        bytemuck::cast_slice(&flat(store)).to_vec()
    }

    fn filled(count: usize, dimension: usize) -> VectorStore<f32> {
        let store = VectorStore::new(dimension);
        for slot in 0..count {
            assert_eq!(store.push(&vector(slot, dimension)), slot);
        }
        store
    }

    #[test]
    fn every_slot_reads_back_across_seals() {
        let count = 2 * CHUNK + 17;
        let store = filled(count, 3);
        let view = store.view();
        assert_eq!(view.sealed.len(), 2);
        for slot in 0..count {
            assert_eq!(view.get(slot_u32(slot)), Some(&vector(slot, 3)[..]));
        }
        assert_eq!(view.get(slot_u32(count)), None);
        assert_eq!(flat(&store).len(), count * 3);
    }

    #[test]
    fn a_view_taken_before_a_seal_still_reads_its_slots() {
        let store = filled(CHUNK - 1, 2);
        let before = store.view();
        store.push(&vector(CHUNK - 1, 2));
        store.push(&vector(CHUNK, 2));
        assert_eq!(before.get(5), Some(&vector(5, 2)[..]));
        assert_eq!(
            before.get(slot_u32(CHUNK - 1)),
            Some(&vector(CHUNK - 1, 2)[..])
        );
        assert_eq!(before.get(slot_u32(CHUNK)), None);
        assert_eq!(
            store.view().get(slot_u32(CHUNK)),
            Some(&vector(CHUNK, 2)[..])
        );
    }

    #[test]
    fn readers_see_what_concurrent_writers_append() {
        let dimension = 4;
        let store = VectorStore::new(dimension);
        let count = 3 * CHUNK;
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    for _ in 0..count / 2 {
                        let view = store.view();
                        let slot = store.len().saturating_sub(1);
                        if let Some(found) = view.get(slot_u32(slot)) {
                            assert_eq!(found, &vector(slot, dimension)[..]);
                        }
                    }
                });
            }
            for slot in 0..count {
                store.push(&vector(slot, dimension));
            }
        });
        let expected: Vec<f32> = (0..count).flat_map(|s| vector(s, dimension)).collect();
        assert_eq!(flat(&store), expected);
    }

    #[test]
    fn what_is_written_reads_back_and_a_short_file_is_refused() {
        let count = CHUNK + 3;
        let store = filled(count, 2);
        let bytes = bytes_of(&store);
        let loaded = VectorStore::<f32>::read_from(2, count, bytes.as_slice()).unwrap();
        assert_eq!(loaded.view().sealed.len(), 1);
        assert_eq!(flat(&loaded), flat(&store));
        assert_eq!(loaded.push(&vector(count, 2)), count);
        assert_eq!(
            loaded.view().get(slot_u32(count)),
            Some(&vector(count, 2)[..])
        );
        assert!(VectorStore::<f32>::read_from(2, count, &bytes[..bytes.len() - 1]).is_err());
        assert!(VectorStore::<f32>::read_from(2, count - 1, bytes.as_slice()).is_err());
    }
}
