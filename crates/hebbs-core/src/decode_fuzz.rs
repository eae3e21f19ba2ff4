//! Fuzzing of every decoder of stored bytes, on stable Rust (cargo-fuzz needs nightly, which
//! this toolchain cannot fetch): proptest mutates a seed corpus of valid encodings (bit flips,
//! truncations, insertions, overwrites) and draws raw bytes, and each decoder must answer
//! without panicking; a mutated encoding it accepts must encode back to bytes that decode to
//! the same value. `HEBBS_FUZZ_CASES` sets the cases per decoder (default
//! [`DEFAULT_FUZZ_CASES`], what CI runs); `HEBBS_FUZZ_CASES=200000 cargo test --release -p
//! hebbs-core decode_fuzz` is the long run. The vector checkpoint's slot map and manifest are
//! fuzzed the same way in `index/vector/slots.rs`.

use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Map};

use crate::memory::{MemoryId, MemoryKind, StoredMemory, TokenVectors, Tombstone};
use crate::store::{
    decode_vector, encode_vector, AccessStats, ChangeOp, ChangelogEntry, TemporalKey,
};

/// Cases per decoder when `HEBBS_FUZZ_CASES` is not set.
pub const DEFAULT_FUZZ_CASES: u32 = 512;

/// The proptest configuration of the fuzz cases.
pub fn fuzz_config() -> ProptestConfig {
    let cases = std::env::var("HEBBS_FUZZ_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(DEFAULT_FUZZ_CASES);
    ProptestConfig::with_cases(cases)
}

/// One change to a byte string.
#[derive(Clone, Debug)]
pub enum Mutation {
    FlipBit(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Overwrite(usize, Vec<u8>),
}

/// Up to eight mutations.
pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit(at, bit)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Mutation::Insert(at, b)),
        (any::<usize>(), vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Mutation::Overwrite(at, b)),
    ];
    vec(one, 1..8)
}

/// `bytes` with `mutations` applied (positions taken modulo the current length).
pub fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for mutation in mutations {
        let len = bytes.len().max(1);
        match mutation {
            Mutation::FlipBit(at, bit) if !bytes.is_empty() => bytes[at % len] ^= 1 << bit,
            Mutation::FlipBit(..) => {}
            Mutation::Truncate(at) => bytes.truncate(at % len),
            Mutation::Insert(at, extra) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, extra.iter().copied());
            }
            Mutation::Overwrite(at, patch) => {
                for (i, byte) in patch.iter().enumerate() {
                    if let Some(slot) = bytes.get_mut((at % len) + i) {
                        *slot = *byte;
                    }
                }
            }
        }
    }
    bytes
}

fn record(seed: u8) -> StoredMemory {
    let mut context = Map::new();
    context.insert("topic".into(), json!("billing"));
    context.insert("n".into(), json!([seed, 2.5, null, {"deep": true}]));
    StoredMemory {
        kind: [
            MemoryKind::Episode,
            MemoryKind::Insight,
            MemoryKind::Revision,
        ][seed as usize % 3],
        importance: f32::from(seed) / 255.0,
        created_at: u64::from(seed) * 1_000_003,
        updated_at: u64::from(seed) * 1_000_033,
        entity_id: seed.is_multiple_of(2).then(|| format!("entity-{seed}")),
        content: format!("memory {seed} with ünïcödé"),
        context: if seed.is_multiple_of(3) {
            Map::new()
        } else {
            context
        },
        superseded: seed.is_multiple_of(4),
        key: seed.is_multiple_of(3).then(|| format!("key {seed}")),
    }
}

fn token_vectors(seed: u8) -> TokenVectors {
    let dimension = 4 + usize::from(seed % 4);
    let tokens = 1 + usize::from(seed % 5);
    TokenVectors {
        dimension,
        codes: (0..dimension * tokens)
            .map(|i| (i as i8).wrapping_mul(seed as i8))
            .collect(),
        scales: (0..tokens).map(|i| 0.01 + i as f32).collect(),
    }
}

fn tombstone(seed: u8) -> Tombstone {
    Tombstone {
        id: MemoryId::new(),
        entity_id: (!seed.is_multiple_of(2)).then(|| format!("e{seed}")),
        kind: MemoryKind::Episode,
        created_at: u64::from(seed),
        forgotten_at: u64::from(seed) + 7,
        content_sha256: [seed; 32],
    }
}

proptest! {
    #![proptest_config(fuzz_config())]

    #[test]
    fn records(seed in any::<u8>(), changes in mutations(), raw in vec(any::<u8>(), 0..96)) {
        let _ = StoredMemory::decode(&raw);
        let bytes = mutate(record(seed).encode(), &changes);
        if let Ok(decoded) = StoredMemory::decode(&bytes) {
            prop_assert_eq!(StoredMemory::decode(&decoded.encode()).unwrap(), decoded);
        }
    }

    #[test]
    fn token_vector_blobs(seed in any::<u8>(), changes in mutations(), raw in vec(any::<u8>(), 0..96)) {
        let _ = TokenVectors::decode(&raw);
        let bytes = mutate(token_vectors(seed).encode(), &changes);
        if let Ok(decoded) = TokenVectors::decode(&bytes) {
            prop_assert_eq!(TokenVectors::decode(&decoded.encode()).unwrap(), decoded);
        }
    }

    #[test]
    fn tombstones(seed in any::<u8>(), changes in mutations(), raw in vec(any::<u8>(), 0..96)) {
        let stone = tombstone(seed);
        let key = *stone.id.as_bytes();
        let _ = Tombstone::decode(&raw, &raw);
        let bytes = mutate(stone.encode(), &changes);
        let mutated_key = mutate(key.to_vec(), &changes);
        let _ = Tombstone::decode(&mutated_key, &bytes);
        if let Ok(decoded) = Tombstone::decode(&key, &bytes) {
            prop_assert_eq!(Tombstone::decode(&key, &decoded.encode()).unwrap(), decoded);
        }
    }

    #[test]
    fn keys_changelog_vectors_and_counters(
        seq in any::<u64>(),
        changes in mutations(),
        raw in vec(any::<u8>(), 0..96),
    ) {
        let entry = ChangelogEntry { seq, op: ChangeOp::Delete, id: MemoryId::new() };
        let key = mutate(ChangelogEntry::key(seq).to_vec(), &changes);
        let value = mutate(entry.value().to_vec(), &changes);
        let _ = ChangelogEntry::decode(&key, &value);
        let _ = ChangelogEntry::decode(&raw, &raw);
        let temporal = TemporalKey { entity: "acme".into(), created_at: seq, id: entry.id };
        if let Ok(decoded) = TemporalKey::decode(&mutate(temporal.encode(), &changes)) {
            prop_assert_eq!(TemporalKey::decode(&decoded.encode()).unwrap(), decoded);
        }
        let _ = TemporalKey::decode(&raw);
        if let Ok(decoded) = decode_vector(&mutate(encode_vector(&[1.0, -2.0, 0.5]), &changes)) {
            prop_assert_eq!(decode_vector(&encode_vector(&decoded)).unwrap().len(), decoded.len());
        }
        let _ = decode_vector(&raw);
        let _ = AccessStats::decode(&raw);
    }
}
