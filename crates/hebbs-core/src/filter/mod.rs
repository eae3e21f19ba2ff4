//! Metadata filters: one filter language for every read that selects memories (`recall`,
//! `prime`, `forget` criteria, the paged listing, `subscribe`), in the style users know from
//! Chroma's `where`, mem0's `filters` and LangGraph's `filter`.
//!
//! A filter is a JSON object. Each key is a field and its value a condition: a plain value
//! (equality) or an object of operators; several keys must all hold. `$and`, `$or` (arrays of
//! filters) and `$not` (a filter) combine filters.
//!
//! ```json
//! {"context.channel": "email", "context.priority": {"$gte": 2},
//!  "$not": {"context.status": {"$in": ["resolved", "closed"]}}}
//! ```
//!
//! **Fields**: `context.<key>` (dotted for nested objects), `kind`, `entity_id`,
//! `session_id`, `created_at` (microseconds), `importance` and `key` (the caller's key; a
//! string range such as `{"$gte": "ns/", "$lt": "ns0"}` selects a key prefix).
//!
//! **Operators** (`op.rs` has the exact rules): `$eq $ne $gt $gte $lt $lte $in $nin $exists
//! $contains`. Values keep their JSON types: `1` never equals `"1"`, a number compares only
//! with numbers and a string only with strings; a field a memory lacks matches `$ne`, `$nin`
//! and `$exists: false` and nothing else.
//!
//! [`Filter::parse`] checks a filter once and names the path of any fault inside it
//! (`filter.$and[1].context.priority.$gte`); [`Filter::matches`] evaluates it on a memory
//! (`eval.rs`). How a filtered recall finds its matches is `plan.rs`'s business.

mod eval;
mod op;
mod parse;
mod plan;
#[cfg(test)]
mod tests;

use serde_json::Value;

pub(crate) use eval::decimal;
pub use eval::FilterView;
pub use op::Op;
pub use parse::{MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH};
pub use plan::{
    select_records, FilterPlan, Matcher, Members, EXACT_SCAN_MAX_MATCHES,
    WALK_PREFILTER_MAX_MATCHES,
};

/// The field a condition reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// A key of the memory's `context`, one element per level of nesting.
    Context(Vec<String>),
    /// The memory's kind, by name (`"episode"`, `"insight"`, ...).
    Kind,
    /// Its entity scope.
    EntityId,
    /// The conversation it was remembered in.
    SessionId,
    /// Its creation time, microseconds since the Unix epoch.
    CreatedAt,
    /// Its importance, 0..=1.
    Importance,
    /// The key the caller stored it under.
    Key,
}

impl Field {
    /// The field's name as a filter spells it.
    pub fn name(&self) -> String {
        match self {
            Self::Context(path) => format!("context.{}", path.join(".")),
            Self::Kind => "kind".into(),
            Self::EntityId => "entity_id".into(),
            Self::SessionId => "session_id".into(),
            Self::CreatedAt => "created_at".into(),
            Self::Importance => "importance".into(),
            Self::Key => "key".into(),
        }
    }
}

/// A parsed filter: the predicate a memory must satisfy.
#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    /// Every filter holds (true when empty: `{}` selects every memory).
    And(Vec<Filter>),
    /// At least one filter holds.
    Or(Vec<Filter>),
    /// The filter does not hold.
    Not(Box<Filter>),
    /// `field` satisfies `op` against `value`.
    Condition {
        /// What it reads.
        field: Field,
        /// How it compares.
        op: Op,
        /// The operand, as the filter gave it (an array for `$in` / `$nin`, a bool for
        /// `$exists`).
        value: Value,
    },
}

impl Filter {
    /// Parses a filter; an error names the path inside it, starting at `field` (the request
    /// field that holds the filter, such as `"filter"`).
    pub fn parse(value: &Value, field: &str) -> crate::error::Result<Self> {
        parse::filter(value, field)
    }

    /// Parses the filter of a JSON text (see [`Filter::parse`]).
    pub fn parse_json(text: &str, field: &str) -> crate::error::Result<Self> {
        let value: Value = serde_json::from_str(text).map_err(|error| {
            crate::error::HebbsError::invalid(field, format!("is not JSON: {error}"))
        })?;
        Self::parse(&value, field)
    }

    /// The filter back as JSON, in the canonical form: [`Filter::parse`] of it gives an equal
    /// filter.
    pub fn to_json(&self) -> Value {
        match self {
            Self::And(parts) => Value::Object(
                [("$and".to_string(), parts_json(parts))]
                    .into_iter()
                    .collect(),
            ),
            Self::Or(parts) => Value::Object(
                [("$or".to_string(), parts_json(parts))]
                    .into_iter()
                    .collect(),
            ),
            Self::Not(inner) => Value::Object(
                [("$not".to_string(), inner.to_json())]
                    .into_iter()
                    .collect(),
            ),
            Self::Condition { field, op, value } => {
                let condition: Value = [(op.as_str().to_string(), value.clone())]
                    .into_iter()
                    .collect::<serde_json::Map<_, _>>()
                    .into();
                Value::Object([(field.name(), condition)].into_iter().collect())
            }
        }
    }

    /// Whether the filter reads `session_id` (which the memory record does not hold).
    pub fn reads_session(&self) -> bool {
        match self {
            Self::And(parts) | Self::Or(parts) => parts.iter().any(Self::reads_session),
            Self::Not(inner) => inner.reads_session(),
            Self::Condition { field, .. } => *field == Field::SessionId,
        }
    }
}

fn parts_json(parts: &[Filter]) -> Value {
    Value::Array(parts.iter().map(Filter::to_json).collect())
}
