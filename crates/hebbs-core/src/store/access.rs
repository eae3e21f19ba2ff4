//! Access statistics (count, last access) and the merge operator that keeps them without a
//! read-modify-write: each recall merges `(1, now)`, RocksDB sums counts and keeps the latest time.

use rocksdb::MergeOperands;

/// How often and how recently a memory was recalled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessStats {
    /// Number of recalls that returned the memory.
    pub count: u64,
    /// Microseconds since the epoch of the latest such recall (0 if never).
    pub last_access_us: u64,
}

impl AccessStats {
    /// Encoded width.
    const LEN: usize = 16;

    /// One access at `now_us`: the operand a recall merges.
    pub fn one(now_us: u64) -> Self {
        Self {
            count: 1,
            last_access_us: now_us,
        }
    }

    /// 16 bytes: count then time, little-endian.
    pub fn encode(self) -> [u8; 16] {
        let mut out = [0; Self::LEN];
        out[..8].copy_from_slice(&self.count.to_le_bytes());
        out[8..].copy_from_slice(&self.last_access_us.to_le_bytes());
        out
    }

    /// Parses [`AccessStats::encode`]; a malformed value counts as no access.
    pub fn decode(bytes: &[u8]) -> Self {
        if bytes.len() != Self::LEN {
            return Self::default();
        }
        Self {
            count: u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
            last_access_us: u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes")),
        }
    }

    /// Both together: counts summed, the later access time.
    pub(super) fn combine(self, other: Self) -> Self {
        Self {
            count: self.count.saturating_add(other.count),
            last_access_us: self.last_access_us.max(other.last_access_us),
        }
    }
}

/// Associative merge: sums counts, keeps the latest access time.
pub fn merge_access(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &MergeOperands,
) -> Option<Vec<u8>> {
    let start = existing.map(AccessStats::decode).unwrap_or_default();
    let merged = operands
        .iter()
        .map(AccessStats::decode)
        .fold(start, AccessStats::combine);
    Some(merged.encode().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips() {
        let stats = AccessStats {
            count: 7,
            last_access_us: 1_700_000_000_000_000,
        };
        assert_eq!(AccessStats::decode(&stats.encode()), stats);
        assert_eq!(AccessStats::decode(b"short"), AccessStats::default());
    }

    #[test]
    fn combine_sums_counts_and_keeps_latest() {
        let merged = AccessStats::one(5).combine(AccessStats::one(3));
        assert_eq!(
            merged,
            AccessStats {
                count: 2,
                last_access_us: 5
            }
        );
    }
}
