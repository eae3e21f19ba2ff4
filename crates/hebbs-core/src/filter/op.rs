//! The filter operators and what each means for a field's value (`None` when the memory lacks
//! the field).
//!
//! - `$eq` / `$ne`: JSON equality, numbers by value (`1` equals `1.0`, never `"1"`), arrays and
//!   objects element by element. A missing field is not equal to anything.
//! - `$gt $gte $lt $lte`: a number against a number, a string against a string (by bytes, so
//!   ISO 8601 timestamps order by time); any other pair does not match.
//! - `$in` / `$nin`: equal (`$eq`) to one of the array's values / to none of them.
//! - `$exists`: the field is present (a JSON `null` is present) when `true`, absent when
//!   `false`.
//! - `$contains`: a string field holds the string as a substring, or an array field holds an
//!   element equal to the value.
//!
//! `$ne`, `$nin` and `$exists: false` are the only conditions a missing field satisfies: each
//! is the negation of one that it cannot satisfy.

use std::cmp::Ordering;

use serde_json::Value;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Equal.
    Eq,
    /// Not equal (or missing).
    Ne,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Gte,
    /// Less than.
    Lt,
    /// Less than or equal.
    Lte,
    /// Equal to one of an array's values.
    In,
    /// Equal to none of an array's values (or missing).
    Nin,
    /// Present (`true`) or absent (`false`).
    Exists,
    /// A substring of a string field, or an element of an array field.
    Contains,
}

/// Every operator, in the order the docs list them.
pub const ALL_OPS: [Op; 10] = [
    Op::Eq,
    Op::Ne,
    Op::Gt,
    Op::Gte,
    Op::Lt,
    Op::Lte,
    Op::In,
    Op::Nin,
    Op::Exists,
    Op::Contains,
];

impl Op {
    /// The operator's name in a filter (`"$gte"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Eq => "$eq",
            Self::Ne => "$ne",
            Self::Gt => "$gt",
            Self::Gte => "$gte",
            Self::Lt => "$lt",
            Self::Lte => "$lte",
            Self::In => "$in",
            Self::Nin => "$nin",
            Self::Exists => "$exists",
            Self::Contains => "$contains",
        }
    }

    /// The operator named `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        ALL_OPS.into_iter().find(|op| op.as_str() == name)
    }

    /// Whether a field's value (None when missing) satisfies this operator against `operand`
    /// (checked by the parser: an array for `$in` / `$nin`, a bool for `$exists`, a number or
    /// a string for the orderings).
    pub fn holds(self, value: Option<&Value>, operand: &Value) -> bool {
        match self {
            Self::Eq => value.is_some_and(|value| json_eq(value, operand)),
            Self::Ne => !Self::Eq.holds(value, operand),
            Self::Gt => order(value, operand) == Some(Ordering::Greater),
            Self::Gte => matches!(
                order(value, operand),
                Some(Ordering::Greater | Ordering::Equal)
            ),
            Self::Lt => order(value, operand) == Some(Ordering::Less),
            Self::Lte => matches!(
                order(value, operand),
                Some(Ordering::Less | Ordering::Equal)
            ),
            Self::In => value.is_some_and(|value| {
                operand
                    .as_array()
                    .is_some_and(|options| options.iter().any(|option| json_eq(value, option)))
            }),
            Self::Nin => !Self::In.holds(value, operand),
            Self::Exists => value.is_some() == operand.as_bool().unwrap_or(true),
            Self::Contains => match value {
                Some(Value::String(text)) => {
                    operand.as_str().is_some_and(|needle| text.contains(needle))
                }
                Some(Value::Array(items)) => items.iter().any(|item| json_eq(item, operand)),
                _ => false,
            },
        }
    }
}

/// JSON equality with numbers compared by value.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(key, x)| ys.get(key).is_some_and(|y| json_eq(x, y)))
        }
        _ => a == b,
    }
}

/// Numbers by value: integers exactly, otherwise as f64.
fn number_eq(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
        (Some(a), Some(b), _, _) => a == b,
        (_, _, Some(a), Some(b)) => a == b,
        _ => x.as_f64() == y.as_f64(),
    }
}

/// How a field's value orders against the operand: numbers with numbers, strings with
/// strings; None for any other pair (or a missing field).
fn order(value: Option<&Value>, operand: &Value) -> Option<Ordering> {
    match (value?, operand) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => match (a.as_u64(), b.as_u64()) {
                (Some(x), Some(y)) => Some(x.cmp(&y)),
                _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
            },
        },
        (Value::String(a), Value::String(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        _ => None,
    }
}
