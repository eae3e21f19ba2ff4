//! The core's `log` records, handed to Python's `logging`: a record of target
//! `hebbs_core::engine` goes to the logger `hebbs_core.engine`, at [`LOG_LEVEL`] and above.
//!
//! Written here rather than taken from `pyo3-log`: records come from RocksDB's C++ threads too,
//! where a panic aborts the process, and `pyo3-log` attaches with `Python::attach`, which
//! panics while the interpreter finalizes. A record that arrives then goes to standard error.

use log::{Level, LevelFilter, Log, Metadata, Record};
use pyo3::prelude::*;

/// The least severe level handed to Python (`logging.INFO`): the core logs at it once per
/// opened store, and its failures in background threads as errors.
pub const LOG_LEVEL: LevelFilter = LevelFilter::Info;

/// The `log` logger that forwards to Python's `logging`.
struct PythonLogger;

impl Log for PythonLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= LOG_LEVEL
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let target = record.target().replace("::", ".");
        let message = record.args().to_string();
        let level = python_level(record.level());
        let forwarded = Python::try_attach(|py| forward(py, &target, level, &message));
        if !matches!(forwarded, Some(Ok(()))) {
            eprintln!("{target}: {message}");
        }
    }

    fn flush(&self) {}
}

/// `logging.getLogger(target).log(level, message)`.
fn forward(py: Python<'_>, target: &str, level: u32, message: &str) -> PyResult<()> {
    py.import("logging")?
        .call_method1("getLogger", (target,))?
        .call_method1("log", (level, message))?;
    Ok(())
}

/// The number of `logging`'s level.
fn python_level(level: Level) -> u32 {
    match level {
        Level::Error => 40,
        Level::Warn => 30,
        Level::Info => 20,
        Level::Debug => 10,
        Level::Trace => 5,
    }
}

static LOGGER: PythonLogger = PythonLogger;

/// Installs the logger, unless the process has one already (a Rust program that embeds
/// Python and set its own keeps it).
pub fn install() {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LOG_LEVEL);
    }
}
