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

/// Candidates the stage re-scores when the caller does not say (150 measured best on LoCoMo
/// among 50, 100, 150 and 200 for the cost).
pub const DEFAULT_RERANK_TOP_N: usize = 150;
/// Most candidates one recall may re-rank.
pub const MAX_RERANK_TOP_N: usize = 1000;
/// Memories before and after a candidate in its conversation that count as its context.
pub const NEIGHBOUR_WINDOW: usize = 2;
/// Weight of the best neighbour's late-interaction score in a candidate's stage score.
pub const NEIGHBOUR_WEIGHT: f32 = 0.25;

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

/// Stage scores of `head` (ids and creation times, in composite order), None for a candidate
/// without stored token vectors. The request was validated: late interaction has its cue
/// tokens.
pub(crate) fn score_head(
    context: &RecallContext<'_>,
    head: &[(MemoryId, u64)],
) -> Result<Vec<Option<StageScore>>> {
    let request = context.request;
    let query = CueCodes::quantize(request.cue_token_vectors.as_deref().unwrap_or_default());
    let ids: Vec<MemoryId> = head.iter().map(|(id, _)| *id).collect();
    let neighbours = context
        .store
        .conversation_neighbours(&ids, NEIGHBOUR_WINDOW)?;
    let mut every = ids.clone();
    let mut seen: std::collections::HashSet<MemoryId> = ids.iter().copied().collect();
    for id in neighbours.iter().flatten() {
        if seen.insert(*id) {
            every.push(*id);
        }
    }
    let values = context.store.token_vector_values(&every)?;
    let stored: Vec<(MemoryId, TokenVectorsView<'_>)> = every
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
    let scored: Vec<(MemoryId, Vec<f32>)> = stored
        .par_iter()
        .map(|(id, vectors)| (*id, best_matches(&query, vectors)))
        .collect();
    let best: Vec<Vec<f32>> = scored.iter().map(|(_, best)| best.clone()).collect();
    let late: HashMap<MemoryId, f32> = scored
        .iter()
        .map(|(id, _)| *id)
        .zip(idf_scores(&best))
        .collect();
    let cue = request.cue_text.as_deref().unwrap_or_default();
    let records = context.store.cached_records(&ids)?;
    let entities: Vec<Option<&str>> = records
        .iter()
        .map(|record| record.as_ref().and_then(|r| r.entity_id.as_deref()))
        .collect();
    let named = cue_signals::named_entity(cue, entities.iter().flatten().copied());
    let time = NamedTime::parse(cue);
    Ok(head
        .iter()
        .zip(&neighbours)
        .zip(&entities)
        .map(|((&(id, created_at), around), entity)| {
            let own = *late.get(&id)?;
            let context_score = around
                .iter()
                .filter_map(|neighbour| late.get(neighbour))
                .copied()
                .fold(None, |best: Option<f32>, s| {
                    Some(best.map_or(s, |b| b.max(s)))
                })
                .unwrap_or(0.0);
            let mut total = own + NEIGHBOUR_WEIGHT * context_score;
            if named.is_some() && *entity == named {
                total += ENTITY_BONUS;
            }
            if time.matches(created_at) {
                total += TIME_BONUS;
            }
            Some(StageScore {
                late_interaction: own,
                total,
            })
        })
        .collect())
}
