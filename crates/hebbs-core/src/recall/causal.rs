//! The `causal` strategy: a typed, weighted walk over the edge graph from a seed memory (given,
//! or the memory nearest the cue), breadth first, `max_depth` hops at most.
//!
//! A memory's depth is its hop count on a shortest path from the seed; its path confidence is the
//! best product of edge confidences over those shortest paths; its relevance is
//! `path_confidence * CAUSAL_DEPTH_DECAY^(depth - 1)`, so it falls with every hop and with every
//! weak link. The seed itself is not a result. Work is bounded: a visited set, at most
//! [`CAUSAL_NODE_BUDGET`] memories reached and [`CAUSAL_EDGES_PER_NODE`] edges read per memory,
//! and the walk stops early once no memory of the next layer could enter the `top_k` (its
//! relevance is at most the layer's best path confidence times one more decay step).

use std::collections::{HashMap, HashSet};

use super::executor::{Candidate, RecallContext};
use super::plan::StrategyPlan;
use super::result::StrategyDetail;
use super::similarity::{nearest, Fetch};
use super::strategy::{CausalDirection, Strategy};
use crate::error::{HebbsError, Result};
use crate::memory::{EdgeType, MemoryId};

/// Relevance kept per extra hop.
pub const CAUSAL_DEPTH_DECAY: f32 = 0.8;
/// Most memories one walk may reach.
pub const CAUSAL_NODE_BUDGET: usize = 10_000;
/// Most edges read from one memory in each direction.
pub const CAUSAL_EDGES_PER_NODE: usize = 4096;

/// A memory the walk reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Reached {
    pub id: MemoryId,
    pub depth: u32,
    pub path_confidence: f32,
}

impl Reached {
    pub fn relevance(&self) -> f32 {
        self.path_confidence * CAUSAL_DEPTH_DECAY.powi(self.depth as i32 - 1)
    }
}

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let seed = match plan.seed_memory_id {
        Some(seed) => {
            if !context.store.contains(&seed)? {
                return Err(HebbsError::NotFound { id: seed.to_hex() });
            }
            seed
        }
        None => {
            let query = context.cue.as_deref().unwrap_or_default();
            match nearest(context, query, 1, plan.ef_search, None, Fetch::EXACTLY_K)?.first() {
                Some(hit) => hit.id,
                None => return Ok(Vec::new()),
            }
        }
    };
    let store = context.store;
    let neighbors = |id: &MemoryId| -> Result<Vec<(MemoryId, f32)>> {
        let mut found = Vec::new();
        if plan.direction != CausalDirection::Effects {
            found.extend(store.edges_up_to(id, true, CAUSAL_EDGES_PER_NODE)?);
        }
        if plan.direction != CausalDirection::Causes {
            found.extend(store.edges_up_to(id, false, CAUSAL_EDGES_PER_NODE)?);
        }
        Ok(found
            .into_iter()
            .filter(|edge| accepts(plan.edge_types, edge.edge_type))
            .map(|edge| (edge.target, edge.confidence.clamp(0.0, 1.0)))
            .collect())
    };
    let mut reached = walk(
        seed,
        plan.max_depth,
        CAUSAL_NODE_BUDGET,
        plan.top_k,
        neighbors,
    )?;
    reached.sort_by(|a, b| {
        b.relevance()
            .total_cmp(&a.relevance())
            .then(a.depth.cmp(&b.depth))
    });
    reached.truncate(plan.top_k);
    Ok(reached
        .into_iter()
        .map(|hit| Candidate {
            id: hit.id,
            detail: StrategyDetail {
                depth: Some(hit.depth),
                ..StrategyDetail::new(Strategy::Causal, hit.relevance())
            },
        })
        .collect())
}

fn accepts(wanted: Option<&[EdgeType]>, edge_type: EdgeType) -> bool {
    wanted.is_none_or(|types| types.contains(&edge_type))
}

/// Breadth-first walk from `seed`, layer by layer, up to `max_depth` hops and `budget` reached
/// memories. `neighbors` lists a memory's `(neighbour, confidence)` pairs. Returns the reached
/// memories except the seed, in discovery order, with their shortest hop count and the best
/// confidence product over their shortest paths. Stops before a layer none of whose memories
/// could rank among the `keep` most relevant found so far, so the `keep` most relevant are the
/// same as a full walk's.
pub(crate) fn walk(
    seed: MemoryId,
    max_depth: usize,
    budget: usize,
    keep: usize,
    mut neighbors: impl FnMut(&MemoryId) -> Result<Vec<(MemoryId, f32)>>,
) -> Result<Vec<Reached>> {
    let mut visited: HashSet<MemoryId> = HashSet::from([seed]);
    let mut frontier: Vec<(MemoryId, f32)> = vec![(seed, 1.0)];
    let mut reached = Vec::new();
    for depth in 1..=max_depth as u32 {
        let mut layer: Vec<(MemoryId, f32)> = Vec::new();
        let mut position: HashMap<MemoryId, usize> = HashMap::new();
        'expand: for (node, confidence) in &frontier {
            for (next, edge_confidence) in neighbors(node)? {
                if visited.contains(&next) {
                    continue;
                }
                let through = confidence * edge_confidence;
                match position.get(&next) {
                    Some(at) => layer[*at].1 = layer[*at].1.max(through),
                    None => {
                        if visited.len() + layer.len() >= budget {
                            break 'expand;
                        }
                        position.insert(next, layer.len());
                        layer.push((next, through));
                    }
                }
            }
        }
        if layer.is_empty() {
            break;
        }
        for (id, path_confidence) in &layer {
            visited.insert(*id);
            reached.push(Reached {
                id: *id,
                depth,
                path_confidence: *path_confidence,
            });
        }
        let strongest = layer.iter().map(|(_, c)| *c).fold(0.0f32, f32::max);
        let next_best = strongest * CAUSAL_DEPTH_DECAY.powi(depth as i32);
        if keep > 0 && reached.len() >= keep && kth_relevance(&reached, keep) > next_best {
            break;
        }
        frontier = layer;
    }
    Ok(reached)
}

/// The `k`-th highest relevance among `reached` (`k >= 1`, `reached.len() >= k`).
fn kth_relevance(reached: &[Reached], k: usize) -> f32 {
    let mut relevances: Vec<f32> = reached.iter().map(Reached::relevance).collect();
    relevances.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    relevances[k - 1]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    type Graph = HashMap<MemoryId, Vec<(MemoryId, f32)>>;

    fn graph(ids: &[MemoryId], edges: &[(usize, usize, f32)]) -> Graph {
        let mut graph = Graph::new();
        for (from, to, confidence) in edges {
            graph
                .entry(ids[*from])
                .or_default()
                .push((ids[*to], *confidence));
        }
        graph
    }

    /// Every walk of at most `max_depth` hops, by depth-first enumeration: for each memory, the
    /// fewest hops and the best confidence product among walks of that length.
    fn naive(graph: &Graph, seed: MemoryId, max_depth: usize) -> HashMap<MemoryId, (u32, f32)> {
        fn visit(
            graph: &Graph,
            node: MemoryId,
            depth: u32,
            product: f32,
            max_depth: usize,
            best: &mut HashMap<MemoryId, (u32, f32)>,
        ) {
            if depth as usize == max_depth {
                return;
            }
            for (next, confidence) in graph.get(&node).into_iter().flatten() {
                let hops = depth + 1;
                let through = product * confidence;
                let entry = best.entry(*next).or_insert((hops, through));
                if hops < entry.0 || (hops == entry.0 && through > entry.1) {
                    *entry = (hops, through);
                }
                visit(graph, *next, hops, through, max_depth, best);
            }
        }
        let mut best = HashMap::new();
        visit(graph, seed, 0, 1.0, max_depth, &mut best);
        best.remove(&seed);
        best
    }

    proptest! {
        #[test]
        fn walk_matches_exhaustive_enumeration(
            edges in proptest::collection::vec((0usize..8, 0usize..8, 0.05f32..=1.0), 0..20),
            max_depth in 1usize..5,
        ) {
            let ids: Vec<MemoryId> = (0..8).map(|_| MemoryId::new()).collect();
            let graph = graph(&ids, &edges);
            let reached = walk(ids[0], max_depth, usize::MAX, 0, |id| {
                Ok(graph.get(id).cloned().unwrap_or_default())
            })
            .unwrap();
            let expected = naive(&graph, ids[0], max_depth);
            prop_assert_eq!(reached.len(), expected.len());
            for hit in reached {
                let (depth, product) = expected[&hit.id];
                prop_assert_eq!(hit.depth, depth);
                prop_assert!((hit.path_confidence - product).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn depths_are_hop_counts_and_relevance_falls_with_them() {
        let ids: Vec<MemoryId> = (0..5).map(|_| MemoryId::new()).collect();
        let graph = graph(&ids, &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (0, 4, 0.5)]);
        let reached = walk(ids[0], 5, usize::MAX, 0, |id| {
            Ok(graph.get(id).cloned().unwrap_or_default())
        })
        .unwrap();
        let depth_of = |id: MemoryId| reached.iter().find(|r| r.id == id).unwrap().depth;
        assert_eq!([ids[1], ids[2], ids[3], ids[4]].map(depth_of), [1, 2, 3, 1]);
        let relevance = |id: MemoryId| reached.iter().find(|r| r.id == id).unwrap().relevance();
        assert!(relevance(ids[1]) > relevance(ids[2]));
        assert!(relevance(ids[2]) > relevance(ids[3]));
        assert!((relevance(ids[4]) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn depth_and_budget_bound_the_walk() {
        let ids: Vec<MemoryId> = (0..50).map(|_| MemoryId::new()).collect();
        let chain: Vec<(usize, usize, f32)> = (0..49).map(|i| (i, i + 1, 1.0)).collect();
        let graph = graph(&ids, &chain);
        let lookup = |id: &MemoryId| Ok(graph.get(id).cloned().unwrap_or_default());
        assert_eq!(walk(ids[0], 3, usize::MAX, 0, lookup).unwrap().len(), 3);
        let star: Vec<(usize, usize, f32)> = (1..50).map(|i| (0, i, 1.0)).collect();
        let graph = self::graph(&ids, &star);
        let reached = walk(ids[0], 5, 10, 0, |id| {
            Ok(graph.get(id).cloned().unwrap_or_default())
        })
        .unwrap();
        assert_eq!(reached.len(), 9);
    }

    fn top_relevances(mut reached: Vec<Reached>, k: usize) -> Vec<f32> {
        let mut relevances: Vec<f32> = reached.drain(..).map(|r| r.relevance()).collect();
        relevances.sort_by(|a, b| b.total_cmp(a));
        relevances.truncate(k);
        relevances
    }

    proptest! {
        #[test]
        fn stopping_early_keeps_the_most_relevant(
            edges in proptest::collection::vec((0usize..12, 0usize..12, 0.05f32..=1.0), 0..40),
            keep in 1usize..6,
        ) {
            let ids: Vec<MemoryId> = (0..12).map(|_| MemoryId::new()).collect();
            let graph = graph(&ids, &edges);
            let lookup = |id: &MemoryId| Ok(graph.get(id).cloned().unwrap_or_default());
            let full = walk(ids[0], 6, usize::MAX, 0, lookup).unwrap();
            let pruned = walk(ids[0], 6, usize::MAX, keep, lookup).unwrap();
            prop_assert_eq!(top_relevances(pruned, keep), top_relevances(full, keep));
        }
    }
}
