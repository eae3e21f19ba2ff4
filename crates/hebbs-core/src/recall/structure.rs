//! Structural similarity for analogical recall: how alike two memories are in shape, not in
//! words. Each [`Structure`] is compared on up to five components; a component counts only when
//! it applies (for example, edge signatures only when either side has edges), and the result is
//! their weighted mean in 0..=1:
//!
//! | component | weight | value |
//! |---|---|---|
//! | context keys | [`W_KEYS`] | Jaccard of the two key sets |
//! | value types | [`W_VALUE_TYPES`] | share of common keys whose JSON values have the same type |
//! | edge signature | [`W_EDGES`] | Jaccard of the (direction, edge type) sets |
//! | kind | [`W_KIND`] | 1 if the memory kinds match |
//! | roles | [`W_ROLES`] | mean over the role slots `entities`, `action`, `outcome` present on either side: 0 if one side lacks it; for `entities` the ratio of the smaller to the larger count; for `action`/`outcome` 1 if the labels match (case-folded) and 0.5 if both are filled differently |

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::memory::{EdgeType, MemoryKind};

/// Weight of the context key sets.
pub const W_KEYS: f32 = 0.25;
/// Weight of the value types under shared keys.
pub const W_VALUE_TYPES: f32 = 0.15;
/// Weight of the edge-type signature.
pub const W_EDGES: f32 = 0.2;
/// Weight of the memory kind.
pub const W_KIND: f32 = 0.1;
/// Weight of the entity/action/outcome roles.
pub const W_ROLES: f32 = 0.3;
/// The context keys read as roles.
pub const ROLE_KEYS: [&str; 3] = ["entities", "action", "outcome"];

/// The relational shape of a memory, or of the situation a cue describes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Structure {
    /// Structured context.
    pub context: Map<String, Value>,
    /// The memory kind, when known.
    pub kind: Option<MemoryKind>,
    /// `(outgoing, edge type)` pairs, when known.
    pub edges: Option<BTreeSet<(bool, EdgeType)>>,
}

/// The structural similarity of `cue` and `other`, 0..=1 (0 when no component applies).
pub fn structural_similarity(cue: &Structure, other: &Structure) -> f32 {
    let mut total = 0.0;
    let mut weight = 0.0;
    let mut add = |w: f32, value: f32| {
        total += w * value;
        weight += w;
    };
    if !cue.context.is_empty() || !other.context.is_empty() {
        let keys_a: BTreeSet<&String> = cue.context.keys().collect();
        let keys_b: BTreeSet<&String> = other.context.keys().collect();
        add(W_KEYS, jaccard(&keys_a, &keys_b));
        let shared: Vec<&String> = keys_a.intersection(&keys_b).copied().collect();
        let same_type = shared
            .iter()
            .filter(|key| {
                json_type(&cue.context[key.as_str()]) == json_type(&other.context[key.as_str()])
            })
            .count();
        add(
            W_VALUE_TYPES,
            if shared.is_empty() {
                0.0
            } else {
                same_type as f32 / shared.len() as f32
            },
        );
    }
    if let (Some(a), Some(b)) = (&cue.edges, &other.edges) {
        if !a.is_empty() || !b.is_empty() {
            add(W_EDGES, jaccard(a, b));
        }
    }
    if let (Some(a), Some(b)) = (cue.kind, other.kind) {
        add(W_KIND, if a == b { 1.0 } else { 0.0 });
    }
    if let Some(roles) = role_similarity(&cue.context, &other.context) {
        add(W_ROLES, roles);
    }
    if weight == 0.0 {
        0.0
    } else {
        total / weight
    }
}

fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f32 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f32 / union as f32
}

fn json_type(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// Mean similarity over the role slots either side fills; `None` when neither fills any.
fn role_similarity(a: &Map<String, Value>, b: &Map<String, Value>) -> Option<f32> {
    let mut sum = 0.0;
    let mut slots = 0;
    for key in ROLE_KEYS {
        let (left, right) = (a.get(key), b.get(key));
        if left.is_none() && right.is_none() {
            continue;
        }
        slots += 1;
        sum += match (left, right) {
            (Some(left), Some(right)) if key == "entities" => {
                let (x, y) = (entity_count(left), entity_count(right));
                if x.max(y) == 0 {
                    1.0
                } else {
                    x.min(y) as f32 / x.max(y) as f32
                }
            }
            (Some(left), Some(right)) => {
                if label(left) == label(right) {
                    1.0
                } else {
                    0.5
                }
            }
            _ => 0.0,
        };
    }
    (slots > 0).then(|| sum / slots as f32)
}

fn entity_count(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.len(),
        Value::Object(fields) => fields.len(),
        Value::Null => 0,
        _ => 1,
    }
}

fn label(value: &Value) -> String {
    match value {
        Value::String(text) => text.trim().to_lowercase(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn structure(context: Value, kind: MemoryKind, edges: &[(bool, EdgeType)]) -> Structure {
        Structure {
            context: context.as_object().unwrap().clone(),
            kind: Some(kind),
            edges: Some(edges.iter().copied().collect()),
        }
    }

    #[test]
    fn identical_structures_score_one_and_disjoint_ones_zero() {
        let a = structure(
            json!({"entities": ["team", "db"], "action": "migrate", "outcome": "failure"}),
            MemoryKind::Episode,
            &[(true, EdgeType::CausedBy)],
        );
        assert!((structural_similarity(&a, &a) - 1.0).abs() < 1e-6);
        let b = structure(
            json!({"note": 3}),
            MemoryKind::Insight,
            &[(false, EdgeType::RelatedTo)],
        );
        assert_eq!(structural_similarity(&a, &b), 0.0);
    }

    #[test]
    fn matches_the_weighted_mean_written_out_by_hand() {
        let a = structure(
            json!({"entities": ["a", "b"], "action": "launch", "outcome": "failure", "cost": 10}),
            MemoryKind::Episode,
            &[(true, EdgeType::CausedBy)],
        );
        let b = structure(
            json!({"entities": ["x", "y", "z", "w"], "action": "bake", "outcome": "FAILURE", "cost": "high"}),
            MemoryKind::Episode,
            &[(true, EdgeType::CausedBy), (false, EdgeType::FollowedBy)],
        );
        let keys = 1.0;
        let types = 3.0 / 4.0;
        let edges = 0.5;
        let kind = 1.0;
        let roles = (0.5 + 0.5 + 1.0) / 3.0;
        let expected = (W_KEYS * keys
            + W_VALUE_TYPES * types
            + W_EDGES * edges
            + W_KIND * kind
            + W_ROLES * roles)
            / (W_KEYS + W_VALUE_TYPES + W_EDGES + W_KIND + W_ROLES);
        assert!((structural_similarity(&a, &b) - expected).abs() < 1e-6);
    }

    #[test]
    fn unknown_components_do_not_count() {
        let cue = Structure {
            context: json!({"action": "deploy"}).as_object().unwrap().clone(),
            kind: None,
            edges: None,
        };
        let other = structure(json!({"action": "deploy"}), MemoryKind::Episode, &[]);
        assert!((structural_similarity(&cue, &other) - 1.0).abs() < 1e-6);
        assert_eq!(
            structural_similarity(&Structure::default(), &Structure::default()),
            0.0
        );
    }
}
