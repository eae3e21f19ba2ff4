//! The bounded queue between the writer and one subscription's consumer: a mutex-guarded deque
//! and a condition variable. The writer's side never waits for the consumer: when the queue is
//! full the oldest push is discarded and counted. The consumer blocks on the condition variable
//! (no polling) until a push arrives, its deadline passes or the channel closes.

use std::collections::VecDeque;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use super::push::SubscribePush;
use super::subscription::RecvError;
use crate::clock::now_us;
use crate::memory::Memory;

struct State {
    queue: VecDeque<SubscribePush>,
    /// Sequence number of the last push produced (queued or dropped).
    last_sequence: u64,
    dropped: u64,
    closed: bool,
}

/// One subscription's queue.
pub(super) struct Channel {
    state: Mutex<State>,
    ready: Condvar,
    capacity: usize,
}

impl Channel {
    /// An open, empty channel holding at most `capacity` pushes.
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                last_sequence: 0,
                dropped: 0,
                closed: false,
            }),
            ready: Condvar::new(),
            capacity,
        }
    }

    /// Queues a push of `memory` with the next sequence number, dropping the oldest queued push
    /// if the queue is full. Does nothing once the channel is closed.
    pub(super) fn push(&self, subscription_id: u64, memory: Memory, confidence: f32) {
        let mut state = self.state.lock();
        if state.closed {
            return;
        }
        state.last_sequence += 1;
        let push = SubscribePush {
            subscription_id,
            memory,
            confidence,
            push_timestamp_us: now_us(),
            sequence_number: state.last_sequence,
        };
        if state.queue.len() >= self.capacity {
            state.queue.pop_front();
            state.dropped += 1;
        }
        state.queue.push_back(push);
        drop(state);
        self.ready.notify_one();
    }

    /// The oldest queued push, waiting until `deadline` (forever when `None`) for one to arrive.
    /// A closed channel still hands out what it holds, then reports `Closed`.
    pub(super) fn recv(&self, deadline: Option<Instant>) -> Result<SubscribePush, RecvError> {
        let mut state = self.state.lock();
        loop {
            if let Some(push) = state.queue.pop_front() {
                return Ok(push);
            }
            if state.closed {
                return Err(RecvError::Closed);
            }
            match deadline {
                None => self.ready.wait(&mut state),
                Some(deadline) => {
                    if self.ready.wait_until(&mut state, deadline).timed_out() {
                        return match state.queue.pop_front() {
                            Some(push) => Ok(push),
                            None if state.closed => Err(RecvError::Closed),
                            None => Err(RecvError::Empty),
                        };
                    }
                }
            }
        }
    }

    /// Pushes discarded by the overflow policy so far.
    pub(super) fn dropped(&self) -> u64 {
        self.state.lock().dropped
    }

    /// Whether the channel was closed.
    pub(super) fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    /// Closes the channel and wakes every waiting consumer; `discard` also empties the queue.
    pub(super) fn close(&self, discard: bool) {
        let mut state = self.state.lock();
        state.closed = true;
        if discard {
            state.queue.clear();
        }
        drop(state);
        self.ready.notify_all();
    }
}
