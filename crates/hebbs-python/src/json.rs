//! Conversion between Python objects and JSON values (memory `context`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde_json::{Map, Number, Value};

use crate::errors::{invalid, invalid_type};

/// Converts a Python dict into a JSON object; `field` names the argument in errors.
pub fn dict_to_map(object: &Bound<'_, PyAny>, field: &str) -> PyResult<Map<String, Value>> {
    match to_value(object, field)? {
        Value::Object(map) => Ok(map),
        _ => Err(invalid_type(field, "must be a dict")),
    }
}

/// Converts a Python value into JSON; `field` names the argument in errors.
pub fn to_value(object: &Bound<'_, PyAny>, field: &str) -> PyResult<Value> {
    if object.is_none() {
        Ok(Value::Null)
    } else if let Ok(flag) = object.cast::<PyBool>() {
        Ok(Value::Bool(flag.is_true()))
    } else if object.is_instance_of::<PyInt>() {
        if let Ok(int) = object.extract::<i64>() {
            Ok(Value::from(int))
        } else {
            Ok(Value::from(object.extract::<u64>().map_err(|_| {
                invalid(field, "integers must fit in 64 bits")
            })?))
        }
    } else if let Ok(float) = object.cast::<PyFloat>() {
        Number::from_f64(float.value())
            .map(Value::Number)
            .ok_or_else(|| invalid(field, "floats must be finite"))
    } else if let Ok(text) = object.cast::<PyString>() {
        Ok(Value::String(text.to_cow()?.into_owned()))
    } else if let Ok(dict) = object.cast::<PyDict>() {
        let mut map = Map::new();
        for (key, value) in dict.iter() {
            let key = key
                .cast::<PyString>()
                .map_err(|_| invalid_type(field, "dict keys must be strings"))?
                .to_cow()?
                .into_owned();
            let value = to_value(&value, field)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    } else if object.is_instance_of::<PyList>() || object.is_instance_of::<PyTuple>() {
        object
            .try_iter()?
            .map(|item| to_value(&item?, field))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array)
    } else {
        Err(invalid_type(
            field,
            format!("{} is not JSON-serialisable", object.get_type().name()?),
        ))
    }
}

/// Converts a JSON value into the matching Python object.
pub fn to_python(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    match value {
        Value::Null => Ok(py.None()),
        Value::Bool(flag) => flag.into_py_any(py),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                int.into_py_any(py)
            } else if let Some(int) = number.as_u64() {
                int.into_py_any(py)
            } else {
                number
                    .as_f64()
                    .ok_or_else(|| PyTypeError::new_err("unrepresentable number"))?
                    .into_py_any(py)
            }
        }
        Value::String(text) => text.into_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            Ok(list.into_any().unbind())
        }
        Value::Object(map) => map_to_dict(py, map),
    }
}

/// Converts a JSON object into a Python dict.
pub fn map_to_dict(py: Python<'_>, map: &Map<String, Value>) -> PyResult<Py<PyAny>> {
    let dict = PyDict::new(py);
    for (key, value) in map {
        dict.set_item(key, to_python(py, value)?)?;
    }
    Ok(dict.into_any().unbind())
}
