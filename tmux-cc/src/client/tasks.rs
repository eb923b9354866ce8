//! The tasks of one connection: the reader (replies, notifications, the attach), the writer
//! (command lines in the order sent), and the owner of the process.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;

use super::ConnectionEnd;
use super::shared::{Job, Shared};
use crate::parse::{Event, Notification, ParseError, Parser};

struct AttachWait {
    tx: oneshot::Sender<std::result::Result<(), String>>,
    block_seen: bool,
    session_seen: bool,
}

pub(super) async fn read_loop(
    mut stdout: ChildStdout,
    shared: Arc<Shared>,
    attach: oneshot::Sender<std::result::Result<(), String>>,
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
                    handle(item, &shared, &mut attach);
                }
            }
            Err(e) => break ConnectionEnd::ReadFailed(e.to_string()),
        }
    };
    for item in parser.finish() {
        handle(item, &shared, &mut attach);
    }
    if let Some(wait) = attach.take() {
        let _ = wait.tx.send(Err(format!("{end} before attaching")));
    }
    shared.end(end);
}

fn handle(
    item: std::result::Result<Event, ParseError>,
    shared: &Shared,
    attach: &mut Option<AttachWait>,
) {
    match item {
        Ok(Event::Reply(reply)) if reply.flags == 0 => {
            // Not a reply to this client's commands: the initial attach block.
            if let Some(wait) = attach.as_mut() {
                if !reply.success {
                    let message = String::from_utf8_lossy(&reply.lines.join(&b'\n')).into_owned();
                    if let Some(wait) = attach.take() {
                        let _ = wait.tx.send(Err(format!("tmux refused it: {message}")));
                    }
                    return;
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
            if let Some(tx) = &*shared.notify.lock().unwrap_or_else(|e| e.into_inner()) {
                let _ = tx.send(notification);
            }
        }
        Err(error) => {
            tracing::debug!(%error, "tmux printed a line outside the control protocol");
            *shared.stray.lock().unwrap_or_else(|e| e.into_inner()) = Some(error.line);
        }
    }
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
