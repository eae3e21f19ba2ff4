//! The one helper every engine call goes through: run a closure over owned values with the GIL
//! released, turn a panic into an `InternalError` and a core error into its Python exception.

use std::panic::{catch_unwind, AssertUnwindSafe};

use hebbs_core::Result as CoreResult;
use pyo3::prelude::*;

use crate::errors::{panic_to_py_err, to_py_err};

/// Runs `call` without the GIL and converts its outcome.
pub fn engine_call<T, F>(py: Python<'_>, call: F) -> PyResult<T>
where
    F: Send + FnOnce() -> CoreResult<T>,
    T: Send,
{
    match py.detach(|| catch_unwind(AssertUnwindSafe(call))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_py_err(error)),
        Err(panic) => Err(panic_to_py_err(panic.as_ref())),
    }
}
