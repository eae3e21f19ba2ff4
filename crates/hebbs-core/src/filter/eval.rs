//! Evaluating a [`Filter`] on one memory, seen through a [`FilterView`].

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use super::{Field, Filter};
use crate::memory::{Memory, MemoryKind, StoredMemory};

/// What a filter reads of a memory.
#[derive(Clone, Copy, Debug)]
pub struct FilterView<'a> {
    /// What the memory is.
    pub kind: MemoryKind,
    /// Its entity scope.
    pub entity_id: Option<&'a str>,
    /// Its conversation (read only when the filter names `session_id`).
    pub session_id: Option<&'a str>,
    /// Creation time, microseconds.
    pub created_at: u64,
    /// Importance, 0..=1.
    pub importance: f32,
    /// Its structured metadata.
    pub context: &'a Map<String, Value>,
    /// The caller's key.
    pub key: Option<&'a str>,
}

impl<'a> FilterView<'a> {
    /// The view of a stored record in conversation `session_id`.
    pub fn of(record: &'a StoredMemory, session_id: Option<&'a str>) -> Self {
        Self {
            kind: record.kind,
            entity_id: record.entity_id.as_deref(),
            session_id,
            created_at: record.created_at,
            importance: record.importance,
            context: &record.context,
            key: record.key.as_deref(),
        }
    }

    /// The view of a memory as calls return it, in conversation `session_id`.
    pub fn of_memory(memory: &'a Memory, session_id: Option<&'a str>) -> Self {
        Self {
            kind: memory.kind,
            entity_id: memory.entity_id.as_deref(),
            session_id,
            created_at: memory.created_at,
            importance: memory.importance,
            context: &memory.context,
            key: memory.key.as_deref(),
        }
    }

    /// The value of `field`, None when the memory has none.
    fn value(&self, field: &Field) -> Option<Cow<'a, Value>> {
        match field {
            Field::Context(path) => {
                let (last, parents) = path.split_last()?;
                let mut object = self.context;
                for key in parents {
                    object = object.get(key)?.as_object()?;
                }
                object.get(last).map(Cow::Borrowed)
            }
            Field::Kind => Some(Cow::Owned(Value::String(self.kind.as_str().into()))),
            Field::EntityId => self
                .entity_id
                .map(|id| Cow::Owned(Value::String(id.into()))),
            Field::SessionId => self
                .session_id
                .map(|id| Cow::Owned(Value::String(id.into()))),
            Field::CreatedAt => Some(Cow::Owned(Value::Number(self.created_at.into()))),
            Field::Importance => Some(Cow::Owned(Value::Number(decimal(self.importance)))),
            Field::Key => self.key.map(|key| Cow::Owned(Value::String(key.into()))),
        }
    }
}

/// An f32 as the f64 of its shortest decimal form, so `0.7f32` compares equal to a filter's
/// `0.7` (its exact binary value is 0.699999988...).
pub(crate) fn decimal(value: f32) -> Number {
    value
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .unwrap_or_else(|| Number::from(0))
}

impl Filter {
    /// Whether the memory seen through `view` satisfies the filter.
    pub fn matches(&self, view: &FilterView<'_>) -> bool {
        match self {
            Self::And(parts) => parts.iter().all(|part| part.matches(view)),
            Self::Or(parts) => parts.iter().any(|part| part.matches(view)),
            Self::Not(inner) => !inner.matches(view),
            Self::Condition { field, op, value } => op.holds(view.value(field).as_deref(), value),
        }
    }
}
