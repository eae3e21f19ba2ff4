//! One Python exception per core error variant, all under `HebbsError`, the exhaustive mapping
//! from [`hebbs_core::HebbsError`], and `InternalError` for a panic in the engine (a bug).
//!
//! Three classes also derive from a builtin, so `except` works as Python users expect:
//! `HebbsIOError` from `OSError` (with `errno` and `filename`), and the two kinds of
//! `InvalidInputError` (which carry `field` and `reason`): `InvalidValueError` from `ValueError`
//! and `InvalidTypeError` (a value of the wrong type) from `TypeError`. `create_exception!` takes
//! one base, so these are built by calling `type(name, bases, namespace)` once per interpreter.
//! `ConflictError` (a well-formed request the store's state refuses) carries `field` and
//! `reason` too.

use std::any::Any;
use std::path::Path;

use hebbs_core::HebbsError as CoreError;
use pyo3::exceptions::{PyException, PyOSError, PyTypeError, PyValueError};
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
    ConflictError,
    HebbsError,
    "The request contradicts the store's current state (e.g. revising a superseded memory); \
`field` names the argument and `reason` says what it conflicts with. Nothing was written."
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
create_exception!(
    hebbs,
    CorruptionError,
    HebbsError,
    "Stored data could not be decoded."
);
create_exception!(
    hebbs,
    VectorIndexError,
    HebbsError,
    "The vector index failed."
);
create_exception!(
    hebbs,
    TextIndexError,
    HebbsError,
    "The full-text index failed."
);
create_exception!(hebbs, ClosedError, HebbsError, "The engine was closed.");
create_exception!(
    hebbs,
    InternalError,
    HebbsError,
    "The engine panicked: a bug in hebbs, please report it. The message is the panic's."
);

/// The docstring of `HebbsIOError`.
const HEBBS_IO_ERROR_DOC: &str = "A file operation failed; also an `OSError`, with `errno` and \
`filename` set when the operating system reported the failure.";
/// The docstring of `InvalidValueError`.
const INVALID_VALUE_ERROR_DOC: &str = "An argument had a value the engine cannot take (also a \
`ValueError`); `field` names it. Nothing was written.";
/// The docstring of `InvalidTypeError`.
const INVALID_TYPE_ERROR_DOC: &str = "An argument had the wrong type (also a `TypeError`); \
`field` names it. Nothing was written.";

/// `class name(first, second): doc`, in module `hebbs`.
fn two_base_class<'py>(
    py: Python<'py>,
    name: &str,
    bases: [Bound<'py, PyType>; 2],
    doc: &str,
) -> PyResult<Py<PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "hebbs")?;
    namespace.set_item("__doc__", doc)?;
    let class = py
        .get_type::<PyType>()
        .call1((name, PyTuple::new(py, bases)?, namespace))?;
    Ok(class.cast_into::<PyType>()?.unbind())
}

static HEBBS_IO_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_VALUE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_TYPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `class HebbsIOError(HebbsError, OSError)`.
fn hebbs_io_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    HEBBS_IO_ERROR
        .get_or_try_init(py, || {
            let bases = [py.get_type::<HebbsError>(), py.get_type::<PyOSError>()];
            two_base_class(py, "HebbsIOError", bases, HEBBS_IO_ERROR_DOC)
        })
        .map(|class| class.bind(py))
}

/// `class InvalidValueError(InvalidInputError, ValueError)`.
fn invalid_value_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    INVALID_VALUE_ERROR
        .get_or_try_init(py, || {
            let bases = [
                py.get_type::<InvalidInputError>(),
                py.get_type::<PyValueError>(),
            ];
            two_base_class(py, "InvalidValueError", bases, INVALID_VALUE_ERROR_DOC)
        })
        .map(|class| class.bind(py))
}

/// `class InvalidTypeError(InvalidInputError, TypeError)`.
fn invalid_type_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    INVALID_TYPE_ERROR
        .get_or_try_init(py, || {
            let bases = [
                py.get_type::<InvalidInputError>(),
                py.get_type::<PyTypeError>(),
            ];
            two_base_class(py, "InvalidTypeError", bases, INVALID_TYPE_ERROR_DOC)
        })
        .map(|class| class.bind(py))
}

/// A `HebbsIOError` for `path`. With an OS error code it is built like `OSError(errno,
/// strerror, filename)` (message `[Errno N] strerror: 'path'`); otherwise from `message`.
fn io_error(py: Python<'_>, message: String, path: &Path, source: &std::io::Error) -> PyErr {
    let raised = hebbs_io_error(py).and_then(|class| match source.raw_os_error() {
        Some(code) => {
            let strerror = py.import("os")?.getattr("strerror")?.call1((code,))?;
            class.call1((code, strerror, path.display().to_string()))
        }
        None => class.call1((message,)),
    });
    match raised {
        Ok(value) => PyErr::from_value(value),
        Err(error) => error,
    }
}

/// The `InternalError` for a caught panic, carrying the panic's message.
pub fn panic_to_py_err(payload: &(dyn Any + Send)) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    InternalError::new_err(format!("hebbs engine panicked: {message}"))
}

/// An exception of `class` (an input error class) with `field` and `reason` set.
fn input_error(
    py: Python<'_>,
    class: PyResult<&Bound<'_, PyType>>,
    field: String,
    reason: String,
) -> PyErr {
    let message = format!("invalid {field}: {reason}");
    field_error(py, class, message, field, reason)
}

/// An exception of `class` with `message`, and `field` and `reason` set.
fn field_error(
    py: Python<'_>,
    class: PyResult<&Bound<'_, PyType>>,
    message: String,
    field: String,
    reason: String,
) -> PyErr {
    let class = match class {
        Ok(class) => class.clone(),
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
/// `InvalidValueError` and a conflict a `ConflictError`, both carrying `field` and `reason`.
pub fn to_py_err(error: CoreError) -> PyErr {
    let message = error.to_string();
    match error {
        CoreError::InvalidInput { field, reason } => {
            Python::attach(|py| input_error(py, invalid_value_error(py), field, reason))
        }
        CoreError::Conflict { field, reason } => Python::attach(|py| {
            let class = py.get_type::<ConflictError>();
            field_error(py, Ok(&class), message, field, reason)
        }),
        CoreError::NotFound { .. } => NotFoundError::new_err(message),
        CoreError::Storage { .. } => StorageError::new_err(message),
        CoreError::Io { path, source } => {
            Python::attach(|py| io_error(py, message, &path, &source))
        }
        CoreError::Corruption { .. } => CorruptionError::new_err(message),
        CoreError::Index { .. } => VectorIndexError::new_err(message),
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
    module.add("InvalidValueError", invalid_value_error(py)?)?;
    module.add("InvalidTypeError", invalid_type_error(py)?)?;
    module.add("ConflictError", py.get_type::<ConflictError>())?;
    module.add("NotFoundError", py.get_type::<NotFoundError>())?;
    module.add("StorageError", py.get_type::<StorageError>())?;
    module.add("HebbsIOError", hebbs_io_error(py)?)?;
    module.add("CorruptionError", py.get_type::<CorruptionError>())?;
    module.add("VectorIndexError", py.get_type::<VectorIndexError>())?;
    module.add("TextIndexError", py.get_type::<TextIndexError>())?;
    module.add("ClosedError", py.get_type::<ClosedError>())?;
    module.add("InternalError", py.get_type::<InternalError>())?;
    Ok(())
}
