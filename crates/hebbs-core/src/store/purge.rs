//! Physical erasure: the key ranges a forget touched, per column family, and the flush and
//! bottommost compaction that drop the deleted values from every file (WAL, memtables, SSTs).

use std::collections::BTreeMap;

use rocksdb::{BottommostLevelCompaction, CompactOptions};

use super::db::Store;
use crate::error::Result;

/// The smallest and largest key deleted in each column family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TouchedRanges {
    ranges: BTreeMap<&'static str, (Vec<u8>, Vec<u8>)>,
}

impl TouchedRanges {
    /// Widens the range of `cf` to include `key`.
    pub fn touch(&mut self, cf: &'static str, key: &[u8]) {
        match self.ranges.get_mut(cf) {
            Some((low, high)) => {
                if key < low.as_slice() {
                    *low = key.to_vec();
                }
                if key > high.as_slice() {
                    *high = key.to_vec();
                }
            }
            None => {
                self.ranges.insert(cf, (key.to_vec(), key.to_vec()));
            }
        }
    }

    /// Whether nothing was deleted.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The column families touched and their inclusive key ranges.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &[u8], &[u8])> {
        self.ranges
            .iter()
            .map(|(cf, (low, high))| (*cf, low.as_slice(), high.as_slice()))
    }
}

impl Store {
    /// Makes deleted values physically unreadable from the files: flushes the WAL and every
    /// memtable (so the log that held the writes becomes obsolete and is deleted), then compacts
    /// each touched range down to the bottommost level, which drops the deleted values and
    /// their delete markers and removes the SST files that held them.
    pub fn purge(&self, touched: &TouchedRanges) -> Result<()> {
        self.flush()?;
        let mut options = CompactOptions::default();
        options.set_bottommost_level_compaction(BottommostLevelCompaction::Force);
        options.set_exclusive_manual_compaction(true);
        for (cf, low, high) in touched.iter() {
            self.db
                .compact_range_cf_opt(self.cf(cf), Some(low), Some(high), &options);
        }
        Ok(())
    }
}
