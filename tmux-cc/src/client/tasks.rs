//! The tasks of one connection: the reader (replies, notifications, the attach), the writer
//! (command lines in the order sent, then the close), and the owner of the process.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{Notify, mpsc, oneshot, watch};

use super::server_lock::{Process, ServerLock};
use super::shared::{Job, PendingLine, Shared};
use crate::end::ConnectionEnd;
use crate::parse::{Event, Notification, ParseError, Parser};

/// Where a connection sends the notifications that a module built on it takes for itself (a
/// stream's pane output), in the order tmux printed them. The connection knows nothing of what
/// they mean: `route` says, for each notification, whether it goes to `tx`, on to the
/// subscribers, both, or nowhere.
///
/// The channel is bounded and the reader waits for room: a consumer that does not take items
/// stops the reading of the connection's pipe, and tmux, seeing its output age, pauses the
/// pane for this client (`pause-after`) rather than buffering without end.
pub(crate) struct Route {
    /// Where each notification goes.
    pub(crate) route: Box<dyn Fn(&Notification) -> Routed + Send + Sync>,
    /// The routed notifications.
    pub(crate) tx: mpsc::Sender<Notification>,
}

/// Where one notification goes ([`Route::route`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Routed {
    /// To the route's channel only.
    Taken,
    /// To the route's channel and to the subscribers.
    Shared,
    /// To the subscribers only.
    Passed,
    /// Nowhere.
    Dropped,
}

impl Route {
    /// What of `notification` goes to the route, and what goes on to the subscribers.
    fn split(&self, notification: Notification) -> (Option<Notification>, Option<Notification>) {
        match (self.route)(&notification) {
            Routed::Taken => (Some(notification), None),
            Routed::Shared => (Some(notification.clone()), Some(notification)),
            Routed::Passed => (None, Some(notification)),
            Routed::Dropped => (None, None),
        }
    }
}

struct AttachWait {
    tx: oneshot::Sender<std::result::Result<(), String>>,
    block_seen: bool,
    session_seen: bool,
}

pub(super) async fn read_loop(
    mut stdout: ChildStdout,
    shared: Arc<Shared>,
    attach: oneshot::Sender<std::result::Result<(), String>>,
    mut sink: Option<Route>,
) {
    let mut parser = Parser::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut attach = Some(AttachWait {
        tx: attach,
        block_seen: false,
        session_seen: false,
    });
    let end = loop {
        match stdout.read(&mut buf).await {
            Ok(0) => break ConnectionEnd::Eof,
            Ok(n) => {
                parser.feed(&buf[..n]);
                while let Some(item) = parser.next_item() {
                    if let Some(raw) = handle(item, &shared, &mut attach, sink.as_ref())
                        && let Some(out) = &sink
                        && out.tx.send(raw).await.is_err()
                    {
                        // The route's receiver is gone; the connection goes with its last handle.
                        sink = None;
                    }
                }
            }
            Err(e) => break ConnectionEnd::ReadFailed(e.to_string()),
        }
    };
    for item in parser.finish() {
        if let Some(raw) = handle(item, &shared, &mut attach, sink.as_ref())
            && let Some(out) = &sink
        {
            let _ = out.tx.send(raw).await;
        }
    }
    if let Some(wait) = attach.take() {
        let _ = wait.tx.send(Err(format!("{end} before attaching")));
    }
    shared.end(end);
}

/// Handles one item; returns what goes to the route, if any.
fn handle(
    item: std::result::Result<Event, ParseError>,
    shared: &Shared,
    attach: &mut Option<AttachWait>,
    sink: Option<&Route>,
) -> Option<Notification> {
    match item {
        Ok(Event::Reply(reply)) if reply.flags == 0 => {
            // Not a reply to this client's commands: the initial attach block.
            if let Some(wait) = attach.as_mut() {
                if !reply.success {
                    let message = String::from_utf8_lossy(&reply.lines.join(&b'\n')).into_owned();
                    if let Some(wait) = attach.take() {
                        let _ = wait.tx.send(Err(format!("tmux refused it: {message}")));
                    }
                    return None;
                }
                wait.block_seen = true;
                attach_done(attach);
            } else {
                tracing::debug!(number = reply.number, "ignoring a reply block with flags 0");
            }
        }
        Ok(Event::Reply(reply)) => shared.deliver(reply),
        Ok(Event::Notification(Notification::Exit { reason })) => {
            if let Some(wait) = attach.take() {
                let why = reason.clone().unwrap_or_else(|| "no reason".into());
                let _ = wait.tx.send(Err(format!("tmux ended it (%exit: {why})")));
            }
            shared.end(ConnectionEnd::Exit { reason });
        }
        Ok(Event::Notification(notification)) => {
            if let (Some(wait), Notification::SessionChanged { .. }) =
                (attach.as_mut(), &notification)
            {
                wait.session_seen = true;
                attach_done(attach);
            }
            let (raw, notification) = match sink {
                Some(sink) => sink.split(notification),
                None => (None, Some(notification)),
            };
            if let Some(notification) = notification
                && let Some(tx) = &*shared.notify.lock().unwrap_or_else(|e| e.into_inner())
            {
                let _ = tx.send(notification);
            }
            return raw;
        }
        Err(error) => {
            tracing::debug!(%error, "tmux printed a line outside the control protocol");
            *shared.stray.lock().unwrap_or_else(|e| e.into_inner()) = Some(error.line);
        }
    }
    None
}

fn attach_done(attach: &mut Option<AttachWait>) {
    if matches!(attach, Some(w) if w.block_seen && w.session_seen)
        && let Some(wait) = attach.take()
    {
        let _ = wait.tx.send(Ok(()));
    }
}

/// The writer: command lines in the order sent, then the connection's close, under the
/// server's lock (`server_lock.rs`): a detach asked for ([`Job::Detach`]), or every handle
/// gone (its input then closed, so tmux detaches it), waits until no other connection of the
/// server is attaching or detaching, then holds the lock until the process exited (killed
/// after `DETACH_GRACE`, or a second when its input was closed).
///
/// Before it detaches, a round trip (`settle`): the process of the connection that closed
/// before has exited, but tmux may not have read the end of its socket yet; when it reads
/// that in the same pass as this client's detach, it destroys this client's session
/// (`destroy-unattached`: a leaving client no longer counts as attached) while this client
/// still points to it, and crashes on it (3.2a to 3.7c, measured: `examples/attach_crash.rs`).
/// An answer to a command sent once that process exited comes after tmux read its end.
pub(super) async fn write_loop(
    stdin: ChildStdin,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    shared: Arc<Shared>,
    lock: ServerLock,
    process: Process,
) {
    let mut stdin = Some(stdin);
    while let Some(job) = jobs.recv().await {
        let bytes = match job {
            Job::Write { bytes, slots } => {
                let mut state = shared.lock();
                if let Some(end) = &state.ended {
                    let end = end.clone();
                    drop(state);
                    for line in slots {
                        let _ = line.slot.send(Err(end.clone()));
                    }
                    continue;
                }
                // Slots are queued before the bytes are written, so a reply can never arrive
                // before its slot.
                state.pending.extend(slots);
                bytes
            }
            Job::Detach { done } => {
                if !process.exited() {
                    let _held = lock.lock().await;
                    if !process.exited() {
                        settle(&mut stdin, &shared).await;
                        write(&mut stdin, b"\n", &shared).await;
                        process.end_within(DETACH_GRACE).await;
                    }
                }
                let _ = done.send(());
                continue;
            }
        };
        write(&mut stdin, &bytes, &shared).await;
    }
    // Every handle is gone: closing the input makes tmux detach the client. One whose
    // attach was given up (its `connect` dropped) is killed.
    if !process.exited() {
        let _held = lock.lock().await;
        if shared.attached.load(Ordering::SeqCst) {
            settle(&mut stdin, &shared).await;
            drop(stdin);
            process.end_within(Duration::from_secs(1)).await;
        } else {
            process.end_within(Duration::ZERO).await;
        }
    }
}

/// How long a detached client has to exit before it is killed: it prints `%exit` and exits
/// once tmux wrote it everything queued for it.
pub(super) const DETACH_GRACE: Duration = Duration::from_secs(2);

/// One round trip (an empty `display-message`), at most a second: a connection parked in a
/// `wait-for` answers only once it is released.
async fn settle(stdin: &mut Option<ChildStdin>, shared: &Shared) {
    let (slot, answer) = oneshot::channel();
    {
        let mut state = shared.lock();
        if state.ended.is_some() {
            return;
        }
        state.pending.push_back(PendingLine::new(1, slot));
    }
    write(stdin, b"display-message -p ''\n", shared).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), answer).await;
}

async fn write(stdin: &mut Option<ChildStdin>, bytes: &[u8], shared: &Shared) {
    let Some(pipe) = stdin.as_mut() else {
        return;
    };
    if let Err(e) = async {
        pipe.write_all(bytes).await?;
        pipe.flush().await
    }
    .await
    {
        shared.end(ConnectionEnd::WriteFailed(e.to_string()));
    }
}

/// Owns the process: reaps it, kills it when asked (`kill`: by the writer, once the grace
/// of a detach is over, or by an attach that failed), and reports when it exited.
pub(super) async fn watch_child(mut child: Child, kill: Arc<Notify>, exited: watch::Sender<bool>) {
    tokio::select! {
        _ = child.wait() => {}
        () = kill.notified() => {
            let _ = child.start_kill();
            let _ = child.wait().await;
        }
    }
    exited.send_replace(true);
}
