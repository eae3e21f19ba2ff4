//! [`WakeSignal`]: how writers wake a background worker of the index (the pending-vector drain,
//! the search-copy refresh) without the worker polling while there is work.

use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// How often an idle worker checks whether its index still exists.
pub const IDLE_CHECK: Duration = Duration::from_secs(1);

/// A flag set by writers and cleared by the worker, with a condition variable to wait on.
#[derive(Default)]
pub struct WakeSignal {
    work: Mutex<bool>,
    wake: Condvar,
}

impl WakeSignal {
    /// Tells the worker there is work.
    pub fn notify(&self) {
        *self.work.lock() = true;
        self.wake.notify_one();
    }

    /// Waits up to `timeout` for work; returns whether there was any (and clears it).
    pub fn wait(&self, timeout: Duration) -> bool {
        let mut work = self.work.lock();
        if !*work {
            self.wake.wait_for(&mut work, timeout);
        }
        std::mem::take(&mut *work)
    }
}
