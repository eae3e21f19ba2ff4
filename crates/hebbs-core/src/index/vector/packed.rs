//! [`PackedRows`]: an int8 copy of a remembered list's `f32` rows, side by side in memory, so
//! a filter used call after call is scanned over a quarter of the bytes, in order, instead of
//! over its rows scattered through the index (a scan of 10,000 rows at 1M reads 15 MB from
//! wherever they lie); and the bounds that keep the answer exact.
//!
//! Each row is encoded as the int8 format encodes it (`format.rs`: codes and one scale a row),
//! and keeps beside it `|x|` and the norm of what the encoding lost, `|x - x̂|`. The query is
//! encoded the same way, and since `q·x - q̂·x̂ = (q - q̂)·x + q̂·(x - x̂)`, the integer dot
//! product `q̂·x̂` is within `|q - q̂| |x| + |q̂| |x - x̂|` of `q·x` (Cauchy-Schwarz), plus the
//! rounding of the two sums ([`rounding`]). With `l` the `k`-th largest lower bound, a row whose
//! upper bound is below `l` has `k` rows surely nearer than it, so only the others
//! ([`PackedRows::candidates`]) are scored with their `f32` rows, and the `k` nearest of those
//! are the `k` nearest of the list, exactly as a scan of every row would find them.

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

use super::dot::dot_in;
use super::format::{Codec, Int8};
use super::scan::SCAN_SLOTS_PER_TASK;
use super::vectors::VectorView;

/// The shortest list worth packing: below it the `f32` rows are a few hundred KB.
pub const PACK_MIN_ROWS: usize = 256;
/// The most bytes one list's packed rows take (16 remembered lists: at most 128 MiB).
pub const PACK_MAX_BYTES: usize = 8 << 20;
/// Bytes kept a row beside its codes: `|x|` and `|x - x̂|`.
const NORM_BYTES: usize = 8;
/// Rows ahead of the one being packed whose first cache line is asked for (as the scan does).
const PACK_PREFETCH_AHEAD: usize = 4;
/// The factor a norm summed in `f32` is rounded up by (a sum of 384 terms is off by at most
/// about 50 `f32::EPSILON` relative); in a bound the norms multiply quantisation errors of about
/// 0.01, so what a longer vector's sum may be off by more stays far inside [`rounding`]'s slack.
const ROUNDED_UP: f32 = 1.0 + 1e-4;

/// The packed rows of one list, in the list's order.
#[derive(Debug)]
pub struct PackedRows {
    /// Elements of one row (codes and scale).
    stride: usize,
    /// The rows, one after the other.
    codes: Vec<i8>,
    /// Each row's `|x|`.
    norms: Vec<f32>,
    /// Each row's `|x - x̂|`.
    lost: Vec<f32>,
}

impl PackedRows {
    /// The rows of `slots` from `view`, packed; None when the list is shorter than
    /// [`PACK_MIN_ROWS`], its rows would take more than [`PACK_MAX_BYTES`] or a slot has no row.
    pub fn pack(view: &VectorView<f32>, slots: &[u32], dimension: usize) -> Option<Self> {
        let stride = Int8::stride(dimension);
        if slots.len() < PACK_MIN_ROWS || slots.len() * (stride + NORM_BYTES) > PACK_MAX_BYTES {
            return None;
        }
        let parts: Vec<Option<Self>> = slots
            .par_chunks(SCAN_SLOTS_PER_TASK)
            .map(|part| {
                Arch::new().dispatch(Pack {
                    view,
                    slots: part,
                    stride,
                })
            })
            .collect();
        let mut whole = Self::with_capacity(stride, slots.len());
        for part in parts {
            let part = part?;
            whole.codes.extend(part.codes);
            whole.norms.extend(part.norms);
            whole.lost.extend(part.lost);
        }
        Some(whole)
    }

    /// No rows yet, room for `rows`.
    fn with_capacity(stride: usize, rows: usize) -> Self {
        Self {
            stride,
            codes: Vec::with_capacity(rows * stride),
            norms: Vec::with_capacity(rows),
            lost: Vec::with_capacity(rows),
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.norms.len()
    }

    /// The positions (in the list, ascending) of the rows that may be among the `k` nearest
    /// `query` (normalised, of the rows' dimension): a superset of them, every row when `k`
    /// is the list's length or more.
    pub fn candidates(&self, query: &[f32], k: usize) -> Vec<usize> {
        let k = k.min(self.len());
        if k == 0 {
            return Vec::new();
        }
        if k == self.len() {
            return (0..self.len()).collect();
        }
        let mut encoded_query = Vec::with_capacity(self.stride);
        let (query_norm, query_lost) = Arch::new().dispatch(Encode {
            vector: query,
            codes: &mut encoded_query,
            error: &mut Vec::new(),
        });
        let query_hat_norm = query_norm + query_lost;
        let slack = rounding(query.len());
        let approximate = self.dots(&encoded_query);
        let bound =
            |at: usize| query_lost * self.norms[at] + query_hat_norm * self.lost[at] + slack;
        let mut lower: Vec<f32> = approximate
            .iter()
            .enumerate()
            .map(|(at, dot)| dot - bound(at))
            .collect();
        let (_, kth, _) = lower.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
        let floor = *kth;
        approximate
            .iter()
            .enumerate()
            .filter(|(at, dot)| **dot + bound(*at) >= floor)
            .map(|(at, _)| at)
            .collect()
    }

    /// The integer dot product of each row with the encoded query, in order, on the thread
    /// pool in parts as the `f32` scan is.
    fn dots(&self, query: &[i8]) -> Vec<f32> {
        let part_len = SCAN_SLOTS_PER_TASK * self.stride;
        let part = |rows: &[i8]| {
            Arch::new().dispatch(Dots {
                query,
                rows,
                stride: self.stride,
            })
        };
        if self.codes.len() <= part_len {
            return part(&self.codes);
        }
        self.codes
            .par_chunks(part_len)
            .map(part)
            .collect::<Vec<_>>()
            .concat()
    }
}

/// The largest rounding error of an `f32` dot product of two unit vectors of `dimension`
/// (each of the scan's sums adds at most one relative `f32::EPSILON` a term, and the integer
/// sum's scaling two more), doubled for the bound's own arithmetic.
fn rounding(dimension: usize) -> f32 {
    2.0 * (dimension as f32 + 4.0) * f32::EPSILON
}

/// Appends the int8 row of `vector` to `codes`; answers `|x|` and `|x - x̂|`, each rounded up
/// by more than their `f32` sums can be off. `error` is scratch room for `x - x̂`.
struct Encode<'a> {
    vector: &'a [f32],
    codes: &'a mut Vec<i8>,
    error: &'a mut Vec<f32>,
}

impl WithSimd for Encode<'_> {
    type Output = (f32, f32);

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        let start = self.codes.len();
        Int8::encode_into(self.vector, self.codes);
        let (values, scale) = Int8::split(&self.codes[start..]);
        self.error.resize(self.vector.len(), 0.0);
        for ((error, x), code) in self.error.iter_mut().zip(self.vector).zip(values) {
            *error = x - f32::from(*code) * scale;
        }
        // The norms through the dot product's kernel: a plain sum would stay scalar.
        let norm = dot_in(simd, self.vector, self.vector).sqrt();
        let lost = dot_in(simd, self.error, self.error).sqrt();
        (norm * ROUNDED_UP, lost * ROUNDED_UP)
    }
}

/// One part of a pack as one SIMD dispatch: None if a slot has no row.
struct Pack<'a> {
    view: &'a VectorView<f32>,
    slots: &'a [u32],
    stride: usize,
}

impl WithSimd for Pack<'_> {
    type Output = Option<PackedRows>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        let mut packed = PackedRows::with_capacity(self.stride, self.slots.len());
        let mut error = Vec::new();
        for (at, slot) in self.slots.iter().enumerate() {
            if let Some(ahead) = self.slots.get(at + PACK_PREFETCH_AHEAD) {
                self.view.prefetch(*ahead);
            }
            let (norm, lost) = Encode {
                vector: self.view.get(*slot)?,
                codes: &mut packed.codes,
                error: &mut error,
            }
            .with_simd(simd);
            packed.norms.push(norm);
            packed.lost.push(lost);
        }
        Some(packed)
    }
}

/// One part of the packed scan as one SIMD dispatch.
struct Dots<'a> {
    query: &'a [i8],
    rows: &'a [i8],
    stride: usize,
}

impl WithSimd for Dots<'_> {
    type Output = Vec<f32>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        // A plain loop, not `map`: a closure would lose the dispatch's target features.
        let mut out = Vec::with_capacity(self.rows.len() / self.stride);
        for row in self.rows.chunks_exact(self.stride) {
            out.push(1.0 - Int8::distance_in(simd, self.query, row));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::dot;
    use super::super::format::F32;
    use super::super::graph::tests::unit;
    use super::super::graph::HnswGraph;
    use super::*;

    /// `count` unit vectors in a few tight clusters (near-ties stress the bounds).
    fn clustered(seed: u64, count: usize, dimension: usize) -> Vec<Vec<f32>> {
        let centres: Vec<Vec<f32>> = (0..4).map(|c| unit(seed ^ (c << 32), dimension)).collect();
        (0..count as u64)
            .map(|i| {
                let noise = unit(seed.wrapping_add(i + 1), dimension);
                let centre = &centres[(i % 4) as usize];
                let mut vector: Vec<f32> = centre
                    .iter()
                    .zip(&noise)
                    .map(|(c, n)| c + 0.05 * n)
                    .collect();
                assert!(super::super::normalize(&mut vector));
                vector
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// The candidates hold the `k` nearest of the list by the `f32` dot product the scan
        /// uses: the `k` best exact scores among them are the `k` best of every row.
        #[test]
        fn the_candidates_hold_the_k_nearest(
            seed in any::<u64>(),
            rows in 2 * PACK_MIN_ROWS..1500usize,
            k in 1usize..80,
        ) {
            let dimension = 48;
            let graph = HnswGraph::<F32>::new(dimension, 16, 100);
            let data = clustered(seed, rows, dimension);
            for vector in &data {
                graph.push(vector);
            }
            // Every other slot, in slot order, as a resolution lists them.
            let slots: Vec<u32> = (0..rows as u32).step_by(2).collect();
            let packed = PackedRows::pack(&graph.vectors().view(), &slots, dimension)
                .expect("a list in the size range is packed");
            prop_assert_eq!(packed.len(), slots.len());
            let query = clustered(!seed, 1, dimension).remove(0);
            let exact: Vec<f32> = slots.iter().map(|s| dot(&query, &data[*s as usize])).collect();
            let best = |positions: &mut dyn Iterator<Item = usize>| {
                let mut scores: Vec<f32> = positions.map(|at| exact[at]).collect();
                scores.sort_by(|a, b| b.total_cmp(a));
                scores.truncate(k);
                scores
            };
            let candidates = packed.candidates(&query, k);
            prop_assert!(candidates.len() >= k.min(slots.len()));
            prop_assert!(candidates.windows(2).all(|w| w[0] < w[1]));
            prop_assert_eq!(
                best(&mut candidates.iter().copied()),
                best(&mut (0..slots.len()))
            );
        }
    }

    #[test]
    fn most_rows_are_ruled_out_and_sizes_outside_the_range_are_not_packed() {
        let dimension = 384;
        let graph = HnswGraph::<F32>::new(dimension, 16, 100);
        for i in 0..4000 {
            graph.push(&unit(i, dimension));
        }
        let view = graph.vectors().view();
        let slots: Vec<u32> = (0..4000).collect();
        let packed = PackedRows::pack(&view, &slots, dimension).unwrap();
        let candidates = packed.candidates(&unit(9999, dimension), 10);
        assert!(candidates.len() < 400, "{} candidates", candidates.len());
        assert_eq!(packed.candidates(&unit(1, dimension), 4000).len(), 4000);
        assert!(packed.candidates(&unit(1, dimension), 0).is_empty());
        assert!(PackedRows::pack(&view, &slots[..PACK_MIN_ROWS - 1], dimension).is_none());
        let past = PACK_MAX_BYTES / (Int8::stride(dimension) + NORM_BYTES) + 1;
        let long: Vec<u32> = (0..past as u32).map(|i| i % 4000).collect();
        assert!(PackedRows::pack(&view, &long, dimension).is_none());
        // A slot without a row (not stored) leaves the list unpacked.
        let missing: Vec<u32> = (0..PACK_MIN_ROWS as u32).chain([5000]).collect();
        assert!(PackedRows::pack(&view, &missing, dimension).is_none());
    }
}
