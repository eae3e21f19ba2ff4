//! The background worker that moves pending vectors into the HNSW graph. One thread per index,
//! started with the first deferred insert, woken through a condition variable (no polling while
//! there is work), and gone once the index is dropped.

use std::sync::{Arc, Weak};

use super::hnsw_index::VectorIndex;
use super::wake::{WakeSignal, IDLE_CHECK};

/// Starts the worker of `index`. It holds only a weak reference between drains.
pub fn spawn(index: Weak<VectorIndex>, signal: Arc<WakeSignal>) {
    let worker = move || loop {
        let has_work = signal.wait(IDLE_CHECK);
        match index.upgrade() {
            Some(index) if has_work => index.drain(),
            Some(_) => {}
            None => return,
        }
    };
    std::thread::Builder::new()
        .name("hebbs-index-drain".into())
        .spawn(worker)
        .expect("the OS can start the index drain thread");
}
