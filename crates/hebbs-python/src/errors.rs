//! One Python exception per core error variant, all under `HebbsError`, and the exhaustive
//! mapping from [`hebbs_core::HebbsError`].

use hebbs_core::HebbsError as CoreError;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
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
        CoreError::Io { .. } => HebbsIOError::new_err(message),
        CoreError::Corruption { .. } => CorruptionError::new_err(message),
        CoreError::Index { .. } => IndexError::new_err(message),
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
    module.add("HebbsIOError", py.get_type::<HebbsIOError>())?;
    module.add("CorruptionError", py.get_type::<CorruptionError>())?;
    module.add("IndexError", py.get_type::<IndexError>())?;
    module.add("TextIndexError", py.get_type::<TextIndexError>())?;
    module.add("ClosedError", py.get_type::<ClosedError>())?;
    Ok(())
}
