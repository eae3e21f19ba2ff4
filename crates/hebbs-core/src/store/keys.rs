//! Key and value codecs of the column families. All integers in keys are big-endian so that
//! RocksDB's byte order is numeric order.

use crate::error::{HebbsError, Result};
use crate::memory::{EdgeType, MemoryId};

/// Separates the entity from the timestamp in temporal keys (entity ids may not contain it).
pub const ENTITY_TERMINATOR: u8 = 0x00;

/// A key of the `temporal` column family: `entity ‖ 0x00 ‖ created_at BE ‖ id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemporalKey {
    /// Entity scope; the empty string for memories without an entity.
    pub entity: String,
    /// Creation time, microseconds.
    pub created_at: u64,
    /// The memory.
    pub id: MemoryId,
}

impl TemporalKey {
    /// The encoded key.
    pub fn encode(&self) -> Vec<u8> {
        let mut key = Self::prefix(&self.entity);
        key.extend_from_slice(&self.created_at.to_be_bytes());
        key.extend_from_slice(self.id.as_bytes());
        key
    }

    /// `entity ‖ 0x00`: every key of one entity starts with it.
    pub fn prefix(entity: &str) -> Vec<u8> {
        let mut key = Vec::with_capacity(entity.len() + 1 + 8 + MemoryId::LEN);
        key.extend_from_slice(entity.as_bytes());
        key.push(ENTITY_TERMINATOR);
        key
    }

    /// The smallest key of `entity` at or after `time_us`.
    pub fn lower_bound(entity: &str, time_us: u64) -> Vec<u8> {
        let mut key = Self::prefix(entity);
        key.extend_from_slice(&time_us.to_be_bytes());
        key
    }

    /// The first key of `entity` strictly after every key at `time_us` (exclusive upper bound).
    pub fn upper_bound(entity: &str, time_us: u64) -> Vec<u8> {
        match time_us.checked_add(1) {
            Some(next) => Self::lower_bound(entity, next),
            None => {
                let mut key = entity.as_bytes().to_vec();
                key.push(ENTITY_TERMINATOR + 1);
                key
            }
        }
    }

    /// Parses an encoded key.
    pub fn decode(key: &[u8]) -> Result<Self> {
        let tail = 8 + MemoryId::LEN;
        if key.len() < tail + 1 || key[key.len() - tail - 1] != ENTITY_TERMINATOR {
            return Err(HebbsError::corrupt("temporal key", "bad layout"));
        }
        let split = key.len() - tail;
        let entity = std::str::from_utf8(&key[..split - 1])
            .map_err(|_| HebbsError::corrupt("temporal key", "entity is not UTF-8"))?
            .to_owned();
        let created_at = u64::from_be_bytes(key[split..split + 8].try_into().expect("8 bytes"));
        let id = MemoryId::from_slice(&key[split + 8..], "temporal key")?;
        Ok(Self {
            entity,
            created_at,
            id,
        })
    }
}

/// A key of the `sessions` column family: `session ‖ 0x00 ‖ touched_at BE ‖ id`, the temporal
/// key layout with the session in place of the entity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionKey {
    /// The conversation.
    pub session: String,
    /// When the conversation touched the memory, microseconds.
    pub touched_at: u64,
    /// The memory.
    pub id: MemoryId,
}

impl SessionKey {
    /// The encoded key.
    pub fn encode(&self) -> Vec<u8> {
        TemporalKey {
            entity: self.session.clone(),
            created_at: self.touched_at,
            id: self.id,
        }
        .encode()
    }

    /// Parses an encoded key.
    pub fn decode(key: &[u8]) -> Result<Self> {
        let key = TemporalKey::decode(key)?;
        Ok(Self {
            session: key.entity,
            touched_at: key.created_at,
            id: key.id,
        })
    }
}

/// An edge key: `from ‖ type ‖ to` (in `edges_out` from is the source, in `edges_in` the target).
pub fn edge_key(from: &MemoryId, edge_type: EdgeType, to: &MemoryId) -> [u8; 33] {
    let mut key = [0; 33];
    key[..16].copy_from_slice(from.as_bytes());
    key[16] = edge_type.code();
    key[17..].copy_from_slice(to.as_bytes());
    key
}

/// Parses [`edge_key`] into `(from, type, to)`.
pub fn decode_edge_key(key: &[u8]) -> Result<(MemoryId, EdgeType, MemoryId)> {
    if key.len() != 33 {
        return Err(HebbsError::corrupt(
            "edge key",
            format!("length {}", key.len()),
        ));
    }
    let edge_type = EdgeType::from_code(key[16])
        .ok_or_else(|| HebbsError::corrupt("edge key", format!("edge type {}", key[16])))?;
    Ok((
        MemoryId::from_slice(&key[..16], "edge key")?,
        edge_type,
        MemoryId::from_slice(&key[17..], "edge key")?,
    ))
}

/// A vector as little-endian f32 bytes.
pub fn encode_vector(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Inverse of [`encode_vector`].
pub fn decode_vector(bytes: &[u8]) -> Result<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(HebbsError::corrupt(
            "vector",
            format!("{} bytes", bytes.len()),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|chunk| f32::from_le_bytes(chunk.try_into().expect("4 bytes")))
        .collect())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn temporal_key_round_trips(entity in "[^\u{0}]{0,30}", created_at in any::<u64>(), raw in any::<[u8; 16]>()) {
            let key = TemporalKey { entity, created_at, id: MemoryId::from_bytes(raw) };
            prop_assert_eq!(TemporalKey::decode(&key.encode()).unwrap(), key);
        }

        #[test]
        fn temporal_keys_sort_by_entity_then_time(a in 0u64..1 << 60, b in 0u64..1 << 60) {
            let id = MemoryId::from_bytes([7; 16]);
            let ka = TemporalKey { entity: "ent".into(), created_at: a, id }.encode();
            let kb = TemporalKey { entity: "ent".into(), created_at: b, id }.encode();
            prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
            let other = TemporalKey { entity: "ent2".into(), created_at: 0, id }.encode();
            prop_assert!(ka < other, "a prefix entity sorts before every longer entity");
        }

        #[test]
        fn vector_round_trips(v in proptest::collection::vec(-1e6f32..1e6, 0..64)) {
            prop_assert_eq!(decode_vector(&encode_vector(&v)).unwrap(), v);
        }

        #[test]
        fn edge_key_round_trips(a in any::<[u8; 16]>(), b in any::<[u8; 16]>(), t in 0usize..6) {
            let (from, to) = (MemoryId::from_bytes(a), MemoryId::from_bytes(b));
            let edge_type = EdgeType::ALL[t];
            prop_assert_eq!(decode_edge_key(&edge_key(&from, edge_type, &to)).unwrap(), (from, edge_type, to));
        }
    }

    #[test]
    fn bounds_bracket_one_entity_and_time() {
        let id = MemoryId::from_bytes([0xff; 16]);
        let key = TemporalKey {
            entity: "e".into(),
            created_at: 10,
            id,
        }
        .encode();
        assert!(TemporalKey::lower_bound("e", 10) <= key);
        assert!(key < TemporalKey::upper_bound("e", 10));
        assert!(TemporalKey::upper_bound("e", 9) <= key);
        assert!(key < TemporalKey::upper_bound("e", u64::MAX));
        assert!(TemporalKey::upper_bound("e", u64::MAX) < TemporalKey::prefix("e\u{1}"));
    }
}
