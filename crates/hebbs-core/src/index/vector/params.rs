//! HNSW parameters and their defaults (seed 000: M=16, ef_construction=200, ef_search=50).

use crate::error::{HebbsError, Result};

/// Links per node per layer.
pub const DEFAULT_M: usize = 16;
/// Candidate list size while building.
pub const DEFAULT_EF_CONSTRUCTION: usize = 200;
/// Candidate list size while searching, unless a call overrides it.
pub const DEFAULT_EF_SEARCH: usize = 50;
/// Largest `ef_search` a call may ask for.
pub const MAX_EF_SEARCH: usize = 500;
/// Most layers of the graph.
pub const MAX_LAYERS: usize = 16;

/// How the HNSW graph is built and searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HnswParams {
    /// Links per node per layer (`M`), 2..=255.
    pub m: usize,
    /// Candidate list size while building.
    pub ef_construction: usize,
    /// Default candidate list size while searching, 1..=[`MAX_EF_SEARCH`].
    pub ef_search: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        Self {
            m: DEFAULT_M,
            ef_construction: DEFAULT_EF_CONSTRUCTION,
            ef_search: DEFAULT_EF_SEARCH,
        }
    }
}

impl HnswParams {
    /// Checks every field is in range.
    pub fn validate(&self) -> Result<()> {
        if !(2..=255).contains(&self.m) {
            return Err(HebbsError::invalid("hnsw.m", "must be in 2..=255"));
        }
        if self.ef_construction < self.m {
            return Err(HebbsError::invalid(
                "hnsw.ef_construction",
                "must be at least m",
            ));
        }
        check_ef_search(self.ef_search, "hnsw.ef_search")
    }
}

/// Checks an `ef_search` value named `field`.
pub fn check_ef_search(ef_search: usize, field: &str) -> Result<()> {
    if (1..=MAX_EF_SEARCH).contains(&ef_search) {
        Ok(())
    } else {
        Err(HebbsError::invalid(
            field,
            format!("{ef_search} is outside 1..={MAX_EF_SEARCH}"),
        ))
    }
}
