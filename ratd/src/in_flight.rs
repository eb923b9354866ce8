//! The count of tool calls in flight, waits apart: kept by the tools, read by the status line
//! (a module of its own so that the service, below the tools, reads it without importing them).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the calls in flight, waits apart (the status line shows waits in flight:
/// `docs/design/status-and-logs.md`).
#[derive(Debug, Default)]
pub struct InFlight {
    pub(crate) calls: AtomicUsize,
    /// Shared with each call's session, where rat-core counts the calls that wait.
    pub(crate) waits: Arc<AtomicUsize>,
}

impl InFlight {
    /// The tool calls being run now, waits included.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    /// The waits in flight now: wait_window calls, and sends that wait.
    pub fn waits(&self) -> usize {
        self.waits.load(Ordering::SeqCst)
    }
}
