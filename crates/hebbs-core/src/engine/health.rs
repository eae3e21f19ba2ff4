//! [`HealthStatus`] (seed 003).

/// What `health()` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct HealthStatus {
    /// Whether the engine answers calls.
    pub serving: bool,
    /// The crate version.
    pub version: String,
    /// Live memories, from the persisted counter (no scan).
    pub memory_count: u64,
    /// Seconds since the engine was opened.
    pub uptime_seconds: u64,
}
