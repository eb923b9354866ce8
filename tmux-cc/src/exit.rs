//! How a process ended, and how a tmux server was stopped: the values [`Server::wait`] and
//! [`Server::stop`] give, and [`Error::ServerExitedAtStart`] carries. Apart from the server
//! and the error so that neither imports the other's module for them.
//!
//! [`Server::wait`]: crate::Server::wait
//! [`Server::stop`]: crate::Server::stop
//! [`Error::ServerExitedAtStart`]: crate::Error::ServerExitedAtStart

use std::fmt;
use std::process::ExitStatus;

use nix::sys::signal::Signal;

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// It exited with this status.
    Code(i32),
    /// It was killed by this signal number.
    Signal(i32),
    /// Waiting for it failed (the kernel did not say).
    Unknown,
}

impl From<ExitStatus> for ExitKind {
    fn from(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => ExitKind::Code(code),
            (None, Some(signal)) => ExitKind::Signal(signal),
            (None, None) => ExitKind::Unknown,
        }
    }
}

impl fmt::Display for ExitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ExitKind::Code(code) => write!(f, "exited with status {code}"),
            ExitKind::Signal(signal) => match Signal::try_from(signal) {
                Ok(name) => write!(f, "killed by signal {signal} ({})", name.as_str()),
                Err(_) => write!(f, "killed by signal {signal}"),
            },
            ExitKind::Unknown => f.write_str("ended in an unknown way (waiting for it failed)"),
        }
    }
}

/// The end of a tmux server: how it ended, and whether it was asked to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerExit {
    /// Its exit status or signal.
    pub status: ExitKind,
    /// Whether the end was asked for through this handle
    /// ([`Server::stop`](crate::Server::stop), or the last handle dropped). `false` is a
    /// death: a crash, the OOM killer, `kill-server` typed in a pane.
    pub requested: bool,
}

impl fmt::Display for ServerExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.requested {
            write!(f, "{}", self.status)
        } else {
            write!(f, "{}, unasked", self.status)
        }
    }
}

/// Which step of [`Server::stop`](crate::Server::stop) ended the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopStep {
    /// It had already exited before the stop began.
    AlreadyExited,
    /// `tmux kill-server` was enough.
    KillServer,
    /// It exited only after SIGTERM (kill-server did not end it within its grace).
    Terminate,
    /// It exited only after SIGKILL.
    Kill,
}

impl fmt::Display for StopStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopStep::AlreadyExited => "had already exited",
            StopStep::KillServer => "stopped by kill-server",
            StopStep::Terminate => "stopped by SIGTERM after kill-server did not stop it",
            StopStep::Kill => "stopped by SIGKILL after kill-server and SIGTERM did not stop it",
        })
    }
}

/// What [`Server::stop`](crate::Server::stop) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopReport {
    /// The step that was needed.
    pub step: StopStep,
    /// How the server ended.
    pub exit: ServerExit,
}
