//! The `regex` strategy (`force_regex`): a bounded regular-expression scan over memory content
//! and context instead of a search, for ids, ticket numbers and exact patterns. The pattern is
//! the cue's text, compiled by the `regex` crate (linear time, no catastrophic backtracking)
//! with a size limit; a bad pattern is an `InvalidInput` on `cue`. The scan walks memories
//! newest first (ids are UUIDv7) and stops after [`REGEX_MAX_SCANNED`] records,
//! [`REGEX_TIME_BUDGET`] or `top_k` matches. Every match has relevance 1; the composite score
//! ranks them by recency, importance and reinforcement.

use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};

use super::executor::{Candidate, RecallContext};
use super::plan::StrategyPlan;
use super::result::StrategyDetail;
use super::strategy::Strategy;
use crate::error::{HebbsError, Result};

/// Most records one regex recall reads.
pub const REGEX_MAX_SCANNED: usize = 100_000;
/// Longest one regex recall scans.
pub const REGEX_TIME_BUDGET: Duration = Duration::from_millis(250);
/// Largest compiled pattern, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles `pattern`, naming `cue` in the error.
pub fn compile(pattern: &str) -> Result<Regex> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|error| HebbsError::invalid("cue", format!("bad regular expression: {error}")))
}

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let pattern = compile(context.request.cue_text.as_deref().unwrap_or_default())?;
    let started = Instant::now();
    let mut found = Vec::new();
    for (scanned, item) in context.store.scan_records_newest_first().enumerate() {
        if scanned >= REGEX_MAX_SCANNED
            || found.len() >= plan.top_k
            || started.elapsed() >= REGEX_TIME_BUDGET
        {
            break;
        }
        let (id, record) = item?;
        if plan
            .entity_id
            .is_some_and(|entity| record.entity_id.as_deref() != Some(entity))
        {
            continue;
        }
        let in_context = || {
            record.context.iter().any(|(key, value)| {
                pattern.is_match(key)
                    || match value {
                        serde_json::Value::String(text) => pattern.is_match(text),
                        other => pattern.is_match(&other.to_string()),
                    }
            })
        };
        if pattern.is_match(&record.content) || in_context() {
            found.push(Candidate {
                id,
                detail: StrategyDetail::new(Strategy::Regex, 1.0),
            });
        }
    }
    Ok(found)
}
