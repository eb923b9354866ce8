//! The tasks of one connection: the reader (replies, notifications, the attach), the writer
//! (command lines in the order sent), and the owner of the process.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;

use super::shared::{Job, Shared};
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

pub(super) async fn write_loop(
    mut stdin: ChildStdin,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    shared: Arc<Shared>,
) {
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
            Job::Detach => b"\n".to_vec(),
        };
        if let Err(e) = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        }
        .await
        {
            shared.end(ConnectionEnd::WriteFailed(e.to_string()));
        }
    }
    // Every handle is gone: dropping stdin makes tmux detach the client.
}

/// Owns the process: reaps it; once every handle is gone (stdin then closed, so tmux detaches
/// it), kills it if it is still there a second later.
pub(super) async fn watch_child(mut child: Child, close: oneshot::Receiver<()>) {
    tokio::select! {
        _ = child.wait() => {}
        _ = close => {
            if timeout(Duration::from_secs(1), child.wait()).await.is_err() {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
        }
    }
}
