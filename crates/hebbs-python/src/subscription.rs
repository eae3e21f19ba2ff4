//! `NativeSubscription` and `SubscribePush`: the Python side of [`hebbs_core::Subscription`].
//!
//! A blocking receive waits on the subscription's condition variable with the GIL released
//! (through [`engine_call`]), in slices of [`SIGNAL_CHECK_INTERVAL`]: between slices it runs
//! `py.check_signals()`, so Ctrl-C interrupts a blocked `next()`. Each slice blocks; nothing
//! polls the queue. The subscription does not keep the engine alive: closing the engine ends it.

use std::time::{Duration, Instant};

use hebbs_core::subscribe::{SubscribePush as CorePush, SubscribeRequest};
use hebbs_core::{RecvError, Subscription};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

use crate::detach::engine_call;
use crate::errors::invalid;
use crate::fields::Fields;
use crate::filter::extract_filter;
use crate::recall_request::vector;
use crate::types::Memory;
use crate::wire::Reader;

/// Longest a receive waits with the GIL released before it checks for pending signals.
const SIGNAL_CHECK_INTERVAL: Duration = Duration::from_millis(100);

/// The core `SubscribeRequest` of `fields` (the Python `SubscribeRequest`'s fields the caller
/// set, `embedding` the cue's vector as the Python layer resolved it); fields left out keep the
/// core's defaults, and a key that is not one of them is an `InvalidTypeError`.
pub fn subscribe_request(fields: &Bound<'_, PyDict>) -> PyResult<SubscribeRequest> {
    let mut fields = Fields::new(fields);
    let cue_vector = fields
        .with("embedding", vector)?
        .ok_or_else(|| invalid("embedding", "a cue or an embedding is required"))?;
    let defaults = SubscribeRequest::new(Vec::new());
    let request = SubscribeRequest {
        cue_vector,
        entity_id: fields.value("entity_id")?,
        confidence_threshold: fields
            .value_or("confidence_threshold", defaults.confidence_threshold)?,
        queue_capacity: fields.value_or("queue_capacity", defaults.queue_capacity)?,
        filter: extract_filter(fields.object("filter")?.as_ref())?,
    };
    fields.finish()?;
    Ok(request)
}

/// A memory pushed to a subscription (seed 003 `SubscribePush`).
#[pyclass(frozen, module = "hebbs", get_all)]
pub struct SubscribePush {
    /// The subscription that produced it.
    pub subscription_id: u64,
    /// The new memory.
    pub memory: Py<Memory>,
    /// Cosine similarity to the subscription's cue, 0..1.
    pub confidence: f32,
    /// When the push was produced, microseconds since the epoch.
    pub push_timestamp_us: u64,
    /// 1, 2, 3, ... per subscription; a gap means pushes were dropped (queue full).
    pub sequence_number: u64,
}

impl SubscribePush {
    fn from_core(py: Python<'_>, push: CorePush) -> PyResult<Self> {
        Ok(Self {
            subscription_id: push.subscription_id,
            memory: Py::new(py, Memory::from_core(py, push.memory)?)?,
            confidence: push.confidence,
            push_timestamp_us: push.push_timestamp_us,
            sequence_number: push.sequence_number,
        })
    }
}

#[pymethods]
impl SubscribePush {
    /// This push as a JSON-ready dict: the memory nested in its own shape (see
    /// `Memory.to_dict`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Self {
            subscription_id,
            memory,
            confidence,
            push_timestamp_us,
            sequence_number,
        } = self;
        let dict = PyDict::new(py);
        dict.set_item("subscription_id", subscription_id)?;
        dict.set_item("memory", memory.get().to_wire(py)?)?;
        dict.set_item("confidence", confidence)?;
        dict.set_item("push_timestamp_us", push_timestamp_us)?;
        dict.set_item("sequence_number", sequence_number)?;
        Ok(dict)
    }

    /// The push that `to_dict` wrote; `InvalidInputError` names a missing or bad field.
    #[classmethod]
    fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let wire = Reader::top(data)?;
        Ok(Self {
            subscription_id: wire.uint("subscription_id")?,
            memory: Py::new(wire.py(), Memory::from_wire(&wire.child("memory")?)?)?,
            confidence: wire.float("confidence")?,
            push_timestamp_us: wire.uint("push_timestamp_us")?,
            sequence_number: wire.uint("sequence_number")?,
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "SubscribePush(subscription_id={}, sequence_number={}, confidence={:.4}, memory={})",
            self.subscription_id,
            self.sequence_number,
            self.confidence,
            self.memory.bind(py).repr()?.to_cow()?
        ))
    }
}

/// A live subscription; iterate it for pushes. Ends on `unsubscribe()`, when garbage collected,
/// or when the engine closes.
#[pyclass(frozen, module = "hebbs._native")]
pub struct NativeSubscription {
    inner: Subscription,
}

impl NativeSubscription {
    /// Wraps a core subscription.
    pub fn new(inner: Subscription) -> Self {
        Self { inner }
    }

    /// Waits until `deadline` (forever when `None`) in signal-checked slices.
    fn wait(&self, py: Python<'_>, deadline: Option<Instant>) -> PyResult<Option<SubscribePush>> {
        loop {
            let slice = match deadline {
                Some(deadline) => deadline
                    .saturating_duration_since(Instant::now())
                    .min(SIGNAL_CHECK_INTERVAL),
                None => SIGNAL_CHECK_INTERVAL,
            };
            let inner = &self.inner;
            match engine_call(py, move || Ok(inner.recv_timeout(slice)))? {
                Ok(push) => return SubscribePush::from_core(py, push).map(Some),
                Err(RecvError::Closed) => return Ok(None),
                Err(RecvError::Empty) => {}
            }
            py.check_signals()?;
            if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                return Ok(None);
            }
        }
    }
}

#[pymethods]
impl NativeSubscription {
    /// The next push, waiting at most `timeout` seconds (forever when None). None when nothing
    /// arrived in time or the subscription has ended (see `closed`).
    #[pyo3(signature = (timeout = None))]
    fn recv(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<SubscribePush>> {
        let deadline = match timeout {
            None => None,
            Some(seconds) => {
                let wait = Duration::try_from_secs_f64(seconds)
                    .map_err(|_| invalid("timeout", format!("{seconds} is not a duration")))?;
                Instant::now().checked_add(wait)
            }
        };
        self.wait(py, deadline)
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Blocks for the next push; ends the iteration when the subscription ends.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<SubscribePush>> {
        self.wait(py, None)
    }

    /// Ends the subscription: queued pushes are discarded and blocked receivers return.
    fn unsubscribe(&self) {
        self.inner.unsubscribe();
    }

    /// The subscription's id (the pushes' `subscription_id`).
    #[getter]
    fn id(&self) -> u64 {
        self.inner.id()
    }

    /// Pushes discarded because the queue was full.
    #[getter]
    fn dropped(&self) -> u64 {
        self.inner.dropped()
    }

    /// Whether the subscription has ended.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_closed()
    }
}
