//! [`ForgetRequest`] and [`ForgetResult`] (seed 003), with validation that names each field.

use crate::error::{HebbsError, Result};
use crate::filter::Filter;
use crate::memory::checks::{check_entity_id, check_key, check_unit};
use crate::memory::{MemoryId, MemoryKind};

/// Memories one `forget` call erases when the request does not say (insights that cascade
/// from them come on top). Larger erasures report `truncated` and continue in the next call.
pub const DEFAULT_FORGET_LIMIT: usize = 10_000;
/// The largest `limit` a request may ask for.
pub const MAX_FORGET_LIMIT: usize = 1_000_000;

/// What to forget. The selectors are AND-combined; at least one must be given.
#[derive(Clone, Debug, PartialEq)]
pub struct ForgetRequest {
    /// These memories (unknown ids are skipped, not an error).
    pub ids: Option<Vec<MemoryId>>,
    /// The memories these caller keys name, each with every version of it (unknown keys are
    /// skipped).
    pub keys: Option<Vec<String>>,
    /// Memories of this entity: without other selectors, an erasure of everything about it.
    pub entity_id: Option<String>,
    /// Memories created strictly before this time, microseconds since the epoch.
    pub older_than_us: Option<u64>,
    /// Memories whose importance is strictly below this, 0..=1.
    pub importance_below: Option<f32>,
    /// Memories of this kind.
    pub kind: Option<MemoryKind>,
    /// Only memories this filter selects (see [`crate::filter`]); a criterion of its own.
    pub filter: Option<Filter>,
    /// After the commit, flush and compact the touched key ranges so the erased bytes are gone
    /// from every file of the store, and checkpoint the vector index so the changelog drops
    /// the erased ids.
    pub purge: bool,
    /// Most memories to erase in this call, 1..=[`MAX_FORGET_LIMIT`].
    pub limit: usize,
}

impl Default for ForgetRequest {
    fn default() -> Self {
        Self {
            ids: None,
            keys: None,
            entity_id: None,
            older_than_us: None,
            importance_below: None,
            kind: None,
            filter: None,
            purge: false,
            limit: DEFAULT_FORGET_LIMIT,
        }
    }
}

impl ForgetRequest {
    /// Forget these ids.
    pub fn ids(ids: Vec<MemoryId>) -> Self {
        Self {
            ids: Some(ids),
            ..Self::default()
        }
    }

    /// Erase everything about `entity_id`.
    pub fn entity(entity_id: impl Into<String>) -> Self {
        Self {
            entity_id: Some(entity_id.into()),
            ..Self::default()
        }
    }

    /// Checks every field; errors name the field.
    pub fn validate(&self) -> Result<()> {
        if self.ids.is_none()
            && self.keys.is_none()
            && self.entity_id.is_none()
            && self.older_than_us.is_none()
            && self.importance_below.is_none()
            && self.kind.is_none()
            && self.filter.is_none()
        {
            return Err(HebbsError::invalid(
                "ids",
                "give ids, keys, entity_id, older_than, importance_below, kind or filter \
                 (forgetting everything needs an explicit criterion)",
            ));
        }
        if let Some(ids) = &self.ids {
            if ids.len() > MAX_FORGET_LIMIT {
                return Err(HebbsError::invalid(
                    "ids",
                    format!("{} ids exceeds the limit of {MAX_FORGET_LIMIT}", ids.len()),
                ));
            }
        }
        if let Some(keys) = &self.keys {
            if keys.len() > MAX_FORGET_LIMIT {
                return Err(HebbsError::invalid(
                    "keys",
                    format!(
                        "{} keys exceeds the limit of {MAX_FORGET_LIMIT}",
                        keys.len()
                    ),
                ));
            }
            for (i, key) in keys.iter().enumerate() {
                check_key(key, &format!("keys[{i}]"))?;
            }
        }
        if let Some(entity) = &self.entity_id {
            check_entity_id(entity, "entity_id")?;
        }
        if let Some(below) = self.importance_below {
            check_unit(below, "importance_below")?;
        }
        check_limit(self.limit, "limit")
    }

    /// Whether a memory's fields satisfy the criteria other than `ids` and `keys`.
    pub(crate) fn matches(
        &self,
        entity: Option<&str>,
        kind: MemoryKind,
        importance: f32,
        created_at: u64,
    ) -> bool {
        self.entity_id
            .as_deref()
            .is_none_or(|wanted| entity == Some(wanted))
            && self.kind.is_none_or(|wanted| kind == wanted)
            && self.importance_below.is_none_or(|below| importance < below)
            && self.older_than_us.is_none_or(|before| created_at < before)
    }
}

/// Checks a forget limit named `field`.
pub fn check_limit(limit: usize, field: &str) -> Result<()> {
    if (1..=MAX_FORGET_LIMIT).contains(&limit) {
        Ok(())
    } else {
        Err(HebbsError::invalid(
            field,
            format!("{limit} is outside 1..={MAX_FORGET_LIMIT}"),
        ))
    }
}

/// What a `forget` call did (seed 003 `ForgetResult`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForgetResult {
    /// Memories the request selected and erased.
    pub forgotten_count: u64,
    /// Related records erased with them: insights derived from them (transitively) and edges
    /// (each edge counted once, though stored in both directions).
    pub cascade_count: u64,
    /// Tombstones written: one per erased memory, selected or cascaded.
    pub tombstone_count: u64,
    /// Whether more memories match: call again to continue.
    pub truncated: bool,
}
