//! `hebbs._native`: the PyO3 bindings of `hebbs-core`. This crate only converts types, releases
//! the GIL around every engine call (see [`detach::engine_call`]) and maps each core error variant
//! to its own Python exception. The Python package `hebbs` builds the public API on top.

mod detach;
mod engine;
mod errors;
mod fields;
mod filter;
mod json;
mod lifecycle;
mod listing;
mod logging;
mod recall_request;
mod recall_types;
mod restore;
mod slot;
mod subscription;
mod token_vectors;
mod types;
mod wire;

use hebbs_core::recall::{CausalDirection, PrimeRequest, RecallRequest, Strategy};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The allocator of every Rust allocation in the module.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The names of `strategies`, in order, as a tuple.
fn strategy_names<'py>(
    py: Python<'py>,
    strategies: impl IntoIterator<Item = Strategy>,
) -> PyResult<Bound<'py, PyTuple>> {
    let names: Vec<&str> = strategies.into_iter().map(Strategy::as_str).collect();
    PyTuple::new(py, names)
}

/// The serde form of a core request's defaults, as a dict: the Python models' defaults of the
/// plain options (`RECALL_DEFAULTS["top_k"]`), so each is spelled once, in the core.
fn defaults(py: Python<'_>, request: &impl serde::Serialize) -> PyResult<Py<PyAny>> {
    match serde_json::to_value(request) {
        Ok(serde_json::Value::Object(map)) => json::map_to_dict(py, &map),
        _ => Err(PyValueError::new_err(
            "a request's defaults are not a JSON object",
        )),
    }
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    logging::install();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add(
        "DEFAULT_EF_SEARCH",
        hebbs_core::index::vector::DEFAULT_EF_SEARCH,
    )?;
    module.add("MAX_EF_SEARCH", hebbs_core::index::vector::MAX_EF_SEARCH)?;
    module.add("DEFAULT_TOP_K", hebbs_core::recall::DEFAULT_TOP_K)?;
    module.add("MAX_TOP_K", hebbs_core::recall::MAX_TOP_K)?;
    module.add(
        "DEFAULT_CAUSAL_DEPTH",
        hebbs_core::recall::DEFAULT_CAUSAL_DEPTH,
    )?;
    module.add("MAX_CAUSAL_DEPTH", hebbs_core::recall::MAX_CAUSAL_DEPTH)?;
    module.add("DEFAULT_RRF_K", hebbs_core::recall::DEFAULT_RRF_K)?;
    module.add(
        "DEFAULT_RERANK_TOP_N",
        hebbs_core::recall::DEFAULT_RERANK_TOP_N,
    )?;
    module.add("MAX_RERANK_TOP_N", hebbs_core::recall::MAX_RERANK_TOP_N)?;
    let default_strategies: Vec<&str> = hebbs_core::recall::DEFAULT_STRATEGIES
        .iter()
        .map(|strategy| strategy.as_str())
        .collect();
    module.add(
        "DEFAULT_STRATEGIES",
        pyo3::types::PyTuple::new(module.py(), default_strategies)?,
    )?;
    module.add(
        "DEFAULT_RERANK",
        hebbs_core::recall::DEFAULT_RERANK.as_str(),
    )?;
    module.add(
        "DEFAULT_GRAPH_CONTEXT",
        hebbs_core::recall::DEFAULT_GRAPH_CONTEXT,
    )?;
    module.add("DEFAULT_LIST_LIMIT", hebbs_core::engine::DEFAULT_LIST_LIMIT)?;
    module.add(
        "DEFAULT_ANALOGICAL_ALPHA",
        hebbs_core::recall::DEFAULT_ANALOGICAL_ALPHA,
    )?;
    module.add(
        "DEFAULT_PRIME_MAX_MEMORIES",
        hebbs_core::recall::DEFAULT_PRIME_MAX_MEMORIES,
    )?;
    module.add("DEFAULT_IMPORTANCE", hebbs_core::engine::DEFAULT_IMPORTANCE)?;
    module.add("MAX_CONTENT_BYTES", hebbs_core::memory::MAX_CONTENT_BYTES)?;
    module.add("MAX_CONTEXT_BYTES", hebbs_core::memory::MAX_CONTEXT_BYTES)?;
    module.add(
        "MAX_ENTITY_ID_BYTES",
        hebbs_core::memory::MAX_ENTITY_ID_BYTES,
    )?;
    module.add("MAX_KEY_BYTES", hebbs_core::memory::MAX_KEY_BYTES)?;
    module.add(
        "MAX_STATE_NAME_BYTES",
        hebbs_core::engine::MAX_STATE_NAME_BYTES,
    )?;
    module.add(
        "MAX_STATE_VALUE_BYTES",
        hebbs_core::engine::MAX_STATE_VALUE_BYTES,
    )?;
    module.add("MAX_STATE_SCAN", hebbs_core::engine::MAX_STATE_SCAN)?;
    module.add(
        "MAX_EDGES_PER_MEMORY",
        hebbs_core::memory::MAX_EDGES_PER_MEMORY,
    )?;
    module.add(
        "MAX_VECTOR_DIMENSION",
        hebbs_core::memory::MAX_VECTOR_DIMENSION,
    )?;
    module.add(
        "DEFAULT_CONFIDENCE_THRESHOLD",
        hebbs_core::subscribe::DEFAULT_CONFIDENCE_THRESHOLD,
    )?;
    module.add(
        "DEFAULT_QUEUE_CAPACITY",
        hebbs_core::subscribe::DEFAULT_QUEUE_CAPACITY,
    )?;
    module.add(
        "MAX_QUEUE_CAPACITY",
        hebbs_core::subscribe::MAX_QUEUE_CAPACITY,
    )?;
    module.add(
        "DEFAULT_FORGET_LIMIT",
        hebbs_core::forget::DEFAULT_FORGET_LIMIT,
    )?;
    module.add(
        "DEFAULT_TOMBSTONE_PAGE",
        hebbs_core::engine::DEFAULT_TOMBSTONE_PAGE,
    )?;
    module.add("DEFAULT_LIST_PAGE", hebbs_core::engine::DEFAULT_LIST_PAGE)?;
    module.add("MAX_LIST_PAGE", hebbs_core::engine::MAX_LIST_PAGE)?;
    module.add("MAX_FILTER_DEPTH", hebbs_core::filter::MAX_FILTER_DEPTH)?;
    module.add(
        "MAX_FILTER_CONDITIONS",
        hebbs_core::filter::MAX_FILTER_CONDITIONS,
    )?;
    module.add(
        "EXACT_SCAN_MAX_MATCHES",
        hebbs_core::filter::EXACT_SCAN_MAX_MATCHES,
    )?;
    module.add_function(wrap_pyfunction!(filter::check_filter, module)?)?;
    let py = module.py();
    module.add("STRATEGIES", strategy_names(py, Strategy::ALL)?)?;
    let directions = CausalDirection::ALL.map(CausalDirection::as_str);
    module.add("DIRECTIONS", PyTuple::new(py, directions)?)?;
    module.add("DEFAULT_DIRECTION", CausalDirection::default().as_str())?;
    module.add("RECALL_DEFAULTS", defaults(py, &RecallRequest::default())?)?;
    module.add("PRIME_DEFAULTS", defaults(py, &PrimeRequest::default())?)?;
    module.add(
        "VECTOR_STRATEGIES",
        strategy_names(
            py,
            Strategy::ALL
                .into_iter()
                .filter(|strategy| strategy.reads_cue_vector()),
        )?,
    )?;
    errors::register(module)?;
    module.add_class::<engine::NativeEngine>()?;
    module.add_class::<types::Memory>()?;
    module.add_class::<types::MemoryKind>()?;
    module.add_class::<types::Edge>()?;
    module.add_class::<types::EdgeType>()?;
    module.add_class::<types::ScoringWeights>()?;
    module.add_class::<types::StrategyDetail>()?;
    module.add_class::<types::RecallResult>()?;
    module.add_class::<types::StrategyError>()?;
    module.add_class::<types::RecallOutput>()?;
    module.add_class::<types::HealthStatus>()?;
    module.add_class::<types::ExpansionEdge>()?;
    module.add_class::<recall_types::RecallStrategyConfig>()?;
    module.add_class::<recall_types::PrimeOutput>()?;
    module.add_class::<subscription::NativeSubscription>()?;
    module.add_class::<subscription::SubscribePush>()?;
    module.add_class::<lifecycle::ForgetResult>()?;
    module.add_class::<lifecycle::Tombstone>()?;
    module.add_class::<listing::MemoryPage>()?;
    Ok(())
}
