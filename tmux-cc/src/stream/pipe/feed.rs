//! The reading of a pipe stream's FIFO: a task reads it at full speed into a queue of at most
//! `capacity` x 64 KiB, which the stream takes from (see the module `pipe.rs`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::io::AsyncReadExt;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};

/// The most one read of the FIFO takes: one [`StreamItem::Data`] of a pipe stream.
const CHUNK: usize = 64 * 1024;

/// The size asked of the FIFO's kernel buffer (Linux's `F_SETPIPE_SZ`; the default 64 KiB makes
/// `cat` and the reader take turns more often). Unprivileged processes get up to
/// `/proc/sys/fs/pipe-max-size`, 1 MiB by default; a refusal leaves the default.
const PIPE_SIZE: i32 = 1 << 20;

/// What the reader hands the consumer: chunks of the FIFO up to a budget of bytes, then, once
/// one did not fit, nothing more (the reader goes on reading and dropping).
#[derive(Debug, Default)]
struct Queue {
    /// Full chunks (up to [`CHUNK`] bytes each), then `tail`.
    chunks: VecDeque<Bytes>,
    /// The last reads, joined up to [`CHUNK`] bytes: tmux 3.7c writes to a pipe in small
    /// pieces, which kept one by one would cost more memory than they hold.
    tail: bytes::BytesMut,
    /// The bytes in `chunks` and `tail`.
    bytes: usize,
    /// A chunk did not fit: it and everything after it were dropped.
    over: bool,
    /// The FIFO's end came: the pipe is no longer ours to replace.
    ended: bool,
    /// Reading failed (then `ended` too).
    error: Option<std::io::Error>,
}

/// The queue and its wake-up, shared by the reader task and the stream.
#[derive(Debug, Default)]
pub(super) struct Shared {
    queue: Mutex<Queue>,
    /// Woken when the queue changed.
    pub(super) notify: Notify,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the stream takes from a feed.
pub(super) enum Took {
    Data(Bytes),
    /// Nothing now; the reader wakes `notify` when that changes.
    Nothing,
    /// Output was dropped from here: the pause.
    Over,
    /// The FIFO's end, after every chunk.
    Ended,
    Failed(std::io::Error),
}

/// One pipe of the pane and the task reading its FIFO.
#[derive(Debug)]
pub(super) struct Feed {
    pub(super) shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Feed {
    /// Starts reading `file`, the FIFO's read side, into a queue of at most `capacity` x 64
    /// KiB.
    pub(super) fn start(file: std::fs::File, capacity: usize) -> Result<Feed> {
        set_pipe_size(&file);
        let fifo = tokio::net::unix::pipe::Receiver::from_file(file)
            .map_err(|e| Error::io("reading a stream's FIFO", e))?;
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn(pump(fifo, shared.clone(), capacity.max(1) * CHUNK));
        Ok(Feed { shared, task })
    }

    /// The first chunk queued (at most [`CHUNK`] bytes), or what the queue's state says.
    pub(super) fn take(&self) -> Took {
        let mut queue = self.shared.lock();
        let data = match queue.chunks.pop_front() {
            Some(chunk) => Some(chunk),
            None if !queue.tail.is_empty() => Some(queue.tail.split().freeze()),
            None => None,
        };
        if let Some(data) = data {
            queue.bytes -= data.len();
            return Took::Data(data);
        }
        if queue.over {
            Took::Over
        } else if let Some(e) = queue.error.take() {
            Took::Failed(e)
        } else if queue.ended {
            Took::Ended
        } else {
            Took::Nothing
        }
    }

    pub(super) fn ended(&self) -> bool {
        self.shared.lock().ended
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads the FIFO at full speed into the queue, up to `budget` bytes held; from the first
/// read that does not fit, everything is dropped (the pipe keeps being read, so tmux buffers
/// nothing). Ends at the FIFO's end.
async fn pump(mut fifo: tokio::net::unix::pipe::Receiver, shared: Arc<Shared>, budget: usize) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let read = fifo.read(&mut buf).await;
        let mut queue = shared.lock();
        match read {
            Ok(0) => queue.ended = true,
            Ok(_) if queue.over => continue,
            Ok(n) if queue.bytes + n > budget => queue.over = true,
            Ok(n) => {
                if queue.tail.len() + n > CHUNK {
                    let full = queue.tail.split().freeze();
                    queue.chunks.push_back(full);
                }
                queue.tail.extend_from_slice(&buf[..n]);
                queue.bytes += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                queue.ended = true;
                queue.error = Some(e);
            }
        }
        let done = queue.ended;
        drop(queue);
        shared.notify.notify_one();
        if done {
            return;
        }
    }
}

fn set_pipe_size(file: &std::fs::File) {
    // A failure only leaves the default size.
    let _ = nix::fcntl::fcntl(file, nix::fcntl::FcntlArg::F_SETPIPE_SZ(PIPE_SIZE));
}
