//! How a control client is attached: which server, which session, with which client flags.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};

/// How a control client is attached. [`ClientOptions::default`] gives the defaults, which are
/// the attach every existing caller relies on: a hidden service session of the client's own,
/// flags `no-output,ignore-size`.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The name of the hidden service session the client attaches to, created for it and
    /// destroyed when it goes (`destroy-unattached on`). Default: `tmux-cc-PID-N` (this
    /// process's pid, a counter). ASCII letters, digits, `-`, `_` and `+` only (a `+` keeps
    /// it apart from names made of the others, which tmux leaves as they are). Unused with
    /// [`Attach::Session`].
    pub service_session: Option<String>,
    /// Which session the client attaches to: default [`Attach::ServiceSession`].
    pub attach: Attach,
    /// The client flags given at attach time (`-f`), never changed later.
    pub flags: ClientFlags,
    /// The default timeout of each command (see [`Client::with_timeout`](crate::Client::with_timeout)): 10 s.
    pub command_timeout: Duration,
    /// How long tmux may take to attach the client: 5 s.
    pub attach_timeout: Duration,
    /// How many notifications a slow subscriber may fall behind before it misses some (it
    /// then gets their count, [`Delivery::Lagged`](crate::Delivery::Lagged)): 1024.
    pub notification_capacity: usize,
    /// Where the private directory for paste and buffer files is created (mode 0700, removed
    /// with the client). Default: `$XDG_RUNTIME_DIR` when set (a tmpfs on systemd machines),
    /// else the system's temporary directory.
    pub private_dir_parent: Option<PathBuf>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            service_session: None,
            attach: Attach::ServiceSession,
            flags: ClientFlags::default(),
            command_timeout: Duration::from_secs(10),
            attach_timeout: Duration::from_secs(5),
            notification_capacity: 1024,
            private_dir_parent: None,
        }
    }
}

/// Which tmux server a client talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSocket {
    /// `-L NAME`: a socket named NAME in tmux's socket directory (`/tmp/tmux-UID/` or
    /// `$TMUX_TMPDIR`). The name is checked ([`validate_socket_name`](crate::validate_socket_name)).
    Name(String),
    /// `-S PATH`: the socket at that path, e.g. the one a user's `$TMUX` names.
    Path(PathBuf),
}

impl ServerSocket {
    /// The arguments that select this server on a tmux command line: `-L NAME` or `-S PATH`.
    pub fn args(&self) -> [std::ffi::OsString; 2] {
        match self {
            ServerSocket::Name(name) => ["-L".into(), name.into()],
            ServerSocket::Path(path) => ["-S".into(), path.into()],
        }
    }

    /// The name, or the path as text, for messages.
    pub fn label(&self) -> String {
        match self {
            ServerSocket::Name(name) => name.clone(),
            ServerSocket::Path(path) => path.display().to_string(),
        }
    }
}

/// Which session a control client is attached to. tmux needs one: a control client without
/// a session gets no notifications and cannot resolve a target without `-t`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Attach {
    /// `new-session -s SERVICE ... sleep 2147483647`: a hidden session of the client's own,
    /// destroyed when it goes (`destroy-unattached on`, `detach-on-destroy on` set on it).
    /// The server gains a session while the client lives (other control clients see
    /// `%sessions-changed`); [`Client::service_session`](crate::Client::service_session)
    /// names it so tools can hide it.
    #[default]
    ServiceSession,
    /// `attach-session -t TARGET`: an existing session (any target tmux takes: `=name`,
    /// `$3`). Nothing is created and no option is set: sessions, windows and their sizes
    /// (with `ignore_size`) stay as they were. What an attach does in tmux still happens: the
    /// session counts one more attached client while this one lives, its activity and
    /// last-attached times are set (so a later `tmux attach` with no target, which picks the
    /// most recently used session, may pick this one), and the server's `client-attached`
    /// and `client-session-changed` hooks run.
    Session(String),
}

/// The client flags tmux takes at attach time (`new-session -f` / `attach-session -f`). They
/// are given once and never toggled: toggling `no-output` while output is queued can wedge
/// every later reply (tmux 3.3a, tmux issue 5049).
///
/// Default: `no-output,ignore-size`, the flags a command connection needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientFlags {
    /// Receive pane output (`%output`, or `%extended-output` with `pause_after`). `false`
    /// gives `no-output`: tmux sends none, and never waits for this client to read it.
    pub output: bool,
    /// `pause-after=N`: tmux pauses a pane for this client (`%pause %N`) when output it has
    /// queued for it is older than this many SECONDS (tmux multiplies the number by 1000 and
    /// compares milliseconds); what the pane prints while paused is dropped for this client
    /// until `refresh-client -A '%N:continue'`. `Some(0)` pauses as soon as any output waits.
    /// Without it tmux ends a client 300 s behind (`%exit too far behind`).
    pub pause_after: Option<u32>,
    /// `ignore-size`: the client's size never sizes a window.
    pub ignore_size: bool,
    /// `read-only`: tmux refuses the client's commands that change anything.
    pub read_only: bool,
}

impl Default for ClientFlags {
    fn default() -> Self {
        ClientFlags {
            output: false,
            pause_after: None,
            ignore_size: true,
            read_only: false,
        }
    }
}

impl ClientFlags {
    /// The value of `-f`, e.g. `no-output,ignore-size`; `None` when no flag is set.
    pub fn arg(&self) -> Option<String> {
        let mut flags = Vec::new();
        if !self.output {
            flags.push("no-output".to_string());
        }
        if let Some(seconds) = self.pause_after {
            flags.push(format!("pause-after={seconds}"));
        }
        if self.ignore_size {
            flags.push("ignore-size".to_string());
        }
        if self.read_only {
            flags.push("read-only".to_string());
        }
        (!flags.is_empty()).then(|| flags.join(","))
    }
}

/// Checks a socket name for `tmux -L`.
///
/// # Errors
/// [`Error::BadSocketName`] saying what is wrong.
pub fn validate_socket_name(name: &str) -> Result<()> {
    let bad = |reason| {
        Err(Error::BadSocketName {
            name: name.to_string(),
            reason,
        })
    };
    if name.is_empty() {
        return bad("it is empty");
    }
    if name.len() > 64 {
        return bad("it is longer than 64 bytes");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
    {
        return bad("use only ASCII letters, digits, '-', '_' and '.'");
    }
    if name.starts_with('.') {
        return bad("it may not start with '.'");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_flags_are_todays() {
        assert_eq!(
            ClientFlags::default().arg().as_deref(),
            Some("no-output,ignore-size")
        );
        let stream = ClientFlags {
            output: true,
            pause_after: Some(2),
            ignore_size: true,
            read_only: true,
        };
        assert_eq!(
            stream.arg().as_deref(),
            Some("pause-after=2,ignore-size,read-only")
        );
        let none = ClientFlags {
            output: true,
            pause_after: None,
            ignore_size: false,
            read_only: false,
        };
        assert_eq!(none.arg(), None);
    }
}
