//! [`AnyGraph`]: the HNSW graph in the index's [`VectorFormat`], with each call the index makes
//! dispatched to the graph of that format (one `match`, then monomorphic code).

use super::format::{Int8, VectorFormat, F32};
use super::graph::HnswGraph;
use super::scan;

/// The graph of one format.
pub enum AnyGraph {
    /// `f32` rows.
    F32(HnswGraph<F32>),
    /// `int8` rows.
    Int8(HnswGraph<Int8>),
}

/// Runs `$body` with `$graph` bound to the graph, whatever its format.
macro_rules! each {
    ($any:expr, $graph:ident => $body:expr) => {
        match $any {
            AnyGraph::F32($graph) => $body,
            AnyGraph::Int8($graph) => $body,
        }
    };
}
pub(super) use each;

/// The distance of a slot to one query, for scans.
pub type Scorer = Box<dyn Fn(usize) -> Option<f32> + Send + Sync>;

impl AnyGraph {
    /// An empty graph of `format`.
    pub fn new(format: VectorFormat, dimension: usize, m: usize, ef_construction: usize) -> Self {
        match format {
            VectorFormat::F32 => Self::F32(HnswGraph::new(dimension, m, ef_construction)),
            VectorFormat::Int8 => Self::Int8(HnswGraph::new(dimension, m, ef_construction)),
        }
    }

    /// The format of the rows.
    pub fn format(&self) -> VectorFormat {
        match self {
            Self::F32(_) => VectorFormat::F32,
            Self::Int8(_) => VectorFormat::Int8,
        }
    }

    /// See [`HnswGraph::push`].
    pub fn push(&self, vector: &[f32]) -> usize {
        each!(self, graph => graph.push(vector))
    }

    /// See [`HnswGraph::link`].
    pub fn link(&self, slot: usize) {
        each!(self, graph => graph.link(slot));
    }

    /// See [`scan::distances`].
    pub fn distances(&self, query: &[f32], slots: &[u32]) -> Vec<Option<f32>> {
        each!(self, graph => scan::distances(graph, query, slots))
    }

    /// The int8 scale of each of `slots`' rows (`None` for a slot without a row, and for
    /// every slot of an f32 graph, whose distances are exact).
    pub fn row_scales(&self, slots: &[u32]) -> Vec<Option<f32>> {
        match self {
            Self::F32(_) => vec![None; slots.len()],
            Self::Int8(graph) => {
                let view = graph.vectors().view();
                slots
                    .iter()
                    .map(|&slot| view.get(slot).map(|row| Int8::split(row).1))
                    .collect()
            }
        }
    }

    /// See [`HnswGraph::scorer`].
    pub fn scorer(&self, query: &[f32]) -> Scorer {
        each!(self, graph => Box::new(graph.scorer(query)))
    }
}
