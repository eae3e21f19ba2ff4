//! The filter language's check for the Python request models: a bad filter is refused when
//! the request is built, naming the path inside it (the engine parses the filter again when
//! it runs the call).

use hebbs_core::Filter;
use pyo3::prelude::*;

use crate::errors::to_py_err;
use crate::json::dict_to_map;

/// The filter of a call's `filter` argument (None when not given or None).
pub fn extract_filter(filter: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Filter>> {
    filter
        .filter(|object| !object.is_none())
        .map(|object| {
            let value = serde_json::Value::Object(dict_to_map(object, "filter")?);
            Filter::parse(&value, "filter").map_err(to_py_err)
        })
        .transpose()
}

/// Checks `filter` (a dict in the filter language); raises `InvalidValueError` /
/// `InvalidTypeError` whose field is the path of the first fault (`filter.$and[1]...`).
#[pyfunction]
pub fn check_filter(filter: &Bound<'_, PyAny>) -> PyResult<()> {
    extract_filter(Some(filter)).map(|_| ())
}
