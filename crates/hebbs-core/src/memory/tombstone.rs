//! The audit record `forget` leaves behind (the `tombstones` column family): which memory was
//! erased, whose it was, when it was made and erased, its kind and a SHA-256 of its content, so
//! an auditor can prove a given text was erased without the store keeping the text.
//!
//! Layout, little-endian: `version u8 | kind u8 | created_at u64 | forgotten_at u64 |
//! content_sha256 [32] | has_entity u8 | [entity_len u32 | entity]`; the key is the id.

use sha2::{Digest, Sha256};

use super::{MemoryId, MemoryKind};
use crate::codec::Reader;
use crate::error::{HebbsError, Result};

const TOMBSTONE_VERSION: u8 = 1;

/// What remains of a forgotten memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tombstone {
    /// The erased memory's id.
    pub id: MemoryId,
    /// Its entity scope, if any.
    pub entity_id: Option<String>,
    /// Its kind.
    pub kind: MemoryKind,
    /// When it was created, microseconds.
    pub created_at: u64,
    /// When it was forgotten, microseconds.
    pub forgotten_at: u64,
    /// SHA-256 of its content (UTF-8); never the content itself.
    pub content_sha256: [u8; 32],
}

/// SHA-256 of `content`, as stored in tombstones.
pub fn content_sha256(content: &str) -> [u8; 32] {
    Sha256::digest(content.as_bytes()).into()
}

impl Tombstone {
    /// Serialises the record.
    pub fn encode(&self) -> Vec<u8> {
        let entity_len = self.entity_id.as_ref().map_or(0, String::len);
        let mut out = Vec::with_capacity(55 + entity_len);
        out.push(TOMBSTONE_VERSION);
        out.push(self.kind.code());
        out.extend_from_slice(&self.created_at.to_le_bytes());
        out.extend_from_slice(&self.forgotten_at.to_le_bytes());
        out.extend_from_slice(&self.content_sha256);
        match &self.entity_id {
            Some(entity) => {
                out.push(1);
                let len = u32::try_from(entity.len()).expect("entity ids are at most 256 bytes");
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(entity.as_bytes());
            }
            None => out.push(0),
        }
        out
    }

    /// Parses a stored key (the id) and value.
    pub fn decode(key: &[u8], value: &[u8]) -> Result<Self> {
        let id = MemoryId::from_slice(key, "tombstone key")?;
        let mut reader = Reader::new(value, "tombstone");
        let version = reader.u8()?;
        if version != TOMBSTONE_VERSION {
            return Err(HebbsError::corrupt(
                "tombstone",
                format!("unknown version {version}"),
            ));
        }
        let code = reader.u8()?;
        let kind = MemoryKind::from_code(code)
            .ok_or_else(|| HebbsError::corrupt("tombstone", format!("unknown kind {code}")))?;
        let created_at = reader.u64()?;
        let forgotten_at = reader.u64()?;
        let content_sha256 = reader.array()?;
        let entity_id = match reader.u8()? {
            0 => None,
            _ => Some(reader.string()?),
        };
        Ok(Self {
            id,
            entity_id,
            kind,
            created_at,
            forgotten_at,
            content_sha256,
        })
    }

    /// The content hash as 64 lower-case hex digits.
    pub fn content_sha256_hex(&self) -> String {
        self.content_sha256
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_hashes_like_sha256() {
        let tombstone = Tombstone {
            id: MemoryId::new(),
            entity_id: Some("acme".into()),
            kind: MemoryKind::Revision,
            created_at: 3,
            forgotten_at: 5,
            content_sha256: content_sha256("abc"),
        };
        let decoded = Tombstone::decode(tombstone.id.as_bytes(), &tombstone.encode()).unwrap();
        assert_eq!(decoded, tombstone);
        assert_eq!(
            decoded.content_sha256_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
