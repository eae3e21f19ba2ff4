//! The index of context values (`context_values` column family): which memories hold which
//! scalar at which context path, and which kind, creation time and importance each has, so a
//! filtered recall can count and list the memories a condition selects without reading their
//! records (`filter/plan.rs`).
//!
//! Key: `namespace ‖ path ‖ 0x00 ‖ encoded value ‖ id (16 bytes)`, empty value. The namespace
//! byte is [`CONTEXT`] for a context path (the dotted key, `ticket.priority`; a key whose name
//! holds a `.` or a NUL byte cannot be named by a filter and is not indexed) or
//! [`IndexedField::byte`] for a record field (with an empty path). Every scalar is indexed under its path, and so is every scalar
//! element of an array (so `$contains` and `$in` find them too): what a lookup returns is a
//! superset of the memories a condition selects, which the caller then checks record by
//! record. The value encoding orders like the values it encodes, numbers by value (as f64) and
//! strings by bytes, so a range of numbers is a range of keys:
//!
//! - `null`: `0x01`; `false` / `true`: `0x02 0x00` / `0x02 0x01`;
//! - a number: `0x03` and the f64 with its sign bit flipped (all bits when negative), big-endian;
//! - a string: `0x04`, its bytes with `0x00` escaped as `0x00 0xFF`, then `0x00 0x00`.
//!
//! The entries are written in the batch that writes the record (a memory's context never
//! changes after it is written: a revision is a new memory) and deleted with it. A store written
//! before the index existed is indexed once when it opens ([`Store::index_context_values`]).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::batch::StoreBatch;
use super::column_families::{CONTEXT_VALUES, MEMORIES, META};
use super::db::Store;
use super::lookup_cache::IndexChange;
use crate::error::Result;
use crate::memory::{MemoryId, StoredMemory};

/// The meta key set once every record is in the index.
const META_CONTEXT_INDEXED: &[u8] = b"context_values_indexed";
/// Records indexed per write batch when an older store is indexed on open.
const BACKFILL_BATCH: usize = 4096;

/// The namespace of context paths.
const CONTEXT: u8 = b'c';

const TAG_NULL: u8 = 0x01;
const TAG_BOOL: u8 = 0x02;
const TAG_NUMBER: u8 = 0x03;
const TAG_STRING: u8 = 0x04;

/// A record field the index holds beside the context values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexedField {
    /// The memory's kind, by name.
    Kind,
    /// Its creation time, microseconds.
    CreatedAt,
    /// Its importance.
    Importance,
}

impl IndexedField {
    fn byte(self) -> u8 {
        match self {
            Self::Kind => b'k',
            Self::CreatedAt => b't',
            Self::Importance => b'i',
        }
    }

    fn prefix(self) -> Vec<u8> {
        vec![self.byte(), 0]
    }
}

/// Where in the index a lookup reads: a context path or a record field.
#[derive(Clone, Copy, Debug)]
pub enum IndexedPath<'a> {
    /// A context path, one element per level.
    Context(&'a [String]),
    /// A record field.
    Field(IndexedField),
}

/// What a lookup in the index asks for.
#[derive(Clone, Copy, Debug)]
pub enum ValueLookup<'a> {
    /// The memories holding this scalar at the path (or in an array there).
    Equal(&'a Value),
    /// The memories holding any scalar at the path (`$exists`).
    Any,
    /// The memories holding a number in `lower..=upper` at the path (either bound open).
    NumberRange {
        /// The least number, if bounded.
        lower: Option<f64>,
        /// The greatest number, if bounded.
        upper: Option<f64>,
    },
}

/// The index key prefix `namespace ‖ path ‖ 0x00` of a context path, None when a filter
/// cannot name it.
fn path_prefix(path: &[String]) -> Option<Vec<u8>> {
    if path
        .iter()
        .any(|key| key.is_empty() || key.contains('.') || key.contains('\0'))
    {
        return None;
    }
    let mut key = vec![CONTEXT];
    key.extend(path.join(".").into_bytes());
    key.push(0);
    Some(key)
}

/// The order-keeping encoding of a scalar, None for an array or object.
fn encode_scalar(value: &Value, out: &mut Vec<u8>) -> bool {
    match value {
        Value::Null => out.push(TAG_NULL),
        Value::Bool(flag) => out.extend([TAG_BOOL, u8::from(*flag)]),
        Value::Number(number) => match number.as_f64() {
            Some(float) => {
                out.push(TAG_NUMBER);
                out.extend(sortable_f64(float));
            }
            None => return false,
        },
        Value::String(text) => {
            out.push(TAG_STRING);
            for byte in text.bytes() {
                out.push(byte);
                if byte == 0 {
                    out.push(0xFF);
                }
            }
            out.extend([0, 0]);
        }
        Value::Array(_) | Value::Object(_) => return false,
    }
    true
}

/// An f64's bits, ordered like the numbers (negative zero as zero).
fn sortable_f64(value: f64) -> [u8; 8] {
    let bits = (value + 0.0).to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    ordered.to_be_bytes()
}

/// Every index key of a memory, without the id.
fn entries(record: &StoredMemory) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    collect(&record.context, &mut path, &mut found);
    let fields = [
        (
            IndexedField::Kind,
            Value::String(record.kind.as_str().into()),
        ),
        (
            IndexedField::CreatedAt,
            Value::Number(record.created_at.into()),
        ),
        (
            IndexedField::Importance,
            Value::Number(crate::filter::decimal(record.importance)),
        ),
    ];
    for (field, value) in fields {
        let mut key = field.prefix();
        if encode_scalar(&value, &mut key) {
            found.push(key);
        }
    }
    found.sort();
    found.dedup();
    found
}

fn collect(object: &Map<String, Value>, path: &mut Vec<String>, found: &mut Vec<Vec<u8>>) {
    for (key, value) in object {
        path.push(key.clone());
        match value {
            Value::Object(inner) => collect(inner, path, found),
            Value::Array(items) => {
                for item in items {
                    push_entry(path, item, found);
                }
            }
            scalar => push_entry(path, scalar, found),
        }
        path.pop();
    }
}

fn push_entry(path: &[String], value: &Value, found: &mut Vec<Vec<u8>>) {
    if let Some(mut key) = path_prefix(path) {
        if encode_scalar(value, &mut key) {
            found.push(key);
        }
    }
}

/// The index keys `lookup` at `path` reads, `lower..upper`; None when the path cannot be
/// indexed or the value is not a scalar.
fn lookup_range(path: IndexedPath<'_>, lookup: ValueLookup<'_>) -> Option<(Vec<u8>, Vec<u8>)> {
    let prefix = match path {
        IndexedPath::Context(path) => path_prefix(path)?,
        IndexedPath::Field(field) => field.prefix(),
    };
    Some(match lookup {
        ValueLookup::Any => {
            let mut upper = prefix.clone();
            upper.push(0xFF);
            (prefix, upper)
        }
        ValueLookup::Equal(value) => {
            let mut key = prefix.clone();
            if !encode_scalar(value, &mut key) {
                return None;
            }
            let mut upper = key.clone();
            upper.extend([0xFF; MemoryId::LEN + 1]);
            (key, upper)
        }
        ValueLookup::NumberRange { lower, upper } => {
            let mut low = prefix.clone();
            low.push(TAG_NUMBER);
            low.extend(sortable_f64(lower.unwrap_or(f64::NEG_INFINITY)));
            let mut high = prefix.clone();
            high.push(TAG_NUMBER);
            high.extend(sortable_f64(upper.unwrap_or(f64::INFINITY)));
            high.extend([0xFF; MemoryId::LEN + 1]);
            (low, high)
        }
    })
}

fn with_id(mut key: Vec<u8>, id: &MemoryId) -> Vec<u8> {
    key.extend_from_slice(id.as_bytes());
    key
}

impl StoreBatch<'_> {
    /// Indexes the context values of memory `id`.
    pub(super) fn put_context_values(&mut self, id: &MemoryId, record: &StoredMemory) {
        let cf = self.store.cf(CONTEXT_VALUES);
        for key in entries(record) {
            let key = with_id(key, id);
            self.batch.put_cf(cf, &key, []);
            self.context_changes.push(IndexChange {
                key,
                id: *id,
                added: true,
            });
        }
    }

    /// Drops the context values of memory `id` from the index.
    pub(super) fn delete_context_values(&mut self, id: &MemoryId, record: &StoredMemory) {
        for key in entries(record) {
            let key = with_id(key, id);
            self.delete(CONTEXT_VALUES, &key);
            self.context_changes.push(IndexChange {
                key,
                id: *id,
                added: false,
            });
        }
    }
}

impl Store {
    /// The memories that hold what `lookup` asks for at `path`, at most `limit`: None when
    /// there are more (the condition is not selective) or the path cannot be indexed. A
    /// superset of the memories the condition selects (see the module docs). A remembered
    /// answer is the cache's own list, the same allocation call after call until a write
    /// changes it.
    pub fn context_lookup(
        &self,
        path: IndexedPath<'_>,
        lookup: ValueLookup<'_>,
        limit: usize,
    ) -> Result<Option<Arc<[MemoryId]>>> {
        let Some((lower, upper)) = lookup_range(path, lookup) else {
            return Ok(None);
        };
        let key = (lower, upper, limit);
        let (cached, epoch) = self.lookups.get(&key);
        if let Some(answer) = cached {
            return Ok(answer);
        }
        let answer: Option<Arc<[MemoryId]>> =
            self.scan_lookup(&key.0, &key.1, limit)?.map(Arc::from);
        self.lookups.fill(key, answer.clone(), epoch);
        Ok(answer)
    }

    /// The ids of the index keys in `lower..upper`, None when there are more than `limit`.
    fn scan_lookup(
        &self,
        lower: &[u8],
        upper: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<MemoryId>>> {
        let mut options = rocksdb::ReadOptions::default();
        options.set_iterate_upper_bound(upper.to_vec());
        // The raw iterator lends each key: no allocation per key, as a broad filter's scan of
        // up to `limit` keys would otherwise make two.
        let mut iter = self
            .db
            .raw_iterator_cf_opt(self.cf(CONTEXT_VALUES), options);
        iter.seek(lower);
        let mut found = Vec::new();
        while let Some(key) = iter.key() {
            if found.len() == limit {
                return Ok(None);
            }
            if let Some(id) = key
                .len()
                .checked_sub(MemoryId::LEN)
                .and_then(|at| MemoryId::from_slice(&key[at..], "id").ok())
            {
                found.push(id);
            }
            iter.next();
        }
        iter.status()?;
        Ok(Some(found))
    }

    /// Indexes the context values of every record if the store was written before the index
    /// existed (once: a meta key records that it is done).
    pub(super) fn index_context_values(&self) -> Result<()> {
        if self
            .db
            .get_cf(self.cf(META), META_CONTEXT_INDEXED)?
            .is_some()
        {
            return Ok(());
        }
        let mut batch = self.batch();
        let mut pending = 0;
        for item in self
            .db
            .iterator_cf(self.cf(MEMORIES), rocksdb::IteratorMode::Start)
        {
            let (key, value) = item?;
            let id = MemoryId::from_slice(&key, "id")?;
            batch.put_context_values(&id, &StoredMemory::decode(&value)?);
            pending += 1;
            if pending == BACKFILL_BATCH {
                self.commit(std::mem::replace(&mut batch, self.batch()), true)?;
                pending = 0;
            }
        }
        batch.batch.put_cf(self.cf(META), META_CONTEXT_INDEXED, [1]);
        self.commit(batch, true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lookup_cache::LOOKUP_CACHE_MAX_CHANGES;
    use super::*;
    use proptest::prelude::*;

    /// A record with `context`.
    fn record_of(context: Value) -> StoredMemory {
        StoredMemory {
            kind: crate::memory::MemoryKind::Episode,
            importance: 0.5,
            created_at: 1,
            updated_at: 1,
            entity_id: None,
            content: "a".into(),
            context: serde_json::from_value(context).unwrap(),
            superseded: false,
            key: None,
        }
    }

    /// A record whose context holds `channel` and the array `tags`.
    fn tagged(channel: &str, tags: &[u8]) -> StoredMemory {
        record_of(serde_json::json!({"channel": channel, "tags": tags}))
    }

    /// A write of the model: put a memory, delete one, or put many at once.
    #[derive(Clone, Debug)]
    enum Write {
        Put(u8, Vec<u8>),
        Delete(usize),
        Bulk(usize),
    }

    fn write() -> impl Strategy<Value = Write> {
        prop_oneof![
            4 => (0u8..3, proptest::collection::vec(0u8..4, 0..3))
                .prop_map(|(channel, tags)| Write::Put(channel, tags)),
            2 => any::<usize>().prop_map(Write::Delete),
            1 => (LOOKUP_CACHE_MAX_CHANGES / 4..LOOKUP_CACHE_MAX_CHANGES / 2).prop_map(Write::Bulk),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Each cached lookup answers what the index holds after every write: the cache is
        /// brought up to date by single writes and started over by bulk ones.
        #[test]
        fn cached_lookups_follow_every_write(writes in proptest::collection::vec(write(), 1..40)) {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            let mut live: Vec<(MemoryId, StoredMemory)> = Vec::new();
            let channel_path = ["channel".to_owned()];
            let tags_path = ["tags".to_owned()];
            let email = Value::from("c0");
            let tag = Value::from(1);
            for (seq, write) in writes.into_iter().enumerate() {
                let mut batch = store.batch();
                let mut puts = Vec::new();
                match write {
                    Write::Put(channel, tags) => puts.push((channel, tags)),
                    Write::Bulk(count) => {
                        puts.extend((0..count).map(|i| ((i % 3) as u8, vec![(i % 4) as u8])));
                    }
                    Write::Delete(at) if !live.is_empty() => {
                        let (id, record) = live.swap_remove(at % live.len());
                        batch.delete_memory(&id, &record, seq as u64).unwrap();
                    }
                    Write::Delete(_) => {}
                }
                for (channel, tags) in puts {
                    let id = MemoryId::new();
                    let record = tagged(&format!("c{channel}"), &tags);
                    batch.put_memory(&id, &record, &[1.0, 0.0], &[], seq as u64);
                    live.push((id, record));
                }
                store.commit(batch, false).unwrap();
                for limit in [3, 1000] {
                    let lookups = [
                        (IndexedPath::Context(&channel_path), ValueLookup::Equal(&email)),
                        (IndexedPath::Context(&tags_path), ValueLookup::Equal(&tag)),
                        (IndexedPath::Context(&channel_path), ValueLookup::Any),
                    ];
                    for (which, (path, lookup)) in lookups.into_iter().enumerate() {
                        let mut expected: Vec<MemoryId> = live
                            .iter()
                            .filter(|(_, record)| match which {
                                0 => record.context["channel"] == email,
                                1 => record.context["tags"].as_array().unwrap().contains(&tag),
                                _ => true,
                            })
                            .map(|(id, _)| *id)
                            .collect();
                        expected.sort();
                        // An array holding the value twice names its memory twice.
                        let got = store.context_lookup(path, lookup, limit).unwrap().map(|ids| {
                            let mut ids = ids.to_vec();
                            ids.sort();
                            ids
                        });
                        let mut unique = got.clone();
                        if let Some(ids) = &mut unique {
                            ids.dedup();
                        }
                        let (lower, upper) = lookup_range(path, lookup).unwrap();
                        let fresh = store.scan_lookup(&lower, &upper, limit).unwrap().map(|mut ids| {
                            ids.sort();
                            ids
                        });
                        prop_assert_eq!(&got, &fresh, "lookup {} limit {}", which, limit);
                        if let Some(ids) = unique {
                            prop_assert_eq!(ids, expected, "lookup {} limit {}", which, limit);
                        }
                    }
                }
            }
        }

        #[test]
        fn numbers_order_like_their_keys(a in any::<f64>(), b in any::<f64>()) {
            prop_assume!(a.is_finite() && b.is_finite());
            prop_assert_eq!(a.partial_cmp(&b).unwrap(), sortable_f64(a).cmp(&sortable_f64(b)));
        }

        #[test]
        fn strings_order_like_their_keys(a in ".{0,6}", b in ".{0,6}") {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            encode_scalar(&Value::String(a.clone()), &mut x);
            encode_scalar(&Value::String(b.clone()), &mut y);
            prop_assert_eq!(a.as_bytes().cmp(b.as_bytes()), x.cmp(&y));
        }
    }

    #[test]
    fn nested_objects_and_array_elements_are_indexed_under_their_path_and_dotted_keys_never() {
        let record = record_of(serde_json::json!({
            "channel": "email",
            "ticket": {"priority": 2, "tags": ["a", "b", ["nested"]]},
            "dotted.key": {"x": 1, "y": [2, "three"]},
            "empty": {}
        }));
        let paths: Vec<String> = entries(&record)
            .iter()
            .map(|key| {
                let end = key.iter().position(|byte| *byte == 0).unwrap();
                String::from_utf8(key[..end].to_vec()).unwrap()
            })
            .collect();
        assert_eq!(
            paths,
            [
                "cchannel",
                "cticket.priority",
                "cticket.tags",
                "cticket.tags",
                "i",
                "k",
                "t"
            ]
        );
    }
}
