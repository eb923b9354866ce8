//! The byte source of a transcript: a pane's output, marks included, as tmux reads it, by the
//! pane's pipe (`tmux_cc::Transport::Pipe`: `pipe-pane -O` into a FIFO read at full speed),
//! fed to the transcript by a task of its own. Why the pipe and not a control-mode stream, and
//! what it costs: docs/design/output.md.

use std::sync::{Arc, Mutex, MutexGuard};

use tmux_cc::{Client, PaneId, PaneStream, StreamEnd, StreamItem, StreamOptions, Transport};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::Transcript;

/// A pane's transcript, fed as the pane prints. Dropping it stops the feeding and closes the
/// pane's pipe.
#[derive(Debug)]
pub struct Follow {
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

#[derive(Debug)]
struct Shared {
    transcript: Mutex<Transcript>,
    /// Woken after each piece fed, and at the end.
    fed: Notify,
    /// Why the stream ended, once it did.
    end: Mutex<Option<StreamEnd>>,
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript")
            .field("prompt", &self.prompt())
            .finish_non_exhaustive()
    }
}

impl Follow {
    /// Follows `pane` of `width` columns and `height` rows from now on, on `client`'s server.
    /// Fails when the pane is gone or already has a pipe (tmux keeps one per pane).
    pub async fn start(
        client: &Client,
        pane: PaneId,
        width: u16,
        height: u16,
    ) -> tmux_cc::Result<Follow> {
        let stream = client
            .stream(
                pane,
                StreamOptions {
                    transport: Transport::Pipe,
                    ..StreamOptions::default()
                },
            )
            .await?;
        let shared = Arc::new(Shared {
            transcript: Mutex::new(Transcript::new(width, height)),
            fed: Notify::new(),
            end: Mutex::new(None),
        });
        let task = tokio::spawn(feed(stream, shared.clone()));
        Ok(Follow { shared, task })
    }

    /// The transcript, locked: hold it only to read or report from it, never across an await.
    pub fn transcript(&self) -> MutexGuard<'_, Transcript> {
        lock(&self.shared.transcript)
    }

    /// A future ready once more bytes were fed (or the stream ended). It gets every wake-up
    /// from its creation on: create it, check the transcript, then await it.
    pub fn fed(&self) -> impl std::future::Future<Output = ()> + '_ {
        self.shared.fed.notified()
    }

    /// Why the stream ended, once it did: the transcript is fed no more.
    pub fn end(&self) -> Option<StreamEnd> {
        lock(&self.shared.end).clone()
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Feeds what the stream delivers to the transcript until it ends.
async fn feed(mut stream: PaneStream, shared: Arc<Shared>) {
    loop {
        let item = stream.next().await;
        match item {
            Some(StreamItem::Data(bytes)) => lock(&shared.transcript).feed(&bytes),
            // Bytes were dropped from here to the resync: the commands running lose their
            // frame, and their rows are read from the screen.
            Some(StreamItem::Paused) => lock(&shared.transcript).lost(),
            Some(StreamItem::Continued | StreamItem::Resynced(_)) => {}
            Some(StreamItem::End(end)) => {
                *lock(&shared.end) = Some(end);
                break;
            }
            None => {
                *lock(&shared.end) = Some(StreamEnd::Failed("the stream ended".into()));
                break;
            }
        }
        shared.fed.notify_waiters();
    }
    lock(&shared.transcript).lost();
    shared.fed.notify_waiters();
}
