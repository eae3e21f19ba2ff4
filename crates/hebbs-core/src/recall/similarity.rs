//! The `similarity` strategy: k-NN on the cue embedding; relevance is the cosine similarity
//! (`1 - distance`). It returns `max(top_k, ef_search)` candidates, the pool the HNSW search
//! explores anyway, so the composite score (recency, importance, reinforcement) can rank more
//! than the `top_k` nearest; raise `ef_search` for a larger pool. When the answer is the
//! `top_k` most relevant (relevance alone weighted, no filter, no relevance floor) the pool
//! past them could only matter through ties and superseded memories, so it returns the `top_k`
//! nearest unless one of those is seen (an int8 index then re-scores
//! `RESCORE_OVERSAMPLING * top_k` candidates, not the whole walk's `ef`). Entity-scoped
//! searches are
//! planned: a small entity is scanned exactly, a large one is searched in the HNSW graph with an
//! entity filter. With an int8 index the search fetches more candidates and re-scores them
//! with the exact vectors (see [`super::rescore`]). [`nearest`] is the k-NN the other strategies
//! start from.

use super::executor::{ranks_by_relevance, Candidate, RecallContext, RecallFilter};
use super::plan::StrategyPlan;
use super::request::RecallRequest;
use super::rescore;
use super::result::StrategyDetail;
use super::strategy::Strategy;
use crate::error::Result;
use crate::filter::Members;
use crate::index::text::TextIndex;
use crate::index::vector::{dot, Neighbor, VectorIndex};
use crate::memory::MemoryId;
use crate::store::Store;

/// Entities with at most this many memories are scanned exactly instead of searched.
pub const EXACT_SCAN_MAX_ENTITY_SIZE: usize = 2048;
/// Nodes a filtered graph walk may expand per candidate it looks for (`max(ef, pool)`): a
/// filter that lets too few nodes through is then answered by a brute force instead of a walk
/// of the whole graph (the vectors of the filter's planned memories, or when it has none every
/// vector, scored in memory, the filter checked nearest first until the pool is full).
pub const FILTER_WALK_EXPANSIONS_PER_EF: usize = 64;
/// Distances a graph walk computes per node it expands, about (the neighbours of the node it
/// has not scored yet): what [`scan_beats_walk`] weighs a walk's expansions by.
pub const WALK_DISTANCES_PER_EXPANSION: usize = 16;

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let Some(query) = context.cue.as_deref() else {
        return Ok(Vec::new());
    };
    let search = |k: usize, widen: bool| {
        let fetch = Fetch {
            filtered: true,
            widen,
        };
        nearest(context, query, k, plan.ef_search, plan.entity_id, fetch)
    };
    let neighbors = match narrow_weight(context) {
        Some(weight) => {
            // One more than asked shows whether the last one ties with what follows.
            let mut hits = search(plan.top_k + 1, false)?;
            if hits.len() > plan.top_k && !narrow_is_enough(context, &hits, plan.top_k, weight)? {
                hits = search(plan.top_k, true)?;
            } else {
                hits.truncate(plan.top_k);
            }
            hits
        }
        None => search(plan.top_k, true)?,
    };
    Ok(neighbors
        .into_iter()
        .map(|hit| Candidate {
            id: hit.id,
            detail: StrategyDetail {
                distance: Some(hit.distance),
                ..StrategyDetail::new(Strategy::Similarity, (1.0 - hit.distance).clamp(0.0, 1.0))
            },
        })
        .collect())
}

/// The relevance weight when the request's answer is the `top_k` most relevant candidates (see
/// [`ranks_by_relevance`]; a positive weight, no filter, no relevance floor, whose
/// `below_threshold` counts the whole pool): then the similarity strategy can return its
/// `top_k` nearest instead of its whole pool, unless [`narrow_is_enough`] says no.
fn narrow_weight(context: &RecallContext<'_>) -> Option<f32> {
    let request = context.request;
    let weight = request.scoring_weights.w_relevance;
    let narrow = ranks_by_relevance(request)
        && weight > 0.0
        && context.filter.is_none()
        && request.min_relevance.is_none();
    narrow.then_some(weight)
}

/// Whether the `k` nearest of `hits` (`k + 1` of them, nearest first) are the answer's: none
/// of them is left out as superseded, and the next one does not tie the `k`-th's weighted
/// relevance (ties are broken by creation time, over every candidate).
fn narrow_is_enough(
    context: &RecallContext<'_>,
    hits: &[Neighbor],
    k: usize,
    weight: f32,
) -> Result<bool> {
    let relevance = |hit: &Neighbor| weight * (1.0 - hit.distance).clamp(0.0, 1.0);
    if relevance(&hits[k]) >= relevance(&hits[k - 1]) {
        return Ok(false);
    }
    if context.request.include_superseded {
        return Ok(true);
    }
    let ids: Vec<MemoryId> = hits[..k].iter().map(|hit| hit.id).collect();
    Ok(context
        .store
        .scoring_fields(&ids, true)?
        .iter()
        .flatten()
        .all(|fields| !fields.header.superseded))
}

/// What [`nearest`] returns besides the nearest `k`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fetch {
    /// Only the memories the request's filter selects.
    pub filtered: bool,
    /// `max(k, ef)` memories, the pool the walk explores anyway, not just `k`.
    pub widen: bool,
}

impl Fetch {
    /// The nearest `k`, unfiltered: a seed, or a read outside a recall.
    pub const EXACTLY_K: Self = Self {
        filtered: false,
        widen: false,
    };
}

/// The `k` live memories nearest to normalised `query` (`max(k, ef)` when `fetch.widen`),
/// nearest first; only `entity`'s when given, and only those the request's filter selects
/// when `fetch.filtered` (see
/// [`crate::filter::FilterPlan`]: a selective filter's memories are scored exactly, otherwise
/// the graph search checks the filter on the nodes it returns). `ef` defaults to the index's
/// `ef_search`. Distances are exact whatever the index's format.
pub(super) fn nearest(
    context: &RecallContext<'_>,
    query: &[f32],
    k: usize,
    ef_search: Option<usize>,
    entity: Option<&str>,
    Fetch { filtered, widen }: Fetch,
) -> Result<Vec<Neighbor>> {
    let Some(index) = context.index else {
        return Ok(Vec::new());
    };
    let ef = ef_search.unwrap_or(index.default_ef_search());
    let pool = if widen { k.max(ef) } else { k };
    // An int8 index ranks approximately: fetch more, keep the best after the exact re-score.
    let approximate = index.is_approximate();
    let fetch = if approximate {
        rescore::candidates(k, pool)
    } else {
        pool
    };
    let ef = ef.max(fetch);
    let filter = context.filter.as_ref().filter(|_| filtered);
    let members = match entity {
        Some(entity) => {
            let members = context.store.temporal_newest_first(
                entity,
                0,
                u64::MAX,
                EXACT_SCAN_MAX_ENTITY_SIZE + 1,
            )?;
            (members.len() <= EXACT_SCAN_MAX_ENTITY_SIZE)
                .then(|| members.into_iter().map(|key| key.id).collect::<Vec<_>>())
        }
        None => None,
    };
    let selected = filter.and_then(|filter| filter.plan.candidates.as_ref());
    let (hits, scanned) = match (members, selected) {
        (Some(members), selected) => {
            let ids: Vec<MemoryId> = members
                .into_iter()
                .filter(|id| selected.is_none_or(|selected| selected.contains(id)))
                .collect();
            (exact_scan(context, query, &ids, ids.len())?, true)
        }
        (None, Some(selected)) => (scan_members(index, filter, query, selected, fetch)?, false),
        (None, None) => match filter {
            Some(filter) => match filter.plan.walk_members.as_ref() {
                Some(members)
                    if entity.is_none()
                        && scan_beats_walk(members.len(), ef.max(pool), index.len()) =>
                {
                    (
                        scan_members(index, Some(filter), query, members, fetch)?,
                        false,
                    )
                }
                members => {
                    let (hits, stopped) = index.search_where(
                        query,
                        fetch,
                        Some(ef),
                        entity,
                        Some(|id: &MemoryId| {
                            members.is_none_or(|members| members.contains(id))
                                && filter.matcher.accepts(id)
                        }),
                        FILTER_WALK_EXPANSIONS_PER_EF.saturating_mul(ef.max(pool)),
                    );
                    filter.matcher.finish()?;
                    match members {
                        _ if !stopped || hits.len() >= fetch => (hits, false),
                        Some(members) if entity.is_none() => (
                            scan_members(index, Some(filter), query, members, fetch)?,
                            false,
                        ),
                        _ => (
                            nearest_selected(filter, index.exact_all(query, entity), fetch)?,
                            false,
                        ),
                    }
                }
            },
            None => (index.search(query, fetch, Some(ef), entity), false),
        },
    };
    let mut kept = keep_selected(filter, hits, fetch)?;
    if approximate && !scanned {
        kept = rescore::rescore(context.store, index, query, kept, pool)?;
    }
    kept.truncate(pool);
    Ok(kept)
}

/// The planned memories `ids` nearest `query`, nearest first, scored exactly in memory: the
/// nearest `fetch` when `filter` selects each of them (a plan's set is a superset, and is most
/// often the exact set), else all of them, for [`keep_selected`] to check nearest first.
fn scan_members(
    index: &VectorIndex,
    filter: Option<&RecallFilter<'_>>,
    query: &[f32],
    members: &Members,
    fetch: usize,
) -> Result<Vec<Neighbor>> {
    let (ids, remember) = (members.ids(), members.is_shared());
    let nearest = index.exact(query, ids, remember, fetch);
    let Some(filter) = filter.filter(|_| nearest.len() == fetch && ids.len() > fetch) else {
        return Ok(nearest);
    };
    let found: Vec<MemoryId> = nearest.iter().map(|hit| hit.id).collect();
    if filter
        .matcher
        .matching(&found)?
        .into_iter()
        .all(|selected| selected)
    {
        return Ok(nearest);
    }
    Ok(index.exact(query, ids, remember, ids.len()))
}

/// Whether scoring a filter's `matches` planned memories exactly costs less than walking the
/// graph for them: among `live` memories a walk meets one match every `live / matches` nodes,
/// so it expands about `ef * live / matches` nodes to find `ef` of them, each costing about
/// [`WALK_DISTANCES_PER_EXPANSION`] distances, where the scan costs `matches`. So the scan wins
/// while `matches² <= WALK_DISTANCES_PER_EXPANSION * ef * live`: up to about 8,900 matches
/// among 100k memories at `ef` 50, and every set a lookup plans among a million.
pub fn scan_beats_walk(matches: usize, ef: usize, live: usize) -> bool {
    let walk = (WALK_DISTANCES_PER_EXPANSION as u128) * (ef as u128) * (live as u128);
    (matches as u128).pow(2) <= walk
}

/// The first `pool` of `hits` (nearest first) that `filter` selects, checked a batch at a
/// time; all of them up to `pool` without a filter.
fn keep_selected(
    filter: Option<&RecallFilter<'_>>,
    mut hits: Vec<Neighbor>,
    pool: usize,
) -> Result<Vec<Neighbor>> {
    let Some(filter) = filter else {
        hits.truncate(pool);
        return Ok(hits);
    };
    let mut kept = Vec::with_capacity(pool.min(hits.len()));
    for batch in hits.chunks(pool.max(1)) {
        let ids: Vec<MemoryId> = batch.iter().map(|hit| hit.id).collect();
        let selected = filter.matcher.matching(&ids)?;
        kept.extend(
            batch
                .iter()
                .zip(selected)
                .filter(|(_, selected)| *selected)
                .map(|(hit, _)| *hit),
        );
        if kept.len() >= pool {
            break;
        }
    }
    kept.truncate(pool);
    Ok(kept)
}

/// The nearest `pool` of `hits` (in any order) that `filter` selects, nearest first: the
/// nearest `pool` are picked and checked, then the next twice as many, and so on, so a brute
/// force over every vector neither sorts them all nor reads a record at a time.
fn nearest_selected(
    filter: &RecallFilter<'_>,
    mut hits: Vec<Neighbor>,
    pool: usize,
) -> Result<Vec<Neighbor>> {
    let nearer = |a: &Neighbor, b: &Neighbor| a.distance.total_cmp(&b.distance);
    let mut kept = Vec::with_capacity(pool.min(hits.len()));
    let mut rest = &mut hits[..];
    let mut step = pool.max(1);
    while kept.len() < pool && !rest.is_empty() {
        let take = step.min(rest.len());
        if take < rest.len() {
            rest.select_nth_unstable_by(take, nearer);
        }
        let (head, tail) = rest.split_at_mut(take);
        head.sort_by(nearer);
        let ids: Vec<MemoryId> = head.iter().map(|hit| hit.id).collect();
        let selected = filter.matcher.matching(&ids)?;
        kept.extend(
            head.iter()
                .zip(selected)
                .filter(|(_, selected)| *selected)
                .map(|(hit, _)| *hit),
        );
        rest = tail;
        step = step.saturating_mul(2);
    }
    kept.truncate(pool);
    Ok(kept)
}

/// The `k` live memories nearest to normalised `query` (only `entity`'s when given), nearest
/// first, outside any recall: the engine's read-only `nearest`.
pub(crate) fn nearest_to(
    store: &Store,
    index: Option<&VectorIndex>,
    text: &TextIndex,
    query: &[f32],
    k: usize,
    entity: Option<&str>,
) -> Result<Vec<Neighbor>> {
    let request = RecallRequest::similarity(query.to_vec());
    let context = RecallContext {
        store,
        index,
        text,
        request: &request,
        cue: Some(query.to_vec()),
        now_us: 0,
        filter: None,
    };
    nearest(&context, query, k, None, entity, Fetch::EXACTLY_K)
}

fn exact_scan(
    context: &RecallContext<'_>,
    query: &[f32],
    ids: &[MemoryId],
    pool: usize,
) -> Result<Vec<Neighbor>> {
    let vectors = context.store.vectors(ids)?;
    let mut hits: Vec<Neighbor> = ids
        .iter()
        .zip(vectors)
        .filter_map(|(id, vector)| {
            vector.map(|vector| Neighbor::scored(*id, (1.0 - dot(query, &vector)).max(0.0)))
        })
        .collect();
    hits.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    hits.truncate(pool);
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::scan_beats_walk;

    #[test]
    fn the_scan_wins_up_to_the_square_root_of_the_walks_cost() {
        // 16 * 50 * 100,000 = 80,000,000, just above 8,944² and below 8,945².
        assert!(scan_beats_walk(8944, 50, 100_000));
        assert!(!scan_beats_walk(8945, 50, 100_000));
        // Among a million, every set a lookup plans (at most 16,384) is scanned.
        assert!(scan_beats_walk(16_384, 50, 1_000_000));
        // A wider search makes the walk dearer, a smaller store cheaper.
        assert!(scan_beats_walk(6000, 500, 8000));
        assert!(!scan_beats_walk(6000, 10, 8000));
    }
}
