//! How a control client is attached.

use std::path::PathBuf;
use std::time::Duration;

/// How a control client is attached. [`ClientOptions::default`] gives the defaults.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The name of the hidden service session the client attaches to, created for it and
    /// destroyed when it goes (`destroy-unattached on`). Default: `tmux-cc-PID-N` (this
    /// process's pid, a counter). ASCII letters, digits, `-` and `_` only.
    pub service_session: Option<String>,
    /// The default timeout of each command (see [`Client::with_timeout`](crate::Client::with_timeout)): 10 s.
    pub command_timeout: Duration,
    /// How long tmux may take to attach the client: 5 s.
    pub attach_timeout: Duration,
    /// How many notifications a slow subscriber may fall behind before it misses some
    /// ([`RecvError::Lagged`](tokio::sync::broadcast::error::RecvError::Lagged)): 1024.
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
            command_timeout: Duration::from_secs(10),
            attach_timeout: Duration::from_secs(5),
            notification_capacity: 1024,
            private_dir_parent: None,
        }
    }
}
