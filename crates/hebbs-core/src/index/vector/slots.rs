//! The mapping between HNSW data ids ("slots", assigned in insertion order) and memory ids, the
//! entity of each slot (for entity-filtered search) and the tombstoned slots.

use std::collections::{HashMap, HashSet};

use crate::codec::Reader;
use crate::error::{HebbsError, Result};
use crate::memory::{IdMap, MemoryId};

const MAGIC: &[u8; 8] = b"HEBBSLOT";
const VERSION: u32 = 1;
/// Entity index of slots whose memory has no entity.
const NO_ENTITY: u32 = u32::MAX;

/// Slot bookkeeping of the vector index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotMap {
    ids: Vec<MemoryId>,
    entity_of: Vec<u32>,
    entities: Vec<String>,
    entity_index: HashMap<String, u32>,
    by_id: IdMap<usize>,
    deleted: HashSet<usize>,
}

impl SlotMap {
    /// Assigns the next slot to `id`; `None` if `id` already has one.
    pub fn assign(&mut self, id: MemoryId, entity: Option<&str>) -> Option<usize> {
        if self.by_id.contains_key(&id) {
            return None;
        }
        let slot = self.ids.len();
        let entity = entity.map_or(NO_ENTITY, |name| self.intern(name));
        self.ids.push(id);
        self.entity_of.push(entity);
        self.by_id.insert(id, slot);
        Some(slot)
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(index) = self.entity_index.get(name) {
            return *index;
        }
        let index = u32::try_from(self.entities.len()).expect("fewer than 4 billion entities");
        self.entities.push(name.to_owned());
        self.entity_index.insert(name.to_owned(), index);
        index
    }

    /// Marks the slot of `id` deleted; returns whether it was live.
    pub fn delete(&mut self, id: &MemoryId) -> bool {
        match self.by_id.get(id) {
            Some(slot) => self.deleted.insert(*slot),
            None => false,
        }
    }

    /// The slot of `id`, unless it has none or it is deleted.
    pub fn live_slot(&self, id: &MemoryId) -> Option<usize> {
        self.by_id
            .get(id)
            .copied()
            .filter(|slot| !self.deleted.contains(slot))
    }

    /// The memory in `slot`, unless deleted.
    pub fn live_id(&self, slot: usize) -> Option<MemoryId> {
        if self.deleted.contains(&slot) {
            return None;
        }
        self.ids.get(slot).copied()
    }

    /// Whether `slot` is live and (if `entity` is given) belongs to that entity.
    pub fn accepts(&self, slot: usize, entity: Option<u32>) -> bool {
        !self.deleted.contains(&slot)
            && entity.is_none_or(|wanted| self.entity_of.get(slot) == Some(&wanted))
    }

    /// The interned index of `entity`, if any slot has it.
    pub fn entity(&self, entity: &str) -> Option<u32> {
        self.entity_index.get(entity).copied()
    }

    /// Whether `id` has a slot (live or deleted).
    pub fn contains(&self, id: &MemoryId) -> bool {
        self.by_id.contains_key(id)
    }

    /// Slots handed out, including deleted ones.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Number of deleted slots.
    pub fn deleted_len(&self) -> usize {
        self.deleted.len()
    }

    /// Serialises the map (checkpoint sidecar).
    pub fn encode(&self, covered_seq: u64, dimension: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.ids.len() * 20);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&covered_seq.to_le_bytes());
        out.extend_from_slice(&(dimension as u64).to_le_bytes());
        out.extend_from_slice(&(self.ids.len() as u64).to_le_bytes());
        for (id, entity) in self.ids.iter().zip(&self.entity_of) {
            out.extend_from_slice(id.as_bytes());
            out.extend_from_slice(&entity.to_le_bytes());
        }
        out.extend_from_slice(&(self.entities.len() as u64).to_le_bytes());
        for name in &self.entities {
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        let mut deleted: Vec<usize> = self.deleted.iter().copied().collect();
        deleted.sort_unstable();
        out.extend_from_slice(&(deleted.len() as u64).to_le_bytes());
        for slot in deleted {
            out.extend_from_slice(&(slot as u64).to_le_bytes());
        }
        out
    }

    /// Parses [`SlotMap::encode`]: returns the map, the covered sequence and the dimension.
    pub fn decode(bytes: &[u8]) -> Result<(Self, u64, usize)> {
        let mut reader = Reader::new(bytes, "index checkpoint");
        if reader.take(8)? != MAGIC || reader.u32()? != VERSION {
            return Err(HebbsError::corrupt(
                "index checkpoint",
                "bad magic or version",
            ));
        }
        let covered_seq = reader.u64()?;
        let dimension = reader.u64()? as usize;
        let mut map = Self::default();
        let slots = reader.u64()? as usize;
        for slot in 0..slots {
            let id = MemoryId::from_slice(reader.take(16)?, "index checkpoint")?;
            map.ids.push(id);
            map.entity_of.push(reader.u32()?);
            map.by_id.insert(id, slot);
        }
        for index in 0..reader.u64()? as u32 {
            let name = reader.string()?;
            map.entity_index.insert(name.clone(), index);
            map.entities.push(name);
        }
        for _ in 0..reader.u64()? {
            map.deleted.insert(reader.u64()? as usize);
        }
        Ok((map, covered_seq, dimension))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips_with_entities_and_deletes() {
        let mut map = SlotMap::default();
        let ids: Vec<MemoryId> = (0..5).map(|_| MemoryId::new()).collect();
        for (i, id) in ids.iter().enumerate() {
            let entity = ["alice", "bob"].get(i % 3).copied();
            assert_eq!(map.assign(*id, entity), Some(i));
        }
        assert_eq!(map.assign(ids[0], None), None);
        assert!(map.delete(&ids[3]));
        let (decoded, seq, dim) = SlotMap::decode(&map.encode(9, 384)).unwrap();
        assert_eq!((seq, dim), (9, 384));
        assert_eq!(decoded, map);
        assert_eq!(decoded.live_id(3), None);
        let bob = decoded.entity("bob");
        assert!(decoded.accepts(1, bob) && !decoded.accepts(0, bob));
    }

    fn sample_map(slots: usize) -> SlotMap {
        let mut map = SlotMap::default();
        for i in 0..slots {
            map.assign(MemoryId::new(), ["alice", "bob"].get(i % 3).copied());
        }
        map
    }

    proptest::proptest! {
        #![proptest_config(crate::decode_fuzz::fuzz_config())]

        /// A damaged slot map (the checkpoint's sidecar) is an error or decodes to a map that
        /// encodes back the same; raw bytes never panic.
        #[test]
        fn decoding_damaged_bytes_never_panics(
            slots in 0usize..12,
            changes in crate::decode_fuzz::mutations(),
            raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..128),
        ) {
            let _ = SlotMap::decode(&raw);
            let bytes = crate::decode_fuzz::mutate(sample_map(slots).encode(3, 8), &changes);
            if let Ok((map, seq, dim)) = SlotMap::decode(&bytes) {
                let (again, _, _) = SlotMap::decode(&map.encode(seq, dim)).unwrap();
                proptest::prop_assert_eq!(again, map);
            }
        }
    }
}
