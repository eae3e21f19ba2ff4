//! [`Graph`]: the `hnsw_rs` graph together with its [`FlatGraph`] copy, and when that copy is
//! retaken.
//!
//! Searches read the copy. Vectors inserted into the graph after the copy was taken are kept in
//! a short tail that searches scan exactly, so every inserted vector is found at once. Past
//! [`TAIL_MAX`] vectors the tail overflows and searches go to `hnsw_rs` itself until the copy is
//! retaken. A background worker retakes it once inserts have paused for [`QUIET`] (or after
//! [`MAX_WAIT`] under a steady write load), and after a
//! retake waits [`REST_FACTOR`] times as long as the retake took, so a sustained write load
//! spends at most a fifth of a core on copies. Taking a copy blocks inserts (not searches): at
//! 100k vectors it takes a fraction of a second.

use std::sync::{Arc, Once, Weak};
use std::time::{Duration, Instant};

use anndists::dist::DistDot;
use hnsw_rs::hnsw::Hnsw;
use parking_lot::RwLock;

use super::dot;
use super::flat_graph::FlatGraph;
use super::wake::{WakeSignal, IDLE_CHECK};

/// Most vectors inserted since the copy that searches scan exactly.
pub const TAIL_MAX: usize = 512;
/// How long inserts must pause before the copy is retaken.
const QUIET: Duration = Duration::from_millis(100);
/// Longest wait for such a pause: under a steady write load the copy is retaken anyway.
const MAX_WAIT: Duration = Duration::from_secs(1);
/// After a retake the worker rests this many times its duration.
const REST_FACTOR: u32 = 4;

/// What searches read: the copy and the vectors inserted after it.
#[derive(Default)]
struct View {
    flat: FlatGraph,
    tail: Vec<(usize, Vec<f32>)>,
    /// More than [`TAIL_MAX`] vectors were inserted since the copy: search `hnsw_rs`.
    overflow: bool,
}

/// The graph, its copy, and the lock that keeps inserts out while the copy is taken.
pub struct Graph {
    hnsw: Hnsw<'static, f32, DistDot>,
    dimension: usize,
    view: RwLock<View>,
    /// Inserts hold it shared; taking the copy holds it exclusively.
    inserts: RwLock<()>,
    signal: Arc<WakeSignal>,
    worker: Once,
}

impl Graph {
    /// Wraps `hnsw` (data ids are slots) for vectors of `dimension`; a non-empty graph gets its
    /// copy taken in the background.
    pub fn new(hnsw: Hnsw<'static, f32, DistDot>, dimension: usize) -> Arc<Self> {
        let loaded = hnsw.get_nb_point() > 0;
        let graph = Arc::new(Self {
            hnsw,
            dimension,
            view: RwLock::new(View {
                overflow: loaded,
                ..View::default()
            }),
            inserts: RwLock::new(()),
            signal: Arc::default(),
            worker: Once::new(),
        });
        if loaded {
            graph.wake_worker();
        }
        graph
    }

    /// The `hnsw_rs` graph (for checkpoints).
    pub fn hnsw(&self) -> &Hnsw<'static, f32, DistDot> {
        &self.hnsw
    }

    /// Inserts `(vector, slot)` pairs into the graph and makes them searchable at once.
    pub fn insert(self: &Arc<Self>, items: &[(&[f32], usize)]) {
        if items.is_empty() {
            return;
        }
        {
            let _inserts = self.inserts.read();
            if let [item] = items {
                self.hnsw.insert_slice(*item);
            } else {
                self.hnsw.parallel_insert_slice(&items.to_vec());
            }
            let mut view = self.view.write();
            if !view.overflow && view.tail.len() + items.len() <= TAIL_MAX {
                view.tail
                    .extend(items.iter().map(|(vector, slot)| (*slot, vector.to_vec())));
            } else {
                view.overflow = true;
                view.tail = Vec::new();
            }
        }
        self.wake_worker();
    }

    fn wake_worker(self: &Arc<Self>) {
        self.worker
            .call_once(|| spawn(Arc::downgrade(self), Arc::clone(&self.signal)));
        self.signal.notify();
    }

    /// Whether inserts happened since the copy was taken.
    pub fn is_stale(&self) -> bool {
        let view = self.view.read();
        view.overflow || !view.tail.is_empty()
    }

    /// Retakes the copy now.
    pub fn refresh(&self) {
        let _inserts = self.inserts.write();
        let flat = FlatGraph::from_hnsw(&self.hnsw, self.dimension);
        *self.view.write() = View {
            flat,
            ..View::default()
        };
    }

    /// The `k` nearest slots to normalised `query` that `accept` lets through, as
    /// `(slot, distance)` nearest first, exploring `ef` candidates. `filtered` says whether
    /// `accept` can reject anything (without it the unfiltered `hnsw_rs` search is used when
    /// the copy is out of date).
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        filtered: bool,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let view = self.view.read();
        if view.overflow {
            drop(view);
            return self.search_hnsw(query, k, ef, filtered, accept);
        }
        let mut hits = view.flat.search(query, k, ef, &accept);
        if !view.tail.is_empty() {
            hits.extend(
                view.tail
                    .iter()
                    .filter(|(slot, _)| accept(*slot))
                    .map(|(slot, vector)| (*slot, (1.0 - dot(query, vector)).max(0.0))),
            );
            sort_dedup_truncate(&mut hits, k);
        }
        hits
    }

    fn search_hnsw(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        filtered: bool,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let found = if filtered {
            let filter = |slot: &usize| accept(*slot);
            self.hnsw.search_filter(query, k, ef, Some(&filter))
        } else {
            self.hnsw.search(query, k, ef)
        };
        found
            .into_iter()
            .map(|hit| (hit.d_id, hit.distance.max(0.0)))
            .collect()
    }
}

/// Sorts hits by distance, keeps the first of each slot and the `k` nearest.
pub fn sort_dedup_truncate(hits: &mut Vec<(usize, f32)>, k: usize) {
    hits.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut seen = std::collections::HashSet::with_capacity(hits.len());
    hits.retain(|hit| seen.insert(hit.0));
    hits.truncate(k);
}

/// Starts the worker that retakes the copy of `graph`. It holds only a weak reference while it
/// waits, so it ends soon after the graph is dropped.
fn spawn(graph: Weak<Graph>, signal: Arc<WakeSignal>) {
    let worker = move || loop {
        if !signal.wait(IDLE_CHECK) {
            if graph.strong_count() == 0 {
                return;
            }
            continue;
        }
        let deadline = Instant::now() + MAX_WAIT;
        while Instant::now() < deadline && signal.wait(QUIET) {}
        let Some(strong) = graph.upgrade() else {
            return;
        };
        if !strong.is_stale() {
            continue;
        }
        let started = Instant::now();
        strong.refresh();
        drop(strong);
        std::thread::sleep(started.elapsed() * REST_FACTOR);
    };
    std::thread::Builder::new()
        .name("hebbs-index-copy".into())
        .spawn(worker)
        .expect("the OS can start the index copy thread");
}
