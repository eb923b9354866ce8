//! The deadlines of one connection: a request's header within [`READ_HEADER_TIMEOUT`] of its
//! first byte (of the handshake's end for the first request), the next request within
//! [`IDLE_TIMEOUT`] of the last one done, none while a request is served.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

use super::{IDLE_TIMEOUT, READ_HEADER_TIMEOUT};

/// The state of a connection the deadlines depend on, shared by its I/O (bytes read) and its
/// service (requests begun and done).
pub(super) struct Activity {
    state: Mutex<ActivityState>,
    changed: Notify,
}

struct ActivityState {
    /// Requests being served (their service future alive).
    in_flight: usize,
    /// When the header of the next request started: the end of the handshake for the first
    /// request, the first byte read for the next ones. None while idle or busy.
    head_started: Option<Instant>,
    /// When the connection went idle (its last request done).
    idle_since: Instant,
}

impl Activity {
    pub(super) fn new() -> Self {
        let now = Instant::now();
        Self {
            state: Mutex::new(ActivityState {
                in_flight: 0,
                head_started: Some(now),
                idle_since: now,
            }),
            changed: Notify::new(),
        }
    }

    fn read_bytes(&self) {
        let mut state = self.state.lock().expect("activity lock");
        if state.in_flight == 0 && state.head_started.is_none() {
            state.head_started = Some(Instant::now());
            drop(state);
            self.changed.notify_one();
        }
    }

    pub(super) fn begin_request(self: &Arc<Self>) -> Busy {
        let mut state = self.state.lock().expect("activity lock");
        state.in_flight += 1;
        state.head_started = None;
        drop(state);
        self.changed.notify_one();
        Busy(self.clone())
    }

    /// The deadline of the connection now: none while a request is served.
    fn deadline(&self) -> Option<Instant> {
        let state = self.state.lock().expect("activity lock");
        if state.in_flight > 0 {
            None
        } else if let Some(head) = state.head_started {
            Some(head + READ_HEADER_TIMEOUT)
        } else {
            Some(state.idle_since + IDLE_TIMEOUT)
        }
    }

    /// Resolves once the connection passed its deadline.
    pub(super) async fn expired(&self) {
        loop {
            let changed = self.changed.notified();
            match self.deadline() {
                Some(deadline) if deadline <= Instant::now() => return,
                Some(deadline) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(deadline.into()) => {}
                        () = changed => {}
                    }
                }
                None => changed.await,
            }
        }
    }
}

/// A request being served; dropped when its service future ends (answered or dropped).
pub(super) struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().expect("activity lock");
        state.in_flight -= 1;
        if state.in_flight == 0 {
            state.idle_since = Instant::now();
        }
        drop(state);
        self.0.changed.notify_one();
    }
}

/// The TLS stream of a connection, telling [`Activity`] when request bytes arrive.
pub(super) struct ActivityIo<T> {
    pub(super) inner: T,
    pub(super) activity: Arc<Activity>,
}

impl<T: AsyncRead + Unpin> AsyncRead for ActivityIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read_bytes();
        }
        poll
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ActivityIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
