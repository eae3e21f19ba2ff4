//! A watchdog for tests that could deadlock: run the body on its own thread and fail the test,
//! rather than hang it, if it does not finish within a generous limit. The limit is a deadlock
//! detector, not a speed assertion.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// How long a watched body may take before the test is declared deadlocked.
pub const DEADLOCK_LIMIT: Duration = Duration::from_secs(120);

/// Runs `body` on a new thread and returns its value; panics if it panics or has not finished
/// within [`DEADLOCK_LIMIT`].
pub fn within_limit<T: Send + 'static>(what: &str, body: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, finished) = mpsc::channel();
    let handle = thread::spawn(move || {
        let value = body();
        let _ = done.send(());
        value
    });
    match finished.recv_timeout(DEADLOCK_LIMIT) {
        Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {DEADLOCK_LIMIT:?}: deadlock")
        }
    }
}
