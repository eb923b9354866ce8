//! One lock per tmux server, so that no control connection of this process attaches to a
//! server while another of its connections detaches from it, or attaches too.
//!
//! tmux crashes (SIGSEGV) when it notifies a control client that is still connecting, or
//! looks at a client that is leaving while the session it leaves is already gone
//! (docs/design/engine-streams.md, "tmux crashes"; counted by `examples/attach_crash.rs`):
//! - a connecting client is marked as a control client as soon as tmux reads its
//!   `MSG_IDENTIFY_FLAGS`, but its control state is made only at `MSG_IDENTIFY_DONE`, which
//!   tmux reads in a later pass of its loop; a notification written to every control client
//!   meanwhile (`%client-detached` of a client that went, `%sessions-changed` of a session
//!   made by another client's `new-session`) follows the missing state (3.2a to 3.6b);
//! - a detaching client is no longer counted as attached (`CLIENT_EXIT`) while it still
//!   points to its session, so that a session with `destroy-unattached` is destroyed by the
//!   next attach or detach of another client, and tmux then follows the destroyed session's
//!   missing current window for the leaving client (3.2a to 3.7c).
//!
//! So each connection holds its server's lock from the start of its `tmux -C` process until
//! tmux answered its attach (its control state exists and it is attached), and from its
//! detach (the empty line, or its input closed) until its process exited (tmux has taken it
//! off its session and destroyed what its leaving destroys; the end of its socket is there to
//! be read before any later client connects). Each hold ends within a bounded time: the
//! attach timeout, or a detach's grace after which the process is killed.
//!
//! The lock is this process's: clients of other processes (a user's `tmux`) can still meet
//! the same crashes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::time::timeout;

use super::ServerSocket;

/// The lock of one server (see the module's documentation).
pub(crate) type ServerLock = Arc<tokio::sync::Mutex<()>>;

/// The lock of the server at `socket`, shared by every connection of this process to it
/// while one lives.
pub(super) fn server_lock(socket: &ServerSocket) -> ServerLock {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Weak<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let key = socket_file(socket);
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(lock) = locks.get(&key).and_then(Weak::upgrade) {
        return lock;
    }
    locks.retain(|_, lock| lock.strong_count() > 0);
    let lock = ServerLock::default();
    locks.insert(key, Arc::downgrade(&lock));
    lock
}

/// The server's socket file as tmux finds it: `-S PATH`, or for `-L NAME` the name in
/// `$TMUX_TMPDIR/tmux-UID` (`/tmp` when unset or empty), with symbolic links resolved when
/// the file exists, so that both ways of naming one server give one lock.
fn socket_file(socket: &ServerSocket) -> PathBuf {
    let path = match socket {
        ServerSocket::Path(path) => path.clone(),
        ServerSocket::Name(name) => {
            let base = std::env::var_os("TMUX_TMPDIR")
                .filter(|dir| !dir.is_empty())
                .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
            base.join(format!("tmux-{}", nix::unistd::getuid()))
                .join(name)
        }
    };
    std::fs::canonicalize(&path).unwrap_or(path)
}

/// The process of one connection, as the task that owns it (`watch_child`) shows it: ask it
/// to kill the process, wait until the process was reaped.
#[derive(Clone)]
pub(super) struct Process {
    pub(super) kill: Arc<Notify>,
    pub(super) exited: watch::Receiver<bool>,
}

impl Process {
    pub(super) fn exited(&self) -> bool {
        *self.exited.borrow()
    }

    /// Waits at most `limit` for the process's end; `false` if it still runs.
    pub(super) async fn wait(&self, limit: Duration) -> bool {
        let mut exited = self.exited.clone();
        // An `Err` is the owning task gone: the runtime is shutting down, nothing runs.
        matches!(
            timeout(limit, exited.wait_for(|e| *e)).await,
            Ok(Ok(_) | Err(_))
        )
    }

    /// Waits `grace` for the process's end, then kills it and waits for that (1 s at most).
    pub(super) async fn end_within(&self, grace: Duration) {
        if !self.wait(grace).await {
            self.kill.notify_one();
            self.wait(Duration::from_secs(1)).await;
        }
    }
}
