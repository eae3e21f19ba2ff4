//! Typed, weighted edges between memories (seed 003 `Edge` and `EdgeType`).

use std::fmt;
use std::str::FromStr;

use super::MemoryId;
use crate::error::{HebbsError, Result};

/// Confidence given to an edge created without one.
pub const DEFAULT_EDGE_CONFIDENCE: f32 = 1.0;

/// The relationship an edge expresses, read from the memory that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeType {
    /// The target caused this memory.
    CausedBy,
    /// A general semantic relationship.
    RelatedTo,
    /// This memory followed the target in time.
    FollowedBy,
    /// This memory is a revision of the target.
    RevisedFrom,
    /// This insight was derived from the target.
    InsightFrom,
    /// This memory contradicts the target (a confirmed `find_contradictions` pair).
    Contradicts,
}

impl EdgeType {
    /// Every edge type, in code order.
    pub const ALL: [EdgeType; 6] = [
        Self::CausedBy,
        Self::RelatedTo,
        Self::FollowedBy,
        Self::RevisedFrom,
        Self::InsightFrom,
        Self::Contradicts,
    ];

    /// The snake-case name used across the APIs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::CausedBy => "caused_by",
            Self::RelatedTo => "related_to",
            Self::FollowedBy => "followed_by",
            Self::RevisedFrom => "revised_from",
            Self::InsightFrom => "insight_from",
            Self::Contradicts => "contradicts",
        }
    }

    /// The byte stored in edge keys.
    pub(crate) const fn code(self) -> u8 {
        match self {
            Self::CausedBy => 1,
            Self::RelatedTo => 2,
            Self::FollowedBy => 3,
            Self::RevisedFrom => 4,
            Self::InsightFrom => 5,
            Self::Contradicts => 6,
        }
    }

    /// Inverse of [`EdgeType::code`].
    pub(crate) fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.code() == code)
    }
}

impl FromStr for EdgeType {
    type Err = HebbsError;

    /// Accepts the snake-case name, case-insensitively, and the seed's CamelCase (`CausedBy`).
    fn from_str(text: &str) -> Result<Self> {
        let folded: String = text
            .chars()
            .filter(|c| *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str().replace('_', "") == folded)
            .ok_or_else(|| HebbsError::invalid("edge_type", format!("unknown edge type {text:?}")))
    }
}

impl fmt::Display for EdgeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A directed edge from the memory that holds it to `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// The memory this edge points at.
    pub target: MemoryId,
    /// The relationship.
    pub edge_type: EdgeType,
    /// Strength of the relationship, 0..=1.
    pub confidence: f32,
}

impl Edge {
    /// An edge with the default confidence.
    pub fn new(target: MemoryId, edge_type: EdgeType) -> Self {
        Self {
            target,
            edge_type,
            confidence: DEFAULT_EDGE_CONFIDENCE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_both_spellings() {
        for kind in EdgeType::ALL {
            assert_eq!(kind.as_str().parse::<EdgeType>().unwrap(), kind);
            assert_eq!(EdgeType::from_code(kind.code()), Some(kind));
        }
        assert_eq!("CausedBy".parse::<EdgeType>().unwrap(), EdgeType::CausedBy);
        assert!("causes".parse::<EdgeType>().is_err());
    }
}
