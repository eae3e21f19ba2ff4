//! [`PageBuffer`]: a fixed-size, zero-filled array of plain values in its own anonymous memory
//! map, which Linux is asked to back with transparent huge pages (`MADV_HUGEPAGE`).
//!
//! A graph search reads a few hundred vectors at random out of a buffer far larger than the
//! caches; with 4 KiB pages nearly every one of those reads also misses the TLB, and a 2 MiB page
//! covers 512 times as much. The advice is a hint: where the kernel has no huge page to give
//! (or is not Linux), the buffer is still correct, on ordinary pages.

use bytemuck::Pod;
use memmap2::MmapMut;

/// A zero-filled `[T]` of fixed length in an anonymous memory map.
pub struct PageBuffer<T> {
    map: Option<MmapMut>,
    _values: std::marker::PhantomData<T>,
}

impl<T: Pod> PageBuffer<T> {
    /// `len` zeroes. Panics only if the memory cannot be mapped (out of address space).
    pub fn zeroed(len: usize) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        let map = (bytes > 0).then(|| {
            let map = MmapMut::map_anon(bytes).expect("mapping anonymous memory");
            advise_huge_pages(&map);
            map
        });
        Self {
            map,
            _values: std::marker::PhantomData,
        }
    }

    /// The values.
    pub fn as_slice(&self) -> &[T] {
        self.map
            .as_deref()
            .map_or(&[], |bytes| bytemuck::cast_slice(bytes))
    }

    /// The values, to fill.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.map
            .as_deref_mut()
            .map_or(&mut [], |bytes| bytemuck::cast_slice_mut(bytes))
    }
}

impl<T: Pod> Default for PageBuffer<T> {
    fn default() -> Self {
        Self::zeroed(0)
    }
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(map: &MmapMut) {
    // Best effort: a kernel without transparent huge pages refuses the advice, and the buffer
    // then simply stays on ordinary pages.
    let _ = map.advise(memmap2::Advice::HugePage);
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_map: &MmapMut) {}

#[cfg(test)]
mod tests {
    use super::PageBuffer;

    #[test]
    fn starts_zeroed_and_keeps_what_is_written() {
        let mut buffer = PageBuffer::<f32>::zeroed(1 << 20);
        assert!(buffer.as_slice().iter().all(|&x| x == 0.0));
        buffer.as_mut_slice()[12_345] = 1.5;
        assert_eq!(buffer.as_slice()[12_345], 1.5);
        assert_eq!(buffer.as_slice().len(), 1 << 20);
    }

    #[test]
    fn an_empty_buffer_is_an_empty_slice() {
        let mut buffer = PageBuffer::<u32>::zeroed(0);
        assert!(buffer.as_slice().is_empty());
        assert!(buffer.as_mut_slice().is_empty());
    }
}
