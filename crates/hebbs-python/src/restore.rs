//! Conversions of the restore calls (`hebbs import`): memory rows in their wire shape (the
//! `to_dict` of a `Memory`, `decay_score` and `embedding` not read: one is derived, the other
//! comes as a matrix row; plus an optional `session_id` with its `turn_at` time, default
//! `created_at`, and `token_vectors` `(codes, scales)`)
//! to core restore inputs, and core edges to `Edge` objects for export.

use hebbs_core::engine::RestoreInput;
use hebbs_core::memory::StoredMemory;
use hebbs_core::store::{AccessStats, ConversationTurn};
use numpy::PyReadonlyArray2;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::invalid;
use crate::wire::Reader;

/// The restore inputs of `rows` (wire-shaped dicts) with `embeddings` row by row; errors name
/// `items[i].<field>`.
pub fn restore_inputs(
    rows: &Bound<'_, PyList>,
    embeddings: &PyReadonlyArray2<'_, f32>,
) -> PyResult<Vec<RestoreInput>> {
    let matrix = embeddings.as_array();
    if matrix.nrows() != rows.len() {
        return Err(invalid(
            "embeddings",
            format!("{} rows for {} items", matrix.nrows(), rows.len()),
        ));
    }
    rows.iter()
        .zip(matrix.rows())
        .enumerate()
        .map(|(i, (row, vector))| {
            let wire = Reader::new(&row, &format!("items[{i}]"))?;
            let access_count: u64 = wire.uint("access_count")?;
            let last_access_us: u64 = wire.uint("last_accessed_at")?;
            Ok(RestoreInput {
                id: wire.id("id")?,
                record: StoredMemory {
                    kind: wire.kind("kind")?,
                    importance: wire.float("importance")?,
                    created_at: wire.uint("created_at")?,
                    updated_at: wire.uint("updated_at")?,
                    entity_id: wire.opt_text("entity_id")?,
                    content: wire.text("content")?,
                    context: wire.object("context")?,
                    superseded: wire.flag("superseded")?,
                    key: wire.opt_text("key")?,
                },
                conversation: wire
                    .opt_text("session_id")?
                    .map(|session_id| {
                        let at = wire.opt_uint("turn_at")?;
                        Ok::<_, PyErr>(ConversationTurn {
                            session_id,
                            at: at.map_or_else(|| wire.uint("created_at"), Ok)?,
                        })
                    })
                    .transpose()?,
                token_vectors: wire.opt_token_vectors("token_vectors")?,
                embedding: vector.iter().copied().collect(),
                access: if access_count == 0 {
                    AccessStats::default()
                } else {
                    AccessStats {
                        count: access_count,
                        last_access_us,
                    }
                },
            })
        })
        .collect()
}
