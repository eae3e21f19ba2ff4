//! One Python exception per core error variant, all under `HebbsError`, the exhaustive mapping
//! from [`hebbs_core::HebbsError`], and `InternalError` for a panic in the engine (a bug).
//!
//! `HebbsIOError` also derives from the builtin `OSError` (so `except OSError` catches it and it
//! carries `errno` and `filename`); `create_exception!` takes one base, so that class is built by
//! calling `type(name, (HebbsError, OSError), namespace)` once per interpreter.

use std::any::Any;
use std::path::Path;

use hebbs_core::HebbsError as CoreError;
use pyo3::exceptions::{PyException, PyOSError};
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

/// `HebbsIOError`, built once per interpreter.
static HEBBS_IO_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The `HebbsIOError` class: `class HebbsIOError(HebbsError, OSError)` in module `hebbs`.
fn hebbs_io_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    HEBBS_IO_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(
                py,
                [py.get_type::<HebbsError>(), py.get_type::<PyOSError>()],
            )?;
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "hebbs")?;
            namespace.set_item("__doc__", HEBBS_IO_ERROR_DOC)?;
            let class = py
                .get_type::<PyType>()
                .call1(("HebbsIOError", bases, namespace))?;
            Ok(class.cast_into::<PyType>()?.unbind())
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

/// Converts a core error into its Python exception. `InvalidInputError` carries `field`.
pub fn to_py_err(error: CoreError) -> PyErr {
    let message = error.to_string();
    match error {
        CoreError::InvalidInput { field, reason } => Python::attach(|py| {
            let err = InvalidInputError::new_err(message);
            let value = err.value(py);
            let _ = value.setattr("field", field);
            let _ = value.setattr("reason", reason);
            err
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

/// An `InvalidInputError` raised by the binding itself while converting an argument.
pub fn invalid(field: &str, reason: impl Into<String>) -> PyErr {
    to_py_err(CoreError::invalid(field, reason))
}

/// Adds the exception types to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("HebbsError", py.get_type::<HebbsError>())?;
    module.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
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
