//! `NativeEngine`: the Python handle of a [`hebbs_core::Engine`]. Each method converts its
//! arguments into owned Rust values, then calls the engine through [`engine_call`] (GIL released),
//! then converts the answer.

use hebbs_core::engine::RememberInput;
use hebbs_core::index::vector::HnswParams;
use hebbs_core::recall::{RecallRequest, Strategy};
use hebbs_core::{Engine, EngineConfig};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::detach::engine_call;
use crate::errors::{invalid, to_py_err};
use crate::json::dict_to_map;
use crate::slot::EngineSlot;
use crate::subscription::{request_from, NativeSubscription};
use crate::types::{extract_id, Edge, HealthStatus, Memory, RecallOutput, ScoringWeights};

/// Adds the Python `context` dict and `edges` iterable to `input`; `prefix` goes before field
/// names in errors.
fn with_context_and_edges(
    mut input: RememberInput,
    context: Option<&Bound<'_, PyAny>>,
    edges: Option<&Bound<'_, PyAny>>,
    prefix: &str,
) -> PyResult<RememberInput> {
    if let Some(object) = context.filter(|object| !object.is_none()) {
        input.context = dict_to_map(object, &format!("{prefix}context"))?;
    }
    if let Some(object) = edges.filter(|object| !object.is_none()) {
        input.edges = object
            .try_iter()?
            .enumerate()
            .map(|(i, item)| {
                item?
                    .extract::<Edge>()
                    .map(|edge| edge.inner)
                    .map_err(|_| invalid(&format!("{prefix}edges[{i}]"), "expected an Edge"))
            })
            .collect::<PyResult<Vec<_>>>()?;
    }
    Ok(input)
}

fn new_input(
    content: String,
    embedding: Vec<f32>,
    importance: f32,
    entity_id: Option<String>,
    created_at: Option<u64>,
) -> RememberInput {
    RememberInput {
        importance,
        entity_id,
        created_at,
        ..RememberInput::new(content, embedding)
    }
}

fn vector_of(array: &PyReadonlyArray1<'_, f32>, field: &str) -> PyResult<Vec<f32>> {
    match array.as_slice() {
        Ok(slice) => Ok(slice.to_vec()),
        Err(_) => Ok(array.as_array().iter().copied().collect()),
    }
    .and_then(|vector: Vec<f32>| {
        if vector.is_empty() {
            Err(invalid(field, "must not be empty"))
        } else {
            Ok(vector)
        }
    })
}

/// The native engine handle.
#[pyclass(frozen, module = "hebbs._native")]
pub struct NativeEngine {
    slot: EngineSlot,
}

#[pymethods]
impl NativeEngine {
    /// Opens (creating if needed) the database in directory `path`.
    #[new]
    #[pyo3(signature = (path, dimension = None, m = None, ef_construction = None, ef_search = None, sync_writes = false))]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        dimension: Option<usize>,
        m: Option<usize>,
        ef_construction: Option<usize>,
        ef_search: Option<usize>,
        sync_writes: bool,
    ) -> PyResult<Self> {
        let defaults = HnswParams::default();
        let config = EngineConfig {
            hnsw: HnswParams {
                m: m.unwrap_or(defaults.m),
                ef_construction: ef_construction.unwrap_or(defaults.ef_construction),
                ef_search: ef_search.unwrap_or(defaults.ef_search),
            },
            dimension,
            sync_writes,
            ..EngineConfig::default()
        };
        let engine = engine_call(py, move || Engine::open(path, config))?;
        Ok(Self {
            slot: EngineSlot::new(engine),
        })
    }

    /// Stores one memory; `embedding` is a float32 vector.
    #[pyo3(signature = (content, embedding, importance = hebbs_core::engine::DEFAULT_IMPORTANCE, context = None, entity_id = None, edges = None, created_at = None))]
    #[allow(clippy::too_many_arguments)]
    fn remember(
        &self,
        py: Python<'_>,
        content: String,
        embedding: PyReadonlyArray1<'_, f32>,
        importance: f32,
        context: Option<&Bound<'_, PyAny>>,
        entity_id: Option<String>,
        edges: Option<&Bound<'_, PyAny>>,
        created_at: Option<u64>,
    ) -> PyResult<Memory> {
        let embedding = vector_of(&embedding, "embedding")?;
        let input = with_context_and_edges(
            new_input(content, embedding, importance, entity_id, created_at),
            context,
            edges,
            "",
        )?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let memory = engine_call(py, move || engine.remember(input))?;
        Memory::from_core(py, memory)
    }

    /// Stores many memories atomically. `items` is a list of dicts with the keys `content`,
    /// `importance`, `context`, `entity_id`, `edges`, `created_at`; `embeddings` is a float32
    /// array of shape `[len(items), d]`.
    fn remember_many(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyList>,
        embeddings: PyReadonlyArray2<'_, f32>,
    ) -> PyResult<Vec<Memory>> {
        let matrix = embeddings.as_array();
        if matrix.nrows() != items.len() {
            return Err(invalid(
                "embeddings",
                format!("{} rows for {} items", matrix.nrows(), items.len()),
            ));
        }
        let mut inputs = Vec::with_capacity(items.len());
        for (i, (item, row)) in items.iter().zip(matrix.rows()).enumerate() {
            let prefix = format!("items[{i}].");
            let dict = item
                .cast::<PyDict>()
                .map_err(|_| invalid(&format!("items[{i}]"), "expected a dict"))?;
            let field = |name: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
                Ok(dict.get_item(name)?.filter(|value| !value.is_none()))
            };
            let content: String = field("content")?
                .ok_or_else(|| invalid(&format!("{prefix}content"), "is required"))?
                .extract()
                .map_err(|_| invalid(&format!("{prefix}content"), "must be a str"))?;
            let importance = match field("importance")? {
                Some(value) => value
                    .extract::<f32>()
                    .map_err(|_| invalid(&format!("{prefix}importance"), "must be a number"))?,
                None => hebbs_core::engine::DEFAULT_IMPORTANCE,
            };
            let entity_id = field("entity_id")?
                .map(|value| value.extract::<String>())
                .transpose()
                .map_err(|_| invalid(&format!("{prefix}entity_id"), "must be a str"))?;
            let created_at = field("created_at")?
                .map(|value| value.extract::<u64>())
                .transpose()
                .map_err(|_| {
                    invalid(&format!("{prefix}created_at"), "must be a non-negative int")
                })?;
            let input = new_input(
                content,
                row.iter().copied().collect(),
                importance,
                entity_id,
                created_at,
            );
            inputs.push(with_context_and_edges(
                input,
                field("context")?.as_ref(),
                field("edges")?.as_ref(),
                &prefix,
            )?);
        }
        let engine = self.slot.get().map_err(to_py_err)?;
        let memories = engine_call(py, move || engine.remember_many(inputs))?;
        memories
            .into_iter()
            .map(|memory| Memory::from_core(py, memory))
            .collect()
    }

    /// The memory with `id` (16 bytes or hex); raises `NotFoundError`.
    #[pyo3(signature = (id, include_embedding = false))]
    fn get(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        include_embedding: bool,
    ) -> PyResult<Memory> {
        let id = extract_id(id, "id")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let memory = engine_call(py, move || engine.get(&id, include_embedding))?;
        Memory::from_core(py, memory)
    }

    /// Runs a recall. `cue_embedding` is needed by `similarity`.
    #[pyo3(signature = (cue_embedding = None, strategies = None, top_k = hebbs_core::recall::DEFAULT_TOP_K, entity_id = None, time_range = None, ef_search = None, scoring_weights = None, include_embedding = false))]
    #[allow(clippy::too_many_arguments)]
    fn recall(
        &self,
        py: Python<'_>,
        cue_embedding: Option<PyReadonlyArray1<'_, f32>>,
        strategies: Option<Vec<String>>,
        top_k: usize,
        entity_id: Option<String>,
        time_range: Option<(u64, u64)>,
        ef_search: Option<usize>,
        scoring_weights: Option<ScoringWeights>,
        include_embedding: bool,
    ) -> PyResult<RecallOutput> {
        let strategies = match strategies {
            Some(names) => names
                .iter()
                .map(|name| name.parse::<Strategy>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(to_py_err)?,
            None => vec![Strategy::Similarity],
        };
        let cue_vector = cue_embedding
            .map(|array| vector_of(&array, "cue"))
            .transpose()?;
        let request = RecallRequest {
            cue_vector,
            strategies,
            top_k,
            entity_id,
            time_range,
            ef_search,
            scoring_weights: scoring_weights.map(Into::into).unwrap_or_default(),
            include_embedding,
        };
        let engine = self.slot.get().map_err(to_py_err)?;
        let output = engine_call(py, move || engine.recall(&request))?;
        RecallOutput::from_core(py, output)
    }

    /// Opens a standing query on `cue_embedding`: later memories that match are pushed to the
    /// returned subscription.
    #[pyo3(signature = (cue_embedding, entity_id = None, confidence_threshold = None, queue_capacity = None))]
    fn subscribe(
        &self,
        py: Python<'_>,
        cue_embedding: PyReadonlyArray1<'_, f32>,
        entity_id: Option<String>,
        confidence_threshold: Option<&Bound<'_, PyAny>>,
        queue_capacity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<NativeSubscription> {
        let request = request_from(
            vector_of(&cue_embedding, "cue")?,
            entity_id,
            confidence_threshold,
            queue_capacity,
        )?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let subscription = engine_call(py, move || engine.subscribe(request))?;
        Ok(NativeSubscription::new(subscription))
    }

    /// Serving state, version, memory count, uptime.
    fn health(&self, py: Python<'_>) -> PyResult<HealthStatus> {
        let engine = self.slot.get().map_err(to_py_err)?;
        Ok(engine_call(py, move || Ok(engine.health()))?.into())
    }

    /// Checkpoints the vector index now.
    fn checkpoint(&self, py: Python<'_>) -> PyResult<()> {
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.checkpoint())
    }

    /// Whether the vector index came from its checkpoint at open (not a rebuild).
    fn opened_from_checkpoint(&self) -> PyResult<bool> {
        Ok(self
            .slot
            .get()
            .map_err(to_py_err)?
            .recovery()
            .from_checkpoint)
    }

    /// The embedding dimension of the store, if fixed.
    fn dimension(&self) -> PyResult<Option<usize>> {
        Ok(self.slot.get().map_err(to_py_err)?.dimension())
    }

    /// Checkpoints, flushes and releases the database. Idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match self.slot.take() {
            Some(engine) => engine_call(py, move || {
                engine.close()?;
                drop(engine);
                Ok(())
            }),
            None => Ok(()),
        }
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.slot.get().is_err()
    }
}
