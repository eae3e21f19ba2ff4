//! The recall executor: runs the requested strategies (in parallel on rayon when there are
//! several), deduplicates by id keeping the highest relevance and every detail, scores each
//! memory with the composite score, ranks by it (a temporal-only recall stays newest first),
//! lets the re-rank stage re-order the ranked head when the request asks for one, and
//! truncates to `top_k`.

use rayon::prelude::*;

use super::plan::StrategyPlan;
use super::request::RecallRequest;
use super::rerank::{self, HeadEntry, HeadScores, Rerank, StageScore};
use super::result::{RecallOutput, RecallResult, StrategyDetail, StrategyError};
use super::scoring::composite_score;
use super::strategy::Strategy;
use super::{analogical, causal, graph_context, hybrid, keyword, regex_scan, similarity, temporal};
use crate::error::Result;
use crate::index::text::TextIndex;
use crate::index::vector::VectorIndex;
use crate::memory::{IdMap, Memory, MemoryId};
use crate::store::{ScoringFields, Store};

/// One strategy's finding: a memory and how it matched.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The memory.
    pub id: MemoryId,
    /// How the strategy matched it.
    pub detail: StrategyDetail,
}

/// Everything a strategy may read.
pub(crate) struct RecallContext<'a> {
    pub store: &'a Store,
    pub index: Option<&'a VectorIndex>,
    pub text: &'a TextIndex,
    pub request: &'a RecallRequest,
    /// The normalised cue vector.
    pub cue: Option<Vec<f32>>,
    pub now_us: u64,
}

/// Runs one strategy, first checking it has its own inputs (see [`StrategyPlan::check_inputs`]).
fn run_strategy(plan: &StrategyPlan<'_>, context: &RecallContext<'_>) -> Result<Vec<Candidate>> {
    plan.check_inputs(context.cue.is_some(), context.request.has_cue_text())?;
    match plan.strategy {
        Strategy::Similarity => similarity::run(context, plan),
        Strategy::Temporal => temporal::run(context, plan),
        Strategy::Causal => causal::run(context, plan),
        Strategy::Analogical => analogical::run(context, plan),
        Strategy::Hybrid => hybrid::run(context, plan),
        Strategy::Keyword => keyword::run(context, plan),
        Strategy::Regex => regex_scan::run(context, plan),
    }
}

/// Runs a validated request. A failing strategy (its own input missing, its seed not found, a
/// read failing) is reported in `strategy_errors` while the others answer; if every strategy
/// fails, the first error in request order is returned.
pub(crate) fn execute(context: &RecallContext<'_>) -> Result<RecallOutput> {
    let plans = context.request.plans();
    let answers: Vec<(Strategy, Result<Vec<Candidate>>)> = if plans.len() == 1 {
        vec![(plans[0].strategy, run_strategy(&plans[0], context))]
    } else {
        plans
            .par_iter()
            .map(|plan| (plan.strategy, run_strategy(plan, context)))
            .collect()
    };
    let mut found = Vec::new();
    let mut strategy_errors = Vec::new();
    let mut first_error = None;
    for (strategy, answer) in answers {
        match answer {
            Ok(candidates) => found.push(candidates),
            Err(error) => {
                strategy_errors.push(StrategyError::new(strategy, &error));
                first_error.get_or_insert(error);
            }
        }
    }
    if found.is_empty() {
        if let Some(error) = first_error {
            return Err(error);
        }
    }
    let mut merged = merge(found);
    let before = merged.len();
    if let Some(floor) = context.request.min_relevance {
        merged.retain(|entry| entry.1 >= floor);
    }
    let below_threshold = before - merged.len();
    let mut results = score(context, merged)?;
    graph_context::attach(context.store, &mut results, context.request.graph_context)?;
    Ok(RecallOutput {
        results,
        strategy_errors,
        below_threshold,
    })
}

/// Deduplicates by id, in first-seen order, keeping the highest relevance and every detail.
fn merge(found: Vec<Vec<Candidate>>) -> Vec<(MemoryId, f32, Vec<StrategyDetail>)> {
    let mut position: IdMap<usize> =
        IdMap::with_capacity_and_hasher(found.iter().map(Vec::len).sum(), Default::default());
    let mut merged: Vec<(MemoryId, f32, Vec<StrategyDetail>)> = Vec::new();
    for candidate in found.into_iter().flatten() {
        match position.get(&candidate.id) {
            Some(at) => {
                let entry = &mut merged[*at];
                entry.1 = entry.1.max(candidate.detail.relevance);
                entry.2.push(candidate.detail);
            }
            None => {
                position.insert(candidate.id, merged.len());
                merged.push((
                    candidate.id,
                    candidate.detail.relevance,
                    vec![candidate.detail],
                ));
            }
        }
    }
    merged
}

/// A ranked candidate: composite score, creation time, access count, id, details.
type Ranked = (f32, u64, u64, MemoryId, Vec<StrategyDetail>);

/// Re-orders the first `rerank_top_n` of `ranked`, with the neighbours the stage promotes into
/// the head, by their stage score (stable: ties and the candidates the stage could not score
/// keep their composite order, the unscored after the scored) and records the scores in each
/// detail. A promoted neighbour that was ranked past the head moves into it with its entry; one
/// no strategy found gets an entry of its own: a detail of the request's first strategy with
/// relevance 0, and the composite score of that relevance.
fn rerank_head(context: &RecallContext<'_>, ranked: &mut Vec<Ranked>) -> Result<()> {
    let n = context.request.rerank_top_n.min(ranked.len());
    let mut rest = ranked.split_off(n);
    let head: Vec<HeadEntry> = ranked
        .iter()
        .map(|entry| HeadEntry {
            id: entry.3,
            created_at: entry.1,
            bm25: entry
                .4
                .iter()
                .filter_map(|detail| detail.bm25_score)
                .reduce(f32::max),
        })
        .collect();
    let HeadScores { scores, promoted } = rerank::score_head(context, &head)?;
    let mut scores = scores.into_iter();
    let mut order: Vec<(usize, Option<StageScore>)> = scores.by_ref().take(n).enumerate().collect();
    let strategy = context
        .request
        .strategies
        .first()
        .map_or(Strategy::Hybrid, |config| config.strategy);
    let mut fresh = Vec::new();
    let mut fresh_scores = Vec::new();
    for (entry, score) in promoted.iter().zip(scores) {
        if let Some(at) = rest.iter().position(|ranked| ranked.3 == entry.id) {
            order.push((ranked.len(), score));
            ranked.push(rest.remove(at));
        } else {
            fresh.push((entry.id, 0.0, vec![StrategyDetail::new(strategy, 0.0)]));
            fresh_scores.push((entry.id, score));
        }
    }
    let mut added = Vec::new();
    rank_into(context, fresh, &mut added)?;
    for entry in added {
        if let Some((_, score)) = fresh_scores.iter().find(|(id, _)| *id == entry.3) {
            order.push((ranked.len(), *score));
            ranked.push(entry);
        }
    }
    order.sort_by(|a, b| match (a.1, b.1) {
        (Some(x), Some(y)) => y.total.total_cmp(&x.total),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let mut slots: Vec<Option<Ranked>> = std::mem::take(ranked).into_iter().map(Some).collect();
    for (from, stage) in order {
        let mut entry = slots[from].take().expect("each position is taken once");
        if let Some(stage) = stage {
            for detail in &mut entry.4 {
                detail.late_interaction_score = Some(stage.late_interaction);
                detail.rerank_score = Some(stage.total);
            }
        }
        ranked.push(entry);
    }
    ranked.extend(rest);
    Ok(())
}

/// Scores every candidate from its scoring fields alone (cached in memory on a warm path, see
/// [`Store::scoring_fields`]; skipping memories a revision superseded unless the request
/// includes them), keeps the best `top_k`, and only then reads and assembles their records (a
/// memory forgotten meanwhile drops out). A temporal-only recall keeps its timeline order
/// (newest first, seed 000) and still reports each composite score. When the score is
/// relevance alone (see [`ranks_by_relevance`]) only the most relevant candidates are scored.
fn score(
    context: &RecallContext<'_>,
    merged: Vec<(MemoryId, f32, Vec<StrategyDetail>)>,
) -> Result<Vec<RecallResult>> {
    let now = context.now_us;
    let mut ranked = if ranks_by_relevance(context.request) {
        rank_most_relevant(context, merged)?
    } else {
        rank_all(context, merged)?
    };
    let request = context.request;
    if temporal_only(request) {
        ranked.sort_by_key(|entry| entry.4[0].rank);
    } else {
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    }
    if request.rerank != Rerank::None {
        rerank_head(context, &mut ranked)?;
    }
    ranked.truncate(context.request.top_k);
    let ids: Vec<MemoryId> = ranked.iter().map(|entry| entry.3).collect();
    let records = context.store.cached_records(&ids)?;
    let vectors = if context.request.include_embedding {
        context.store.vectors(&ids)?
    } else {
        vec![None; ranked.len()]
    };
    let mut results = Vec::with_capacity(ranked.len());
    for (((score, _, count, id, details), record), embedding) in
        ranked.into_iter().zip(records).zip(vectors)
    {
        let Some(stored) = record else { continue };
        results.push(RecallResult {
            memory: Memory::assemble(id, (*stored).clone(), count + 1, now, embedding, now),
            score,
            strategy_details: details,
            expansion_context: Vec::new(),
        });
    }
    Ok(results)
}

/// Whether the composite score of `request` is relevance alone (recency, importance and
/// reinforcement weighted 0) and nothing re-orders the ranking after it: then the `top_k` most
/// relevant accepted candidates are the answer, and the rest need no scoring fields.
fn ranks_by_relevance(request: &RecallRequest) -> bool {
    let weights = &request.scoring_weights;
    weights.w_recency == 0.0
        && weights.w_importance == 0.0
        && weights.w_reinforcement == 0.0
        && request.rerank == Rerank::None
        && !temporal_only(request)
}

/// Whether `request` runs the temporal strategy alone (its answer keeps the timeline order).
fn temporal_only(request: &RecallRequest) -> bool {
    request.strategies.len() == 1 && request.strategies[0].strategy == Strategy::Temporal
}

/// A candidate's place in a relevance-only ranking: its relevance as the score counts it.
fn counted_relevance(relevance: f32) -> f32 {
    relevance.clamp(0.0, 1.0)
}

/// The ranking entries of every candidate the request accepts (see [`score`]).
fn rank_all(
    context: &RecallContext<'_>,
    merged: Vec<(MemoryId, f32, Vec<StrategyDetail>)>,
) -> Result<Vec<Ranked>> {
    let mut ranked = Vec::with_capacity(merged.len());
    rank_into(context, merged, &mut ranked)?;
    Ok(ranked)
}

/// The ranking entries of the most relevant accepted candidates, read `top_k` at a time, most
/// relevant first, until `top_k` are accepted and the next candidate would score below the last
/// of them (ties are all kept, for the creation-time tie-break).
fn rank_most_relevant(
    context: &RecallContext<'_>,
    mut merged: Vec<(MemoryId, f32, Vec<StrategyDetail>)>,
) -> Result<Vec<Ranked>> {
    let top_k = context.request.top_k.max(1);
    let weight = context.request.scoring_weights.w_relevance;
    merged.sort_by(|a, b| counted_relevance(b.1).total_cmp(&counted_relevance(a.1)));
    let mut ranked: Vec<Ranked> = Vec::with_capacity(top_k);
    let mut rest = merged.into_iter().peekable();
    while let Some(next) = rest.peek() {
        if ranked.len() >= top_k && weight * counted_relevance(next.1) < ranked[top_k - 1].0 {
            break;
        }
        rank_into(context, rest.by_ref().take(top_k).collect(), &mut ranked)?;
    }
    Ok(ranked)
}

/// Appends to `ranked` the entries of those of `candidates` the request accepts, in order,
/// reading their scoring fields in one call.
fn rank_into(
    context: &RecallContext<'_>,
    candidates: Vec<(MemoryId, f32, Vec<StrategyDetail>)>,
    ranked: &mut Vec<Ranked>,
) -> Result<()> {
    let ids: Vec<MemoryId> = candidates.iter().map(|entry| entry.0).collect();
    // A relevance-only ranking reads `top_k` candidates at a time, most relevant first, so
    // what it reads is nearly always what it returns: their records are kept from this read.
    let keep_records = ranks_by_relevance(context.request);
    let fields = context.store.scoring_fields(&ids, keep_records)?;
    for (candidate, fields) in candidates.into_iter().zip(fields) {
        if let Some(entry) = ranked_entry(context, candidate, fields) {
            ranked.push(entry);
        }
    }
    Ok(())
}

/// One candidate's ranking entry, or `None` when it no longer exists or a revision superseded
/// it and the request leaves those out.
fn ranked_entry(
    context: &RecallContext<'_>,
    (id, relevance, details): (MemoryId, f32, Vec<StrategyDetail>),
    fields: Option<ScoringFields>,
) -> Option<Ranked> {
    let ScoringFields { header, access } = fields?;
    if header.superseded && !context.request.include_superseded {
        return None;
    }
    let score = composite_score(
        &context.request.scoring_weights,
        relevance,
        header.created_at,
        header.importance,
        access.count,
        context.now_us,
    );
    Some((score, header.created_at, access.count, id, details))
}
