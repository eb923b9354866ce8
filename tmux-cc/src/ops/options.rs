//! Options: set, unset and read at any scope; pane user options.

use crate::client::Client;
use crate::command::Command;
use crate::error::{Error, Result};

/// Where an option lives, as `set-option`/`show-options` flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionScope<'a> {
    /// `-s`: a server option.
    Server,
    /// `-g`: a global session option.
    GlobalSession,
    /// `-gw`: a global window option.
    GlobalWindow,
    /// `-t TARGET`: a session option.
    Session(&'a str),
    /// `-w -t TARGET`: a window option.
    Window(&'a str),
    /// `-p -t TARGET`: a pane option.
    Pane(&'a str),
}

impl OptionScope<'_> {
    fn push(&self, cmd: Command) -> Command {
        match *self {
            OptionScope::Server => cmd.arg("-s"),
            OptionScope::GlobalSession => cmd.arg("-g"),
            OptionScope::GlobalWindow => cmd.args(["-g", "-w"]),
            OptionScope::Session(t) => cmd.args(["-t", t]),
            OptionScope::Window(t) => cmd.args(["-w", "-t", t]),
            OptionScope::Pane(t) => cmd.args(["-p", "-t", t]),
        }
    }

    fn is_window_scoped(&self) -> bool {
        matches!(self, OptionScope::Window(_) | OptionScope::Pane(_))
    }
}

pub(super) fn check_user_option_name(name: &str) -> Result<()> {
    let ok = name.len() > 1
        && name.starts_with('@')
        && name[1..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::Refused(
            "a user option name is '@' then ASCII letters, digits, '_' or '-'",
        ))
    }
}

impl Client {
    /// `set-option [SCOPE] -- NAME VALUE`.
    ///
    /// # Errors
    /// [`Error::Refused`] for `window-size manual` outside one window or pane (tmux 3.3a
    /// segfaults on the next new-window or new-session, issue 4849); [`Error::Command`] (e.g.
    /// `invalid option`); the connection's errors.
    pub async fn set_option(&self, scope: OptionScope<'_>, name: &str, value: &[u8]) -> Result<()> {
        if name == "window-size" && value == b"manual" && !scope.is_window_scoped() {
            return Err(Error::Refused(
                "window-size manual is never set globally (tmux 3.3a segfaults on the next new-window, issue 4849): resize each window instead",
            ));
        }
        let cmd = scope
            .push(Command::new("set-option"))
            .args(["--", name])
            .arg(value);
        self.run(&cmd).await.map(drop)
    }

    /// `set-option -u [SCOPE] -- NAME`: unsets the option (back to its inherited value).
    ///
    /// # Errors
    /// [`Error::Command`], and the connection's errors.
    pub async fn unset_option(&self, scope: OptionScope<'_>, name: &str) -> Result<()> {
        let cmd = scope
            .push(Command::new("set-option").arg("-u"))
            .args(["--", name]);
        self.run(&cmd).await.map(drop)
    }

    /// `show-options -q -v [SCOPE] -- NAME`: the option's value set at that scope, `None` when
    /// unset there (inherited values are not looked up).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find pane`; an unknown option that is not a user
    /// option), and the connection's errors.
    pub async fn option(&self, scope: OptionScope<'_>, name: &str) -> Result<Option<Vec<u8>>> {
        let cmd = scope
            .push(Command::new("show-options").args(["-q", "-v"]))
            .args(["--", name]);
        let lines = self.run(&cmd).await?;
        Ok(if lines.is_empty() {
            None
        } else {
            Some(self.features().option_value(lines.join(&b'\n')))
        })
    }

    /// `set-option -p -t TARGET -- @NAME VALUE`: a pane user option.
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad name; as [`Client::set_option`].
    pub async fn set_pane_option(&self, target: &str, name: &str, value: &[u8]) -> Result<()> {
        check_user_option_name(name)?;
        self.set_option(OptionScope::Pane(target), name, value)
            .await
    }

    /// A pane user option's value, `None` when unset on that pane.
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad name; as [`Client::option`].
    pub async fn pane_option(&self, target: &str, name: &str) -> Result<Option<Vec<u8>>> {
        check_user_option_name(name)?;
        self.option(OptionScope::Pane(target), name).await
    }
}
