//! The changelog: a sequence-numbered record of every change the derived indexes must apply.
//! Key: sequence number (u64 BE). Value: operation code ‖ memory id.

use crate::error::{HebbsError, Result};
use crate::memory::MemoryId;

/// What happened to a memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeOp {
    /// The memory (and its vector) was added.
    Insert,
    /// The memory was removed.
    Delete,
}

impl ChangeOp {
    const fn code(self) -> u8 {
        match self {
            Self::Insert => 1,
            Self::Delete => 2,
        }
    }
}

/// One changelog record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangelogEntry {
    /// Position in the log, strictly increasing.
    pub seq: u64,
    /// What happened.
    pub op: ChangeOp,
    /// To which memory.
    pub id: MemoryId,
}

impl ChangelogEntry {
    /// The key: the sequence number, big-endian.
    pub fn key(seq: u64) -> [u8; 8] {
        seq.to_be_bytes()
    }

    /// The value: op code then id.
    pub fn value(&self) -> [u8; 17] {
        let mut value = [0; 17];
        value[0] = self.op.code();
        value[1..].copy_from_slice(self.id.as_bytes());
        value
    }

    /// Parses a stored key and value.
    pub fn decode(key: &[u8], value: &[u8]) -> Result<Self> {
        let seq = key
            .try_into()
            .map(u64::from_be_bytes)
            .map_err(|_| HebbsError::corrupt("changelog", "key is not 8 bytes"))?;
        let op = match value.first() {
            Some(1) => ChangeOp::Insert,
            Some(2) => ChangeOp::Delete,
            _ => return Err(HebbsError::corrupt("changelog", "unknown operation")),
        };
        let id = MemoryId::from_slice(&value[1..], "changelog")?;
        Ok(Self { seq, op, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_round_trips() {
        let entry = ChangelogEntry {
            seq: 42,
            op: ChangeOp::Delete,
            id: MemoryId::new(),
        };
        let decoded = ChangelogEntry::decode(&ChangelogEntry::key(42), &entry.value()).unwrap();
        assert_eq!(decoded, entry);
    }
}
