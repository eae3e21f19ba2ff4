//! [`FlatGraph`]: a read-optimised copy of the `hnsw_rs` graph, searched instead of it.
//!
//! `hnsw_rs` keeps every point behind an `Arc`, its neighbour lists behind a lock, and every
//! neighbour as a pointer to a separately allocated record, so a search chases three pointers per
//! neighbour it looks at; those cache misses, not the distances, dominate its search time. The
//! copy holds the same graph in flat arrays, the layout of hnswlib: all vectors in one buffer
//! indexed by slot, layer-0 neighbour lists as slot numbers in one buffer (CSR), the few upper
//! layer lists in a map, and a per-thread visited stamp array. The graph, its neighbour selection
//! and its checkpoint stay `hnsw_rs`'s; the copy is rebuilt from it by
//! [`FlatGraph::from_hnsw`] (see `snapshot.rs` for when) and searched the way hnswlib searches,
//! prefetching the next neighbour's vector while it computes the current one's distance. Its
//! buffers are [`PageBuffer`]s, on huge pages where the kernel gives them.

use std::cell::RefCell;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

use anndists::dist::DistDot;
use hnsw_rs::hnsw::Hnsw;

use super::dot;
use super::page_buffer::PageBuffer;

/// A search hit inside the copy: distance, then slot.
#[derive(Clone, Copy, Debug)]
struct Hit {
    distance: f32,
    slot: u32,
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

/// Per-thread visited marks: slot `i` is visited in the current search when
/// `marks[i] == epoch`, so starting a search costs one increment, not a clear.
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

    /// Marks `slot`; returns whether it was not yet visited.
    fn insert(&mut self, slot: u32) -> bool {
        let mark = &mut self.marks[slot as usize];
        let fresh = *mark != self.epoch;
        *mark = self.epoch;
        fresh
    }
}

thread_local! {
    static VISITED: RefCell<Visited> = RefCell::default();
}

/// The flat copy of an `hnsw_rs` graph whose data ids are slots.
#[derive(Default)]
pub struct FlatGraph {
    dimension: usize,
    slots: usize,
    /// `slots * dimension` values; a slot the graph does not hold stays zero and unlinked.
    vectors: PageBuffer<f32>,
    /// Layer-0 neighbours of slot `s`: `links[offsets[s]..offsets[s + 1]]`.
    offsets: PageBuffer<u32>,
    links: PageBuffer<u32>,
    /// Neighbours on layers 1.. of the slots that reach above layer 0, by slot then layer - 1.
    upper: HashMap<u32, Vec<Vec<u32>>>,
    /// A slot on the top layer, and that layer.
    entry: Option<(u32, u8)>,
}

impl FlatGraph {
    /// Copies `hnsw`, whose data ids are slots, for vectors of `dimension`. The caller keeps
    /// inserts out while it runs (the `hnsw_rs` point iterator holds its layer lock).
    pub fn from_hnsw(hnsw: &Hnsw<'static, f32, DistDot>, dimension: usize) -> Self {
        if hnsw.get_nb_point() == 0 {
            return Self {
                dimension,
                offsets: PageBuffer::from_slice(&[0]),
                ..Self::default()
            };
        }
        let points: Vec<_> = hnsw.get_point_indexation().into_iter().collect();
        let slots = points
            .iter()
            .map(|point| point.get_origin_id() + 1)
            .max()
            .unwrap_or(0);
        let mut vectors = PageBuffer::zeroed(slots * dimension);
        let mut layer0: Vec<Vec<u32>> = vec![Vec::new(); slots];
        let mut upper = HashMap::new();
        let mut entry: Option<(u32, u8)> = None;
        for point in points {
            let slot = point.get_origin_id();
            let slot_u32 = slot_index(slot);
            vectors.as_mut_slice()[slot * dimension..(slot + 1) * dimension]
                .copy_from_slice(point.get_v());
            let level = point.get_point_id().0;
            let mut lists = point.get_neighborhood_id();
            lists.truncate(usize::from(level) + 1);
            let mut lists = lists.into_iter().map(|list| {
                list.into_iter()
                    .map(|neighbour| slot_index(neighbour.get_origin_id()))
                    .collect::<Vec<u32>>()
            });
            layer0[slot] = lists.next().unwrap_or_default();
            if level > 0 {
                upper.insert(slot_u32, lists.collect());
            }
            if entry.is_none_or(|(_, top)| level > top) {
                entry = Some((slot_u32, level));
            }
        }
        let mut offsets = Vec::with_capacity(slots + 1);
        let mut links = Vec::with_capacity(layer0.iter().map(Vec::len).sum());
        offsets.push(0);
        for list in layer0 {
            links.extend(list);
            offsets.push(slot_index(links.len()));
        }
        Self {
            dimension,
            slots,
            vectors,
            offsets: PageBuffer::from_slice(&offsets),
            links: PageBuffer::from_slice(&links),
            upper,
            entry,
        }
    }

    fn vector(&self, slot: u32) -> &[f32] {
        let start = slot as usize * self.dimension;
        &self.vectors.as_slice()[start..start + self.dimension]
    }

    fn distance(&self, query: &[f32], slot: u32) -> f32 {
        1.0 - dot(query, self.vector(slot))
    }

    /// Asks the CPU to start loading the first cache line of `slot`'s vector, as hnswlib does
    /// for the next neighbour while it computes the current one's distance.
    fn prefetch(&self, slot: u32) {
        prefetch_index::prefetch_index(self.vectors.as_slice(), slot as usize * self.dimension);
    }

    fn layer0(&self, slot: u32) -> &[u32] {
        let slot = slot as usize;
        let offsets = self.offsets.as_slice();
        &self.links.as_slice()[offsets[slot] as usize..offsets[slot + 1] as usize]
    }

    /// The `k` nearest slots to normalised `query` that `accept` lets through, nearest first, as
    /// `(slot, cosine distance)`, exploring `ef` candidates (at least `k`) on layer 0.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let Some((entry, top)) = self.entry else {
            return Vec::new();
        };
        let ef = ef.max(k).max(1);
        let start = self.descend(query, entry, top);
        let found = VISITED.with(|visited| {
            let mut visited = visited.borrow_mut();
            visited.begin(self.slots);
            self.search_layer0(query, start, ef, &accept, &mut visited)
        });
        let mut hits = found.into_sorted_vec();
        hits.truncate(k);
        hits.into_iter()
            .map(|hit| (hit.slot as usize, hit.distance.max(0.0)))
            .collect()
    }

    /// Greedy walk from the entry point down to layer 1: the start of the layer-0 search.
    fn descend(&self, query: &[f32], entry: u32, top: u8) -> Hit {
        let mut current = Hit {
            distance: self.distance(query, entry),
            slot: entry,
        };
        for level in (1..=usize::from(top)).rev() {
            loop {
                let mut moved = false;
                let neighbours = self
                    .upper
                    .get(&current.slot)
                    .and_then(|layers| layers.get(level - 1));
                for &neighbour in neighbours.into_iter().flatten() {
                    let distance = self.distance(query, neighbour);
                    if distance < current.distance {
                        current = Hit {
                            distance,
                            slot: neighbour,
                        };
                        moved = true;
                    }
                }
                if !moved {
                    break;
                }
            }
        }
        current
    }

    /// Best-first search of layer 0 (hnswlib's `searchBaseLayerST`): candidates are explored
    /// while they can still improve the `ef` best accepted results; slots `accept` rejects are
    /// walked through but never returned.
    fn search_layer0(
        &self,
        query: &[f32],
        start: Hit,
        ef: usize,
        accept: &impl Fn(usize) -> bool,
        visited: &mut Visited,
    ) -> BinaryHeap<Hit> {
        let mut candidates = BinaryHeap::with_capacity(ef * 2);
        let mut results = BinaryHeap::with_capacity(ef + 1);
        visited.insert(start.slot);
        candidates.push(Reverse(start));
        if accept(start.slot as usize) {
            results.push(start);
        }
        let mut bound = start.distance;
        while let Some(Reverse(candidate)) = candidates.pop() {
            if candidate.distance > bound && results.len() >= ef {
                break;
            }
            let neighbours = self.layer0(candidate.slot);
            if let Some(&first) = neighbours.first() {
                self.prefetch(first);
            }
            for (j, &neighbour) in neighbours.iter().enumerate() {
                if let Some(&next) = neighbours.get(j + 1) {
                    self.prefetch(next);
                }
                if !visited.insert(neighbour) {
                    continue;
                }
                let distance = self.distance(query, neighbour);
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
                    }
                    if let Some(worst) = results.peek() {
                        bound = worst.distance;
                    }
                }
            }
        }
        results
    }
}

fn slot_index(slot: usize) -> u32 {
    u32::try_from(slot).expect("fewer than 4 billion slots")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u64, dimension: usize) -> Vec<f32> {
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

    fn graph(count: usize, dimension: usize) -> (Hnsw<'static, f32, DistDot>, Vec<Vec<f32>>) {
        let hnsw = Hnsw::new(16, count, 16, 200, DistDot);
        let data: Vec<Vec<f32>> = (0..count as u64).map(|i| unit(i, dimension)).collect();
        let items: Vec<(&[f32], usize)> = data
            .iter()
            .enumerate()
            .map(|(slot, vector)| (vector.as_slice(), slot))
            .collect();
        hnsw.parallel_insert_slice(&items);
        (hnsw, data)
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

    #[test]
    fn copies_every_point_and_its_links() {
        let (hnsw, data) = graph(500, 16);
        let flat = FlatGraph::from_hnsw(&hnsw, 16);
        assert_eq!(flat.slots, 500);
        for (slot, vector) in data.iter().enumerate() {
            assert_eq!(flat.vector(slot_index(slot)), vector.as_slice());
        }
        assert!(
            flat.links.as_slice().len() >= 500 * 8,
            "{} layer-0 links",
            flat.links.as_slice().len()
        );
        assert!(flat.entry.is_some());
    }

    #[test]
    fn finds_the_exact_nearest_neighbours_almost_always() {
        let (hnsw, data) = graph(3000, 24);
        let flat = FlatGraph::from_hnsw(&hnsw, 24);
        let mut found = 0;
        let queries = 100;
        for q in 0..queries {
            let query = unit(1_000_000 + q, 24);
            let truth = exact(&data, &query, 10, |_| true);
            let got: Vec<usize> = flat
                .search(&query, 10, 64, |_| true)
                .into_iter()
                .map(|h| h.0)
                .collect();
            assert_eq!(got.len(), 10);
            found += got.iter().filter(|slot| truth.contains(slot)).count();
        }
        let recall = found as f64 / (10 * queries) as f64;
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn a_filter_keeps_rejected_slots_out_and_distances_sorted() {
        let (hnsw, data) = graph(2000, 16);
        let flat = FlatGraph::from_hnsw(&hnsw, 16);
        let even = |slot: usize| slot.is_multiple_of(2);
        let mut found = 0;
        for q in 0..50 {
            let query = unit(2_000_000 + q, 16);
            let got = flat.search(&query, 10, 80, even);
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
    fn an_empty_graph_finds_nothing() {
        let hnsw = Hnsw::new(16, 10, 16, 200, DistDot);
        let flat = FlatGraph::from_hnsw(&hnsw, 8);
        assert!(flat.search(&unit(1, 8), 5, 50, |_| true).is_empty());
    }
}
