//! The background worker that moves pending vectors into the HNSW graph. One thread per index,
//! started with the first deferred insert, woken through a condition variable (no polling while
//! there is work), and gone once the index is dropped.

use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::hnsw_index::VectorIndex;

/// How often an idle worker checks whether its index still exists.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// Wakes the worker: a flag set by writers and cleared by the worker.
#[derive(Default)]
pub struct DrainSignal {
    work: Mutex<bool>,
    wake: Condvar,
}

impl DrainSignal {
    /// Tells the worker there are vectors to drain.
    pub fn notify(&self) {
        *self.work.lock() = true;
        self.wake.notify_one();
    }

    /// Waits up to `timeout` for work; returns whether there was any (and clears it).
    fn wait(&self, timeout: Duration) -> bool {
        let mut work = self.work.lock();
        if !*work {
            self.wake.wait_for(&mut work, timeout);
        }
        std::mem::take(&mut *work)
    }
}

/// Starts the worker of `index`. It holds only a weak reference between drains.
pub fn spawn(index: Weak<VectorIndex>, signal: Arc<DrainSignal>) {
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
