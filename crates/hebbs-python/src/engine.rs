//! `NativeEngine`: the Python handle of a [`hebbs_core::Engine`]. Each method converts its
//! arguments into owned Rust values, then calls the engine through [`engine_call`] (GIL released),
//! then converts the answer.

use std::time::Duration;

use hebbs_core::engine::{
    AtomicWrite, AutoForget, ItemEdge, RememberInput, DEFAULT_TOMBSTONE_PAGE,
};
use hebbs_core::forget::DEFAULT_FORGET_LIMIT;
use hebbs_core::index::vector::{HnswParams, VectorFormat};
use hebbs_core::{Engine, EngineConfig};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::detach::engine_call;
use crate::errors::{invalid, invalid_type, to_py_err};
use crate::json::dict_to_map;
use crate::lifecycle::{
    extract_after, extract_edges, extract_ids, extract_kind, forget_request, revision_input,
    ForgetResult, Tombstone,
};
use crate::listing::{count_request, list_request, MemoryPage};
use crate::recall_request::{prime_request, recall_request};
use crate::recall_types::PrimeOutput;
use crate::restore::restore_inputs;
use crate::slot::EngineSlot;
use crate::subscription::{subscribe_request, NativeSubscription};
use crate::token_vectors::{extract_items, extract_pair, to_arrays, TokenArrays};
use crate::types::{extract_edge_type, extract_id, Edge, HealthStatus, Memory, RecallOutput};

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
        input.edges = extract_edges(object, &format!("{prefix}edges"))?;
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

/// `array` as a vector, not empty; `field` names it in errors.
pub fn vector_of(array: &PyReadonlyArray1<'_, f32>, field: &str) -> PyResult<Vec<f32>> {
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

/// The `RememberInput`s of `remember_many`'s `items` (dicts) and `embeddings` (one row each).
fn remember_inputs(
    items: &Bound<'_, PyList>,
    embeddings: PyReadonlyArray2<'_, f32>,
) -> PyResult<Vec<RememberInput>> {
    let matrix = embeddings.as_array();
    if matrix.nrows() != items.len() {
        return Err(invalid(
            "embeddings",
            format!("{} rows for {} items", matrix.nrows(), items.len()),
        ));
    }
    let mut inputs = Vec::with_capacity(items.len());
    for (i, (item, row)) in items.iter().zip(matrix.rows()).enumerate() {
        let dict = item
            .cast::<PyDict>()
            .map_err(|_| invalid_type(&format!("items[{i}]"), "expected a dict"))?;
        inputs.push(remember_input(
            dict,
            row.iter().copied().collect(),
            &format!("items[{i}]."),
        )?);
    }
    Ok(inputs)
}

/// The `RememberInput` of one item (a dict of the stored fields of the Python
/// `RememberRequest`: `content`, `importance`, `context`, `entity_id`, `edges`,
/// `created_at`, `session_id`, `kind`, `token_vectors`, `key`) with its `embedding`; errors
/// name the fields after `prefix`.
fn remember_input(
    dict: &Bound<'_, PyDict>,
    embedding: Vec<f32>,
    prefix: &str,
) -> PyResult<RememberInput> {
    let field = |name: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(dict.get_item(name)?.filter(|value| !value.is_none()))
    };
    let content: String = field("content")?
        .ok_or_else(|| invalid(&format!("{prefix}content"), "is required"))?
        .extract()
        .map_err(|_| invalid_type(&format!("{prefix}content"), "must be a str"))?;
    let importance = match field("importance")? {
        Some(value) => value
            .extract::<f32>()
            .map_err(|_| invalid_type(&format!("{prefix}importance"), "must be a number"))?,
        None => hebbs_core::engine::DEFAULT_IMPORTANCE,
    };
    let entity_id = field("entity_id")?
        .map(|value| value.extract::<String>())
        .transpose()
        .map_err(|_| invalid_type(&format!("{prefix}entity_id"), "must be a str"))?;
    let created_at = field("created_at")?
        .map(|value| value.extract::<u64>())
        .transpose()
        .map_err(|_| invalid_type(&format!("{prefix}created_at"), "must be a non-negative int"))?;
    let session_id = field("session_id")?
        .map(|value| value.extract::<String>())
        .transpose()
        .map_err(|_| invalid_type(&format!("{prefix}session_id"), "must be a str"))?;
    let mut input = new_input(content, embedding, importance, entity_id, created_at);
    input.session_id = session_id;
    let mut input = with_context_and_edges(
        input,
        field("context")?.as_ref(),
        field("edges")?.as_ref(),
        prefix,
    )?;
    if let Some(kind) = field("kind")? {
        input.kind = extract_kind(&kind, &format!("{prefix}kind"))?;
    }
    input.token_vectors = field("token_vectors")?
        .map(|pair| extract_pair(&pair, &format!("{prefix}token_vectors")))
        .transpose()?;
    input.key = field("key")?
        .map(|value| value.extract::<String>())
        .transpose()
        .map_err(|_| invalid_type(&format!("{prefix}key"), "must be a str"))?;
    for name in dict.keys() {
        let name: String = name
            .extract()
            .map_err(|_| invalid_type(prefix, "field names must be strings"))?;
        if !REMEMBER_FIELDS.contains(&name.as_str()) {
            return Err(invalid_type(
                &format!("{prefix}{name}"),
                format!("unknown field {name:?}"),
            ));
        }
    }
    Ok(input)
}

/// The fields [`remember_input`] reads: a key it does not read is refused, so a field the
/// Python model gains is never dropped silently.
const REMEMBER_FIELDS: [&str; 10] = [
    "content",
    "importance",
    "context",
    "entity_id",
    "edges",
    "created_at",
    "session_id",
    "kind",
    "token_vectors",
    "key",
];

/// `parse` of an optional argument; an empty list when it is missing or None.
fn or_empty<'py, T>(
    object: Option<&Bound<'py, PyAny>>,
    parse: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<Vec<T>>,
) -> PyResult<Vec<T>> {
    match object.filter(|object| !object.is_none()) {
        Some(object) => parse(object),
        None => Ok(Vec::new()),
    }
}

/// `write_atomic`'s `item_edges`: `(source, target, edge_type, confidence)` tuples.
fn extract_item_edges(object: &Bound<'_, PyAny>) -> PyResult<Vec<ItemEdge>> {
    let shape = "expected (source, target, edge_type, confidence)";
    object
        .try_iter()
        .map_err(|_| invalid_type("item_edges", "expected an iterable of tuples"))?
        .enumerate()
        .map(|(k, item)| {
            let field = format!("item_edges[{k}]");
            let (source, target, edge_type, confidence) = item?
                .extract::<(usize, usize, Bound<'_, PyAny>, f32)>()
                .map_err(|_| invalid_type(&field, shape))?;
            Ok(ItemEdge {
                source,
                target,
                edge_type: extract_edge_type(&edge_type, &format!("{field}.edge_type"))?,
                confidence,
            })
        })
        .collect()
}

/// `write_atomic`'s `state`: `(name, bytes or None)` pairs.
fn extract_state(object: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Option<Vec<u8>>)>> {
    object
        .try_iter()
        .map_err(|_| invalid_type("state", "expected an iterable of (name, value) pairs"))?
        .enumerate()
        .map(|(k, item)| {
            let (name, value) = item?
                .extract::<(String, Bound<'_, PyAny>)>()
                .map_err(|_| invalid_type(&format!("state[{k}]"), "expected (name, value)"))?;
            if value.is_none() {
                return Ok((name, None));
            }
            let bytes = value.cast::<PyBytes>().map_err(|_| {
                invalid_type(&format!("state[{k}].value"), "expected bytes or None")
            })?;
            Ok((name, Some(bytes.as_bytes().to_vec())))
        })
        .collect()
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
    #[pyo3(signature = (path, dimension = None, m = None, ef_construction = None, ef_search = None, sync_writes = false, auto_forget_floor = None, auto_forget_interval = None, auto_forget_limit = None, vector_format = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        dimension: Option<usize>,
        m: Option<usize>,
        ef_construction: Option<usize>,
        ef_search: Option<usize>,
        sync_writes: bool,
        auto_forget_floor: Option<f32>,
        auto_forget_interval: Option<f64>,
        auto_forget_limit: Option<usize>,
        vector_format: Option<String>,
    ) -> PyResult<Self> {
        let auto_forget =
            auto_forget_policy(auto_forget_floor, auto_forget_interval, auto_forget_limit)?;
        let vector_format = vector_format
            .map(|name| VectorFormat::parse(&name, "vector_format"))
            .transpose()
            .map_err(to_py_err)?;
        let defaults = HnswParams::default();
        let config = EngineConfig {
            hnsw: HnswParams {
                m: m.unwrap_or(defaults.m),
                ef_construction: ef_construction.unwrap_or(defaults.ef_construction),
                ef_search: ef_search.unwrap_or(defaults.ef_search),
            },
            dimension,
            sync_writes,
            auto_forget,
            vector_format,
            ..EngineConfig::default()
        };
        let engine = engine_call(py, move || Engine::open(path, config))?;
        Ok(Self {
            slot: EngineSlot::new(engine),
        })
    }

    /// Stores one memory: `item` holds its stored fields (as a `remember_many` item does),
    /// `embedding` is a float32 vector.
    fn remember(
        &self,
        py: Python<'_>,
        item: &Bound<'_, PyDict>,
        embedding: PyReadonlyArray1<'_, f32>,
    ) -> PyResult<Memory> {
        let input = remember_input(item, vector_of(&embedding, "embedding")?, "")?;
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
        let inputs = remember_inputs(items, embeddings)?;
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

    /// The memory each of `keys` names, in order (`None` for a key no memory holds).
    #[pyo3(signature = (keys, include_embedding = false))]
    fn get_by_keys(
        &self,
        py: Python<'_>,
        keys: Vec<String>,
        include_embedding: bool,
    ) -> PyResult<Vec<Option<Memory>>> {
        let engine = self.slot.get().map_err(to_py_err)?;
        let found = engine_call(py, move || engine.get_by_keys(&keys, include_embedding))?;
        found
            .into_iter()
            .map(|memory| {
                memory
                    .map(|memory| Memory::from_core(py, memory))
                    .transpose()
            })
            .collect()
    }

    /// Runs a recall: `request` holds the fields of the Python `RecallRequest` the caller set
    /// (`cue` its text, `cue_embedding` its vector; see `recall_request`), the others keep the
    /// core's defaults. With `record_access` false it writes nothing (no access recorded, no
    /// chat context touched).
    #[pyo3(signature = (request, record_access = true))]
    fn recall(
        &self,
        py: Python<'_>,
        request: &Bound<'_, PyDict>,
        record_access: bool,
    ) -> PyResult<RecallOutput> {
        let request = recall_request(request)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let output = engine_call(py, move || {
            if record_access {
                engine.recall(&request)
            } else {
                engine.recall_read_only(&request)
            }
        })?;
        RecallOutput::from_core(py, output)
    }

    /// Primes the context for `entity_id` (`request`: the fields of the Python `PrimeRequest`
    /// the caller set, `cue_embedding` the cue's vector): its recent memories blended with its
    /// memories nearest the cue (when given).
    fn prime(&self, py: Python<'_>, request: &Bound<'_, PyDict>) -> PyResult<PrimeOutput> {
        let request = prime_request(request)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let output = engine_call(py, move || engine.prime(&request))?;
        PrimeOutput::from_core(py, output)
    }

    /// The memories conversation `session_id` touched, in the order of their first touch.
    #[pyo3(signature = (session_id, limit = hebbs_core::engine::DEFAULT_LIST_LIMIT))]
    fn chat_context(
        &self,
        py: Python<'_>,
        session_id: String,
        limit: usize,
    ) -> PyResult<Vec<Memory>> {
        let engine = self.slot.get().map_err(to_py_err)?;
        let memories = engine_call(py, move || engine.chat_context(&session_id, limit))?;
        memories
            .into_iter()
            .map(|memory| Memory::from_core(py, memory))
            .collect()
    }

    /// Memories with no edge in either direction, newest first.
    #[pyo3(signature = (limit = hebbs_core::engine::DEFAULT_LIST_LIMIT))]
    fn list_orphans(&self, py: Python<'_>, limit: usize) -> PyResult<Vec<Memory>> {
        let engine = self.slot.get().map_err(to_py_err)?;
        let memories = engine_call(py, move || engine.list_orphans(limit))?;
        memories
            .into_iter()
            .map(|memory| Memory::from_core(py, memory))
            .collect()
    }

    /// One page of the store's memories, oldest first (`request`: the fields of the Python
    /// `ListMemoriesRequest` the caller set): all of them by id, or `entity_id`'s timeline by
    /// creation time; `cursor` is the previous page's `next_cursor`. A listing does not count
    /// as an access.
    fn list_memories(&self, py: Python<'_>, request: &Bound<'_, PyDict>) -> PyResult<MemoryPage> {
        let request = list_request(request)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let page = engine_call(py, move || engine.list_memories(&request))?;
        MemoryPage::from_core(py, page)
    }

    /// How many memories `request` selects (the fields of the Python `CountMemoriesRequest` the
    /// caller set): what every page of `list_memories` with the same selection holds.
    fn count_memories(&self, py: Python<'_>, request: &Bound<'_, PyDict>) -> PyResult<u64> {
        let request = count_request(request)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.count_memories(&request))
    }

    /// Opens a standing query on `fields["embedding"]` (the Python `SubscribeRequest`'s fields
    /// the caller set, the cue resolved to its vector): later memories that match are pushed
    /// to the returned subscription.
    fn subscribe(
        &self,
        py: Python<'_>,
        fields: &Bound<'_, PyDict>,
    ) -> PyResult<NativeSubscription> {
        let request = subscribe_request(fields)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let subscription = engine_call(py, move || engine.subscribe(request))?;
        Ok(NativeSubscription::new(subscription))
    }

    /// Serving state, version, memory count, uptime.
    fn health(&self, py: Python<'_>) -> PyResult<HealthStatus> {
        let engine = self.slot.get().map_err(to_py_err)?;
        Ok(engine_call(py, move || Ok(engine.health()))?.into())
    }

    /// Finishes the vector index's background work now (see `Engine::optimize`).
    fn optimize(&self, py: Python<'_>) -> PyResult<()> {
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.optimize())
    }

    /// Checkpoints the vector index now.
    fn checkpoint(&self, py: Python<'_>) -> PyResult<()> {
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.checkpoint())
    }

    /// How the vector index holds the vectors in memory (`"f32"` or `"int8"`), once the store
    /// has a dimension.
    fn vector_format(&self) -> PyResult<Option<&'static str>> {
        let engine = self.slot.get().map_err(to_py_err)?;
        Ok(engine.vector_format().map(VectorFormat::name))
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

    /// Stores `(id, codes, scales)` token vectors of existing memories, all or nothing.
    fn put_token_vectors(&self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = extract_items(items)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.put_token_vectors(&items))
    }

    /// The `(session_id, at)` turn each of `ids` takes in its conversation, None where it is in
    /// none (`at` orders the turns: its `created_at`, or a revised memory's).
    fn conversation_turns(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Option<(String, u64)>>> {
        let ids = extract_ids(ids, "ids")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let turns = engine_call(py, move || engine.conversation_turns(&ids))?;
        Ok(turns
            .into_iter()
            .map(|turn| turn.map(|turn| (turn.session_id, turn.at)))
            .collect())
    }

    /// The stored `(codes, scales)` of each id, None where none are stored.
    fn get_token_vectors<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Option<TokenArrays<'py>>>> {
        let ids = extract_ids(ids, "ids")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let found = engine_call(py, move || engine.get_token_vectors(&ids))?;
        Ok(found
            .into_iter()
            .map(|vectors| vectors.map(|vectors| to_arrays(py, vectors)))
            .collect())
    }

    /// Stores memories as an export recorded them, with their own ids (see
    /// `Engine::restore_many`): `items` are wire-shaped dicts (a memory's `to_dict`, without
    /// `decay_score` and `embedding`), `embeddings` their float32 vectors `[len(items), d]`.
    fn restore_many(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyList>,
        embeddings: PyReadonlyArray2<'_, f32>,
    ) -> PyResult<()> {
        let inputs = restore_inputs(items, &embeddings)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.restore_many(inputs))
    }

    /// Writes tombstones as an export recorded them (none may be a stored memory's id).
    fn restore_tombstones(
        &self,
        py: Python<'_>,
        tombstones: Vec<PyRef<'_, Tombstone>>,
    ) -> PyResult<()> {
        let items: Vec<_> = tombstones
            .iter()
            .map(|tombstone| tombstone.inner.clone())
            .collect();
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.restore_tombstones(&items))
    }

    /// The edges each of `ids` holds (pointing at other memories), in one call.
    fn edges_out(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<Edge>>> {
        let ids = extract_ids(ids, "ids")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let found = engine_call(py, move || {
            ids.iter()
                .map(|id| engine.edges_out(id))
                .collect::<hebbs_core::Result<Vec<_>>>()
        })?;
        Ok(found
            .into_iter()
            .map(|edges| edges.into_iter().map(|inner| Edge { inner }).collect())
            .collect())
    }

    /// Adds edges from memory `id` to existing memories, both directions, all or nothing.
    fn add_edges(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        edges: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let id = extract_id(id, "id")?;
        let edges = extract_edges(edges, "edges")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.add_edges(&id, &edges))
    }

    /// `count` fresh memory ids (time-ordered UUIDv7 bytes), for `write_atomic`'s `ids`.
    #[staticmethod]
    fn new_ids(py: Python<'_>, count: usize) -> Vec<Bound<'_, PyBytes>> {
        (0..count)
            .map(|_| PyBytes::new(py, hebbs_core::MemoryId::new().as_bytes()))
            .collect()
    }

    /// Stores `items` and `embeddings` (as `remember_many`; under `ids` when given, fresh ids
    /// from `new_ids`), the `item_edges` between them (`(source, target, edge_type,
    /// confidence)`, by item position), forgets the ids of `forget` (with the cascade) and sets
    /// the `state` entries (`(name, bytes or None)`), in one atomic write: all of it, or
    /// nothing and an error naming the field. Returns the new memories and what the forget did.
    #[pyo3(signature = (items, embeddings, ids = None, item_edges = None, forget = None, state = None))]
    #[allow(clippy::too_many_arguments)]
    fn write_atomic(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyList>,
        embeddings: PyReadonlyArray2<'_, f32>,
        ids: Option<&Bound<'_, PyAny>>,
        item_edges: Option<&Bound<'_, PyAny>>,
        forget: Option<&Bound<'_, PyAny>>,
        state: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Vec<Memory>, ForgetResult)> {
        let write = AtomicWrite {
            items: remember_inputs(items, embeddings)?,
            ids: or_empty(ids, |object| extract_ids(object, "ids"))?,
            item_edges: or_empty(item_edges, extract_item_edges)?,
            forget: or_empty(forget, |object| extract_ids(object, "forget"))?,
            state: or_empty(state, extract_state)?,
        };
        let engine = self.slot.get().map_err(to_py_err)?;
        let output = engine_call(py, move || engine.write_atomic(write))?;
        let memories = output
            .memories
            .into_iter()
            .map(|memory| Memory::from_core(py, memory))
            .collect::<PyResult<Vec<_>>>()?;
        Ok((memories, output.forgotten.into()))
    }

    /// Stores a revision of memory `fields["id"]` (the Python `ReviseRequest`'s fields the
    /// caller set, `embedding` the new content's vector and `token_vectors` its token vectors
    /// when the Python layer embedded it); fields left out are inherited.
    fn revise(&self, py: Python<'_>, fields: &Bound<'_, PyDict>) -> PyResult<Memory> {
        let (id, input) = revision_input(fields)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let memory = engine_call(py, move || engine.revise(&id, input))?;
        Memory::from_core(py, memory)
    }

    /// The revision chain through memory `id`, oldest first.
    fn lineage(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Vec<Memory>> {
        let id = extract_id(id, "id")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let memories = engine_call(py, move || engine.lineage(&id))?;
        memories
            .into_iter()
            .map(|memory| Memory::from_core(py, memory))
            .collect()
    }

    /// The edges of memory `id`: the ones it holds (`direction="out"`) or the ones pointing at
    /// it (`"in"`, each edge's `target` being the memory that holds it).
    #[pyo3(signature = (id, direction = "out"))]
    fn edges(&self, py: Python<'_>, id: &Bound<'_, PyAny>, direction: &str) -> PyResult<Vec<Edge>> {
        let id = extract_id(id, "id")?;
        let outgoing = match direction {
            "out" => true,
            "in" => false,
            other => {
                return Err(invalid(
                    "direction",
                    format!("expected \"out\" or \"in\", got {other:?}"),
                ))
            }
        };
        let engine = self.slot.get().map_err(to_py_err)?;
        let edges = engine_call(py, move || {
            if outgoing {
                engine.edges_out(&id)
            } else {
                engine.edges_in(&id)
            }
        })?;
        Ok(edges.into_iter().map(|inner| Edge { inner }).collect())
    }

    /// The `k` memories nearest to `embedding` as `(id, cosine)`, nearest first, only
    /// `entity_id`'s when given; records no access (unlike recall).
    #[pyo3(signature = (embedding, k, entity_id = None))]
    fn nearest<'py>(
        &self,
        py: Python<'py>,
        embedding: PyReadonlyArray1<'_, f32>,
        k: usize,
        entity_id: Option<String>,
    ) -> PyResult<Vec<(Bound<'py, PyBytes>, f32)>> {
        let query = vector_of(&embedding, "embedding")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let hits = engine_call(py, move || engine.nearest(&query, k, entity_id.as_deref()))?;
        Ok(hits
            .into_iter()
            .map(|(id, similarity)| (PyBytes::new(py, id.as_bytes()), similarity))
            .collect())
    }

    /// Records one access of each of `ids` (as a recall returning them would).
    fn reinforce(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<()> {
        let ids = extract_ids(ids, "ids")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.reinforce(&ids))
    }

    /// The value stored under state `name`, or None.
    fn state_get<'py>(
        &self,
        py: Python<'py>,
        name: String,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let engine = self.slot.get().map_err(to_py_err)?;
        let value = engine_call(py, move || engine.state_get(&name))?;
        Ok(value.map(|bytes| PyBytes::new(py, &bytes)))
    }

    /// Stores `value` under state `name`; None deletes it.
    #[pyo3(signature = (name, value))]
    fn state_put(&self, py: Python<'_>, name: String, value: Option<&[u8]>) -> PyResult<()> {
        let value = value.map(<[u8]>::to_vec);
        let engine = self.slot.get().map_err(to_py_err)?;
        engine_call(py, move || engine.state_put(&name, value.as_deref()))
    }

    /// The `(name, value)` state entries whose names start with `prefix`, in name order.
    fn state_scan<'py>(
        &self,
        py: Python<'py>,
        prefix: String,
    ) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        let engine = self.slot.get().map_err(to_py_err)?;
        let entries = engine_call(py, move || engine.state_scan(&prefix))?;
        Ok(entries
            .into_iter()
            .map(|(name, bytes)| (name, PyBytes::new(py, &bytes)))
            .collect())
    }

    /// Forgets what the AND-combined selectors of `request` pick (the fields of the Python
    /// `ForgetRequest` the caller set), at most `limit`, with the cascade.
    fn forget(&self, py: Python<'_>, request: &Bound<'_, PyDict>) -> PyResult<ForgetResult> {
        let request = forget_request(request)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        Ok(engine_call(py, move || engine.forget(&request))?.into())
    }

    /// Forgets up to `limit` memories whose decay score is below `floor`.
    #[pyo3(signature = (floor, limit = DEFAULT_FORGET_LIMIT))]
    fn forget_decayed(&self, py: Python<'_>, floor: f32, limit: usize) -> PyResult<ForgetResult> {
        let engine = self.slot.get().map_err(to_py_err)?;
        Ok(engine_call(py, move || engine.forget_decayed(floor, limit))?.into())
    }

    /// The tombstone of forgotten memory `id`, or None.
    fn tombstone(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<Tombstone>> {
        let id = extract_id(id, "id")?;
        let engine = self.slot.get().map_err(to_py_err)?;
        Ok(engine_call(py, move || engine.tombstone(&id))?.map(Into::into))
    }

    /// Up to `limit` tombstones in id order, after id `after` when given.
    #[pyo3(signature = (after = None, limit = DEFAULT_TOMBSTONE_PAGE))]
    fn tombstones(
        &self,
        py: Python<'_>,
        after: Option<&Bound<'_, PyAny>>,
        limit: usize,
    ) -> PyResult<Vec<Tombstone>> {
        let after = extract_after(after)?;
        let engine = self.slot.get().map_err(to_py_err)?;
        let found = engine_call(py, move || engine.tombstones(after.as_ref(), limit))?;
        Ok(found.into_iter().map(Into::into).collect())
    }
}

/// The automatic decay pass from `open`'s arguments: on when a floor is given.
fn auto_forget_policy(
    floor: Option<f32>,
    interval_seconds: Option<f64>,
    limit: Option<usize>,
) -> PyResult<Option<AutoForget>> {
    let Some(floor) = floor else {
        if interval_seconds.is_some() || limit.is_some() {
            return Err(invalid(
                "auto_forget_floor",
                "is required when auto_forget_interval or auto_forget_limit is given",
            ));
        }
        return Ok(None);
    };
    let mut policy = AutoForget::with_floor(floor);
    if let Some(seconds) = interval_seconds {
        policy.interval = Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|interval| !interval.is_zero())
            .ok_or_else(|| {
                invalid(
                    "auto_forget_interval",
                    "must be a positive number of seconds",
                )
            })?;
    }
    if let Some(limit) = limit {
        policy.limit = limit;
    }
    Ok(Some(policy))
}
