//! The Python-visible recall inputs and outputs beyond seed 003's core set: the per-strategy
//! `RecallStrategyConfig` and the `PrimeOutput` of `prime`.

use hebbs_core::recall::{self, CausalDirection, Strategy, StrategyConfig};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use crate::errors::{invalid, invalid_type, to_py_err};
use crate::types::{extract_edge_type, extract_id, EdgeType, RecallOutput, RecallResult};
use crate::wire::Reader;

/// One entry of `strategies`: a name or a `RecallStrategyConfig`.
pub fn strategy_config(item: &Bound<'_, PyAny>, i: usize) -> PyResult<StrategyConfig> {
    if let Ok(config) = item.extract::<RecallStrategyConfig>() {
        return Ok(config.inner);
    }
    let name: String = item.extract().map_err(|_| {
        invalid_type(
            &format!("strategies[{i}]"),
            "expected a strategy name or a RecallStrategyConfig",
        )
    })?;
    Ok(name.parse::<Strategy>().map_err(to_py_err)?.into())
}

/// Parses a list of `EdgeType`s or names; `field` names the argument.
pub fn extract_edge_types(
    objects: Option<Vec<Bound<'_, PyAny>>>,
    field: &str,
) -> PyResult<Option<Vec<hebbs_core::EdgeType>>> {
    objects
        .map(|objects| {
            objects
                .iter()
                .enumerate()
                .map(|(i, object)| extract_edge_type(object, &format!("{field}[{i}]")))
                .collect()
        })
        .transpose()
}

/// Parses a causal direction name; `field` names the argument.
pub fn extract_direction(name: Option<&str>, field: &str) -> PyResult<Option<CausalDirection>> {
    name.map(|name| {
        name.parse::<CausalDirection>().map_err(|_| {
            invalid(
                field,
                format!("unknown direction {name:?} (expected causes, effects or both)"),
            )
        })
    })
    .transpose()
}

/// One strategy of a recall with optional overrides of the call's parameters (seed 003).
#[pyclass(frozen, from_py_object, module = "hebbs")]
#[derive(Clone)]
pub struct RecallStrategyConfig {
    pub(crate) inner: StrategyConfig,
}

#[pymethods]
impl RecallStrategyConfig {
    /// `strategy` is `"similarity"`, `"temporal"`, `"causal"` or `"analogical"`; every other
    /// argument overrides the recall's value for this strategy only.
    #[new]
    #[pyo3(signature = (strategy, *, entity_id = None, top_k = None, ef_search = None, time_range = None, seed_memory_id = None, edge_types = None, max_depth = None, direction = None, analogical_alpha = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        strategy: &str,
        entity_id: Option<String>,
        top_k: Option<usize>,
        ef_search: Option<usize>,
        time_range: Option<(u64, u64)>,
        seed_memory_id: Option<&Bound<'_, PyAny>>,
        edge_types: Option<Vec<Bound<'_, PyAny>>>,
        max_depth: Option<usize>,
        direction: Option<&str>,
        analogical_alpha: Option<f32>,
    ) -> PyResult<Self> {
        let strategy = strategy.parse::<Strategy>().map_err(to_py_err)?;
        let seed_memory_id = seed_memory_id
            .filter(|object| !object.is_none())
            .map(|object| extract_id(object, "seed_memory_id"))
            .transpose()?;
        Ok(Self {
            inner: StrategyConfig {
                strategy,
                entity_id,
                top_k,
                ef_search,
                time_range,
                seed_memory_id,
                edge_types: extract_edge_types(edge_types, "edge_types")?,
                max_depth,
                direction: extract_direction(direction, "direction")?,
                analogical_alpha,
            },
        })
    }

    /// The strategy name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.inner.strategy.as_str()
    }

    /// Entity override.
    #[getter]
    fn entity_id(&self) -> Option<String> {
        self.inner.entity_id.clone()
    }

    /// Result-count override.
    #[getter]
    fn top_k(&self) -> Option<usize> {
        self.inner.top_k
    }

    /// HNSW candidate list override.
    #[getter]
    fn ef_search(&self) -> Option<usize> {
        self.inner.ef_search
    }

    /// Time range override, microseconds.
    #[getter]
    fn time_range(&self) -> Option<(u64, u64)> {
        self.inner.time_range
    }

    /// Causal seed / analogical reference (16 bytes).
    #[getter]
    fn seed_memory_id<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner
            .seed_memory_id
            .map(|id| PyBytes::new(py, id.as_bytes()))
    }

    /// Edge types the causal walk follows.
    #[getter]
    fn edge_types(&self) -> Option<Vec<EdgeType>> {
        self.inner
            .edge_types
            .as_ref()
            .map(|types| types.iter().map(|kind| (*kind).into()).collect())
    }

    /// Causal hop limit.
    #[getter]
    fn max_depth(&self) -> Option<usize> {
        self.inner.max_depth
    }

    /// Causal direction name.
    #[getter]
    fn direction(&self) -> Option<&'static str> {
        self.inner.direction.map(CausalDirection::as_str)
    }

    /// Analogical embedding weight.
    #[getter]
    fn analogical_alpha(&self) -> Option<f32> {
        self.inner.analogical_alpha
    }

    fn __repr__(&self) -> String {
        format!("RecallStrategyConfig({:?})", self.inner)
    }
}

/// The answer to `prime`: blended results and how many each part found.
#[pyclass(frozen, module = "hebbs", get_all)]
pub struct PrimeOutput {
    /// Results, best first (newest first without a cue).
    pub results: Vec<Py<RecallResult>>,
    /// Results the temporal part found.
    pub temporal_count: usize,
    /// Results the similarity part found.
    pub similarity_count: usize,
}

impl PrimeOutput {
    /// Converts a core prime output.
    pub fn from_core(py: Python<'_>, output: recall::PrimeOutput) -> PyResult<Self> {
        let converted = RecallOutput::from_core(
            py,
            recall::RecallOutput {
                results: output.results,
                strategy_errors: Vec::new(),
                below_threshold: 0,
            },
        )?;
        Ok(Self {
            results: converted.results,
            temporal_count: output.temporal_count,
            similarity_count: output.similarity_count,
        })
    }
}

#[pymethods]
impl PrimeOutput {
    fn __len__(&self) -> usize {
        self.results.len()
    }

    /// This output as a JSON-ready dict: results, temporal_count, similarity_count.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Self {
            results,
            temporal_count,
            similarity_count,
        } = self;
        let dict = PyDict::new(py);
        dict.set_item("results", RecallResult::list_to_wire(py, results)?)?;
        dict.set_item("temporal_count", temporal_count)?;
        dict.set_item("similarity_count", similarity_count)?;
        Ok(dict)
    }

    /// The output that `to_dict` wrote; `InvalidInputError` names a missing or bad field.
    #[classmethod]
    fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let wire = Reader::top(data)?;
        Ok(Self {
            results: RecallResult::list_from_wire(&wire, "results")?,
            temporal_count: wire.uint("temporal_count")?,
            similarity_count: wire.uint("similarity_count")?,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "PrimeOutput(results={}, temporal_count={}, similarity_count={})",
            self.results.len(),
            self.temporal_count,
            self.similarity_count
        )
    }
}
