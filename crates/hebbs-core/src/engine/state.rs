//! Named state for the layers above the engine: small byte values under string names (the
//! Python layer keeps its reflection cursor per scope and the document index's manifest here),
//! stored in the database itself so they follow it through copies, backups and deletes. A state
//! write is not a memory: it leaves counts, indexes and the changelog alone.

use super::Engine;
use crate::error::{HebbsError, Result};

/// Longest state name, in bytes.
pub const MAX_STATE_NAME_BYTES: usize = 1024;
/// Largest state value, in bytes.
pub const MAX_STATE_VALUE_BYTES: usize = 4 * 1024 * 1024;
/// Most entries one `state_scan` returns.
pub const MAX_STATE_SCAN: usize = 100_000;

/// `name` (a state name, or a prefix when `prefix`) is within bounds and, unless a prefix,
/// not empty.
fn check_name(name: &str, field: &str, prefix: bool) -> Result<()> {
    if name.is_empty() && !prefix {
        return Err(HebbsError::invalid(field, "must not be empty"));
    }
    if name.len() > MAX_STATE_NAME_BYTES {
        return Err(HebbsError::invalid(
            field,
            format!("{} bytes is over {MAX_STATE_NAME_BYTES}", name.len()),
        ));
    }
    Ok(())
}

/// Checks a state entry to set: `name` (field `name_field`) and, unless a delete, `value`
/// (field `value_field`) within bounds.
pub(super) fn check_state_entry(
    name: &str,
    value: Option<&[u8]>,
    name_field: &str,
    value_field: &str,
) -> Result<()> {
    check_name(name, name_field, false)?;
    if let Some(value) = value {
        if value.len() > MAX_STATE_VALUE_BYTES {
            return Err(HebbsError::invalid(
                value_field,
                format!("{} bytes is over {MAX_STATE_VALUE_BYTES}", value.len()),
            ));
        }
    }
    Ok(())
}

impl Engine {
    /// The value stored under state `name`, if any.
    pub fn state_get(&self, name: &str) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        check_name(name, "name", false)?;
        self.store.state_get(name)
    }

    /// Stores `value` under state `name` (durably, like a memory), or deletes it when `value`
    /// is `None`.
    pub fn state_put(&self, name: &str, value: Option<&[u8]>) -> Result<()> {
        self.check_open()?;
        check_state_entry(name, value, "name", "value")?;
        self.store.state_put(name, value)
    }

    /// The state entries whose names start with `prefix`, in name order, at most
    /// [`MAX_STATE_SCAN`].
    pub fn state_scan(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>> {
        self.check_open()?;
        check_name(prefix, "prefix", true)?;
        self.store.state_scan(prefix, MAX_STATE_SCAN)
    }
}
