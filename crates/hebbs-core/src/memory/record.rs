//! The memory record: what is stored in the `memories` column family and what calls return.
//!
//! The stored form ([`StoredMemory`]) holds what changes only on revision; access statistics live
//! in the `access` column family (updated by a merge operator) and the vector in `vectors`.
//! [`Memory`] is the assembled view returned to callers.
//!
//! Record layout, version 2, little-endian:
//! `version u8 | kind u8 | flags u8 | importance f32 | created_at u64 | updated_at u64 |
//!  has_entity u8 | [entity_len u32 | entity] | content_len u32 | content | context_len u32 | context JSON`
//!
//! Version 1 records (written before revisions existed) have no `flags` byte and decode with
//! every flag clear. Flags: bit 0 = superseded by a revision; bit 1 = keyed, when
//! `key_len u32 | key` (the caller's key) follows the context.

use serde_json::{Map, Value};

use super::{MemoryId, MemoryKind};
use crate::codec::Reader;
use crate::error::{HebbsError, Result};

/// The version written by [`StoredMemory::encode`].
const RECORD_VERSION: u8 = 2;
/// The version before the flags byte; still read.
const RECORD_VERSION_NO_FLAGS: u8 = 1;
/// Flag bit: a revision supersedes this memory.
const FLAG_SUPERSEDED: u8 = 0b1;
/// Flag bit: the record ends with the caller's key.
const FLAG_KEYED: u8 = 0b10;

/// The fixed-size header of a record, read without decoding text or context: what ranking and
/// forgetting need per candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordHeader {
    /// What the memory is.
    pub kind: MemoryKind,
    /// Importance, 0..=1.
    pub importance: f32,
    /// Creation time, microseconds.
    pub created_at: u64,
    /// Whether a revision supersedes it (recall skips it unless asked).
    pub superseded: bool,
}

/// A memory as returned by the engine (seed 003 `Memory`).
#[derive(Clone, Debug, PartialEq)]
pub struct Memory {
    /// 16-byte UUIDv7 id.
    pub id: MemoryId,
    /// The memory text.
    pub content: String,
    /// Importance, 0..=1.
    pub importance: f32,
    /// Structured metadata (a JSON object).
    pub context: Map<String, Value>,
    /// Entity scope, if any.
    pub entity_id: Option<String>,
    /// Creation time, microseconds since the Unix epoch.
    pub created_at: u64,
    /// Last modification time, microseconds since the Unix epoch.
    pub updated_at: u64,
    /// Last time a recall returned it (its creation time if never recalled).
    pub last_accessed_at: u64,
    /// How many recalls returned it.
    pub access_count: u64,
    /// Importance adjusted by time since last access and reinforcement, see [`crate::recall::decay_score`].
    pub decay_score: f32,
    /// What this memory is.
    pub kind: MemoryKind,
    /// Whether a revision supersedes it (recall returns it only when asked to).
    pub superseded: bool,
    /// The key the caller stored it under, if any (see [`crate::engine::RememberInput::key`]).
    pub key: Option<String>,
    /// The embedding, only when asked for.
    pub embedding: Option<Vec<f32>>,
}

impl Memory {
    /// Assembles the public view from the stored record and the access statistics, computing the
    /// decay score at `now_us`.
    pub fn assemble(
        id: MemoryId,
        stored: StoredMemory,
        access_count: u64,
        last_access_us: u64,
        embedding: Option<Vec<f32>>,
        now_us: u64,
    ) -> Self {
        let last_accessed_at = last_access_us.max(stored.created_at);
        Self {
            id,
            decay_score: crate::recall::decay_score(
                stored.importance,
                last_accessed_at,
                access_count,
                now_us,
            ),
            content: stored.content,
            importance: stored.importance,
            context: stored.context,
            entity_id: stored.entity_id,
            created_at: stored.created_at,
            updated_at: stored.updated_at,
            last_accessed_at,
            access_count,
            kind: stored.kind,
            superseded: stored.superseded,
            key: stored.key,
            embedding,
        }
    }

    /// Replaces the access statistics (and so the decay score, computed at `now_us`).
    pub fn set_access(&mut self, access_count: u64, last_access_us: u64, now_us: u64) {
        self.last_accessed_at = last_access_us.max(self.created_at);
        self.access_count = access_count;
        self.decay_score = crate::recall::decay_score(
            self.importance,
            self.last_accessed_at,
            access_count,
            now_us,
        );
    }
}

/// The persisted part of a memory (the `memories` column family value).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMemory {
    /// What this memory is.
    pub kind: MemoryKind,
    /// Importance, 0..=1.
    pub importance: f32,
    /// Creation time, microseconds.
    pub created_at: u64,
    /// Last modification time, microseconds.
    pub updated_at: u64,
    /// Entity scope.
    pub entity_id: Option<String>,
    /// The memory text.
    pub content: String,
    /// Structured metadata.
    pub context: Map<String, Value>,
    /// Whether a revision supersedes this memory.
    pub superseded: bool,
    /// The caller's key.
    pub key: Option<String>,
}

impl StoredMemory {
    /// The fields [`StoredMemory::peek_scoring_fields`] reads back from the encoded record.
    pub fn header(&self) -> RecordHeader {
        RecordHeader {
            kind: self.kind,
            importance: self.importance,
            created_at: self.created_at,
            superseded: self.superseded,
        }
    }

    /// Serialises the record.
    pub fn encode(&self) -> Vec<u8> {
        let context = if self.context.is_empty() {
            Vec::new()
        } else {
            serde_json::to_vec(&self.context).expect("a JSON map always serialises")
        };
        let entity_len = self.entity_id.as_ref().map_or(0, String::len);
        let key_len = self.key.as_ref().map_or(0, |key| 4 + key.len());
        let mut out = Vec::with_capacity(
            35 + entity_len + 4 + self.content.len() + 4 + context.len() + key_len,
        );
        let mut flags = 0;
        if self.superseded {
            flags |= FLAG_SUPERSEDED;
        }
        if self.key.is_some() {
            flags |= FLAG_KEYED;
        }
        out.push(RECORD_VERSION);
        out.push(self.kind.code());
        out.push(flags);
        out.extend_from_slice(&self.importance.to_le_bytes());
        out.extend_from_slice(&self.created_at.to_le_bytes());
        out.extend_from_slice(&self.updated_at.to_le_bytes());
        match &self.entity_id {
            Some(entity) => {
                out.push(1);
                put_bytes(&mut out, entity.as_bytes());
            }
            None => out.push(0),
        }
        put_bytes(&mut out, self.content.as_bytes());
        put_bytes(&mut out, &context);
        if let Some(key) = &self.key {
            put_bytes(&mut out, key.as_bytes());
        }
        out
    }

    /// Reads only the header (kind, importance, created_at, flags) from an encoded record,
    /// without decoding the text or the context: what ranking a candidate needs.
    pub fn peek_scoring_fields(bytes: &[u8]) -> Result<RecordHeader> {
        read_header(&mut Reader::new(bytes, "memory record"))
    }

    /// Parses a record written by [`StoredMemory::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut reader = Reader::new(bytes, "memory record");
        let (header, flags) = read_header_and_flags(&mut reader)?;
        let updated_at = u64::from_le_bytes(reader.array()?);
        let entity_id = match reader.u8()? {
            0 => None,
            _ => Some(reader.string()?),
        };
        let content = reader.string()?;
        let context_bytes = reader.bytes()?;
        let context = if context_bytes.is_empty() {
            Map::new()
        } else {
            serde_json::from_slice(context_bytes)
                .map_err(|e| HebbsError::corrupt("memory record", format!("context: {e}")))?
        };
        let key = if flags & FLAG_KEYED != 0 {
            Some(reader.string()?)
        } else {
            None
        };
        Ok(Self {
            kind: header.kind,
            importance: header.importance,
            created_at: header.created_at,
            updated_at,
            entity_id,
            content,
            context,
            superseded: header.superseded,
            key,
        })
    }
}

/// Reads the version, kind, flags, importance and creation time.
fn read_header(reader: &mut Reader<'_>) -> Result<RecordHeader> {
    Ok(read_header_and_flags(reader)?.0)
}

/// [`read_header`], with the flags byte (0 in a version 1 record).
fn read_header_and_flags(reader: &mut Reader<'_>) -> Result<(RecordHeader, u8)> {
    let flags = match reader.u8()? {
        RECORD_VERSION => None,
        RECORD_VERSION_NO_FLAGS => Some(0),
        version => {
            return Err(HebbsError::corrupt(
                "memory record",
                format!("unknown version {version}"),
            ))
        }
    };
    let code = reader.u8()?;
    let kind = MemoryKind::from_code(code)
        .ok_or_else(|| HebbsError::corrupt("memory record", format!("unknown kind {code}")))?;
    let flags = match flags {
        Some(flags) => flags,
        None => reader.u8()?,
    };
    let importance = f32::from_le_bytes(reader.array()?);
    if !(0.0..=1.0).contains(&importance) {
        // Also refuses NaN, which would poison the composite score.
        return Err(HebbsError::corrupt(
            "memory record",
            format!("importance {importance} is outside 0..=1"),
        ));
    }
    let header = RecordHeader {
        kind,
        importance,
        created_at: u64::from_le_bytes(reader.array()?),
        superseded: flags & FLAG_SUPERSEDED != 0,
    };
    Ok((header, flags))
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).expect("field lengths are validated far below 4 GiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn record_round_trips(
            content in ".{1,200}",
            entity in proptest::option::of("[a-z]{1,20}"),
            importance in 0.0f32..=1.0,
            created_at in any::<u64>(),
            updated_at in any::<u64>(),
            key in "[a-z]{1,8}",
            value in any::<i64>(),
            kind_index in 0usize..5,
            superseded in any::<bool>(),
            caller_key in proptest::option::of(".{1,40}"),
        ) {
            let mut context = Map::new();
            context.insert(key, Value::from(value));
            let record = StoredMemory {
                kind: MemoryKind::ALL[kind_index],
                importance,
                created_at,
                updated_at,
                entity_id: entity,
                content,
                context,
                superseded,
                key: caller_key,
            };
            let bytes = record.encode();
            prop_assert_eq!(
                StoredMemory::peek_scoring_fields(&bytes).unwrap(),
                RecordHeader {
                    kind: record.kind,
                    importance: record.importance,
                    created_at: record.created_at,
                    superseded,
                }
            );
            prop_assert_eq!(StoredMemory::decode(&bytes).unwrap(), record);
        }
    }

    #[test]
    fn truncated_record_is_corruption() {
        let record = StoredMemory {
            kind: MemoryKind::Episode,
            importance: 0.5,
            created_at: 1,
            updated_at: 1,
            entity_id: None,
            content: "hello".into(),
            context: Map::new(),
            superseded: false,
            key: None,
        };
        let bytes = record.encode();
        assert!(matches!(
            StoredMemory::decode(&bytes[..bytes.len() - 2]),
            Err(HebbsError::Corruption { .. })
        ));
    }

    #[test]
    fn version_one_records_decode_without_flags() {
        let record = StoredMemory {
            kind: MemoryKind::Insight,
            importance: 0.25,
            created_at: 7,
            updated_at: 9,
            entity_id: Some("acme".into()),
            content: "written before revisions".into(),
            context: Map::new(),
            superseded: false,
            key: None,
        };
        let mut bytes = record.encode();
        bytes.remove(2);
        bytes[0] = RECORD_VERSION_NO_FLAGS;
        assert_eq!(StoredMemory::decode(&bytes).unwrap(), record);
        assert!(
            !StoredMemory::peek_scoring_fields(&bytes)
                .unwrap()
                .superseded
        );
    }
}
