//! The automatic decay pass ([`crate::engine::AutoForget`], off by default): a thread that
//! sleeps on a condition variable for the configured interval (no polling), then forgets up to
//! `limit` memories whose decay score is below the floor, until the engine closes.

use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use super::config::AutoForget;
use super::shared::Shared;

/// The running pass and the flag that stops it.
pub(super) struct AutoForgetWorker {
    stop: Arc<(Mutex<bool>, Condvar)>,
    handle: JoinHandle<()>,
}

impl AutoForgetWorker {
    /// Starts the pass on `shared` with `policy`.
    pub fn spawn(shared: Shared, policy: AutoForget) -> Self {
        let stop: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let signal = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("hebbs-auto-forget".into())
            .spawn(move || loop {
                {
                    let (stopped, wake) = &*signal;
                    let mut stopped = stopped.lock();
                    if !*stopped {
                        wake.wait_for(&mut stopped, policy.interval);
                    }
                    if *stopped {
                        return;
                    }
                }
                if let Err(error) = shared.forget_decayed(policy.floor, policy.limit) {
                    log::error!("automatic decay pass failed: {error}");
                }
            })
            .expect("the OS can start the auto-forget thread");
        Self { stop, handle }
    }

    /// Stops the pass and waits for it (a pass in progress finishes first).
    pub fn stop(self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock() = true;
        wake.notify_all();
        if self.handle.join().is_err() {
            log::error!("the auto-forget thread panicked");
        }
    }
}
