//! The `analogical` strategy: memories shaped like the cue's situation, preferably from other
//! entities (cross-domain transfer).
//!
//! The situation's structure comes from the seed memory, else from `cue_context`, else from the
//! memory nearest the cue (that reference memory is never a result: it is the situation itself).
//! Candidates are the [`ANALOGICAL_POOL_FACTOR`]` * top_k` memories nearest the cue (or the
//! seed's vector), re-ranked by
//! `relevance = alpha * embedding_similarity + (1 - alpha) * structural_similarity`, multiplied
//! by [`SAME_ENTITY_FACTOR`] for memories of the cue's own entity. Both components go in the
//! detail.

use std::collections::BTreeSet;

use super::executor::{Candidate, RecallContext};
use super::plan::StrategyPlan;
use super::result::StrategyDetail;
use super::similarity::{nearest, Fetch};
use super::strategy::Strategy;
use super::structure::{structural_similarity, Structure};
use crate::error::{HebbsError, Result};
use crate::index::vector::Neighbor;
use crate::memory::{EdgeType, MemoryId, StoredMemory};
use crate::store::Store;

/// Candidates fetched per requested result before re-ranking.
pub const ANALOGICAL_POOL_FACTOR: usize = 5;
/// Relevance kept by memories of the cue's own entity.
pub const SAME_ENTITY_FACTOR: f32 = 0.8;
/// Most edges read per direction for a memory's edge signature.
const SIGNATURE_EDGES: usize = 64;

/// The situation the candidates are compared with.
struct Reference {
    structure: Structure,
    entity: Option<String>,
    query: Vec<f32>,
    exclude: Option<MemoryId>,
}

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let Some(reference) = reference(context, plan)? else {
        return Ok(Vec::new());
    };
    let pool = plan.top_k.saturating_mul(ANALOGICAL_POOL_FACTOR);
    let mut neighbors: Vec<Neighbor> = nearest(
        context,
        &reference.query,
        pool,
        plan.ef_search,
        None,
        Fetch {
            filtered: true,
            widen: true,
        },
    )?;
    neighbors.retain(|hit| Some(hit.id) != reference.exclude);
    let ids: Vec<MemoryId> = neighbors.iter().map(|hit| hit.id).collect();
    let records = context.store.records(&ids)?;
    let alpha = plan.analogical_alpha;
    let mut scored = Vec::with_capacity(ids.len());
    for (hit, record) in neighbors.into_iter().zip(records) {
        let Some(record) = record else { continue };
        let entity_matches = reference.entity.is_some() && record.entity_id == reference.entity;
        let structure = structure_of(context.store, &hit.id, record)?;
        let structural = structural_similarity(&reference.structure, &structure);
        let embedding = (1.0 - hit.distance).clamp(0.0, 1.0);
        let mut relevance = alpha * embedding + (1.0 - alpha) * structural;
        if entity_matches {
            relevance *= SAME_ENTITY_FACTOR;
        }
        scored.push(Candidate {
            id: hit.id,
            detail: StrategyDetail {
                embedding_similarity: Some(embedding),
                structural_similarity: Some(structural),
                ..StrategyDetail::new(Strategy::Analogical, relevance)
            },
        });
    }
    scored.sort_by(|a, b| b.detail.relevance.total_cmp(&a.detail.relevance));
    scored.truncate(plan.top_k);
    Ok(scored)
}

fn reference(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Option<Reference>> {
    let store = context.store;
    let cue_context = context.request.cue_context.clone();
    if let Some(seed) = plan.seed_memory_id {
        let record = store
            .record(&seed)?
            .ok_or_else(|| HebbsError::NotFound { id: seed.to_hex() })?;
        let query = match &context.cue {
            Some(cue) => cue.clone(),
            None => store
                .vector(&seed)?
                .ok_or_else(|| HebbsError::NotFound { id: seed.to_hex() })?,
        };
        let entity = plan
            .entity_id
            .map(str::to_owned)
            .or(record.entity_id.clone());
        let mut structure = structure_of(store, &seed, record)?;
        if let Some(cue_context) = cue_context {
            structure.context = cue_context;
        }
        return Ok(Some(Reference {
            structure,
            entity,
            query,
            exclude: Some(seed),
        }));
    }
    let Some(query) = context.cue.clone() else {
        return Ok(None);
    };
    if let Some(cue_context) = cue_context {
        return Ok(Some(Reference {
            structure: Structure {
                context: cue_context,
                kind: None,
                edges: None,
            },
            entity: plan.entity_id.map(str::to_owned),
            query,
            exclude: None,
        }));
    }
    let Some(nearest_hit) = nearest(context, &query, 1, plan.ef_search, None, Fetch::EXACTLY_K)?
        .first()
        .copied()
    else {
        return Ok(None);
    };
    let Some(record) = store.record(&nearest_hit.id)? else {
        return Ok(None);
    };
    let entity = plan
        .entity_id
        .map(str::to_owned)
        .or(record.entity_id.clone());
    Ok(Some(Reference {
        structure: structure_of(store, &nearest_hit.id, record)?,
        entity,
        query,
        exclude: Some(nearest_hit.id),
    }))
}

fn structure_of(store: &Store, id: &MemoryId, record: StoredMemory) -> Result<Structure> {
    let mut edges: BTreeSet<(bool, EdgeType)> = BTreeSet::new();
    for outgoing in [true, false] {
        for edge in store.edges_up_to(id, outgoing, SIGNATURE_EDGES)? {
            edges.insert((outgoing, edge.edge_type));
        }
    }
    Ok(Structure {
        context: record.context,
        kind: Some(record.kind),
        edges: Some(edges),
    })
}
