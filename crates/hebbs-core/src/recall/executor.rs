//! The recall executor: runs the requested strategies (in parallel on rayon when there are
//! several), deduplicates by id keeping the highest relevance and every detail, lets the
//! re-rank stage re-score the most relevant candidates when the request asks for one (its
//! calibrated score becomes their relevance), scores each memory with the composite score,
//! ranks by it (a temporal-only recall without a stage stays newest first), and truncates to
//! `top_k`.

use rayon::prelude::*;

use super::plan::StrategyPlan;
use super::request::RecallRequest;
use super::rerank::{self, HeadEntry, HeadScores, Rerank, StageScore};
use super::result::{RecallOutput, RecallResult, StrategyDetail, StrategyError};
use super::scoring::ScoreSignals;
use super::strategy::Strategy;
use super::{analogical, causal, graph_context, hybrid, keyword, regex_scan, similarity, temporal};
use crate::error::Result;
use crate::filter::{Filter, FilterPlan, Matcher};
use crate::index::text::TextIndex;
use crate::index::vector::VectorIndex;
use crate::memory::{IdMap, Memory, MemoryId, RecordHeader};
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
    /// The request's filter, planned.
    pub filter: Option<RecallFilter<'a>>,
}

/// A recall's filter: its plan and the matcher every strategy checks its finds with.
pub(crate) struct RecallFilter<'a> {
    pub plan: FilterPlan,
    pub matcher: Matcher<'a>,
}

impl<'a> RecallFilter<'a> {
    /// Plans `filter` on `store`.
    pub fn new(store: &'a Store, filter: &'a Filter) -> Result<Self> {
        Ok(Self {
            plan: FilterPlan::new(store, filter)?,
            matcher: Matcher::new(store, filter),
        })
    }
}

/// Most candidates a strategy is asked for while it looks for enough that the filter selects.
pub const FILTER_MAX_DEPTH: usize = 4096;
/// How much deeper each new look goes.
const FILTER_DEPTH_FACTOR: usize = 4;

/// Runs one strategy and keeps what the request's filter selects. When fewer than its
/// `top_k` remain and it found as many as it was asked for, it runs again asked for
/// [`FILTER_DEPTH_FACTOR`] times more, up to [`FILTER_MAX_DEPTH`].
fn run_filtered(plan: &StrategyPlan<'_>, context: &RecallContext<'_>) -> Result<Vec<Candidate>> {
    let Some(filter) = &context.filter else {
        return run_strategy(plan, context);
    };
    let mut deeper = plan.clone();
    loop {
        let found = run_strategy(&deeper, context)?;
        let exhausted = found.len() < deeper.top_k;
        let ids: Vec<MemoryId> = found.iter().map(|candidate| candidate.id).collect();
        let selected = filter.matcher.matching(&ids)?;
        let kept: Vec<Candidate> = found
            .into_iter()
            .zip(selected)
            .filter_map(|(candidate, selected)| selected.then_some(candidate))
            .collect();
        if kept.len() >= plan.top_k || exhausted || deeper.top_k >= FILTER_MAX_DEPTH {
            return Ok(kept);
        }
        deeper.top_k = (deeper.top_k * FILTER_DEPTH_FACTOR).min(FILTER_MAX_DEPTH);
    }
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
        vec![(plans[0].strategy, run_filtered(&plans[0], context))]
    } else {
        plans
            .par_iter()
            .map(|plan| (plan.strategy, run_filtered(plan, context)))
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
fn merge(found: Vec<Vec<Candidate>>) -> Vec<Merged> {
    let mut position: IdMap<usize> =
        IdMap::with_capacity_and_hasher(found.iter().map(Vec::len).sum(), Default::default());
    let mut merged: Vec<Merged> = Vec::new();
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

/// A ranked candidate.
struct Ranked {
    /// Its composite score.
    score: f32,
    /// The signals the score combines.
    signals: ScoreSignals,
    /// The re-rank stage's score, when it scored the candidate.
    stage: Option<f32>,
    /// The best relevance the strategies gave it.
    first_stage: f32,
    created_at: u64,
    importance: f32,
    access_count: u64,
    id: MemoryId,
    details: Vec<StrategyDetail>,
}

impl Ranked {
    /// The entry of a candidate with `relevance` and these scoring fields.
    fn new(
        context: &RecallContext<'_>,
        (id, relevance, details): Merged,
        header: &RecordHeader,
        access_count: u64,
    ) -> Self {
        let mut entry = Self {
            score: 0.0,
            signals: ScoreSignals::default(),
            stage: None,
            first_stage: relevance,
            created_at: header.created_at,
            importance: header.importance,
            access_count,
            id,
            details,
        };
        entry.rescore(context, relevance);
        entry
    }

    /// Scores the entry again with `relevance` as its relevance signal.
    fn rescore(&mut self, context: &RecallContext<'_>, relevance: f32) {
        let weights = &context.request.scoring_weights;
        self.signals = weights.signals(
            relevance,
            self.created_at,
            self.importance,
            self.access_count,
            context.now_us,
        );
        self.score = weights.combine(&self.signals);
    }
}

/// A merged candidate: its id, its best strategy relevance and every strategy's detail.
type Merged = (MemoryId, f32, Vec<StrategyDetail>);

/// Runs the re-rank stage on `head` (the `rerank_top_n` candidates the first stage ranked most
/// relevant) and the neighbours it promotes (see [`rerank::score_head`]), appended to `head`:
/// one in `tail` (ranked past the head) or in `rest` (never read) joins with its entry, one no
/// strategy found with a detail of the request's first strategy and relevance 0. Each
/// candidate the stage scored gets its scores in every detail and the calibrated stage score
/// ([`rerank::Calibration`]) as its relevance signal. One it did not score (past the
/// head, or without stored token vectors) is not known to match better than the weakest it
/// scored: its relevance is its first-stage relevance capped at that one's. Every entry is
/// scored again, so the composite orders them all on one relevance scale.
fn rerank_head(
    context: &RecallContext<'_>,
    head: &mut Vec<Ranked>,
    mut tail: Vec<Ranked>,
    mut rest: Vec<Merged>,
) -> Result<()> {
    let weights = &context.request.scoring_weights;
    let entries: Vec<HeadEntry> = head
        .iter()
        .map(|entry| HeadEntry {
            id: entry.id,
            created_at: entry.created_at,
            bm25: entry
                .details
                .iter()
                .filter_map(|detail| detail.bm25_score)
                .reduce(f32::max),
            line: weights.relevance_line(
                entry.created_at,
                entry.importance,
                entry.access_count,
                context.now_us,
            ),
        })
        .collect();
    let HeadScores { scores, promoted } = rerank::score_head(context, &entries)?;
    let strategy = context
        .request
        .strategies
        .first()
        .map_or(Strategy::Hybrid, |config| config.strategy);
    let mut joining: Vec<Merged> = Vec::new();
    for entry in &promoted {
        if let Some(at) = tail.iter().position(|ranked| ranked.id == entry.id) {
            head.push(tail.remove(at));
        } else if let Some(at) = rest.iter().position(|merged| merged.0 == entry.id) {
            joining.push(rest.swap_remove(at));
        } else {
            joining.push((entry.id, 0.0, vec![StrategyDetail::new(strategy, 0.0)]));
        }
    }
    rank_into(context, joining, head)?;
    let by_id: IdMap<StageScore> = entries
        .iter()
        .chain(&promoted)
        .map(|entry| entry.id)
        .zip(scores)
        .filter_map(|(id, score)| Some((id, score?)))
        .collect();
    let mut weakest = f32::INFINITY;
    for entry in head.iter_mut() {
        let Some(stage) = by_id.get(&entry.id) else {
            continue;
        };
        for detail in &mut entry.details {
            detail.late_interaction_score = Some(stage.late_interaction);
            detail.rerank_score = Some(stage.total);
        }
        entry.stage = Some(stage.total);
        entry.rescore(context, stage.relevance);
        weakest = weakest.min(entry.signals.relevance);
    }
    head.extend(tail);
    if weakest.is_finite() {
        for entry in head
            .iter_mut()
            .filter(|entry| !by_id.contains_key(&entry.id))
        {
            entry.rescore(context, entry.signals.relevance.min(weakest));
        }
    }
    Ok(())
}

/// Scores every candidate from its scoring fields alone (cached in memory on a warm path, see
/// [`Store::scoring_fields`]; skipping memories a revision superseded unless the request
/// includes them), ranks them by the composite score, keeps the best `top_k` of those whose
/// score reaches `min_score`, and only then reads and assembles their records (a memory
/// forgotten meanwhile drops out). A temporal-only
/// recall without a re-rank stage keeps its timeline order (newest first, seed 000) and still
/// reports each composite score. When the score is relevance alone (see [`ranks_by_relevance`]) only the most
/// relevant candidates are scored. With a re-rank stage, the head it re-scores is the
/// `rerank_top_n` most relevant candidates; the stage's calibrated score becomes their
/// relevance, and the composite orders them with the rest (see [`rerank_head`]).
fn score(context: &RecallContext<'_>, merged: Vec<Merged>) -> Result<Vec<RecallResult>> {
    let request = context.request;
    let now = context.now_us;
    let mut ranked = if request.rerank != Rerank::None {
        let (mut head, rest) = most_relevant(context, merged, request.candidate_pool(), 1.0)?;
        let tail = head.split_off(request.rerank_top_n.min(head.len()));
        rerank_head(context, &mut head, tail, rest)?;
        head
    } else if ranks_by_relevance(request) {
        let weight = request.scoring_weights.w_relevance;
        most_relevant(context, merged, request.top_k, weight)?.0
    } else {
        let mut ranked = Vec::with_capacity(merged.len());
        rank_into(context, merged, &mut ranked)?;
        ranked
    };
    if temporal_only(request) && request.rerank == Rerank::None {
        ranked.sort_by_key(|entry| entry.details[0].rank);
    } else {
        // Equal composite scores: with a stage, the candidates it scored first, by its score,
        // then the others by their first-stage relevance; then the newest first.
        let staged = request.rerank != Rerank::None;
        let tiebreak = |entry: &Ranked| match entry.stage {
            Some(total) => (true, total),
            None if staged => (false, entry.first_stage),
            None => (false, 0.0),
        };
        ranked.sort_by(|a, b| {
            let (x, y) = (tiebreak(a), tiebreak(b));
            b.score
                .total_cmp(&a.score)
                .then(y.0.cmp(&x.0))
                .then(y.1.total_cmp(&x.1))
                .then(b.created_at.cmp(&a.created_at))
        });
    }
    ranked.retain(|entry| entry.score >= request.min_score);
    ranked.truncate(request.top_k);
    let ids: Vec<MemoryId> = ranked.iter().map(|entry| entry.id).collect();
    let records = context.store.cached_records(&ids)?;
    let vectors = if request.include_embedding {
        context.store.vectors(&ids)?
    } else {
        vec![None; ranked.len()]
    };
    let mut results = Vec::with_capacity(ranked.len());
    for ((entry, record), embedding) in ranked.into_iter().zip(records).zip(vectors) {
        let Some(stored) = record else { continue };
        results.push(RecallResult {
            memory: Memory::assemble(
                entry.id,
                (*stored).clone(),
                entry.access_count + 1,
                now,
                embedding,
                now,
            ),
            score: entry.score,
            signals: entry.signals,
            strategy_details: entry.details,
            expansion_context: Vec::new(),
        });
    }
    Ok(results)
}

/// Whether the composite score of `request` is relevance alone (recency, importance and
/// reinforcement weighted 0) and nothing re-orders the ranking after it: then the `top_k` most
/// relevant accepted candidates are the answer, and the rest need no scoring fields.
pub(super) fn ranks_by_relevance(request: &RecallRequest) -> bool {
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

/// The ranking entries of the `n` most relevant accepted candidates, read `n` at a time, most
/// relevant first, and the candidates never read. Candidates whose `weight * relevance` ties
/// the `n`-th's are read too, so the creation-time tie-break still decides (with a weight of
/// 0, every candidate ties).
fn most_relevant(
    context: &RecallContext<'_>,
    mut merged: Vec<Merged>,
    n: usize,
    weight: f32,
) -> Result<(Vec<Ranked>, Vec<Merged>)> {
    let n = n.max(1);
    merged.sort_by(|a, b| b.1.clamp(0.0, 1.0).total_cmp(&a.1.clamp(0.0, 1.0)));
    let mut ranked: Vec<Ranked> = Vec::with_capacity(n);
    let mut rest = merged.into_iter().peekable();
    while let Some(next) = rest.peek() {
        if ranked.len() >= n
            && weight * next.1.clamp(0.0, 1.0) < weight * ranked[n - 1].signals.relevance
        {
            break;
        }
        rank_into(context, rest.by_ref().take(n).collect(), &mut ranked)?;
    }
    Ok((ranked, rest.collect()))
}

/// Appends to `ranked` the entries of those of `candidates` the request accepts, in order,
/// reading their scoring fields in one call.
fn rank_into(
    context: &RecallContext<'_>,
    candidates: Vec<Merged>,
    ranked: &mut Vec<Ranked>,
) -> Result<()> {
    let ids: Vec<MemoryId> = candidates.iter().map(|entry| entry.0).collect();
    // A relevance-only ranking reads `top_k` candidates at a time, most relevant first, so
    // what it reads is nearly always what it returns: their records are kept from this read.
    let keep_records = ranks_by_relevance(context.request);
    let fields = context.store.scoring_fields(&ids, keep_records)?;
    for (candidate, fields) in candidates.into_iter().zip(fields) {
        let Some(ScoringFields { header, access }) = fields else {
            continue;
        };
        if header.superseded && !context.request.include_superseded {
            continue;
        }
        ranked.push(Ranked::new(context, candidate, &header, access.count));
    }
    Ok(())
}
