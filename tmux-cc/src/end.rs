//! Why a control connection ended.

use std::fmt;

/// Why the control connection ended. Reported once ([`Client::closed`](crate::Client::closed)), and
/// carried by the [`Error::ConnectionEnded`](crate::Error::ConnectionEnded) of every command pending then or sent later.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionEnd {
    /// tmux printed `%exit`, with its reason if any (3.3a: none after an empty line or the end
    /// of input, `detached`, `server exited`, `server exited unexpectedly`, `too far behind`).
    Exit {
        /// The reason after `%exit`.
        reason: Option<String>,
    },
    /// The client's output ended without `%exit` (the process died).
    Eof,
    /// Reading the client's output failed.
    ReadFailed(String),
    /// Writing a command to the client failed.
    WriteFailed(String),
}

impl fmt::Display for ConnectionEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionEnd::Exit { reason: None } => {
                f.write_str("tmux ended the control client (%exit)")
            }
            ConnectionEnd::Exit {
                reason: Some(reason),
            } => write!(f, "tmux ended the control client (%exit: {reason})"),
            ConnectionEnd::Eof => f.write_str(
                "the control client's output ended without %exit (the tmux client process died)",
            ),
            ConnectionEnd::ReadFailed(e) => {
                write!(f, "reading from the control client failed: {e}")
            }
            ConnectionEnd::WriteFailed(e) => write!(f, "writing to the control client failed: {e}"),
        }
    }
}
