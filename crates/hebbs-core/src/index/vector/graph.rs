//! [`HnswGraph`]: the hierarchical navigable small world graph (Malkov and Yashunin 2016),
//! built and searched the way hnswlib does, over one copy of each vector.
//!
//! - **Insert** (hnswlib's `addPoint`): a node's level is drawn from the geometric distribution
//!   with ratio `1/M` (from a hash of its slot, so a rebuild draws the same levels); a greedy
//!   walk from the entry point down to its level, then on each of its layers a best-first
//!   search with `ef_construction` candidates, the neighbour-selection heuristic (keep a
//!   candidate only if it is closer to the new node than to every neighbour already kept) down
//!   to `M` links, and the reverse links, each neighbour's list re-pruned by the same heuristic
//!   when it is full (`2M` on layer 0, `M` above).
//! - **Concurrency**: inserts run in parallel with each other and with searches. Lists are
//!   rewritten under per-node stripe locks and read without locks (see `links.rs`); vectors are
//!   appended before their node is linked anywhere (see `vectors.rs`).
//! - **Search** (hnswlib's `searchBaseLayerST`): greedy descent on the upper layers, then a
//!   best-first search of layer 0 with `ef` candidates. Of a node's neighbours, the visited
//!   marks of all are asked for first and the visited ones dropped, then the vectors of the
//!   rest are loaded [`ROWS_AHEAD`] ahead of the distance being computed (hnswlib loads one
//!   ahead; more loads in flight made inserts 15-19 % and searches 6-10 % faster at 1M, where
//!   every row is a cache miss: docs/scale.md); a filter keeps rejected nodes out of the
//!   results but lets the search pass through them.
//! - **One SIMD dispatch per operation**: a search or an insert runs whole inside one `pulp`
//!   dispatch, so its hundreds of dot products are inlined AVX-512 / AVX2 code instead of one
//!   feature check and call each (see `dot.rs`). Distances are computed in plain loops, never
//!   in closures (`iter().all(..)`, `filter_map(..)`): a closure is compiled as a function of
//!   its own without the dispatch's target features, and its dot products then called each
//!   intrinsic out of line (40 % of a bulk insert's time went to those calls).

use std::cell::RefCell;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::marker::PhantomData;

use parking_lot::RwLock;
use pulp::{Arch, Simd, WithSimd};

use super::format::Codec;
use super::links::{LinkView, Links};
use super::params::MAX_LAYERS;
use super::vectors::{slot_u32, VectorStore, VectorView};

/// Rows the walk asks the CPU to load ahead of the one it scores (after it has dropped the
/// neighbours it visited before).
const ROWS_AHEAD: usize = 3;

/// A node and its distance to the query: ordered by distance, then slot.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Cosine distance to the query.
    pub distance: f32,
    /// The node.
    pub slot: u32,
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Hit {}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        self.distance
            .total_cmp(&other.distance)
            .then(self.slot.cmp(&other.slot))
    }
}

/// Per-thread visited marks: `slot` is visited in the current search when
/// `marks[slot] == epoch`, so starting a search costs one increment, not a clear.
#[derive(Default)]
struct Visited {
    marks: Vec<u32>,
    epoch: u32,
}

impl Visited {
    fn begin(&mut self, slots: usize) {
        if self.marks.len() < slots {
            self.marks.resize(slots, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.fill(0);
            self.epoch = 1;
        }
    }

    /// Asks the CPU to start loading the mark of `slot`.
    #[inline]
    fn prefetch(&self, slot: u32) {
        prefetch_index::prefetch_index::<u32>(&self.marks[..], slot as usize);
    }

    /// Marks `slot`; returns whether it was not yet visited.
    fn insert(&mut self, slot: u32) -> bool {
        match self.marks.get_mut(slot as usize) {
            Some(mark) if *mark != self.epoch => {
                *mark = self.epoch;
                true
            }
            _ => false,
        }
    }
}

/// The scratch space of one search: visited marks and a neighbour buffer.
#[derive(Default)]
struct Scratch {
    visited: Visited,
    neighbours: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// What one search reads: the vectors and layer-0 lists when it started, and the instruction
/// set its distances run on.
struct Snapshot<'g, C: Codec, S> {
    graph: &'g HnswGraph<C>,
    vectors: VectorView<C::Elem>,
    links: LinkView,
    simd: S,
}

impl<C: Codec, S: Simd> Snapshot<'_, C, S> {
    /// Cosine distance of two rows (approximate in the int8 format).
    #[inline(always)]
    fn between(&self, a: &[C::Elem], b: &[C::Elem]) -> f32 {
        C::distance_in(self.simd, a, b)
    }

    #[inline(always)]
    fn distance(&self, query: &[C::Elem], slot: u32) -> Option<f32> {
        let vector = self.vectors.get(slot)?;
        Some(self.between(query, vector))
    }

    #[inline(always)]
    fn neighbours(&self, slot: u32, level: u8, out: &mut Vec<u32>) {
        self.graph.links.get(&self.links, slot, level, out);
    }

    /// Greedy walk on `level` from `start` to the node nearest `query` that it can reach,
    /// moving only to completely linked nodes (a node still being inserted may not have its
    /// lower layers yet, and the next layer starts from where this walk ends).
    #[inline(always)]
    fn greedy(&self, query: &[C::Elem], mut current: Hit, level: u8, buffer: &mut Vec<u32>) -> Hit {
        loop {
            let mut moved = false;
            self.neighbours(current.slot, level, buffer);
            for &neighbour in buffer.iter() {
                if let Some(distance) = self.distance(query, neighbour) {
                    if distance < current.distance && self.links.is_complete(neighbour) {
                        current = Hit {
                            distance,
                            slot: neighbour,
                        };
                        moved = true;
                    }
                }
            }
            if !moved {
                return current;
            }
        }
    }

    /// Best-first search of `level` from `start` for the `ef` nodes nearest `query` that
    /// `accept` lets through (all nodes are explored), expanding at most `budget` nodes; a
    /// max-heap of the results, and whether the budget stopped the search.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn search_layer(
        &self,
        query: &[C::Elem],
        start: Hit,
        ef: usize,
        level: u8,
        accept: &impl Fn(usize) -> bool,
        budget: usize,
        scratch: &mut Scratch,
    ) -> (BinaryHeap<Hit>, bool) {
        let Scratch {
            visited,
            neighbours,
        } = scratch;
        let mut candidates = BinaryHeap::with_capacity(ef * 2);
        let mut results = BinaryHeap::with_capacity(ef + 1);
        visited.insert(start.slot);
        candidates.push(Reverse(start));
        if accept(start.slot as usize) {
            results.push(start);
        }
        let mut bound = f32::INFINITY;
        if results.len() >= ef {
            bound = start.distance;
        }
        let mut expanded = 0usize;
        while let Some(Reverse(candidate)) = candidates.pop() {
            if candidate.distance > bound {
                break;
            }
            if expanded == budget {
                return (results, true);
            }
            expanded += 1;
            self.neighbours(candidate.slot, level, neighbours);
            if let Some(Reverse(next)) = candidates.peek() {
                self.links.prefetch(next.slot);
            }
            for &neighbour in neighbours.iter() {
                visited.prefetch(neighbour);
            }
            neighbours.retain(|&neighbour| visited.insert(neighbour));
            for &neighbour in neighbours.iter().take(ROWS_AHEAD) {
                self.vectors.prefetch(neighbour);
            }
            for (j, &neighbour) in neighbours.iter().enumerate() {
                if let Some(&ahead) = neighbours.get(j + ROWS_AHEAD) {
                    self.vectors.prefetch(ahead);
                }
                let Some(distance) = self.distance(query, neighbour) else {
                    continue;
                };
                if results.len() < ef || distance < bound {
                    let hit = Hit {
                        distance,
                        slot: neighbour,
                    };
                    candidates.push(Reverse(hit));
                    if accept(neighbour as usize) {
                        results.push(hit);
                        if results.len() > ef {
                            results.pop();
                        }
                        if results.len() >= ef {
                            bound = results.peek().map_or(f32::INFINITY, |worst| worst.distance);
                        }
                    }
                }
            }
        }
        (results, false)
    }
}

/// The graph, over rows of format `C`.
pub struct HnswGraph<C: Codec> {
    m: usize,
    /// Components of a vector (a row of the int8 format holds more elements).
    dimension: usize,
    ef_construction: usize,
    /// `1 / ln(M)`: the scale of the level distribution.
    level_scale: f64,
    vectors: VectorStore<C::Elem>,
    links: Links,
    /// The node on the top layer and that layer.
    entry: RwLock<Option<(u32, u8)>>,
    codec: PhantomData<fn() -> C>,
}

impl<C: Codec> HnswGraph<C> {
    /// An empty graph of `dimension`-d vectors, `m` links per node (`2m` on layer 0).
    pub fn new(dimension: usize, m: usize, ef_construction: usize) -> Self {
        Self::from_parts(
            dimension,
            VectorStore::new(C::stride(dimension)),
            Links::new(m),
            None,
            m,
            ef_construction,
        )
    }

    pub(super) fn from_parts(
        dimension: usize,
        vectors: VectorStore<C::Elem>,
        links: Links,
        entry: Option<(u32, u8)>,
        m: usize,
        ef_construction: usize,
    ) -> Self {
        Self {
            m,
            dimension,
            ef_construction,
            level_scale: 1.0 / (m.max(2) as f64).ln(),
            vectors,
            links,
            entry: RwLock::new(entry),
            codec: PhantomData,
        }
    }

    /// The rows.
    pub fn vectors(&self) -> &VectorStore<C::Elem> {
        &self.vectors
    }

    /// Components of a vector.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The distance of each slot to normalised `query`, in the graph's format, for scans
    /// (`None` for a slot not stored yet).
    pub fn scorer(&self, query: &[f32]) -> impl Fn(usize) -> Option<f32> + use<C> {
        let query = C::encode(query).into_owned();
        let view = self.vectors.view();
        move |slot| Some(C::distance(&query, view.get(slot_u32(slot))?))
    }

    /// The lists.
    pub(super) fn links(&self) -> &Links {
        &self.links
    }

    /// The entry node and its level.
    pub(super) fn entry(&self) -> Option<(u32, u8)> {
        *self.entry.read()
    }

    /// Links per node on the upper layers.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Appends `vector` (normalised, of the graph's dimension); returns its slot. The node is
    /// not reachable by a search until [`HnswGraph::link`] links it.
    pub fn push(&self, vector: &[f32]) -> usize {
        self.vectors.push(&C::encode(vector))
    }

    /// The level of the node in `slot`: `floor(-ln(u) / ln(M))` for a `u` in (0, 1] hashed
    /// from the slot.
    fn level_of(&self, slot: u32) -> u8 {
        let mut z = u64::from(slot).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let uniform = ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        let level = (-uniform.ln() * self.level_scale).floor();
        u8::try_from((level as usize).min(MAX_LAYERS - 1)).unwrap_or(0)
    }

    #[inline(always)]
    fn snapshot<S: Simd>(&self, simd: S) -> Snapshot<'_, C, S> {
        Snapshot {
            graph: self,
            vectors: self.vectors.view(),
            links: self.links.view(),
            simd,
        }
    }

    /// Links the node in `slot` (pushed before) into the graph. Safe to call for different
    /// slots from several threads at once, and while searches run.
    pub fn link(&self, slot: usize) {
        SCRATCH.with(|scratch| {
            let scratch = &mut *scratch.borrow_mut();
            Arch::new().dispatch(Link {
                graph: self,
                slot,
                scratch,
            });
        });
    }

    #[inline(always)]
    fn link_in<S: Simd>(&self, simd: S, slot: usize, scratch: &mut Scratch) {
        let slot = slot_u32(slot);
        let level = self.level_of(slot);
        self.links.add_node(slot, level);
        let Some((entry, top)) = self.claim_entry(slot, level) else {
            self.mark_complete(slot);
            return;
        };
        let snapshot = self.snapshot(simd);
        let Some(query) = snapshot.vectors.get(slot).map(<[C::Elem]>::to_vec) else {
            return;
        };
        let Some(distance) = snapshot.distance(&query, entry) else {
            return;
        };
        {
            let mut current = Hit {
                distance,
                slot: entry,
            };
            for layer in (level.saturating_add(1)..=top).rev() {
                current = snapshot.greedy(&query, current, layer, &mut scratch.neighbours);
            }
            for layer in (0..=level.min(top)).rev() {
                scratch.visited.begin(snapshot.vectors.slot_bound());
                let (found, _) = snapshot.search_layer(
                    &query,
                    current,
                    self.ef_construction,
                    layer,
                    &|_| true,
                    usize::MAX,
                    scratch,
                );
                let mut candidates = found.into_sorted_vec();
                candidates.retain(|hit| hit.slot != slot);
                let selected = self.select(&snapshot, &candidates, self.m);
                if let Some(nearest) = candidates
                    .iter()
                    .find(|hit| snapshot.links.is_complete(hit.slot))
                {
                    current = *nearest;
                }
                self.set_own_links(&snapshot, slot, &query, &selected, layer);
                for hit in &selected {
                    self.add_reverse_link(&snapshot, hit.slot, slot, hit.distance, layer);
                }
            }
        }
        self.mark_complete(slot);
        if level > top {
            let mut entry = self.entry.write();
            if entry.is_none_or(|(_, current_top)| level > current_top) {
                *entry = Some((slot, level));
            }
        }
    }

    fn mark_complete(&self, slot: u32) {
        let _own = self.links.lock(slot);
        self.links.mark_complete(slot);
    }

    /// Sets the list of the new node `slot` on `layer` to `selected`, merged with the reverse
    /// links that concurrent inserts may have added to it already (re-pruned by the heuristic
    /// if together they pass the layer's capacity).
    #[inline(always)]
    fn set_own_links<S: Simd>(
        &self,
        snapshot: &Snapshot<'_, C, S>,
        slot: u32,
        query: &[C::Elem],
        selected: &[Hit],
        layer: u8,
    ) {
        let _own = self.links.lock(slot);
        let mut existing = Vec::new();
        self.links.get(&snapshot.links, slot, layer, &mut existing);
        let mut merged: Vec<Hit> = selected.to_vec();
        for other in existing {
            if !merged.iter().any(|hit| hit.slot == other) {
                if let Some(distance) = snapshot.distance(query, other) {
                    merged.push(Hit {
                        distance,
                        slot: other,
                    });
                }
            }
        }
        let capacity = self.links.capacity(layer);
        if merged.len() > capacity {
            merged.sort_unstable();
            merged = self.select(snapshot, &merged, capacity);
        }
        let ids: Vec<u32> = merged.iter().map(|hit| hit.slot).collect();
        self.links.set(slot, layer, &ids);
    }

    /// The entry point to start from, or `None` when `slot` became the first node.
    fn claim_entry(&self, slot: u32, level: u8) -> Option<(u32, u8)> {
        if let Some(entry) = *self.entry.read() {
            return (entry.0 != slot).then_some(entry);
        }
        let mut entry = self.entry.write();
        match *entry {
            Some(existing) => (existing.0 != slot).then_some(existing),
            None => {
                *entry = Some((slot, level));
                None
            }
        }
    }

    /// hnswlib's `getNeighborsByHeuristic2`: from `candidates` (nearest first), keep each one
    /// that is nearer the new node than any kept so far, up to `limit`.
    #[inline(always)]
    fn select<S: Simd>(
        &self,
        snapshot: &Snapshot<'_, C, S>,
        candidates: &[Hit],
        limit: usize,
    ) -> Vec<Hit> {
        if candidates.len() <= limit {
            return candidates.to_vec();
        }
        let mut kept: Vec<(Hit, &[C::Elem])> = Vec::with_capacity(limit);
        for candidate in candidates {
            if kept.len() >= limit {
                break;
            }
            let Some(vector) = snapshot.vectors.get(candidate.slot) else {
                continue;
            };
            let mut diverse = true;
            for (_, other) in &kept {
                if snapshot.between(vector, other) < candidate.distance {
                    diverse = false;
                    break;
                }
            }
            if diverse {
                kept.push((*candidate, vector));
            }
        }
        kept.into_iter().map(|(hit, _)| hit).collect()
    }

    /// Adds `new` (at `distance`) to the list of `node` on `layer`, re-pruning a full list with
    /// the heuristic, as hnswlib's `mutuallyConnectNewElement` does.
    #[inline(always)]
    fn add_reverse_link<S: Simd>(
        &self,
        snapshot: &Snapshot<'_, C, S>,
        node: u32,
        new: u32,
        distance: f32,
        layer: u8,
    ) {
        let capacity = self.links.capacity(layer);
        let _lock = self.links.lock(node);
        let mut current = Vec::with_capacity(capacity + 1);
        self.links.get(&snapshot.links, node, layer, &mut current);
        if current.contains(&new) {
            return;
        }
        if current.len() < capacity {
            current.push(new);
            self.links.set(node, layer, &current);
            return;
        }
        let Some(base) = snapshot.vectors.get(node) else {
            return;
        };
        let mut candidates: Vec<Hit> = Vec::with_capacity(current.len() + 1);
        for &slot in &current {
            if let Some(vector) = snapshot.vectors.get(slot) {
                candidates.push(Hit {
                    distance: snapshot.between(base, vector),
                    slot,
                });
            }
        }
        candidates.push(Hit {
            distance,
            slot: new,
        });
        candidates.sort_unstable();
        let kept: Vec<u32> = self
            .select(snapshot, &candidates, capacity)
            .into_iter()
            .map(|hit| hit.slot)
            .collect();
        self.links.set(node, layer, &kept);
    }

    /// The `k` nodes nearest normalised `query` that `accept` lets through, as
    /// `(slot, cosine distance)` nearest first, exploring `ef` candidates (at least `k`).
    #[cfg(test)]
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        self.search_budgeted(query, k, ef, accept, usize::MAX).0
    }

    /// [`HnswGraph::search`] expanding at most `budget` nodes of the bottom layer, and whether
    /// the budget stopped it (then the hits are the nearest of what it saw, possibly fewer
    /// than `k`): a filter that lets few nodes through cannot make it walk the whole graph.
    pub fn search_budgeted(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        accept: impl Fn(usize) -> bool,
        budget: usize,
    ) -> (Vec<(usize, f32)>, bool) {
        SCRATCH.with(|scratch| {
            let scratch = &mut *scratch.borrow_mut();
            Arch::new().dispatch(Search {
                graph: self,
                query,
                k,
                ef,
                accept,
                budget,
                scratch,
            })
        })
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn search_in<S: Simd>(
        &self,
        simd: S,
        query: &[f32],
        k: usize,
        ef: usize,
        accept: impl Fn(usize) -> bool,
        budget: usize,
        scratch: &mut Scratch,
    ) -> (Vec<(usize, f32)>, bool) {
        let Some((entry, top)) = self.entry() else {
            return (Vec::new(), false);
        };
        let snapshot = self.snapshot(simd);
        let query = C::encode(query);
        let query = &query[..];
        let Some(distance) = snapshot.distance(query, entry) else {
            return (Vec::new(), false);
        };
        let ef = ef.max(k).max(1);
        let mut current = Hit {
            distance,
            slot: entry,
        };
        for layer in (1..=top).rev() {
            current = snapshot.greedy(query, current, layer, &mut scratch.neighbours);
        }
        scratch.visited.begin(snapshot.vectors.slot_bound());
        let (found, stopped) =
            snapshot.search_layer(query, current, ef, 0, &accept, budget, scratch);
        let mut hits = found.into_sorted_vec();
        hits.truncate(k);
        let hits = hits
            .into_iter()
            .map(|hit| (hit.slot as usize, hit.distance.max(0.0)))
            .collect();
        (hits, stopped)
    }
}

/// [`HnswGraph::link`] as one SIMD dispatch.
struct Link<'g, 's, C: Codec> {
    graph: &'g HnswGraph<C>,
    slot: usize,
    scratch: &'s mut Scratch,
}

impl<C: Codec> WithSimd for Link<'_, '_, C> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        self.graph.link_in(simd, self.slot, self.scratch);
    }
}

/// [`HnswGraph::search`] as one SIMD dispatch.
struct Search<'g, 'q, 's, C: Codec, F> {
    graph: &'g HnswGraph<C>,
    query: &'q [f32],
    k: usize,
    ef: usize,
    accept: F,
    budget: usize,
    scratch: &'s mut Scratch,
}

impl<C: Codec, F: Fn(usize) -> bool> WithSimd for Search<'_, '_, '_, C, F> {
    type Output = (Vec<(usize, f32)>, bool);

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        self.graph.search_in(
            simd,
            self.query,
            self.k,
            self.ef,
            self.accept,
            self.budget,
            self.scratch,
        )
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::dot;
    use super::super::format::{Int8, F32};
    use super::*;
    use rayon::prelude::*;

    /// A unit vector of `dimension` drawn from `seed`.
    pub(in super::super) fn unit(seed: u64, dimension: usize) -> Vec<f32> {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut vector: Vec<f32> = (0..dimension)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) - 0.5
            })
            .collect();
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        vector.iter_mut().for_each(|x| *x /= norm);
        vector
    }

    fn build(count: usize, dimension: usize, parallel: bool) -> (HnswGraph<F32>, Vec<Vec<f32>>) {
        let graph = HnswGraph::<F32>::new(dimension, 16, 200);
        let data: Vec<Vec<f32>> = (0..count as u64).map(|i| unit(i, dimension)).collect();
        for vector in &data {
            graph.push(vector);
        }
        if parallel {
            (0..count).into_par_iter().for_each(|slot| graph.link(slot));
        } else {
            (0..count).for_each(|slot| graph.link(slot));
        }
        (graph, data)
    }

    fn exact(
        data: &[Vec<f32>],
        query: &[f32],
        k: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let mut all: Vec<(usize, f32)> = data
            .iter()
            .enumerate()
            .filter(|(slot, _)| accept(*slot))
            .map(|(slot, vector)| (slot, 1.0 - dot(query, vector)))
            .collect();
        all.sort_by(|a, b| a.1.total_cmp(&b.1));
        all.into_iter().take(k).map(|(slot, _)| slot).collect()
    }

    fn recall<C: Codec>(
        graph: &HnswGraph<C>,
        data: &[Vec<f32>],
        dimension: usize,
        ef: usize,
    ) -> f64 {
        let queries = 100;
        let mut found = 0;
        for q in 0..queries {
            let query = unit(1_000_000 + q, dimension);
            let truth = exact(data, &query, 10, |_| true);
            let got = graph.search(&query, 10, ef, |_| true);
            assert_eq!(got.len(), 10);
            assert!(got.windows(2).all(|pair| pair[0].1 <= pair[1].1));
            found += got.iter().filter(|(slot, _)| truth.contains(slot)).count();
        }
        found as f64 / (10 * queries) as f64
    }

    #[test]
    fn finds_the_exact_nearest_neighbours_almost_always() {
        let (graph, data) = build(3000, 24, false);
        let recall = recall(&graph, &data, 24, 64);
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn an_int8_graph_ranks_nearly_as_well_before_any_rescoring() {
        let dimension = 48;
        let graph = HnswGraph::<Int8>::new(dimension, 16, 200);
        let data: Vec<Vec<f32>> = (0..3000u64).map(|i| unit(i, dimension)).collect();
        for vector in &data {
            graph.push(vector);
        }
        (0..3000).into_par_iter().for_each(|slot| graph.link(slot));
        let recall = recall(&graph, &data, dimension, 64);
        assert!(recall >= 0.85, "recall@10 {recall}");
    }

    #[test]
    fn a_parallel_build_is_as_good() {
        let (graph, data) = build(3000, 24, true);
        let recall = recall(&graph, &data, 24, 64);
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn after_a_parallel_build_every_node_is_reachable_and_finds_itself() {
        let (graph, data) = build(3000, 16, true);
        let view = graph.links.view();
        let mut incoming = vec![0usize; 3000];
        let mut out = Vec::new();
        for slot in 0..3000u32 {
            assert!(view.is_complete(slot));
            view.layer0(slot, &mut out);
            out.iter().for_each(|&n| incoming[n as usize] += 1);
        }
        assert!(incoming.iter().all(|&n| n > 0), "a node nothing links to");
        for (slot, vector) in data.iter().enumerate() {
            assert_eq!(graph.search(vector, 1, 50, |_| true)[0].0, slot);
        }
    }

    #[test]
    fn every_node_is_linked_and_lists_respect_their_capacity() {
        let (graph, _) = build(2000, 8, true);
        let view = graph.links.view();
        let mut out = Vec::new();
        for slot in 0..2000u32 {
            let level = graph.links.level(slot);
            for layer in 0..=level {
                graph.links.get(&view, slot, layer, &mut out);
                assert!(out.len() <= graph.links.capacity(layer));
                assert!(!out.contains(&slot), "a node links to itself");
                assert!(out.iter().all(|&n| (n as usize) < 2000));
            }
            graph.links.get(&view, slot, 0, &mut out);
            assert!(!out.is_empty(), "slot {slot} has no layer-0 links");
        }
    }

    #[test]
    fn a_filter_keeps_rejected_slots_out_and_distances_sorted() {
        let (graph, data) = build(2000, 16, true);
        let even = |slot: usize| slot.is_multiple_of(2);
        let mut found = 0;
        for q in 0..50 {
            let query = unit(2_000_000 + q, 16);
            let got = graph.search(&query, 10, 80, even);
            assert!(got.iter().all(|(slot, _)| even(*slot)));
            assert!(got.windows(2).all(|pair| pair[0].1 <= pair[1].1));
            let truth = exact(&data, &query, 10, even);
            found += got.iter().filter(|(slot, _)| truth.contains(slot)).count();
        }
        assert!(
            found as f64 / 500.0 >= 0.9,
            "filtered recall {}",
            found as f64 / 500.0
        );
    }

    #[test]
    fn searches_run_while_nodes_are_linked() {
        let dimension = 16;
        let graph = HnswGraph::<F32>::new(dimension, 16, 100);
        let data: Vec<Vec<f32>> = (0..3000u64).map(|i| unit(i, dimension)).collect();
        for vector in &data[..500] {
            graph.push(vector);
        }
        (0..500).for_each(|slot| graph.link(slot));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for vector in &data[500..] {
                    let slot = graph.push(vector);
                    graph.link(slot);
                }
            });
            scope.spawn(|| {
                for q in 0..300 {
                    let hits = graph.search(&unit(5_000_000 + q, dimension), 5, 40, |_| true);
                    assert_eq!(hits.len(), 5);
                }
            });
        });
        let recall = recall(&graph, &data, dimension, 64);
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn levels_follow_the_geometric_distribution() {
        let graph = HnswGraph::<F32>::new(4, 16, 100);
        let above: usize = (0..100_000u32)
            .filter(|&slot| graph.level_of(slot) > 0)
            .count();
        let share = above as f64 / 100_000.0;
        assert!(
            (share - 1.0 / 16.0).abs() < 0.01,
            "{share} of the nodes above layer 0"
        );
    }

    #[test]
    fn an_empty_graph_finds_nothing() {
        let graph = HnswGraph::<F32>::new(8, 16, 100);
        assert!(graph.search(&unit(1, 8), 5, 50, |_| true).is_empty());
    }
}
