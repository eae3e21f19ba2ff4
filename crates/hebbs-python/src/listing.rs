//! `MemoryPage`, the answer to `list_memories`: one page of memories and the cursor to continue;
//! and the `ListRequest` of `list_memories` and `CountRequest` of `count_memories`, read from
//! their Python models' fields.

use hebbs_core::engine::{CountRequest, ListRequest};
use hebbs_core::MemoryId;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use crate::errors::invalid;
use crate::fields::Fields;
use crate::filter::extract_filter;
use crate::lifecycle::extract_kind;
use crate::types::{extract_id, Memory};
use crate::wire::{list_of, Reader};

/// One page of a listing; pass `next_cursor` as the next call's `cursor` (None: the end).
#[pyclass(frozen, module = "hebbs")]
pub struct MemoryPage {
    /// The page's memories, in listing order.
    #[pyo3(get)]
    memories: Vec<Py<Memory>>,
    next_cursor: Option<MemoryId>,
}

impl MemoryPage {
    /// Converts a core page.
    pub fn from_core(py: Python<'_>, page: hebbs_core::MemoryPage) -> PyResult<Self> {
        Ok(Self {
            memories: page
                .memories
                .into_iter()
                .map(|memory| Py::new(py, Memory::from_core(py, memory)?))
                .collect::<PyResult<_>>()?,
            next_cursor: page.next_cursor,
        })
    }
}

#[pymethods]
impl MemoryPage {
    /// The 16-byte id to pass as the next call's `cursor`, or None once the listing is complete.
    #[getter]
    fn next_cursor<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.next_cursor.map(|id| PyBytes::new(py, id.as_bytes()))
    }

    fn __len__(&self) -> usize {
        self.memories.len()
    }

    /// This page as a JSON-ready dict: memories (as `Memory.to_dict` writes them) and
    /// next_cursor (32 hex digits or None).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Self {
            memories,
            next_cursor,
        } = self;
        let dict = PyDict::new(py);
        dict.set_item("memories", list_of(py, memories, Memory::to_wire)?)?;
        dict.set_item("next_cursor", next_cursor.map(|id| id.to_hex()))?;
        Ok(dict)
    }

    /// The page that `to_dict` wrote; `InvalidInputError` names a missing or bad field.
    #[classmethod]
    fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let wire = Reader::top(data)?;
        let memories = wire
            .items("memories")?
            .iter()
            .map(|item| Py::new(wire.py(), Memory::from_wire(item)?))
            .collect::<PyResult<_>>()?;
        let next_cursor = wire
            .opt_text("next_cursor")?
            .map(|hex| {
                hex.parse::<MemoryId>()
                    .map_err(|_| invalid("next_cursor", "expected 32 hex digits"))
            })
            .transpose()?;
        Ok(Self {
            memories,
            next_cursor,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "MemoryPage(memories={}, next_cursor={:?})",
            self.memories.len(),
            self.next_cursor.map(|id| id.to_hex())
        )
    }
}

/// The core `ListRequest` of `fields` (the Python `ListMemoriesRequest`'s fields the caller
/// set, the others keep the core's defaults); a key that is not one of them is an
/// `InvalidTypeError`.
pub fn list_request(fields: &Bound<'_, PyDict>) -> PyResult<ListRequest> {
    let mut fields = Fields::new(fields);
    let defaults = ListRequest::default();
    let request = ListRequest {
        entity_id: fields.value("entity_id")?,
        kind: fields.with("kind", extract_kind)?,
        cursor: fields.with("cursor", extract_id)?,
        limit: fields.value_or("limit", defaults.limit)?,
        include_superseded: fields.value_or("include_superseded", defaults.include_superseded)?,
        filter: extract_filter(fields.object("filter")?.as_ref())?,
        key_prefix: fields.value("key_prefix")?,
    };
    fields.finish()?;
    Ok(request)
}

/// The core `CountRequest` of `fields` (the Python `CountMemoriesRequest`'s fields the caller
/// set); a key that is not one of them is an `InvalidTypeError`.
pub fn count_request(fields: &Bound<'_, PyDict>) -> PyResult<CountRequest> {
    let mut fields = Fields::new(fields);
    let request = CountRequest {
        entity_id: fields.value("entity_id")?,
        kind: fields.with("kind", extract_kind)?,
        include_superseded: fields.value("include_superseded")?.unwrap_or_default(),
        filter: extract_filter(fields.object("filter")?.as_ref())?,
        key_prefix: fields.value("key_prefix")?,
    };
    fields.finish()?;
    Ok(request)
}
