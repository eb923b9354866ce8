//! The byte source of a transcript: a pane's output, marks included, as tmux reads it, by the
//! pane's pipe (`tmux_cc::Transport::Pipe`: `pipe-pane -O` into a FIFO read at full speed),
//! fed to the transcript by a task of its own. Why the pipe and not a control-mode stream, and
//! what it costs: docs/design/output.md.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tmux_cc::{Client, PaneId, PaneStream, StreamEnd, StreamItem, StreamOptions, Transport};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::Transcript;
use super::sync_mark::{SyncMarks, sync_mark};

/// A pane's transcript, fed as the pane prints. Dropping it stops the feeding and closes the
/// pane's pipe.
#[derive(Debug)]
pub struct Follow {
    shared: Arc<Shared>,
    task: JoinHandle<()>,
    /// The number of the last sync mark written.
    syncs: AtomicU64,
}

#[derive(Debug)]
struct Shared {
    transcript: Mutex<Transcript>,
    /// Woken after each piece fed, and at the end.
    fed: Notify,
    /// Why the stream ended, once it did.
    end: Mutex<Option<StreamEnd>>,
    /// The number of the last sync mark fed: the transcript holds every byte before it.
    synced: AtomicU64,
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
            synced: AtomicU64::new(0),
        });
        let task = tokio::spawn(feed(stream, shared.clone()));
        Ok(Follow {
            shared,
            task,
            syncs: AtomicU64::new(0),
        })
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

    /// Waits, at most `within`, until the transcript holds every byte the program in the pane
    /// printed before now; `true` once it does. The pane's pipe has no order with tmux's
    /// commands: a mode the program set just before (bracketed paste) may still be on its way.
    /// So a sync mark is written to the pane's terminal, `tty` (`/proc/PID/fd/0` of the
    /// pane's shell), as if the program had printed it: the kernel keeps it after what the
    /// program wrote, tmux reads it in that order and hands it to the pipe, and the transcript
    /// has every earlier byte once the mark comes through. `false` when the terminal can not
    /// be written now (its output stopped by C-s) or the mark did not come in time.
    pub async fn sync(&self, tty: &std::path::Path, within: Duration) -> bool {
        let number = self.syncs.fetch_add(1, Ordering::Relaxed) + 1;
        if let Err(e) = write_mark(tty, &sync_mark(number)) {
            tracing::debug!(tty = %tty.display(), error = %e, "writing a sync mark failed");
            return false;
        }
        let arrived = async {
            loop {
                let fed = self.fed();
                if self.shared.synced.load(Ordering::Acquire) >= number {
                    return true;
                }
                if self.end().is_some() {
                    return false;
                }
                fed.await;
            }
        };
        tokio::time::timeout(within, arrived).await.unwrap_or(false)
    }
}

/// Writes `mark` to the terminal `tty` in one write, without waiting and without making it
/// anyone's controlling terminal.
fn write_mark(tty: &std::path::Path, mark: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut terminal = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(tty)?;
    let written = terminal.write(mark)?;
    if written != mark.len() {
        return Err(std::io::Error::other("a part of the mark was written"));
    }
    Ok(())
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
    let mut marks = SyncMarks::default();
    loop {
        let item = stream.next().await;
        match item {
            Some(StreamItem::Data(bytes)) => {
                let bytes = marks.filter(&bytes);
                lock(&shared.transcript).feed(&bytes);
                shared.synced.store(marks.seen(), Ordering::Release);
            }
            // Bytes were dropped from here to the resync: the commands running lose their
            // frame, and their rows are read from the screen.
            Some(StreamItem::Paused) => {
                marks.lost();
                lock(&shared.transcript).lost();
            }
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
