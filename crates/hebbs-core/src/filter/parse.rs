//! Parsing a filter's JSON into a [`Filter`], checking every operand; each error names the
//! path inside the filter where it lies (`filter.$and[1].context.priority.$gte`).

use serde_json::Value;

use super::op::Op;
use super::{Field, Filter};
use crate::error::{HebbsError, Result};
use crate::memory::MemoryKind;

/// Most levels of `$and` / `$or` / `$not` nesting a filter may have.
pub const MAX_FILTER_DEPTH: usize = 32;
/// Most conditions one filter may hold.
pub const MAX_FILTER_CONDITIONS: usize = 1024;

/// Parses `value`, the filter at request field `field`.
pub(super) fn filter(value: &Value, field: &str) -> Result<Filter> {
    let mut parser = Parser { conditions: 0 };
    parser.object(value, field, 0)
}

struct Parser {
    conditions: usize,
}

impl Parser {
    /// A filter object: its keys must all hold.
    fn object(&mut self, value: &Value, path: &str, depth: usize) -> Result<Filter> {
        if depth > MAX_FILTER_DEPTH {
            return Err(HebbsError::invalid(
                path,
                format!("nests deeper than {MAX_FILTER_DEPTH} levels"),
            ));
        }
        let Value::Object(entries) = value else {
            return Err(HebbsError::invalid(
                path,
                format!("must be a filter object, got {}", type_name(value)),
            ));
        };
        let mut parts = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            let at = format!("{path}.{key}");
            parts.push(match key.as_str() {
                "$and" => Filter::And(self.list(value, &at, depth)?),
                "$or" => Filter::Or(self.list(value, &at, depth)?),
                "$not" => Filter::Not(Box::new(self.object(value, &at, depth + 1)?)),
                name if name.starts_with('$') => {
                    return Err(HebbsError::invalid(
                        at,
                        "is not a combinator: use $and, $or or $not here, or name a field",
                    ))
                }
                name => self.conditions(parse_field(name, &at)?, value, &at)?,
            });
        }
        Ok(one_or_all(parts))
    }

    /// The filters of `$and` / `$or`: a non-empty array.
    fn list(&mut self, value: &Value, path: &str, depth: usize) -> Result<Vec<Filter>> {
        match value {
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.object(item, &format!("{path}[{i}]"), depth + 1))
                .collect(),
            _ => Err(HebbsError::invalid(
                path,
                "must be a non-empty array of filter objects",
            )),
        }
    }

    /// A field's conditions: an object of operators, or a value it must equal.
    fn conditions(&mut self, field: Field, value: &Value, path: &str) -> Result<Filter> {
        let operators = match value {
            Value::Object(entries) if entries.keys().any(|key| key.starts_with('$')) => entries,
            _ => return self.condition(field, Op::Eq, value, path),
        };
        let mut parts = Vec::with_capacity(operators.len());
        for (name, operand) in operators {
            let at = format!("{path}.{name}");
            let Some(op) = Op::from_name(name) else {
                return Err(HebbsError::invalid(
                    at,
                    "is not an operator: use $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, \
                     $exists or $contains (a value with keys starting with $ cannot be matched \
                     by equality)",
                ));
            };
            parts.push(self.condition(field.clone(), op, operand, &at)?);
        }
        Ok(one_or_all(parts))
    }

    fn condition(&mut self, field: Field, op: Op, operand: &Value, path: &str) -> Result<Filter> {
        self.conditions += 1;
        if self.conditions > MAX_FILTER_CONDITIONS {
            return Err(HebbsError::invalid(
                path,
                format!("the filter holds more than {MAX_FILTER_CONDITIONS} conditions"),
            ));
        }
        check_operand(&field, op, operand, path)?;
        Ok(Filter::Condition {
            field,
            op,
            value: operand.clone(),
        })
    }
}

/// One filter as itself, several as their conjunction.
fn one_or_all(mut parts: Vec<Filter>) -> Filter {
    if parts.len() == 1 {
        parts.remove(0)
    } else {
        Filter::And(parts)
    }
}

fn parse_field(name: &str, path: &str) -> Result<Field> {
    Ok(match name {
        "kind" => Field::Kind,
        "entity_id" => Field::EntityId,
        "session_id" => Field::SessionId,
        "created_at" => Field::CreatedAt,
        "importance" => Field::Importance,
        "key" => Field::Key,
        _ => match name.strip_prefix("context.") {
            Some(key) if key.split('.').all(|part| !part.is_empty()) => {
                Field::Context(key.split('.').map(str::to_string).collect())
            }
            _ => {
                return Err(HebbsError::invalid(
                    path,
                    "is not a field: use context.<key> (dotted for nested objects), kind, \
                     entity_id, session_id, created_at, importance or key",
                ))
            }
        },
    })
}

/// Checks an operand against its operator and its field's type.
fn check_operand(field: &Field, op: Op, operand: &Value, path: &str) -> Result<()> {
    let values: Vec<&Value> = match op {
        Op::In | Op::Nin => match operand {
            Value::Array(items) => items.iter().collect(),
            _ => return Err(HebbsError::invalid(path, "must be an array of values")),
        },
        Op::Exists => {
            return match operand {
                Value::Bool(_) => Ok(()),
                _ => Err(HebbsError::invalid(path, "must be true or false")),
            }
        }
        Op::Gt | Op::Gte | Op::Lt | Op::Lte => match operand {
            Value::Number(_) | Value::String(_) => vec![operand],
            _ => {
                return Err(HebbsError::invalid(
                    path,
                    format!(
                        "must be a number or a string to compare with, got {}",
                        type_name(operand)
                    ),
                ))
            }
        },
        Op::Eq | Op::Ne | Op::Contains => vec![operand],
    };
    for (i, value) in values.into_iter().enumerate() {
        let at = if matches!(op, Op::In | Op::Nin) {
            format!("{path}[{i}]")
        } else {
            path.to_string()
        };
        check_field_value(field, op, value, &at)?;
    }
    Ok(())
}

/// The values the record fields can take: a kind name, an id string, a number.
fn check_field_value(field: &Field, op: Op, value: &Value, path: &str) -> Result<()> {
    let expected = match field {
        Field::Context(_) => return Ok(()),
        Field::Kind => {
            if matches!(op, Op::Gt | Op::Gte | Op::Lt | Op::Lte | Op::Contains) {
                return Err(HebbsError::invalid(
                    path,
                    "kind supports $eq, $ne, $in, $nin and $exists",
                ));
            }
            match value.as_str().map(str::parse::<MemoryKind>) {
                Some(Ok(_)) => return Ok(()),
                _ => "a memory kind (episode, insight, revision, document, proposition)",
            }
        }
        Field::EntityId | Field::SessionId | Field::Key => match value {
            Value::String(_) => return Ok(()),
            _ => "a string",
        },
        Field::CreatedAt | Field::Importance => match value {
            Value::Number(_) if op != Op::Contains => return Ok(()),
            _ => "a number (and no $contains)",
        },
    };
    Err(HebbsError::invalid(
        path,
        format!("must be {expected}, got {}", describe(value)),
    ))
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => format!("\"{text}\""),
        other => type_name(other).to_string(),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
