//! What the connection's tasks and its handles share: the command lines waiting for their
//! replies, the end once it came, the notification channel, the last stray line.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use tokio::sync::{broadcast, oneshot, watch};

use crate::end::ConnectionEnd;
use crate::parse::{Notification, Reply};

pub(super) type Slot = oneshot::Sender<std::result::Result<Vec<Reply>, ConnectionEnd>>;

/// What one command line written waits for: the replies of its commands, `expected` of them,
/// fewer when one fails. tmux runs the commands of one line (`a ; b ; c`) as a group: the first
/// that fails (`%error`) removes the rest of its line, which then give no reply block at all
/// (cmd-queue.c, `cmdq_remove_group`; the same from 3.2a to 3.7c, measured).
pub(super) struct PendingLine {
    pub(super) expected: usize,
    pub(super) replies: Vec<Reply>,
    pub(super) slot: Slot,
}

impl PendingLine {
    pub(super) fn new(expected: usize, slot: Slot) -> Self {
        PendingLine {
            expected,
            replies: Vec::with_capacity(expected),
            slot,
        }
    }
}

pub(super) enum Job {
    /// Lines to write in one piece, with one reply slot per command line.
    Write {
        bytes: Vec<u8>,
        slots: Vec<PendingLine>,
    },
    /// An empty line: tmux detaches the client. `done` is sent once its process exited
    /// (or was killed).
    Detach { done: oneshot::Sender<()> },
}

#[derive(Default)]
pub(super) struct State {
    /// One slot per command line written and not yet answered, in the order written.
    pub(super) pending: VecDeque<PendingLine>,
    pub(super) ended: Option<ConnectionEnd>,
}

pub(super) struct Shared {
    pub(super) state: Mutex<State>,
    pub(super) end_tx: watch::Sender<Option<ConnectionEnd>>,
    pub(super) notify: Mutex<Option<broadcast::Sender<Notification>>>,
    /// The last line tmux printed outside the protocol (e.g. a load-buffer error, which 3.3a
    /// prints after the command's `%end`).
    pub(super) stray: Mutex<Option<Vec<u8>>>,
    /// Set once tmux answered the attach: before, no command may be sent (3.3a reads input
    /// before the attach has run), and a connection given up is killed rather than detached.
    pub(super) attached: AtomicBool,
}

impl Shared {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the connection once: fails every pending command, closes the notification
    /// channel, publishes the reason.
    pub(super) fn end(&self, reason: ConnectionEnd) {
        let pending = {
            let mut state = self.lock();
            if state.ended.is_some() {
                return;
            }
            state.ended = Some(reason.clone());
            std::mem::take(&mut state.pending)
        };
        tracing::debug!(%reason, pending = pending.len(), "tmux control connection ended");
        for line in pending {
            let _ = line.slot.send(Err(reason.clone()));
        }
        self.notify.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.end_tx.send_replace(Some(reason));
    }

    pub(super) fn deliver(&self, reply: Reply) {
        let done = {
            let mut state = self.lock();
            let Some(line) = state.pending.front_mut() else {
                drop(state);
                tracing::warn!(
                    number = reply.number,
                    "tmux sent a reply to a command this client did not send"
                );
                return;
            };
            let failed = !reply.success;
            line.replies.push(reply);
            // The line is answered once every command replied, or one failed: tmux then
            // drops the rest of the line's group.
            if failed || line.replies.len() >= line.expected {
                state.pending.pop_front()
            } else {
                None
            }
        };
        // A closed slot is a command that timed out or was abandoned: its replies are dropped
        // here, and the queue stays aligned.
        if let Some(line) = done {
            let _ = line.slot.send(Ok(line.replies));
        }
    }

    pub(super) fn ended(&self) -> Option<ConnectionEnd> {
        self.lock().ended.clone()
    }
}
