//! One Python exception per core error variant, all under `HebbsError`, and the exhaustive
//! mapping from [`hebbs_core::HebbsError`].
//!
//! An invalid input is an `InvalidValueError` (also a `ValueError`) or, when the binding finds
//! a value of the wrong type, an `InvalidTypeError` (also a `TypeError`); both derive from
//! `InvalidInputError` and carry `field` and `reason`. Their two bases are more than
//! `create_exception!` makes, so they are made with `type(name, bases, namespace)` once.

use hebbs_core::HebbsError as CoreError;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use pyo3::{create_exception, PyErr};

create_exception!(
    hebbs,
    HebbsError,
    PyException,
    "Base class of every hebbs error."
);
create_exception!(
    hebbs,
    InvalidInputError,
    HebbsError,
    "An argument was invalid; `field` names it. Nothing was written."
);
create_exception!(
    hebbs,
    NotFoundError,
    HebbsError,
    "The memory does not exist."
);
create_exception!(
    hebbs,
    StorageError,
    HebbsError,
    "RocksDB reported an error."
);
create_exception!(hebbs, HebbsIOError, HebbsError, "A file operation failed.");
create_exception!(
    hebbs,
    CorruptionError,
    HebbsError,
    "Stored data could not be decoded."
);
create_exception!(hebbs, IndexError, HebbsError, "The vector index failed.");
create_exception!(
    hebbs,
    TextIndexError,
    HebbsError,
    "The full-text index failed."
);
create_exception!(hebbs, ClosedError, HebbsError, "The engine was closed.");

static INVALID_VALUE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_TYPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `class name(InvalidInputError, builtin): doc`, in module `hebbs`.
fn input_error_class<'py>(
    py: Python<'py>,
    name: &str,
    builtin: Bound<'py, PyType>,
    doc: &str,
) -> PyResult<Py<PyType>> {
    let bases = PyTuple::new(py, [py.get_type::<InvalidInputError>(), builtin])?;
    let namespace = PyDict::new(py);
    namespace.set_item("__doc__", doc)?;
    namespace.set_item("__module__", "hebbs")?;
    let class = py.get_type::<PyType>().call1((name, bases, namespace))?;
    Ok(class.cast_into::<PyType>()?.unbind())
}

fn invalid_value_error(py: Python<'_>) -> PyResult<&Py<PyType>> {
    INVALID_VALUE_ERROR.get_or_try_init(py, || {
        input_error_class(
            py,
            "InvalidValueError",
            py.get_type::<PyValueError>(),
            "An argument had a value the engine cannot take; `field` names it. Nothing was \
             written.",
        )
    })
}

fn invalid_type_error(py: Python<'_>) -> PyResult<&Py<PyType>> {
    INVALID_TYPE_ERROR.get_or_try_init(py, || {
        input_error_class(
            py,
            "InvalidTypeError",
            py.get_type::<PyTypeError>(),
            "An argument had the wrong type; `field` names it. Nothing was written.",
        )
    })
}

/// An exception of `class` (an input error class) with `field` and `reason` set.
fn input_error(
    py: Python<'_>,
    class: PyResult<&Py<PyType>>,
    field: String,
    reason: String,
) -> PyErr {
    let message = format!("invalid {field}: {reason}");
    let class = match class {
        Ok(class) => class.bind(py).clone(),
        Err(error) => return error,
    };
    let err = PyErr::from_type(class, message);
    let value = err.value(py);
    if let Err(error) = value
        .setattr("field", field)
        .and_then(|()| value.setattr("reason", reason))
    {
        return error;
    }
    err
}

/// Converts a core error into its Python exception. An invalid input is an
/// `InvalidValueError` carrying `field` and `reason`.
pub fn to_py_err(error: CoreError) -> PyErr {
    let message = error.to_string();
    match error {
        CoreError::InvalidInput { field, reason } => {
            Python::attach(|py| input_error(py, invalid_value_error(py), field, reason))
        }
        CoreError::NotFound { .. } => NotFoundError::new_err(message),
        CoreError::Storage { .. } => StorageError::new_err(message),
        CoreError::Io { .. } => HebbsIOError::new_err(message),
        CoreError::Corruption { .. } => CorruptionError::new_err(message),
        CoreError::Index { .. } => IndexError::new_err(message),
        CoreError::TextIndex { .. } => TextIndexError::new_err(message),
        CoreError::Closed => ClosedError::new_err(message),
    }
}

/// An `InvalidValueError` raised by the binding itself while converting an argument.
pub fn invalid(field: &str, reason: impl Into<String>) -> PyErr {
    to_py_err(CoreError::invalid(field, reason))
}

/// An `InvalidTypeError`: the binding was given a value of the wrong type for `field`.
pub fn invalid_type(field: &str, reason: impl Into<String>) -> PyErr {
    Python::attach(|py| input_error(py, invalid_type_error(py), field.to_owned(), reason.into()))
}

/// Adds the exception types to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("HebbsError", py.get_type::<HebbsError>())?;
    module.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
    module.add("InvalidValueError", invalid_value_error(py)?.bind(py))?;
    module.add("InvalidTypeError", invalid_type_error(py)?.bind(py))?;
    module.add("NotFoundError", py.get_type::<NotFoundError>())?;
    module.add("StorageError", py.get_type::<StorageError>())?;
    module.add("HebbsIOError", py.get_type::<HebbsIOError>())?;
    module.add("CorruptionError", py.get_type::<CorruptionError>())?;
    module.add("IndexError", py.get_type::<IndexError>())?;
    module.add("TextIndexError", py.get_type::<TextIndexError>())?;
    module.add("ClosedError", py.get_type::<ClosedError>())?;
    Ok(())
}
