//! The exact scan: the distances of many rows to one query at once, for a filter's planned
//! memories and the brute force behind a walk that finds too few. A scan of rows scattered
//! through the index is bound by memory latency, not arithmetic, so it asks for each row
//! [`SCAN_PREFETCH_AHEAD`] rows before it scores it, and a long scan is split into parts of
//! [`SCAN_SLOTS_PER_TASK`] scored on the thread pool (the two cores' loads overlap). Each part
//! is one SIMD dispatch with its distances in a plain loop, as the graph search does (see
//! `graph.rs`).

use pulp::{Arch, Simd, WithSimd};
use rayon::prelude::*;

use super::format::Codec;
use super::graph::HnswGraph;
use super::vectors::VectorView;

/// Rows a task of the thread pool scores: a longer scan is split into parts this long.
pub const SCAN_SLOTS_PER_TASK: usize = 512;
/// Rows ahead of the one being scored whose first cache line the scan asks for.
const SCAN_PREFETCH_AHEAD: usize = 4;

/// The distance of each of `slots` to normalised `query`, in order (None for a slot not
/// stored yet), in the graph's format.
pub fn distances<C: Codec>(graph: &HnswGraph<C>, query: &[f32], slots: &[u32]) -> Vec<Option<f32>> {
    let query = C::encode(query);
    let view = graph.vectors().view();
    let part = |slots: &[u32]| {
        Arch::new().dispatch(Scan::<C> {
            query: &query,
            view: &view,
            slots,
        })
    };
    if slots.len() <= SCAN_SLOTS_PER_TASK {
        return part(slots);
    }
    slots
        .par_chunks(SCAN_SLOTS_PER_TASK)
        .map(part)
        .collect::<Vec<_>>()
        .concat()
}

/// One part of a scan as one SIMD dispatch.
struct Scan<'a, C: Codec> {
    query: &'a [C::Elem],
    view: &'a VectorView<C::Elem>,
    slots: &'a [u32],
}

impl<C: Codec> WithSimd for Scan<'_, C> {
    type Output = Vec<Option<f32>>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        let mut out = Vec::with_capacity(self.slots.len());
        for (at, slot) in self.slots.iter().enumerate() {
            if let Some(ahead) = self.slots.get(at + SCAN_PREFETCH_AHEAD) {
                self.view.prefetch(*ahead);
            }
            // Not `Option::map`: a closure would lose the dispatch's target features.
            let mut distance = None;
            if let Some(row) = self.view.get(*slot) {
                distance = Some(C::distance_in(simd, self.query, row));
            }
            out.push(distance);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::dot;
    use super::super::format::{Int8, F32};
    use super::super::graph::tests::unit;
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(8))]

        /// Against one plain dot product a slot, in the caller's order, on both sides of the
        /// split into parts, with slots past the stored ones answered None.
        #[test]
        fn each_slot_gets_its_own_distance_in_order(
            seed in any::<u64>(),
            picks in prop::collection::vec(0u32..5000, 0..3 * SCAN_SLOTS_PER_TASK),
        ) {
            let dimension = 24;
            let stored = 4900;
            let graph = HnswGraph::<F32>::new(dimension, 16, 100);
            let data: Vec<Vec<f32>> = (0..stored).map(|i| unit(seed ^ i, dimension)).collect();
            for vector in &data {
                graph.push(vector);
            }
            let query = unit(!seed, dimension);
            let found = distances(&graph, &query, &picks);
            prop_assert_eq!(found.len(), picks.len());
            for (slot, distance) in picks.iter().zip(found) {
                match data.get(*slot as usize) {
                    Some(vector) => {
                        let expected = 1.0 - dot(&query, vector);
                        prop_assert!((distance.unwrap() - expected).abs() < 1e-5);
                    }
                    None => prop_assert_eq!(distance, None),
                }
            }
        }
    }

    #[test]
    fn an_int8_scan_is_the_graphs_own_distance() {
        let dimension = 32;
        let graph = HnswGraph::<Int8>::new(dimension, 16, 100);
        let data: Vec<Vec<f32>> = (0..3000).map(|i| unit(i, dimension)).collect();
        for vector in &data {
            graph.push(vector);
        }
        let query = unit(99, dimension);
        let slots: Vec<u32> = (0..3000).rev().collect();
        let scorer = graph.scorer(&query);
        let found = distances(&graph, &query, &slots);
        for (slot, distance) in slots.iter().zip(found) {
            assert_eq!(distance, scorer(*slot as usize));
        }
    }
}
