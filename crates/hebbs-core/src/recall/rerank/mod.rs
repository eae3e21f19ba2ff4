//! The re-rank stage of recall: after the strategies' candidates are merged, the
//! `rerank_top_n` most relevant of them (the head) are scored again, reading the cue and each
//! candidate together. The stage's score, calibrated to 0..=1 (`calibration.rs`), becomes the
//! candidate's relevance signal, and seed 000's composite score orders the results as in every
//! recall (the default recall is this stage over `hybrid`: `RecallRequest::cue`).
//!
//! [`Rerank::LateInteraction`] scores a candidate by IDF-weighted max-sim of the cue's token
//! vectors (`RecallRequest::cue_token_vectors`) against the candidate's stored int8 token
//! vectors (`maxsim.rs`), and adds three general signals:
//!
//! - **conversation**: [`NEIGHBOUR_WEIGHT`] times the best late-interaction score among the
//!   memories up to [`NEIGHBOUR_WINDOW`] before and after it in its conversation (the memories
//!   remembered with its `session_id`, in `created_at` then arrival order): an answer often
//!   completes the turn next to it;
//! - **the turn in its window**: [`WINDOW_WEIGHT`] times the late-interaction score of the
//!   candidate and those neighbours read as one document (for each cue token its best match
//!   over all their tokens): a cue whose words are spread over adjacent turns (the question in
//!   one, the answer in the next) matches the window better than any one turn;
//! - **the conversation in the head**: [`CONVERSATION_WEIGHT`] times the best late-interaction
//!   score among the *other* head candidates of its conversation (`session_id`): a
//!   conversation that holds other strong matches is likelier the one the cue is about;
//! - **the first stage's BM25**: [`BM25_WEIGHT`] times its BM25 score (when a strategy gave
//!   one) divided by the best of the head, so exact words the token vectors match loosely
//!   still count;
//! - **entity** and **time** named in the cue (`cue_signals.rs`).
//!
//! **Neighbours join the head.** The conversation neighbours of the [`PROMOTE_TOP`] head
//! candidates with the best own late-interaction scores are candidates too when the first
//! stage did not rank them into the head (a strong match's answer is often worded unlike the
//! cue), scored like the others; the executor gives one no strategy found a detail of the
//! request's first strategy with relevance 0.
//!
//! A candidate without stored token vectors gets no stage score and follows the scored ones
//! in its composite order. The IDF is counted over the head's candidates, and a neighbour is
//! scored with the same weights.
//!
//! **What it reads.** The head's token vectors and, at the same time, its neighbours' ids;
//! then the neighbours' token vectors only for the candidates that can still reach the
//! recall's `top_k` (see [`score_head`]): the `top_k` results get the exact scores of a stage
//! that reads every neighbour, from fewer reads (about 510 against 646 values a query on the
//! 100k bench store, docs/hybrid.md). Every read is split across the rayon threads.

mod calibration;
mod cue_signals;
mod maxsim;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

pub use calibration::{Calibration, FLOOR_QUANTILE};
pub use cue_signals::{NamedTime, ENTITY_BONUS, TIME_BONUS};
pub use maxsim::{
    best_matches, idf_scores, idf_weights, weighted_score, CueCodes, IDF_MATCH_THRESHOLD,
    MAX_COSINE,
};

use super::executor::RecallContext;
use super::strategy::Strategy;
use crate::error::{HebbsError, Result};
use crate::memory::{MemoryId, TokenVectorsView, MAX_TOKENS_PER_MEMORY, MAX_VECTOR_DIMENSION};
use crate::store::ConversationPlace;

/// Candidates the stage re-scores when the caller does not say (150 measured best on LoCoMo
/// among 50, 100, 150 and 200 for the cost).
pub const DEFAULT_RERANK_TOP_N: usize = 150;
/// Most candidates one recall may re-rank.
pub const MAX_RERANK_TOP_N: usize = 1000;
/// Memories before and after a candidate in its conversation that count as its context.
pub const NEIGHBOUR_WINDOW: usize = 2;
/// Weight of the best neighbour's late-interaction score in a candidate's stage score.
pub const NEIGHBOUR_WEIGHT: f32 = 0.25;
/// Weight of the best late-interaction score among the other head candidates of the same
/// conversation (`session_id`).
pub const CONVERSATION_WEIGHT: f32 = 0.2;
/// Weight of the first stage's BM25 score, divided by the best BM25 score of the head.
pub const BM25_WEIGHT: f32 = 0.05;
/// Weight of the late-interaction score of a candidate read together with its neighbours
/// (the [`NEIGHBOUR_WINDOW`] turns on each side) as one document.
pub const WINDOW_WEIGHT: f32 = 0.25;
/// Head candidates, best own late-interaction score first, whose conversation neighbours (up
/// to [`NEIGHBOUR_WINDOW`] on each side) join the head as candidates when the first stage did
/// not rank them into it: an answer next to a strong match is often worded too unlike the cue
/// for BM25 or the dense vector.
pub const PROMOTE_TOP: usize = 10;
/// Candidates whose neighbours one read of the stage's second pass scores.
const NEIGHBOUR_BATCH: usize = 16;

/// The re-rank stage a recall runs on its ranked candidates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rerank {
    /// No stage: the composite order stands (seed 000).
    #[default]
    None,
    /// IDF-weighted max-sim over stored token vectors, plus the conversation, entity and time
    /// signals; needs `cue_token_vectors`.
    LateInteraction,
}

impl Rerank {
    /// The name used by the bindings and the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::LateInteraction => "late_interaction",
        }
    }
}

impl fmt::Display for Rerank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Rerank {
    type Err = HebbsError;

    fn from_str(name: &str) -> Result<Self> {
        match name {
            "none" => Ok(Self::None),
            "late_interaction" => Ok(Self::LateInteraction),
            other => Err(HebbsError::invalid(
                "rerank",
                format!("unknown re-ranker {other:?} (expected none or late_interaction)"),
            )),
        }
    }
}

/// A re-ranked candidate's scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StageScore {
    /// Its own late-interaction score.
    pub late_interaction: f32,
    /// The stage's score: late interaction plus the signals.
    pub total: f32,
    /// `total` calibrated to the relevance signal ([`Calibration`]).
    pub relevance: f32,
}

/// Checks the cue's token vectors: at least one, at most [`MAX_TOKENS_PER_MEMORY`], all of one
/// dimension, finite and not all zero.
pub(crate) fn check_cue_tokens(tokens: &[Vec<f32>]) -> Result<()> {
    let field = "cue_token_vectors";
    if tokens.is_empty() || tokens.len() > MAX_TOKENS_PER_MEMORY {
        return Err(HebbsError::invalid(
            field,
            format!(
                "must hold 1..={MAX_TOKENS_PER_MEMORY} token vectors, got {}",
                tokens.len()
            ),
        ));
    }
    let dimension = tokens[0].len();
    for (j, token) in tokens.iter().enumerate() {
        if token.len() != dimension || dimension == 0 || dimension > MAX_VECTOR_DIMENSION {
            return Err(HebbsError::invalid(
                format!("{field}[{j}]"),
                format!(
                    "has dimension {}, expected {dimension} (1..={MAX_VECTOR_DIMENSION})",
                    token.len()
                ),
            ));
        }
        if token.iter().any(|value| !value.is_finite()) || token.iter().all(|value| *value == 0.0) {
            return Err(HebbsError::invalid(
                format!("{field}[{j}]"),
                "must be finite and not all zero",
            ));
        }
    }
    Ok(())
}

/// The stage's answer for a head: a score per candidate of the head followed by one per
/// promoted neighbour (None for a candidate without stored token vectors), and the promoted
/// neighbours themselves.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HeadScores {
    pub scores: Vec<Option<StageScore>>,
    pub promoted: Vec<HeadEntry>,
}

/// A candidate of the head as the stage reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HeadEntry {
    pub id: MemoryId,
    pub created_at: u64,
    /// Its BM25 score from the first stage, when a strategy computed one (`hybrid`,
    /// `keyword`).
    pub bm25: Option<f32>,
    /// Its composite score as a function of its relevance, `(slope, offset)`
    /// (`ScoringWeights::relevance_line`): the stage orders by the composite of the
    /// calibrated stage score.
    pub line: (f32, f32),
}

/// Stage scores of `head` (the first stage's most relevant) and of the neighbours it promotes (see
/// [`promote`]), None for a candidate without stored token vectors. The request was
/// validated: late interaction has its cue tokens. The IDF weights are counted over `head`
/// alone, and a promoted neighbour is then scored as a head candidate.
///
/// Two passes. The head's own token vectors are read and scored first (the IDF weights are
/// counted over them), while the ids of the head's conversation neighbours are looked up on
/// the other rayon threads (the promotion and the second pass take them from there); that
/// gives every signal but the neighbours', so each candidate's total lies between its `base`
/// (no neighbour counted: its window holds at least its own best matches) and
/// `base + NEIGHBOUR_WEIGHT + WINDOW_WEIGHT * (1 - own)` (a score is at most 1, see
/// `maxsim.rs`). Then the neighbours' token vectors are read only for the candidates that can
/// still matter, in batches of [`NEIGHBOUR_BATCH`], best bound first ([`SecondPass::settle`]):
/// first until the best total is known exactly, which fixes the [`Calibration`] (its floor,
/// a quantile of the `base`s, is known from the first pass); then until no candidate left can reach
/// the recall's `top_k` by its composite score (`HeadEntry::line` of its calibrated total,
/// increasing in the total, so a bound on the total bounds the composite). The `top_k`
/// results therefore carry exactly the scores of a pass that reads every neighbour; a
/// candidate left out keeps its `base` (it cannot be returned).
pub(crate) fn score_head(context: &RecallContext<'_>, head: &[HeadEntry]) -> Result<HeadScores> {
    let request = context.request;
    let query = CueCodes::quantize(request.cue_token_vectors.as_deref().unwrap_or_default());
    let mut ids: Vec<MemoryId> = head.iter().map(|entry| entry.id).collect();
    let mut places = context.store.conversation_places(&ids)?;
    let (head_best, arounds) = rayon::join(
        || best_matches_of(context, &query, &ids),
        || neighbours_of(context, &places),
    );
    let mut head_best = head_best?;
    let mut arounds = arounds?;
    let weights = idf_weights(head_best.iter().flatten());
    let mut own: Vec<Option<f32>> = head_best
        .iter()
        .map(|best| best.as_ref().map(|best| weighted_score(best, &weights)))
        .collect();
    let promoted = promote(context, &ids, &arounds, &own)?;
    let promoted_ids: Vec<MemoryId> = promoted.iter().map(|entry| entry.id).collect();
    let promoted_places = context.store.conversation_places(&promoted_ids)?;
    let (promoted_best, promoted_arounds) = rayon::join(
        || best_matches_of(context, &query, &promoted_ids),
        || neighbours_of(context, &promoted_places),
    );
    let promoted_best = promoted_best?;
    places.extend(promoted_places);
    arounds.extend(promoted_arounds?);
    own.extend(
        promoted_best
            .iter()
            .map(|best| best.as_ref().map(|best| weighted_score(best, &weights))),
    );
    head_best.extend(promoted_best);
    ids.extend(promoted_ids);
    let head: Vec<HeadEntry> = head.iter().chain(&promoted).copied().collect();
    let cue = request.cue_text.as_deref().unwrap_or_default();
    let records = context.store.cached_records(&ids)?;
    let entities: Vec<Option<&str>> = records
        .iter()
        .map(|record| record.as_ref().and_then(|r| r.entity_id.as_deref()))
        .collect();
    let named = cue_signals::named_entity(cue, entities.iter().flatten().copied());
    let time = NamedTime::parse(cue);
    let conversation = conversation_scores(&places, &own);
    let best_bm25 = head
        .iter()
        .filter_map(|entry| entry.bm25)
        .fold(0.0f32, f32::max);
    let base: Vec<Option<f32>> = head
        .iter()
        .zip(&entities)
        .zip(own.iter().zip(&conversation))
        .map(|((entry, entity), (own, conversation))| {
            let own = (*own)?;
            let mut total = own + CONVERSATION_WEIGHT * conversation;
            if let Some(bm25) = entry.bm25.filter(|_| best_bm25 > 0.0) {
                total += BM25_WEIGHT * bm25 / best_bm25;
            }
            if named.is_some() && *entity == named {
                total += ENTITY_BONUS;
            }
            if time.matches(entry.created_at) {
                total += TIME_BONUS;
            }
            Some(total)
        })
        .collect();
    let mut pass = SecondPass {
        context,
        query: &query,
        weights: &weights,
        ids: &ids,
        arounds: &arounds,
        own: &own,
        base: &base,
        read: ids.iter().copied().zip(head_best).collect(),
        total: vec![None; head.len()],
    };
    // The best score first (few reads: the best bounds), then the normalisation is fixed and
    // the composite's `top_k` are settled.
    pass.settle(1, |_, total| total)?;
    let calibration = Calibration {
        floor: Calibration::floor_of(base.iter().flatten().copied().collect()),
        best: pass.best_known(),
    };
    pass.settle(request.top_k, |i, total| {
        head[i].line.0 * calibration.relevance(total) + head[i].line.1
    })?;
    let scores = own
        .iter()
        .zip(base.iter().zip(&pass.total))
        .map(|(own, (base, total))| {
            let total = total.or(*base)?;
            Some(StageScore {
                late_interaction: (*own)?,
                total,
                relevance: calibration.relevance(total),
            })
        })
        .collect();
    Ok(HeadScores { scores, promoted })
}

/// The stage's second pass: each candidate's exact total once its neighbours are read.
struct SecondPass<'a> {
    context: &'a RecallContext<'a>,
    query: &'a CueCodes,
    weights: &'a [f32],
    ids: &'a [MemoryId],
    arounds: &'a [Option<Vec<MemoryId>>],
    own: &'a [Option<f32>],
    base: &'a [Option<f32>],
    /// Best matches of every memory read, by id.
    read: HashMap<MemoryId, Option<Vec<f32>>>,
    /// Exact totals of the candidates whose neighbours were scored.
    total: Vec<Option<f32>>,
}

impl SecondPass<'_> {
    /// The best total known (the exact best once [`Self::settle`] ran with `k = 1` and the
    /// total itself as the value).
    fn best_known(&self) -> f32 {
        (0..self.total.len())
            .filter_map(|i| self.total[i].or(self.base[i]))
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// Reads the neighbours of the candidates whose `value` (increasing in their total) can
    /// still reach the `k`-th best value known, in batches of [`NEIGHBOUR_BATCH`], best bound
    /// first, until none can: then the `k` best by `value` have exact totals.
    fn settle(&mut self, k: usize, value: impl Fn(usize, f32) -> f32) -> Result<()> {
        let (base, own) = (self.base, self.own);
        loop {
            let threshold = kth_largest(
                (0..self.total.len()).filter_map(|i| Some(value(i, self.total[i].or(base[i])?))),
                k,
            );
            let mut open: Vec<(f32, usize)> = (0..self.total.len())
                .filter(|i| self.total[*i].is_none())
                .filter_map(|i| {
                    let upper =
                        base[i]? + NEIGHBOUR_WEIGHT + WINDOW_WEIGHT * (MAX_COSINE - own[i]?);
                    Some((value(i, upper), i))
                })
                .filter(|(upper, _)| *upper >= threshold)
                .collect();
            if open.is_empty() {
                return Ok(());
            }
            open.sort_by(|a, b| b.0.total_cmp(&a.0));
            open.truncate(NEIGHBOUR_BATCH);
            let open: Vec<usize> = open.into_iter().map(|(_, i)| i).collect();
            self.score_neighbours(&open)?;
        }
    }

    /// Reads the unread neighbours of the candidates `open` and sets their exact totals.
    fn score_neighbours(&mut self, open: &[usize]) -> Result<()> {
        let mut unread: Vec<MemoryId> = Vec::new();
        for id in open
            .iter()
            .filter_map(|i| self.arounds[*i].as_ref())
            .flatten()
        {
            if !self.read.contains_key(id) && !unread.contains(id) {
                unread.push(*id);
            }
        }
        let best = best_matches_of(self.context, self.query, &unread)?;
        self.read.extend(unread.into_iter().zip(best));
        for i in open {
            self.total[*i] = self.base[*i];
        }
        for (i, around) in open
            .iter()
            .filter_map(|i| Some((*i, self.arounds[*i].as_ref()?)))
        {
            let (Some(base), Some(own), Some(Some(own_best))) =
                (self.base[i], self.own[i], self.read.get(&self.ids[i]))
            else {
                continue;
            };
            let mut window = own_best.clone();
            let mut best_neighbour = 0.0f32;
            for best in around.iter().filter_map(|id| self.read.get(id)).flatten() {
                best_neighbour = best_neighbour.max(weighted_score(best, self.weights));
                for (slot, value) in window.iter_mut().zip(best) {
                    *slot = slot.max(*value);
                }
            }
            let window = weighted_score(&window, self.weights);
            self.total[i] =
                Some(base + NEIGHBOUR_WEIGHT * best_neighbour + WINDOW_WEIGHT * (window - own));
        }
        Ok(())
    }
}

/// The conversation neighbours of the [`PROMOTE_TOP`] head candidates with the best own
/// scores that are not in the head themselves, in that order, each once: live memories (not
/// superseded unless the request includes those), within the request's entity scope when
/// every strategy has one and within its time range when every strategy is a `temporal` one
/// with a range (the only strategy that reads it), with their creation time, their composite
/// line and no BM25 score; only those the request's filter selects. None when the request sets
/// a relevance floor (`min_relevance`): a promoted memory has no first-stage relevance.
fn promote(
    context: &RecallContext<'_>,
    ids: &[MemoryId],
    arounds: &[Option<Vec<MemoryId>>],
    own: &[Option<f32>],
) -> Result<Vec<HeadEntry>> {
    let request = context.request;
    if request.min_relevance.is_some_and(|floor| floor > 0.0) {
        return Ok(Vec::new());
    }
    let plans = request.plans();
    let scopes: Option<Vec<&str>> = plans.iter().map(|plan| plan.entity_id).collect();
    let windows: Option<Vec<(u64, u64)>> = plans
        .iter()
        .map(|plan| {
            plan.time_range
                .filter(|_| plan.strategy == Strategy::Temporal)
        })
        .collect();
    let mut best: Vec<(f32, &Vec<MemoryId>)> = own
        .iter()
        .zip(arounds)
        .filter_map(|(own, around)| Some(((*own)?, around.as_ref()?)))
        .collect();
    best.sort_by(|a, b| b.0.total_cmp(&a.0));
    best.truncate(PROMOTE_TOP);
    let in_head: std::collections::HashSet<MemoryId> = ids.iter().copied().collect();
    let mut found: Vec<MemoryId> = Vec::new();
    for id in best.into_iter().flat_map(|(_, around)| around) {
        if !in_head.contains(id) && !found.contains(id) {
            found.push(*id);
        }
    }
    if let Some(filter) = &context.filter {
        let selected = filter.matcher.matching(&found)?;
        let mut selected = selected.into_iter();
        found.retain(|_| selected.next().unwrap_or(false));
    }
    let records = context.store.cached_records(&found)?;
    let fields = context.store.scoring_fields(&found, false)?;
    let weights = &request.scoring_weights;
    Ok(found
        .into_iter()
        .zip(records)
        .zip(fields)
        .filter_map(|((id, record), fields)| {
            let (record, fields) = (record?, fields?);
            let in_scope = scopes.as_ref().is_none_or(|scopes| {
                record
                    .entity_id
                    .as_deref()
                    .is_some_and(|entity| scopes.contains(&entity))
            });
            let in_window = windows.as_ref().is_none_or(|windows| {
                windows
                    .iter()
                    .any(|(start, end)| (*start..=*end).contains(&record.created_at))
            });
            let live = !record.superseded || request.include_superseded;
            (in_scope && in_window && live).then_some(HeadEntry {
                id,
                created_at: record.created_at,
                bm25: None,
                line: weights.relevance_line(
                    record.created_at,
                    record.importance,
                    fields.access.count,
                    context.now_us,
                ),
            })
        })
        .collect())
}

/// The `k`-th largest of `values` (negative infinity when there are fewer).
fn kth_largest(values: impl Iterator<Item = f32>, k: usize) -> f32 {
    let mut values: Vec<f32> = values.collect();
    if k == 0 || k > values.len() {
        return f32::NEG_INFINITY;
    }
    let (_, kth, _) = values.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    *kth
}

/// For each of `places`, the memories up to [`NEIGHBOUR_WINDOW`] before and after it in its
/// conversation (`Store::conversation_neighbours`), None for a memory in none.
fn neighbours_of(
    context: &RecallContext<'_>,
    places: &[Option<ConversationPlace>],
) -> Result<Vec<Option<Vec<MemoryId>>>> {
    let within: Vec<&ConversationPlace> = places.iter().flatten().collect();
    let mut found = context
        .store
        .conversation_neighbours(&within, NEIGHBOUR_WINDOW)?
        .into_iter();
    Ok(places
        .iter()
        .map(|place| place.as_ref().and_then(|_| found.next()))
        .collect())
}

/// `best_matches` of each of `ids` with stored token vectors (None for one without), each
/// matched in place as it is read, in parallel (`Store::map_token_vector_values`).
fn best_matches_of(
    context: &RecallContext<'_>,
    query: &CueCodes,
    ids: &[MemoryId],
) -> Result<Vec<Option<Vec<f32>>>> {
    let dimension = query.dimension;
    context.store.map_token_vector_values(ids, |value| {
        let vectors = TokenVectorsView::parse(value)?;
        if vectors.dimension != dimension {
            return Err(HebbsError::invalid(
                "cue_token_vectors",
                format!(
                    "dimension {dimension} does not match the stored token vectors' {}",
                    vectors.dimension
                ),
            ));
        }
        Ok(best_matches(query, &vectors))
    })
}

/// For each head candidate, the best late-interaction score among the *other* head
/// candidates of its conversation (0 when it has none, or is in none).
fn conversation_scores(places: &[Option<ConversationPlace>], own: &[Option<f32>]) -> Vec<f32> {
    // Per conversation: the best score with its position, and the second best.
    let mut top: HashMap<&[u8], (f32, usize, f32)> = HashMap::new();
    for (i, (place, score)) in places.iter().zip(own).enumerate() {
        let (Some(place), Some(score)) = (place, score) else {
            continue;
        };
        let entry = top.entry(place.conversation()).or_insert((
            f32::NEG_INFINITY,
            usize::MAX,
            f32::NEG_INFINITY,
        ));
        if *score > entry.0 {
            *entry = (*score, i, entry.0);
        } else if *score > entry.2 {
            entry.2 = *score;
        }
    }
    places
        .iter()
        .enumerate()
        .map(|(i, place)| {
            let Some((best, at, second)) = place.as_ref().and_then(|p| top.get(p.conversation()))
            else {
                return 0.0;
            };
            let other = if *at == i { *second } else { *best };
            if other.is_finite() {
                other
            } else {
                0.0
            }
        })
        .collect()
}
