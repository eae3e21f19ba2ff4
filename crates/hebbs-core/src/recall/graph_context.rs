//! Graph context: each recalled memory carries its strongest relationships
//! (`expansion_context`): up to `graph_context` edges, in both directions, strongest confidence
//! first, each with the neighbour's id and a short preview of its content. Bounded work: at most
//! [`GRAPH_CONTEXT_EDGE_SCAN`] edges read per memory and direction, one multi-get for every
//! neighbour of the call.

use std::collections::HashMap;

use super::result::{ExpansionEdge, RecallResult};
use crate::error::Result;
use crate::memory::MemoryId;
use crate::store::Store;

/// Relationships attached to each result when the caller does not say: none, since reading
/// them costs about a quarter of a plain similarity recall (ask for 3 to get the strongest).
pub const DEFAULT_GRAPH_CONTEXT: usize = 0;
/// Most relationships one result may carry.
pub const MAX_GRAPH_CONTEXT: usize = 20;
/// Characters of the neighbour's content in a preview.
pub const PREVIEW_CHARS: usize = 120;
/// Most edges read per memory and direction.
pub const GRAPH_CONTEXT_EDGE_SCAN: usize = 64;

/// Fills `expansion_context` of every result with its `per_result` strongest edges.
pub(super) fn attach(store: &Store, results: &mut [RecallResult], per_result: usize) -> Result<()> {
    if per_result == 0 || results.is_empty() {
        return Ok(());
    }
    let mut chosen: Vec<Vec<(MemoryId, bool, crate::memory::Edge)>> = Vec::new();
    for result in results.iter() {
        let id = result.memory.id;
        let mut edges: Vec<(MemoryId, bool, crate::memory::Edge)> = Vec::new();
        for outgoing in [true, false] {
            for edge in store.edges_up_to(&id, outgoing, GRAPH_CONTEXT_EDGE_SCAN)? {
                edges.push((id, outgoing, edge));
            }
        }
        edges.sort_by(|a, b| b.2.confidence.total_cmp(&a.2.confidence));
        edges.truncate(per_result);
        chosen.push(edges);
    }
    let neighbours: Vec<MemoryId> = chosen
        .iter()
        .flatten()
        .map(|(_, _, edge)| edge.target)
        .collect();
    if neighbours.is_empty() {
        return Ok(());
    }
    let records = store.records(&neighbours)?;
    let previews: HashMap<MemoryId, String> = neighbours
        .into_iter()
        .zip(records)
        .filter_map(|(id, record)| {
            record.map(|record| (id, record.content.chars().take(PREVIEW_CHARS).collect()))
        })
        .collect();
    for (result, edges) in results.iter_mut().zip(chosen) {
        result.expansion_context = edges
            .into_iter()
            .filter_map(|(_, outgoing, edge)| {
                previews.get(&edge.target).map(|preview| ExpansionEdge {
                    neighbor_id: edge.target,
                    edge_type: edge.edge_type,
                    outgoing,
                    confidence: edge.confidence,
                    preview: preview.clone(),
                })
            })
            .collect();
    }
    Ok(())
}
