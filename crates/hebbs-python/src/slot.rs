//! The engine slot: `Some` while open, emptied by `close()`.

use std::sync::{Arc, Mutex};

use hebbs_core::{Engine, HebbsError};
use pyo3::Python;

/// Holds the engine until it is closed.
pub struct EngineSlot(Mutex<Option<Arc<Engine>>>);

impl EngineSlot {
    /// A slot holding the freshly opened `engine`.
    pub fn new(engine: Engine) -> Self {
        Self(Mutex::new(Some(Arc::new(engine))))
    }

    /// The open engine, or `Closed`.
    pub fn get(&self) -> Result<Arc<Engine>, HebbsError> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .ok_or(HebbsError::Closed)
    }

    /// Takes the engine out, leaving the slot closed.
    pub fn take(&self) -> Option<Arc<Engine>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

impl Drop for EngineSlot {
    /// A store never closed is closed here, with the GIL released: closing joins the engine's
    /// threads, and one of them may be waiting for the GIL to log.
    fn drop(&mut self) {
        if let Some(engine) = self.take() {
            Python::attach(|py| py.detach(move || drop(engine)));
        }
    }
}
