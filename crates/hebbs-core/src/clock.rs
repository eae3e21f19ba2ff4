//! Wall-clock time in microseconds since the Unix epoch, the unit of every timestamp.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in microseconds since the Unix epoch.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_micros() as u64)
}
