//! Support for tests that run a real tmux server on a private socket (feature `test-support`):
//! a socket name no other test uses, and a guard that kills that server even when the test
//! fails.
//!
//! ```no_run
//! use tmux_cc::test_support::SocketGuard;
//!
//! # async fn demo() -> tmux_cc::Result<()> {
//! let guard = SocketGuard::new("my-test"); // socket my-test-PID-N
//! let server = tmux_cc::Server::start(&guard.socket).await?;
//! // ... the test; when `guard` drops, `tmux -L my-test-PID-N kill-server` runs.
//! # drop(server);
//! # Ok(()) }
//! ```

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// A socket name unique to this process and call: `PREFIX-PID-N`, N counting the calls of this
/// process from 0. Valid for `tmux -L` when `prefix` is (ASCII letters, digits, `-`, `_`,
/// `.`; see [`validate_socket_name`](crate::validate_socket_name)) and short enough.
pub fn socket_name(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Kills the tmux server on `socket` when dropped (`tmux -L SOCKET kill-server`, run whatever
/// happened, its output discarded), then removes the socket file, which a killed server
/// leaves behind: `$TMUX_TMPDIR/tmux-UID/SOCKET` (`/tmp` when `TMUX_TMPDIR` is unset).
#[derive(Debug)]
pub struct SocketGuard {
    /// The socket name (`tmux -L`).
    pub socket: String,
}

impl SocketGuard {
    /// A guard of a fresh socket, named by [`socket_name`]`(prefix)`.
    pub fn new(prefix: &str) -> SocketGuard {
        SocketGuard {
            socket: socket_name(prefix),
        }
    }

    /// A guard of the socket `socket` as it is named, for a server another program names
    /// (ratd's `rat-TENANT`).
    pub fn named(socket: impl Into<String>) -> SocketGuard {
        SocketGuard {
            socket: socket.into(),
        }
    }
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // A server that was killed leaves its socket file behind.
        let dir = std::env::var_os("TMUX_TMPDIR").unwrap_or_else(|| "/tmp".into());
        let path = Path::new(&dir)
            .join(format!("tmux-{}", nix::unistd::getuid()))
            .join(&self.socket);
        let _ = std::fs::remove_file(path);
    }
}
