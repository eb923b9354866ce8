//! Sessions: create, ask for, kill.

use std::path::PathBuf;

use crate::client::Client;
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::{PaneId, SessionId, WindowId};
use crate::version::Difference;

use super::{DEFAULT_HEIGHT, DEFAULT_WIDTH, field, one_line, push_new_common};

/// `new-session -d -x W -y H -s NAME`: what to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// The session's name (`-s`). tmux replaces `:` and `.` with `_`.
    pub name: String,
    /// The first window's name (`-n`); tmux names it after its command when `None`.
    pub window_name: Option<String>,
    /// The start directory (`-c`), also the default for the session's later windows.
    pub start_directory: Option<PathBuf>,
    /// Variables set in the first window's environment (`-e NAME=VALUE`, each).
    pub environment: Vec<(String, Vec<u8>)>,
    /// The command: empty for the default shell, one word run by the shell (`sh -c`), or
    /// several words executed directly.
    pub command: Vec<Vec<u8>>,
    /// Columns (`-x`): [`DEFAULT_WIDTH`] by default.
    pub width: u32,
    /// Rows (`-y`): [`DEFAULT_HEIGHT`] by default.
    pub height: u32,
}

impl NewSession {
    /// A session named `name`, 200x24, default shell, tmux's start directory.
    pub fn new(name: impl Into<String>) -> Self {
        NewSession {
            name: name.into(),
            window_name: None,
            start_directory: None,
            environment: Vec::new(),
            command: Vec::new(),
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
        }
    }
}

/// What `new-session` created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCreated {
    /// `#{session_id}`.
    pub session: SessionId,
    /// `#{window_id}` of its first window.
    pub window: WindowId,
    /// `#{pane_id}` of that window's pane.
    pub pane: PaneId,
}

impl Client {
    /// Creates a detached session: `new-session -d -P -F ... -x W -y H -s NAME [-n] [-c] [-e]
    /// [-- COMMAND]` (on 3.2, after `refresh-client -C WxH` in the same input:
    /// [`Difference::NewSessionSizeIgnored`]).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `duplicate session: NAME`), and the connection's errors.
    pub async fn new_session(&self, new: &NewSession) -> Result<SessionCreated> {
        let cmd = Command::new("new-session")
            .args(["-d", "-P", "-F", "#{session_id} #{window_id} #{pane_id}"])
            .args(["-x", &new.width.to_string(), "-y", &new.height.to_string()])
            .args(["-s", &new.name])
            .opt("-n", new.window_name.as_deref());
        let cmd = push_new_common(cmd, &new.start_directory, &new.environment, &new.command);
        let output = if self.features().has(Difference::NewSessionSizeIgnored) {
            // The size comes from this client's own: set it first, in the same input.
            let size = format!("{}x{}", new.width, new.height);
            let refresh = Command::new("refresh-client").args(["-C", &size]);
            let mut replies = self.input_ok(&[refresh, cmd]).await?;
            replies.pop().unwrap_or_default()
        } else {
            self.run(&cmd).await?
        };
        let line = one_line("new-session", output)?;
        let mut parts = line.split(' ');
        let mut next = |what| {
            parts.next().ok_or_else(|| Error::UnexpectedReply {
                command: "new-session".into(),
                detail: format!("no {what} in {line:?}"),
            })
        };
        let created = SessionCreated {
            session: field("new-session", "session_id", next("session_id")?)?,
            window: field("new-session", "window_id", next("window_id")?)?,
            pane: field("new-session", "pane_id", next("pane_id")?)?,
        };
        Ok(created)
    }

    /// Whether a session answers to `target` (`has-session -t TARGET`; use `=NAME` for an
    /// exact name).
    ///
    /// # Errors
    /// The connection's errors only: any `%error` means no.
    pub async fn has_session(&self, target: &str) -> Result<bool> {
        let reply = self
            .reply(&Command::new("has-session").args(["-t", target]))
            .await?;
        Ok(reply.success)
    }

    /// `kill-session -t TARGET`.
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find session: =x`), and the connection's errors.
    pub async fn kill_session(&self, target: &str) -> Result<()> {
        self.run(&Command::new("kill-session").args(["-t", target]))
            .await
            .map(drop)
    }
}
