//! Memory ids: 16-byte UUIDv7 values, so RocksDB keys that start with an id sort by creation time.

use std::fmt;
use std::str::FromStr;

use crate::error::{HebbsError, Result};

/// A hash map keyed by memory id. Ids are random in their low bits, so the fast, per-map seeded
/// `foldhash` is enough; the standard SipHash costs several times more on the recall path,
/// which looks ids up in these maps for every candidate.
pub type IdMap<V> = std::collections::HashMap<MemoryId, V, foldhash::fast::RandomState>;
/// A set of memory ids with the same fast hasher as [`IdMap`].
pub type IdSet = std::collections::HashSet<MemoryId, foldhash::fast::RandomState>;

/// A 16-byte memory identifier (UUIDv7).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemoryId([u8; 16]);

impl MemoryId {
    /// Byte length of an id.
    pub const LEN: usize = 16;

    /// A fresh UUIDv7 id: time-ordered, random in its low bits.
    pub fn new() -> Self {
        Self(*uuid::Uuid::now_v7().as_bytes())
    }

    /// Wraps raw bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// Parses 16 raw bytes; `field` names the argument in the error.
    pub fn from_slice(bytes: &[u8], field: &str) -> Result<Self> {
        let array: [u8; 16] = bytes.try_into().map_err(|_| {
            HebbsError::invalid(field, format!("expected 16 bytes, got {}", bytes.len()))
        })?;
        Ok(Self(array))
    }

    /// The raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Lower-case hex, 32 characters.
    pub fn to_hex(&self) -> String {
        uuid::Uuid::from_bytes(self.0).simple().to_string()
    }
}

impl Default for MemoryId {
    fn default() -> Self {
        Self::new()
    }
}

/// Characters of an id as 32 hex digits.
const SIMPLE_LEN: usize = 32;
/// Characters of an id in the hyphenated UUID form.
const HYPHENATED_LEN: usize = 36;

impl FromStr for MemoryId {
    type Err = HebbsError;

    /// Accepts the one id syntax of every surface: 32 hex digits, or the same digits in the
    /// hyphenated UUID form (8-4-4-4-12). Other UUID spellings (braced, `urn:uuid:`) are
    /// refused, as the Python layer refuses them.
    fn from_str(text: &str) -> Result<Self> {
        let spelled = text.len() == SIMPLE_LEN || text.len() == HYPHENATED_LEN;
        spelled
            .then(|| uuid::Uuid::try_parse(text).ok())
            .flatten()
            .map(|uuid| Self(*uuid.as_bytes()))
            .ok_or_else(|| HebbsError::invalid("id", format!("{text:?} is not a 32-digit hex id")))
    }
}

impl fmt::Display for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for MemoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MemoryId({})", self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let id = MemoryId::new();
        assert_eq!(id.to_hex().len(), 32);
        assert_eq!(id.to_hex().parse::<MemoryId>().unwrap(), id);
    }

    #[test]
    fn ids_sort_by_creation() {
        let ids: Vec<MemoryId> = (0..100).map(|_| MemoryId::new()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn rejects_bad_text_and_bytes() {
        assert!(matches!(
            "xyz".parse::<MemoryId>(),
            Err(HebbsError::InvalidInput { field, .. }) if field == "id"
        ));
        assert!(MemoryId::from_slice(&[0; 15], "seed").is_err());
    }

    #[test]
    fn accepts_hex_and_hyphenated_only() {
        let id = MemoryId::new();
        let hyphenated = uuid::Uuid::from_bytes(*id.as_bytes())
            .hyphenated()
            .to_string();
        assert_eq!(hyphenated.parse::<MemoryId>().unwrap(), id);
        assert_eq!(id.to_hex().to_uppercase().parse::<MemoryId>().unwrap(), id);
        for other in [
            format!("{{{hyphenated}}}"),
            format!("urn:uuid:{hyphenated}"),
            hyphenated.replacen('-', "", 1),
        ] {
            assert!(other.parse::<MemoryId>().is_err(), "{other}");
        }
    }
}
