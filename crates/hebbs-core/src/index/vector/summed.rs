//! [`Summed`]: the length and CRC-32 of the bytes that pass through a reader or a writer, so
//! the checkpoint checksums each file in the same pass that writes or reads it.

use std::io::{self, Read, Write};

/// A reader or writer that checksums what passes through it.
pub struct Summed<T> {
    inner: T,
    hasher: crc32fast::Hasher,
    length: u64,
}

impl<T> Summed<T> {
    /// Wraps `inner`, nothing summed yet.
    pub fn new(inner: T) -> Self {
        Self {
            inner,
            hasher: crc32fast::Hasher::new(),
            length: 0,
        }
    }

    /// The length and CRC-32 of the bytes so far.
    pub fn sum(&self) -> (u64, u32) {
        (self.length, self.hasher.clone().finalize())
    }

    fn add(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.length += bytes.len() as u64;
    }
}

impl<R: Read> Read for Summed<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.add(&buffer[..read]);
        Ok(read)
    }
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.add(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_and_writing_sum_what_passed_and_nothing_else() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut written = Summed::new(Vec::new());
        written.write_all(&bytes[..3]).unwrap();
        written.write_all(&bytes[3..]).unwrap();
        assert_eq!(written.sum(), (10_000, crc32fast::hash(&bytes)));
        let mut read = Summed::new(bytes.as_slice());
        let mut head = [0u8; 100];
        read.read_exact(&mut head).unwrap();
        assert_eq!(read.sum(), (100, crc32fast::hash(&bytes[..100])));
        io::copy(&mut read, &mut io::sink()).unwrap();
        assert_eq!(read.sum(), written.sum());
    }
}
