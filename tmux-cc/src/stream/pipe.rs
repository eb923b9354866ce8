//! [`Transport::Pipe`](super::Transport::Pipe): a stream's bytes by `pipe-pane -O` into a FIFO
//! of the client's private directory, read at full speed into a bounded queue of ours.
//!
//! - Opening: `#{pane_pipe}` (read with the pane's session and window by the stream's first
//!   command), then, if the pane has no pipe,
//!   `pipe-pane -O -t %N 'exec cat > FIFO'`. tmux keeps one pipe per pane, and a `pipe-pane`
//!   replaces the one there. `-o` is no help: it closes the pipe there and opens nothing (a
//!   toggle), and no command fails on a format, so the check is a round trip of its own; a
//!   `pipe-pane` of another client landing within that round trip is replaced. tmux starts the
//!   pipe at the end of what it has read from the pane (`pipe_offset` is set to the pane's
//!   offset): the stream has the output from that moment.
//! - tmux never holds a pane back for a pipe (it hands the pipe what it read and buffers the
//!   rest without bound), so the FIFO is read at full speed, always, into a queue of at most
//!   `capacity` x 64 KiB. From the first read that does not fit, the reader drops what it
//!   reads, and the consumer, once it has taken what the queue held, gets
//!   [`StreamItem::Paused`]. Memory stays bounded on both sides.
//! - Resync: `capture-pane -p -t %N ... ; pipe-pane -O -t %N 'exec cat > NEW'` on ONE line: the
//!   new pipe replaces the old one and starts where tmux's screen stands, which is what the
//!   capture shows.
//! - End: when the pane is destroyed, tmux first writes to the pipe all it read
//!   (`window_pane_destroy_ready` waits for the pipe's buffer to be empty and for nothing to
//!   wait on the terminal), then closes it, and the FIFO's end-of-file comes after the last
//!   byte tmux read. tmux may not have read the pane's last output, though: measured on 3.3a,
//!   1 run in 13 of `seq 1 100000` in a closing pane lost its last kilobyte in tmux (the
//!   terminal can look empty while the kernel still carries what the program wrote last).
//!   The stream then asks which of pane, window or pipe went.
//! - Cancel-safe: the opening runs on a task of its own (`detached_open`), which closes a pipe
//!   nobody waited for; a resync on its way is kept for the next `next`.
//!
//! The design and what was measured: docs/design/engine-streams.md.

mod feed;

use std::collections::VecDeque;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::oneshot;

use super::{Snapshot, StreamEnd, StreamItem, capture_bytes, capture_command};
use crate::client::Client;
use crate::command::Command;
use crate::error::{Error, Result};
use crate::ops::Capture;
use crate::parse::{PaneId, WindowId};
use feed::{Feed, Took};

/// How long the pipe of an exited pane must stay quiet before [`PipeSource::finish`] ends
/// the stream: its bytes are past tmux already, in the kernel's buffers and `cat`.
const DRAIN_QUIET: Duration = Duration::from_millis(50);

/// The pipe side of a [`super::PaneStream`].
#[derive(Debug)]
pub(super) struct PipeSource {
    /// The connection the stream's few commands go on (the one `stream` was called on).
    client: Client,
    pane: PaneId,
    window: WindowId,
    feed: Feed,
    capacity: usize,
    snapshot: Capture,
    open_timeout: Duration,
    /// A number of this stream, unique in the client, naming its FIFOs.
    id: u64,
    generation: u64,
    resync_due: bool,
    /// A resync on its way (its commands sent by a task of its own, so a `next` cancelled
    /// meanwhile leaves nothing half done: the next `next` waits for the same one).
    resyncing: Option<oneshot::Receiver<Result<Opened>>>,
    /// Set by [`PipeSource::finish`]: resolves with the closing command's result.
    finish: Option<oneshot::Receiver<Result<()>>>,
    /// The pipe's end was seen, or asked for: nothing of ours is left open in tmux.
    closed: bool,
    /// [`PipeSource::finish`] found the pane's program exited (its pipe can not be closed):
    /// the stream ends once the pipe stays quiet.
    draining: bool,
}

/// The FIFO's path for `generation` of stream `id`.
fn fifo_path(client: &Client, id: u64, generation: u64) -> PathBuf {
    client
        .private_dir()
        .join(format!("stream-{id}-{generation}.fifo"))
}

/// `pipe-pane -O -t PANE 'exec cat > FIFO'`.
fn pipe_command(pane: &str, fifo: &Path) -> Command {
    let mut line = b"exec cat > ".to_vec();
    line.extend_from_slice(&crate::fifo::sh_quote(fifo.as_os_str().as_bytes()));
    Command::new("pipe-pane").args(["-O", "-t", pane]).arg(line)
}

/// Lets a blocked open of `path`'s read side go (by opening its write side once), for a
/// pipe that will never come; then removes the name.
async fn unblock(path: &Path) {
    let _ = crate::fifo::write_fifo(path, b"").await;
    let _ = std::fs::remove_file(path);
}

/// What opening a pipe found.
#[derive(Debug)]
enum Opened {
    /// The pipe is ours; the replies of the commands before the `pipe-pane`.
    Ours(Feed, Vec<crate::parse::Reply>),
    /// tmux refused or did not open it; the replies of the commands that ran, the failure last.
    Not(Vec<crate::parse::Reply>),
}

impl PipeSource {
    /// Opens the pane's pipe (see the module's docs).
    ///
    /// # Errors
    /// [`Error::Refused`] when the pane has a pipe already, [`Error::Command`] with tmux's
    /// message (`target pane has exited`), [`Error::Io`] for the FIFO, [`Error::Timeout`] when
    /// the pipe's program did not open it in time, the connection's errors.
    /// `piped`: the pane had a pipe when the stream looked (`#{pane_pipe}`).
    pub(super) async fn open(
        client: Client,
        piped: bool,
        pane: PaneId,
        window: WindowId,
        capacity: usize,
        snapshot: Capture,
        open_timeout: Duration,
    ) -> Result<PipeSource> {
        let id = client.next_id();
        let target = pane.to_string();
        if piped {
            return Err(already_piped());
        }
        let opened = detached_open(&client, &target, Vec::new(), capacity, id, 0, open_timeout)
            .await?
            .await
            .unwrap_or_else(|_| Err(gone()))?;
        let feed = match opened {
            Opened::Ours(feed, _) => feed,
            Opened::Not(replies) => {
                let failed = replies.iter().find(|r| !r.success);
                return Err(Error::Command {
                    command: "pipe-pane".into(),
                    message: failed
                        .map(|r| String::from_utf8_lossy(&r.lines.join(&b'\n')).into_owned())
                        .unwrap_or_else(|| "the pane's pipe did not open".into()),
                });
            }
        };
        Ok(PipeSource {
            client,
            pane,
            window,
            feed,
            capacity,
            snapshot,
            open_timeout,
            id,
            generation: 0,
            resync_due: false,
            resyncing: None,
            finish: None,
            closed: false,
            draining: false,
        })
    }

    /// See [`super::PaneStream::finish`]: closes the pane's pipe; the stream ends once the
    /// FIFO's end came.
    pub(super) fn finish(&mut self) {
        // A pipe that ended already is no longer ours to close: `next` reports its end.
        if self.finish.is_some() || self.closed || self.feed.ended() {
            return;
        }
        self.closed = true;
        let (tx, rx) = oneshot::channel();
        self.finish = Some(rx);
        let client = self.client.clone();
        let target = self.pane.to_string();
        tokio::spawn(async move {
            // Two passes of tmux's loop first: what it read before is then written to the
            // pipe, unless the pipe's socket is full.
            let closed = async {
                client.written().await?;
                client.written().await?;
                client
                    .run(&Command::new("pipe-pane").args(["-t", &target]))
                    .await
                    .map(|_| ())
            }
            .await;
            let _ = tx.send(closed);
        });
    }

    /// The next item; the last is an [`StreamItem::End`].
    pub(super) async fn next(&mut self, ready: &mut VecDeque<StreamItem>) -> StreamItem {
        loop {
            if let Some(item) = ready.pop_front() {
                return item;
            }
            if self.resync_due {
                let end = self.resync(ready).await;
                self.resync_due = false;
                if let Some(end) = end {
                    return StreamItem::End(end);
                }
                continue;
            }
            match self.feed.take() {
                Took::Data(bytes) => return StreamItem::Data(bytes),
                Took::Over => {
                    // Dropped output from here (also when the pipe ended after): the pause;
                    // the resync finds the end.
                    self.resync_due = true;
                    return StreamItem::Paused;
                }
                Took::Failed(e) => {
                    return StreamItem::End(StreamEnd::Failed(format!(
                        "reading the pane's pipe: {e}"
                    )));
                }
                Took::Ended => {
                    let asked = self.closed;
                    self.closed = true;
                    if asked {
                        return StreamItem::End(StreamEnd::Stopped);
                    }
                    return StreamItem::End(self.why_closed().await);
                }
                Took::Nothing => {}
            }
            let shared = self.feed.shared.clone();
            if self.draining {
                if tokio::time::timeout(DRAIN_QUIET, shared.notify.notified())
                    .await
                    .is_err()
                {
                    return StreamItem::End(StreamEnd::Stopped);
                }
                continue;
            }
            let finish = async {
                match &mut self.finish {
                    Some(done) => done.await.unwrap_or(Ok(())),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = shared.notify.notified() => {}
                closed = finish => {
                    self.finish = None;
                    // Closed: its end-of-file comes after what it held. Not closed: a pane
                    // whose program exited keeps its pipe (tmux refuses `pipe-pane` there)
                    // and wrote all it read into it before it was marked dead: what is on its
                    // way is taken until the pipe stays quiet for `DRAIN_QUIET`.
                    if closed.is_err() {
                        self.draining = true;
                    }
                }
            }
        }
    }

    /// After a pause: capture the screen and open a new pipe from there, on one line. `Some`
    /// when the stream ends instead.
    async fn resync(&mut self, ready: &mut VecDeque<StreamItem>) -> Option<StreamEnd> {
        if self.closed {
            return Some(StreamEnd::Stopped);
        }
        if self.feed.ended() {
            // Closed while paused: by the pane's end or another `pipe-pane`, not to be replaced.
            self.closed = true;
            return Some(self.why_closed().await);
        }
        if self.resyncing.is_none() {
            let target = self.pane.to_string();
            let capture = capture_command(&target, &self.snapshot);
            self.generation += 1;
            match detached_open(
                &self.client,
                &target,
                vec![capture],
                self.capacity,
                self.id,
                self.generation,
                self.open_timeout,
            )
            .await
            {
                Ok(rx) => self.resyncing = Some(rx),
                Err(e) => {
                    self.closed = true;
                    return Some(StreamEnd::ResyncFailed(e.to_string()));
                }
            }
        }
        let Some(resyncing) = self.resyncing.as_mut() else {
            return Some(StreamEnd::ResyncFailed("no resync on its way".into()));
        };
        let opened = resyncing.await.unwrap_or_else(|_| Err(gone()));
        self.resyncing = None;
        match opened {
            Ok(Opened::Ours(feed, replies)) => {
                self.feed = feed;
                ready.push_back(StreamItem::Continued);
                let capture = replies.first().map(capture_bytes).unwrap_or_default();
                ready.push_back(StreamItem::Resynced(Snapshot { capture }));
                None
            }
            Ok(Opened::Not(_)) => {
                // The pane went, or its program exited (tmux pipes no exited pane); the old
                // pipe, if still open, stays with tmux until the pane goes.
                self.closed = true;
                Some(self.why_closed().await)
            }
            Err(Error::ConnectionEnded(end)) => Some(StreamEnd::ConnectionEnded(end)),
            Err(e) => {
                self.closed = true;
                Some(StreamEnd::ResyncFailed(e.to_string()))
            }
        }
    }

    /// Why the pipe closed without being asked to: the pane gone (its window staying or
    /// not), or another `pipe-pane` on it.
    async fn why_closed(&self) -> StreamEnd {
        let pane = self.pane.to_string();
        let window = self.window.to_string();
        let asks = [Command::new("display-message").args([
            "-p",
            "-t",
            &pane,
            "#{pane_id} #{pane_dead}",
        ])];
        let pane_said = match self.client.input(&asks).await {
            Ok(replies) => replies,
            Err(Error::ConnectionEnded(end)) => return StreamEnd::ConnectionEnded(end),
            Err(e) => return StreamEnd::Failed(e.to_string()),
        };
        // display-message formats nothing for a missing pane on some versions, fails on others.
        let line = pane_said
            .first()
            .filter(|r| r.success)
            .and_then(|r| r.lines.first())
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .unwrap_or_default();
        let mut fields = line.split(' ');
        if fields.next() == Some(pane.as_str()) {
            if fields.next() == Some("1") {
                return StreamEnd::PaneClosed;
            }
            return StreamEnd::PipeClosed;
        }
        let asks = [Command::new("display-message").args(["-p", "-t", &window, "#{window_id}"])];
        match self.client.input(&asks).await {
            Ok(replies)
                if replies.first().is_some_and(|r| {
                    r.success && r.lines.first().is_some_and(|l| *l == window.as_bytes())
                }) =>
            {
                StreamEnd::PaneClosed
            }
            Ok(_) => StreamEnd::WindowClosed,
            Err(Error::ConnectionEnded(end)) => StreamEnd::ConnectionEnded(end),
            Err(e) => StreamEnd::Failed(e.to_string()),
        }
    }
}

impl Drop for PipeSource {
    fn drop(&mut self) {
        // A stream dropped before its pipe's end closes it: otherwise `cat` and the pipe would
        // stay until the pane prints again (the write to a FIFO without reader ends `cat`).
        if self.closed || self.feed.ended() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let client = self.client.clone();
        let target = self.pane.to_string();
        runtime.spawn(async move {
            let _ = client
                .run(&Command::new("pipe-pane").args(["-t", &target]))
                .await;
        });
    }
}

fn already_piped() -> Error {
    Error::Refused(
        "the pane has a pipe already (pipe-pane): tmux keeps one pipe per pane; stream it with Transport::ControlMode, or close that pipe",
    )
}

fn gone() -> Error {
    Error::io(
        "opening the pane's pipe",
        std::io::Error::other("the task opening it ended"),
    )
}

/// [`open_feed`] on a task of its own, whose result comes by the receiver: a caller that stops
/// waiting (a cancelled `stream` or `next`) leaves nothing half done, since the task finishes
/// the opening and, when nobody takes the pipe, closes it (just opened, it is still ours).
/// `Err` only when the FIFO can not be made.
async fn detached_open(
    client: &Client,
    target: &str,
    before: Vec<Command>,
    capacity: usize,
    id: u64,
    generation: u64,
    open_timeout: Duration,
) -> Result<oneshot::Receiver<Result<Opened>>> {
    let path = fifo_path(client, id, generation);
    crate::fifo::make_fifo(&path)?;
    let (tx, rx) = oneshot::channel();
    let client = client.clone();
    let target = target.to_string();
    tokio::spawn(async move {
        let opened = open_feed(&client, &target, &before, capacity, &path, open_timeout).await;
        if let Err(Ok(Opened::Ours(feed, _))) = tx.send(opened) {
            drop(feed);
            let _ = client
                .run(&Command::new("pipe-pane").args(["-t", &target]))
                .await;
        }
    });
    Ok(rx)
}

/// Sends `before ; pipe-pane -O -t PANE 'exec cat > FIFO'` on one line and, when tmux
/// opened the pipe, the FIFO's reader.
async fn open_feed(
    client: &Client,
    target: &str,
    before: &[Command],
    capacity: usize,
    path: &Path,
    open_timeout: Duration,
) -> Result<Opened> {
    let path = path.to_path_buf();
    // The read side's open waits for the writer (`cat`), which tmux starts.
    let opening = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || std::fs::File::open(path))
    };
    let mut line = before.to_vec();
    line.push(pipe_command(target, &path));
    let replies = match client.group(&line).await {
        Ok(replies) => replies,
        Err(e) => {
            unblock(&path).await;
            let _ = opening.await;
            return Err(e);
        }
    };
    let piped = replies.len() == line.len() && replies.iter().all(|r| r.success);
    if !piped {
        unblock(&path).await;
        let _ = opening.await;
        return Ok(Opened::Not(replies));
    }
    let file = match tokio::time::timeout(open_timeout, opening).await {
        Ok(Ok(Ok(file))) => file,
        Ok(Ok(Err(e))) => {
            let _ = std::fs::remove_file(&path);
            return Err(Error::io(format!("opening the FIFO {}", path.display()), e));
        }
        Ok(Err(join)) => {
            let _ = std::fs::remove_file(&path);
            return Err(Error::io(
                "opening a stream's FIFO",
                std::io::Error::other(join.to_string()),
            ));
        }
        Err(_) => {
            unblock(&path).await;
            return Err(Error::Timeout {
                command: "pipe-pane".into(),
                after: open_timeout,
            });
        }
    };
    // Both sides are open: the name is no longer needed.
    let _ = std::fs::remove_file(&path);
    let feed = Feed::start(file, capacity)?;
    let mut before_replies = replies;
    before_replies.pop();
    Ok(Opened::Ours(feed, before_replies))
}
