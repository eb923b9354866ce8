//! The one error type of tmux-cc.

use std::path::PathBuf;
use std::time::Duration;

use crate::end::ConnectionEnd;
use crate::exit::ServerExit;
use crate::quote::QuoteError;

/// The oldest tmux version tmux-cc supports, (major, minor): [`TmuxVersion::MIN`](crate::TmuxVersion::MIN).
pub(crate) const OLDEST_TMUX: (u32, u32) = (3, 2);

/// Everything that can go wrong in tmux-cc. Messages name what failed and, where there is one,
/// what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The tmux program could not be found (`ENOENT` when starting it).
    #[error(
        "tmux was not found (looked for {}): install tmux {}.{} or later",
        path.display(),
        OLDEST_TMUX.0,
        OLDEST_TMUX.1
    )]
    TmuxMissing {
        /// The program that was looked for (`tmux` unless set in `ServerOptions::tmux`).
        path: PathBuf,
    },
    /// The tmux version is older than [`TmuxVersion::MIN`](crate::TmuxVersion::MIN), the oldest tmux-cc supports.
    #[error(
        "tmux {version} is too old: tmux-cc needs tmux {}.{} or later (`tmux -V` said {said:?}): \
         install a newer tmux from your distribution, or build a release from \
         https://github.com/tmux/tmux/releases",
        OLDEST_TMUX.0,
        OLDEST_TMUX.1
    )]
    TmuxTooOld {
        /// The version as parsed, e.g. `3.2`.
        version: String,
        /// What `tmux -V` printed, trimmed.
        said: String,
    },
    /// `tmux -V` printed something that is not a version.
    #[error("could not read the tmux version: `tmux -V` said {said:?}")]
    TmuxVersionUnknown {
        /// What `tmux -V` printed, trimmed.
        said: String,
    },
    /// The socket name given to `tmux -L` is not usable.
    #[error("bad tmux socket name {name:?}: {reason}")]
    BadSocketName {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Another tmux server already answers on the socket: the new server refused to start.
    #[error(
        "another tmux server (pid {pid}) already serves socket {socket:?}: stop it, or choose another socket name"
    )]
    ServerSocketInUse {
        /// The socket name (`-L`).
        socket: String,
        /// The pid of the server answering there (its `#{pid}`).
        pid: u32,
    },
    /// The server child exited while starting, and no other server answers on its socket.
    #[error(
        "the tmux server for socket {socket:?} exited while starting ({}){}",
        exit.status,
        stderr_suffix(stderr)
    )]
    ServerExitedAtStart {
        /// The socket name (`-L`).
        socket: String,
        /// How it exited.
        exit: ServerExit,
        /// The end of what it wrote to its standard error, if anything.
        stderr: String,
    },
    /// The server child runs but did not answer `display-message -p '#{pid}'` with its pid in
    /// time.
    #[error("the tmux server for socket {socket:?} (pid {pid}) did not answer within {waited:?}")]
    ServerNotReady {
        /// The socket name (`-L`).
        socket: String,
        /// The pid of the child started.
        pid: u32,
        /// How long it was given.
        waited: Duration,
    },
    /// A process could not be started, or an I/O operation with one failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The control client could not attach: tmux ended it, or never printed the attach.
    #[error("the control client for socket {socket:?} could not attach: {detail}")]
    AttachFailed {
        /// The socket name (`-L`).
        socket: String,
        /// What happened instead.
        detail: String,
    },
    /// The control connection has ended (before or while this command was pending): every
    /// pending and later command fails with this error.
    #[error("the tmux control connection has ended: {0}")]
    ConnectionEnded(ConnectionEnd),
    /// No reply came within the command's timeout. The connection stays usable: the late
    /// reply, if it comes, is discarded.
    #[error("tmux did not answer `{command}` within {after:?}")]
    Timeout {
        /// The command's name (its first word), or the first command of an input.
        command: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// tmux answered the command with `%error`.
    #[error("tmux refused `{command}`: {message}")]
    Command {
        /// The command's name (its first word). Arguments are never put in errors: they may
        /// hold an agent's text.
        command: String,
        /// tmux's message, the reply's lines joined with new lines (lossy UTF-8).
        message: String,
    },
    /// tmux answered in a shape the operation did not expect.
    #[error("unexpected reply to `{command}`: {detail}")]
    UnexpectedReply {
        /// The command's name.
        command: String,
        /// What was wrong.
        detail: String,
    },
    /// An argument cannot be put into a command line (a NUL byte).
    #[error(transparent)]
    Quote(#[from] QuoteError),
    /// The operation is refused by tmux-cc itself because tmux would misbehave.
    #[error("refused: {0}")]
    Refused(&'static str),
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}

/// tmux-cc's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
