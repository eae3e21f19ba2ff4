//! The Python types and argument conversions of the memory lifecycle: `ForgetResult`,
//! `Tombstone`, the `ForgetRequest` and the revision read from their Python models' fields, and
//! parsing of `kind` and edge lists.

use hebbs_core::memory;
use hebbs_core::{ForgetRequest, MemoryId, MemoryKind as CoreKind, RevisionInput};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use crate::errors::{invalid, invalid_type};
use crate::fields::Fields;
use crate::filter::extract_filter;
use crate::json::dict_to_map;
use crate::recall_request::vector;
use crate::token_vectors::extract_pair;
use crate::types::{extract_id, Edge, MemoryKind};
use crate::wire::Reader;

/// Parses a memory kind given as a `MemoryKind` or its name; `field` names the argument.
pub fn extract_kind(object: &Bound<'_, PyAny>, field: &str) -> PyResult<CoreKind> {
    if let Ok(kind) = object.extract::<MemoryKind>() {
        return Ok(kind.into());
    }
    let name: String = object
        .extract()
        .map_err(|_| invalid_type(field, "expected a MemoryKind or its name"))?;
    name.to_ascii_lowercase()
        .parse::<CoreKind>()
        .map_err(|_| invalid(field, format!("unknown memory kind {name:?}")))
}

/// The memory and the `RevisionInput` of `fields` (the Python `ReviseRequest`'s fields the
/// caller set, `embedding` and `token_vectors` as the Python layer resolved them); a key that
/// is not one of them is an `InvalidTypeError`.
pub fn revision_input(fields: &Bound<'_, PyDict>) -> PyResult<(MemoryId, RevisionInput)> {
    let mut fields = Fields::new(fields);
    let id = fields
        .with("id", extract_id)?
        .ok_or_else(|| invalid("id", "is required"))?;
    let input = RevisionInput {
        content: fields.value("content")?,
        embedding: fields.with("embedding", vector)?,
        importance: fields.value("importance")?,
        context: fields.with("context", dict_to_map)?,
        entity_id: fields.value("entity_id")?,
        token_vectors: fields.with("token_vectors", extract_pair)?,
    };
    fields.finish()?;
    Ok((id, input))
}

/// The core `ForgetRequest` of `fields` (the Python `ForgetRequest`'s fields the caller set,
/// the others keep the core's defaults); a key that is not one of them is an
/// `InvalidTypeError`.
pub fn forget_request(fields: &Bound<'_, PyDict>) -> PyResult<ForgetRequest> {
    let mut fields = Fields::new(fields);
    let defaults = ForgetRequest::default();
    let request = ForgetRequest {
        ids: fields.with("ids", extract_ids)?,
        keys: fields.value("keys")?,
        entity_id: fields.value("entity_id")?,
        older_than_us: fields.value("older_than")?,
        importance_below: fields.value("importance_below")?,
        kind: fields.with("kind", extract_kind)?,
        filter: extract_filter(fields.object("filter")?.as_ref())?,
        purge: fields.value_or("purge", defaults.purge)?,
        limit: fields.value_or("limit", defaults.limit)?,
    };
    fields.finish()?;
    Ok(request)
}

/// Parses an iterable of `Edge`s; `field` names the argument (`edges[i]` in errors).
pub fn extract_edges(object: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<memory::Edge>> {
    object
        .try_iter()
        .map_err(|_| invalid_type(field, "expected an iterable of Edge"))?
        .enumerate()
        .map(|(i, item)| {
            item?
                .extract::<Edge>()
                .map(|edge| edge.inner)
                .map_err(|_| invalid_type(&format!("{field}[{i}]"), "expected an Edge"))
        })
        .collect()
}

/// Parses a list of ids (bytes or hex); `field` names the argument (`ids[i]` in errors).
pub fn extract_ids(object: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<MemoryId>> {
    if object.is_instance_of::<PyBytes>() || object.is_instance_of::<pyo3::types::PyString>() {
        return Err(invalid_type(
            field,
            "expected a list of ids, not a single id",
        ));
    }
    object
        .try_iter()
        .map_err(|_| invalid_type(field, "expected an iterable of ids"))?
        .enumerate()
        .map(|(i, item)| crate::types::extract_id(&item?, &format!("{field}[{i}]")))
        .collect()
}

/// What a forget did (seed 003 `ForgetResult`).
#[pyclass(frozen, module = "hebbs", get_all)]
pub struct ForgetResult {
    /// Memories the request selected and erased.
    pub forgotten_count: u64,
    /// Insights derived from them and edges, erased with them.
    pub cascade_count: u64,
    /// Tombstones written, one per erased memory.
    pub tombstone_count: u64,
    /// Whether more memories match: call again to continue.
    pub truncated: bool,
}

impl From<hebbs_core::ForgetResult> for ForgetResult {
    fn from(result: hebbs_core::ForgetResult) -> Self {
        Self {
            forgotten_count: result.forgotten_count,
            cascade_count: result.cascade_count,
            tombstone_count: result.tombstone_count,
            truncated: result.truncated,
        }
    }
}

#[pymethods]
impl ForgetResult {
    /// This result as a JSON-ready dict of its properties.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Self {
            forgotten_count,
            cascade_count,
            tombstone_count,
            truncated,
        } = self;
        let dict = PyDict::new(py);
        dict.set_item("forgotten_count", forgotten_count)?;
        dict.set_item("cascade_count", cascade_count)?;
        dict.set_item("tombstone_count", tombstone_count)?;
        dict.set_item("truncated", truncated)?;
        Ok(dict)
    }

    /// The result that `to_dict` wrote; `InvalidInputError` names a missing or bad field.
    #[classmethod]
    fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let wire = Reader::top(data)?;
        Ok(Self {
            forgotten_count: wire.uint("forgotten_count")?,
            cascade_count: wire.uint("cascade_count")?,
            tombstone_count: wire.uint("tombstone_count")?,
            truncated: wire.flag("truncated")?,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "ForgetResult(forgotten_count={}, cascade_count={}, tombstone_count={}, truncated={})",
            self.forgotten_count,
            self.cascade_count,
            self.tombstone_count,
            if self.truncated { "True" } else { "False" }
        )
    }
}

/// The audit record of a forgotten memory: never its content, a SHA-256 of it.
#[pyclass(frozen, module = "hebbs")]
pub struct Tombstone {
    pub(crate) inner: memory::Tombstone,
}

impl From<memory::Tombstone> for Tombstone {
    fn from(inner: memory::Tombstone) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl Tombstone {
    /// The forgotten memory's 16-byte id.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.id.as_bytes())
    }

    /// The id as 32 hex digits.
    #[getter]
    fn id_hex(&self) -> String {
        self.inner.id.to_hex()
    }

    /// Its entity scope.
    #[getter]
    fn entity_id(&self) -> Option<String> {
        self.inner.entity_id.clone()
    }

    /// Its kind.
    #[getter]
    fn kind(&self) -> MemoryKind {
        self.inner.kind.into()
    }

    /// When it was created, microseconds.
    #[getter]
    fn created_at(&self) -> u64 {
        self.inner.created_at
    }

    /// When it was forgotten, microseconds.
    #[getter]
    fn forgotten_at(&self) -> u64 {
        self.inner.forgotten_at
    }

    /// SHA-256 of its content, 64 hex digits.
    #[getter]
    fn content_sha256(&self) -> String {
        self.inner.content_sha256_hex()
    }

    /// This tombstone as a JSON-ready dict: every property, the id as hex, the kind as its
    /// value.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let memory::Tombstone {
            id,
            entity_id,
            kind,
            created_at,
            forgotten_at,
            content_sha256: _,
        } = &self.inner;
        let dict = PyDict::new(py);
        dict.set_item("id", id.to_hex())?;
        dict.set_item("id_hex", id.to_hex())?;
        dict.set_item("entity_id", entity_id)?;
        dict.set_item("kind", kind.as_str())?;
        dict.set_item("created_at", created_at)?;
        dict.set_item("forgotten_at", forgotten_at)?;
        dict.set_item("content_sha256", self.inner.content_sha256_hex())?;
        Ok(dict)
    }

    /// The tombstone that `to_dict` wrote; `InvalidInputError` names a missing or bad field.
    #[classmethod]
    fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let wire = Reader::top(data)?;
        Ok(Self {
            inner: memory::Tombstone {
                id: wire.id("id")?,
                entity_id: wire.opt_text("entity_id")?,
                kind: wire.kind("kind")?,
                created_at: wire.uint("created_at")?,
                forgotten_at: wire.uint("forgotten_at")?,
                content_sha256: wire.sha256("content_sha256")?,
            },
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Tombstone(id={:?}, kind={}, forgotten_at={})",
            self.inner.id.to_hex(),
            self.inner.kind,
            self.inner.forgotten_at
        )
    }
}

/// Parses an optional `after` id for paging tombstones.
pub fn extract_after(object: Option<&Bound<'_, PyAny>>) -> PyResult<Option<MemoryId>> {
    object
        .filter(|object| !object.is_none())
        .map(|object| crate::types::extract_id(object, "after"))
        .transpose()
}
