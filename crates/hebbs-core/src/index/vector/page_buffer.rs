//! [`PageBuffer`]: a fixed-size, zero-filled array of plain values in its own anonymous memory
//! map, which Linux is asked to back with transparent huge pages (`MADV_HUGEPAGE`).
//!
//! A graph search reads a few hundred vectors at random out of a buffer far larger than the
//! caches; with 4 KiB pages nearly every one of those reads also misses the TLB, and a 2 MiB page
//! covers 512 times as much. The kernel backs only whole, aligned 2 MiB ranges of a mapping with
//! huge pages, so a buffer of at least [`HUGE_PAGE`] bytes is mapped one huge page longer and
//! starts at the first 2 MiB boundary inside the map (the unused ends are never touched, so they
//! cost address space, not memory), and only its whole huge pages are advised: a partial last
//! one would hold 2 MiB for a few KiB of values (an int8 chunk is 3 huge pages and 64 KiB). The advice is a hint: where the kernel has no huge page to
//! give (or is not Linux), the buffer is still correct, on ordinary pages.

use bytemuck::Pod;
use memmap2::MmapMut;

/// Bytes of a transparent huge page on x86-64 and most arm64 kernels.
pub const HUGE_PAGE: usize = 2 << 20;

/// A zero-filled `[T]` of fixed length in an anonymous memory map.
pub struct PageBuffer<T> {
    map: Option<MmapMut>,
    /// Where the values start in the map (a huge-page boundary for a large buffer).
    start: usize,
    /// Bytes of the values.
    bytes: usize,
    _values: std::marker::PhantomData<T>,
}

impl<T: Pod> PageBuffer<T> {
    /// `len` zeroes. Panics only if the memory cannot be mapped (out of address space).
    pub fn zeroed(len: usize) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        let slack = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 0 };
        let map = (bytes > 0)
            .then(|| MmapMut::map_anon(bytes + slack).expect("mapping anonymous memory"));
        // The address is only read, to find the first boundary; a page-aligned map is aligned
        // for every `Pod` value.
        let start = match &map {
            Some(map) if slack > 0 => (HUGE_PAGE - map.as_ptr() as usize % HUGE_PAGE) % HUGE_PAGE,
            _ => 0,
        };
        // Only the whole huge pages of the values: a partial last one would hold a full 2 MiB.
        if let Some(map) = &map {
            advise_huge_pages(map, start, bytes - bytes % HUGE_PAGE);
        }
        Self {
            map,
            start,
            bytes,
            _values: std::marker::PhantomData,
        }
    }

    /// The values.
    pub fn as_slice(&self) -> &[T] {
        self.map.as_deref().map_or(&[], |map| {
            bytemuck::cast_slice(&map[self.start..self.start + self.bytes])
        })
    }

    /// The values, to fill.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        let (start, bytes) = (self.start, self.bytes);
        self.map.as_deref_mut().map_or(&mut [], |map| {
            bytemuck::cast_slice_mut(&mut map[start..start + bytes])
        })
    }
}

impl<T: Pod> Default for PageBuffer<T> {
    fn default() -> Self {
        Self::zeroed(0)
    }
}

/// Asks for huge pages over `len` bytes of `map` from `offset` (none when `len` is 0).
#[cfg(target_os = "linux")]
fn advise_huge_pages(map: &MmapMut, offset: usize, len: usize) {
    // Best effort: a kernel without transparent huge pages refuses the advice, and the buffer
    // then simply stays on ordinary pages.
    if len > 0 {
        let _ = map.advise_range(memmap2::Advice::HugePage, offset, len);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_map: &MmapMut, _offset: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::{PageBuffer, HUGE_PAGE};

    #[test]
    fn starts_zeroed_and_keeps_what_is_written() {
        let mut buffer = PageBuffer::<f32>::zeroed(1 << 20);
        assert!(buffer.as_slice().iter().all(|&x| x == 0.0));
        buffer.as_mut_slice()[12_345] = 1.5;
        assert_eq!(buffer.as_slice()[12_345], 1.5);
        assert_eq!(buffer.as_slice().len(), 1 << 20);
    }

    #[test]
    fn a_large_buffer_starts_on_a_huge_page_boundary() {
        let mut buffer = PageBuffer::<u8>::zeroed(HUGE_PAGE + 12_345);
        assert_eq!(buffer.as_slice().as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(buffer.as_slice().len(), HUGE_PAGE + 12_345);
        let last = buffer.as_slice().len() - 1;
        buffer.as_mut_slice()[last] = 7;
        assert_eq!(buffer.as_slice()[last], 7);
        assert!(buffer.as_slice()[..last].iter().all(|&x| x == 0));
    }

    #[test]
    fn an_empty_buffer_is_an_empty_slice() {
        let mut buffer = PageBuffer::<u32>::zeroed(0);
        assert!(buffer.as_slice().is_empty());
        assert!(buffer.as_mut_slice().is_empty());
    }
}
