//! The access flusher: a thread that writes the access increments recalls leave in the store's
//! pending overlay (see [`crate::store::Store::flush_accesses`]) every
//! [`ACCESS_FLUSH_INTERVAL`], or sooner when a recall finds
//! [`crate::store::ACCESS_FLUSH_PENDING_MAX`] memories pending, until the engine closes (close
//! writes the rest). A crash loses at most one interval of access counts, never a memory.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::store::Store;

/// Longest time an access increment waits in memory before it is written to RocksDB.
pub const ACCESS_FLUSH_INTERVAL: Duration = Duration::from_millis(100);

#[derive(Default)]
struct Signal {
    stopped: bool,
    due: bool,
}

/// The running flusher and the signal that wakes or stops it.
pub(super) struct AccessFlusher {
    signal: Arc<(Mutex<Signal>, Condvar)>,
    handle: Mutex<Option<JoinHandle<()>>>,
}

impl AccessFlusher {
    /// Starts flushing `store`'s pending accesses.
    pub fn spawn(store: Arc<Store>) -> Self {
        let signal: Arc<(Mutex<Signal>, Condvar)> = Arc::default();
        let shared = Arc::clone(&signal);
        let handle = std::thread::Builder::new()
            .name("hebbs-access-flush".into())
            .spawn(move || loop {
                {
                    let (state, wake) = &*shared;
                    let mut state = state.lock();
                    if !state.stopped && !state.due {
                        wake.wait_for(&mut state, ACCESS_FLUSH_INTERVAL);
                    }
                    if state.stopped {
                        return;
                    }
                    state.due = false;
                }
                if let Err(error) = store.flush_accesses() {
                    log::error!("writing access counts failed: {error}");
                }
            })
            .expect("the OS can start the access flush thread");
        Self {
            signal,
            handle: Mutex::new(Some(handle)),
        }
    }

    /// Asks for a flush now (the pending overlay is full).
    pub fn wake(&self) {
        let (state, wake) = &*self.signal;
        state.lock().due = true;
        wake.notify_one();
    }

    /// Stops the thread and waits for it; the caller writes what is still pending.
    pub fn stop(&self) {
        let (state, wake) = &*self.signal;
        state.lock().stopped = true;
        wake.notify_all();
        if let Some(handle) = self.handle.lock().take() {
            if handle.join().is_err() {
                log::error!("the access flush thread panicked");
            }
        }
    }
}
