//! `add_edges`: typed, weighted edges from an existing memory to others, written in both
//! directions in one batch, after every target was checked to exist.

use super::Engine;
use crate::error::{HebbsError, Result};
use crate::memory::checks::check_edges;
use crate::memory::{Edge, MemoryId};

impl Engine {
    /// Adds `edges` from memory `source` (an edge that already exists gets the new
    /// confidence). `source` must exist (`NotFound`); each target must exist and differ from
    /// `source` (`InvalidInput` naming `edges[i].target`). All or nothing.
    pub fn add_edges(&self, source: &MemoryId, edges: &[Edge]) -> Result<()> {
        self.check_open()?;
        check_edges(edges, "")?;
        for (i, edge) in edges.iter().enumerate() {
            if edge.target == *source {
                return Err(HebbsError::invalid(
                    format!("edges[{i}].target"),
                    "an edge may not point at its own memory",
                ));
            }
        }
        let writer = self.writer.lock();
        if !self.store.contains(source)? {
            return Err(HebbsError::NotFound {
                id: source.to_hex(),
            });
        }
        for (i, edge) in edges.iter().enumerate() {
            if !self.store.contains(&edge.target)? {
                return Err(HebbsError::invalid(
                    format!("edges[{i}].target"),
                    format!("no memory with id {}", edge.target),
                ));
            }
        }
        let mut batch = self.store.batch();
        for edge in edges {
            batch.put_edge(source, edge);
        }
        self.store.commit(batch, self.config.sync_writes)?;
        drop(writer);
        Ok(())
    }
}
