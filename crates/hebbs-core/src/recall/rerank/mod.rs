//! The re-rank stage of recall: after the strategies' candidates are merged and ranked by the
//! composite score, the first `rerank_top_n` of them are scored again, reading the cue and each
//! candidate together, and re-ordered by that score (the rest keep their order behind them).
//!
//! [`Rerank::LateInteraction`] scores a candidate by IDF-weighted max-sim of the cue's token
//! vectors (`RecallRequest::cue_token_vectors`) against the candidate's stored int8 token
//! vectors (`maxsim.rs`), and adds three general signals:
//!
//! - **conversation**: [`NEIGHBOUR_WEIGHT`] times the best late-interaction score among the
//!   memories up to [`NEIGHBOUR_WINDOW`] before and after it in its conversation (the memories
//!   remembered with its `session_id`, in `created_at` then arrival order): an answer often
//!   completes the turn next to it;
//! - **the conversation in the head**: [`CONVERSATION_WEIGHT`] times the best late-interaction
//!   score among the *other* head candidates of its conversation (`session_id`): a
//!   conversation that holds other strong matches is likelier the one the cue is about;
//! - **the first stage's BM25**: [`BM25_WEIGHT`] times its BM25 score (when a strategy gave
//!   one) divided by the best of the head, so exact words the token vectors match loosely
//!   still count;
//! - **entity** and **time** named in the cue (`cue_signals.rs`).
//!
//! A candidate without stored token vectors gets no stage score and follows the scored ones
//! in its composite order. The IDF is counted over every document scored in the call (the head
//! and its neighbours).

mod cue_signals;
mod maxsim;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

pub use cue_signals::{NamedTime, ENTITY_BONUS, TIME_BONUS};
pub use maxsim::{best_matches, idf_scores, CueCodes, IDF_MATCH_THRESHOLD};

use super::executor::RecallContext;
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
    /// The score it is ordered by: late interaction plus the signals.
    pub total: f32,
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

/// A candidate of the head as the stage reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HeadEntry {
    pub id: MemoryId,
    pub created_at: u64,
    /// Its BM25 score from the first stage, when a strategy computed one (`hybrid`,
    /// `keyword`).
    pub bm25: Option<f32>,
}

/// Stage scores of `head` (in composite order), None for a candidate without stored token
/// vectors. The request was validated: late interaction has its cue tokens.
pub(crate) fn score_head(
    context: &RecallContext<'_>,
    head: &[HeadEntry],
) -> Result<Vec<Option<StageScore>>> {
    let request = context.request;
    let query = CueCodes::quantize(request.cue_token_vectors.as_deref().unwrap_or_default());
    let ids: Vec<MemoryId> = head.iter().map(|entry| entry.id).collect();
    let places = context
        .store
        .conversation_neighbours(&ids, NEIGHBOUR_WINDOW)?;
    let mut every = ids.clone();
    let mut seen: std::collections::HashSet<MemoryId> = ids.iter().copied().collect();
    for id in places.iter().flatten().flat_map(|place| &place.around) {
        if seen.insert(*id) {
            every.push(*id);
        }
    }
    let late = late_interaction(context, &query, &every)?;
    let cue = request.cue_text.as_deref().unwrap_or_default();
    let records = context.store.cached_records(&ids)?;
    let entities: Vec<Option<&str>> = records
        .iter()
        .map(|record| record.as_ref().and_then(|r| r.entity_id.as_deref()))
        .collect();
    let named = cue_signals::named_entity(cue, entities.iter().flatten().copied());
    let time = NamedTime::parse(cue);
    let own: Vec<Option<f32>> = ids.iter().map(|id| late.get(id).copied()).collect();
    let conversation = conversation_scores(&places, &own);
    let best_bm25 = head
        .iter()
        .filter_map(|entry| entry.bm25)
        .fold(0.0f32, f32::max);
    Ok(head
        .iter()
        .zip(&places)
        .zip(&entities)
        .zip(own.iter().zip(&conversation))
        .map(|(((entry, place), entity), (own, conversation))| {
            let own = (*own)?;
            let around = place.as_ref().map_or(&[][..], |place| &place.around);
            let context_score = around
                .iter()
                .filter_map(|neighbour| late.get(neighbour))
                .copied()
                .fold(None, |best: Option<f32>, s| {
                    Some(best.map_or(s, |b| b.max(s)))
                })
                .unwrap_or(0.0);
            let mut total =
                own + NEIGHBOUR_WEIGHT * context_score + CONVERSATION_WEIGHT * conversation;
            if let Some(bm25) = entry.bm25.filter(|_| best_bm25 > 0.0) {
                total += BM25_WEIGHT * bm25 / best_bm25;
            }
            if named.is_some() && *entity == named {
                total += ENTITY_BONUS;
            }
            if time.matches(entry.created_at) {
                total += TIME_BONUS;
            }
            Some(StageScore {
                late_interaction: own,
                total,
            })
        })
        .collect())
}

/// The IDF-weighted late-interaction score of each of `ids` that has stored token vectors.
fn late_interaction(
    context: &RecallContext<'_>,
    query: &CueCodes,
    ids: &[MemoryId],
) -> Result<HashMap<MemoryId, f32>> {
    let values = context.store.token_vector_values(ids)?;
    let stored: Vec<(MemoryId, TokenVectorsView<'_>)> = ids
        .iter()
        .zip(&values)
        .filter_map(|(id, value)| value.as_ref().map(|bytes| (*id, bytes)))
        .map(|(id, bytes)| Ok((id, TokenVectorsView::parse(bytes)?)))
        .collect::<Result<_>>()?;
    let dimension = query.dimension;
    if let Some((_, other)) = stored.iter().find(|(_, v)| v.dimension != dimension) {
        return Err(HebbsError::invalid(
            "cue_token_vectors",
            format!(
                "dimension {dimension} does not match the stored token vectors' {}",
                other.dimension
            ),
        ));
    }
    let best: Vec<Vec<f32>> = stored
        .par_iter()
        .map(|(_, vectors)| best_matches(query, vectors))
        .collect();
    Ok(stored
        .iter()
        .map(|(id, _)| *id)
        .zip(idf_scores(&best))
        .collect())
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
        let entry = top.entry(&place.conversation).or_insert((
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
            let Some((best, at, second)) = place.as_ref().and_then(|p| top.get(&*p.conversation))
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
