//! Windows: create (sized one by one), describe, kill.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::client::Client;
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::{PaneId, SessionId, WindowId};

use super::options::check_user_option_name;
use super::{DEFAULT_HEIGHT, DEFAULT_WIDTH, field, one_line, push_new_common};

/// `new-window -d` then `resize-window -x W -y H`: what to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWindow {
    /// Where (`-t`): a session target ending in `:` (e.g. `=work:`) for the next free index,
    /// or an exact window target for that index.
    pub target: String,
    /// The window's name (`-n`); tmux names it after its command when `None`.
    pub name: Option<String>,
    /// The start directory (`-c`).
    pub start_directory: Option<PathBuf>,
    /// Variables set in the window's environment (`-e NAME=VALUE`, each).
    pub environment: Vec<(String, Vec<u8>)>,
    /// The command, as in [`NewSession::command`](crate::NewSession::command).
    pub command: Vec<Vec<u8>>,
    /// Columns given by `resize-window -x` (which sets `window-size manual` for this window
    /// alone): [`DEFAULT_WIDTH`] by default.
    pub width: u32,
    /// Rows (`resize-window -y`): [`DEFAULT_HEIGHT`] by default.
    pub height: u32,
}

impl NewWindow {
    /// A window in `target` (e.g. `=work:`), 200x24, default shell.
    pub fn new(target: impl Into<String>) -> Self {
        NewWindow {
            target: target.into(),
            name: None,
            start_directory: None,
            environment: Vec::new(),
            command: Vec::new(),
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
        }
    }
}

/// What `new-window` created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowCreated {
    /// `#{window_id}`.
    pub window: WindowId,
    /// `#{window_index}`.
    pub index: u32,
    /// `#{pane_id}` of its pane.
    pub pane: PaneId,
}

/// One window as `list-windows -F` describes it, with its active pane. Source: tmux 3.3a
/// formats (man tmux, FORMATS).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowInfo {
    /// `#{session_id}`.
    pub session: SessionId,
    /// `#{window_id}`.
    pub window: WindowId,
    /// `#{window_index}`.
    pub index: u32,
    /// `#{window_name}` (read through `q:`, unquoted; lossy UTF-8).
    pub name: String,
    /// `#{pane_id}` of the active pane.
    pub pane: PaneId,
    /// `#{window_activity}`: the time of the window's last output (or creation), whole
    /// seconds since the epoch.
    pub activity: i64,
    /// `#{alternate_on}`: a full-screen program shows the alternate screen.
    pub alternate_on: bool,
    /// `#{cursor_x}`, column from 0.
    pub cursor_x: u32,
    /// `#{cursor_y}`, row from 0.
    pub cursor_y: u32,
    /// `#{cursor_flag}`: the program shows the cursor.
    pub cursor_visible: bool,
    /// `#{history_size}`: rows in the history (above the screen).
    pub history_size: u64,
    /// `#{pane_in_mode}`: the pane is in copy mode or another mode.
    pub in_mode: bool,
    /// `#{pane_dead}`: the pane's process has exited (the pane stays with `remain-on-exit`).
    pub dead: bool,
    /// `#{pane_dead_status}`: its exit status, when dead and it exited (not killed).
    ///
    /// `None` for a moment after `dead` turns true: tmux marks the pane dead when its pty
    /// reads the end, and learns the status only when it reaps the child (SIGCHLD), which
    /// can come a little later. Poll until it is `Some` if you need it. A process exiting at
    /// once can stay a zombie that tmux never reaps (measured ~1 in 5 with 3.3a here: its
    /// SIGCHLD is lost while libutempter's own handler is in place, tmux issues 311 and
    /// 2679): a SIGCHLD sent to the server ([`crate::Server::pid`]) makes tmux reap it.
    pub dead_status: Option<i32>,
    /// `#{pane_pid}`: the pid of the pane's first process.
    pub pane_pid: u32,
    /// `#{pane_width}`, columns.
    pub width: u32,
    /// `#{pane_height}`, rows.
    pub height: u32,
    /// `#{pane_current_command}` (read through `q:`, unquoted; lossy UTF-8).
    pub current_command: String,
    /// `#{pane_current_path}` (the rest of the line, raw bytes).
    pub current_path: PathBuf,
    /// The user options asked for, in the order asked, with their values as the active pane
    /// sees them (pane, then window, session, global): empty when unset.
    pub user_options: Vec<(String, String)>,
}

impl WindowInfo {
    /// The value of user option `name` (with its `@`) if it was asked for.
    pub fn user_option(&self, name: &str) -> Option<&str> {
        self.user_options
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The fixed fields of [`WindowInfo`], in order; then `q:` names, user options, and the path.
const WINDOW_FIELDS: &str = "#{session_id} #{window_id} #{window_index} #{pane_id} #{window_activity} #{alternate_on} #{cursor_x} #{cursor_y} #{cursor_flag} #{history_size} #{pane_in_mode} #{pane_dead} #{pane_dead_status} #{pane_pid} #{pane_width} #{pane_height} #{q:window_name} #{q:pane_current_command}";
const WINDOW_FIXED: usize = 18;

impl Client {
    /// Creates a window without selecting it (`new-window -d -P -F ...`), then sizes it
    /// (`resize-window -t @ID -x W -y H`, which sets `window-size manual` for that window
    /// alone, never globally).
    ///
    /// # Errors
    /// [`Error::Command`] for either command (e.g. `can't find session`; `index N in use`),
    /// and the connection's errors.
    pub async fn new_window(&self, new: &NewWindow) -> Result<WindowCreated> {
        let cmd = Command::new("new-window")
            .args(["-d", "-P", "-F", "#{window_id} #{window_index} #{pane_id}"])
            .args(["-t", &new.target])
            .opt("-n", new.name.as_deref());
        let cmd = push_new_common(cmd, &new.start_directory, &new.environment, &new.command);
        let line = one_line("new-window", self.run(&cmd).await?)?;
        let parts: Vec<&str> = line.split(' ').collect();
        let [window, index, pane] = parts[..] else {
            return Err(Error::UnexpectedReply {
                command: "new-window".into(),
                detail: format!("expected three fields, got {line:?}"),
            });
        };
        let created = WindowCreated {
            window: field("new-window", "window_id", window)?,
            index: field("new-window", "window_index", index)?,
            pane: field("new-window", "pane_id", pane)?,
        };
        self.run(&Command::new("resize-window").args([
            "-t",
            &created.window.to_string(),
            "-x",
            &new.width.to_string(),
            "-y",
            &new.height.to_string(),
        ]))
        .await?;
        Ok(created)
    }

    /// Describes the windows of a session, each with its active pane: one `list-windows -t
    /// TARGET -F` query, no fork. `user_options` are pane user options (`@name`) read too.
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad option name; [`Error::Command`] (e.g. `can't find session:
    /// =x`); [`Error::UnexpectedReply`] if a line does not parse; the connection's errors.
    pub async fn list_windows(
        &self,
        target: &str,
        user_options: &[&str],
    ) -> Result<Vec<WindowInfo>> {
        for name in user_options {
            check_user_option_name(name)?;
        }
        let mut format = String::from(WINDOW_FIELDS);
        for name in user_options {
            format.push_str(&format!(" #{{q:{name}}}"));
        }
        format.push_str(" #{pane_current_path}");
        let lines = self
            .run(&Command::new("list-windows").args(["-t", target, "-F", &format]))
            .await?;
        let features = self.features();
        lines
            .iter()
            .map(|line| {
                let mut info = parse_window_line(line, user_options)?;
                for (_, value) in &mut info.user_options {
                    *value = String::from_utf8_lossy(
                        &features.option_value(std::mem::take(value).into_bytes()),
                    )
                    .into_owned();
                }
                Ok(info)
            })
            .collect()
    }

    /// `kill-window -t TARGET`.
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find window: x`), and the connection's errors.
    pub async fn kill_window(&self, target: &str) -> Result<()> {
        self.run(&Command::new("kill-window").args(["-t", target]))
            .await
            .map(drop)
    }
}

/// Splits a `-F` line into `count` space-separated fields (an empty field stays empty; a
/// backslash takes the next byte literally, as `q:` quotes) and the rest of the line.
pub(super) fn split_fields(line: &[u8], count: usize) -> Option<(Vec<Vec<u8>>, &[u8])> {
    let mut fields = Vec::with_capacity(count);
    let mut current = Vec::new();
    let mut i = 0;
    while fields.len() < count {
        let b = *line.get(i)?;
        i += 1;
        match b {
            b'\\' => {
                current.push(*line.get(i)?);
                i += 1;
            }
            b' ' => fields.push(std::mem::take(&mut current)),
            _ => current.push(b),
        }
    }
    Some((fields, &line[i..]))
}

fn flag_field(command: &str, what: &str, text: &[u8]) -> Result<bool> {
    match text {
        b"1" => Ok(true),
        b"0" | b"" => Ok(false),
        _ => Err(Error::UnexpectedReply {
            command: command.to_string(),
            detail: format!("{what} is {:?}", String::from_utf8_lossy(text)),
        }),
    }
}

fn text_field<T: std::str::FromStr>(command: &str, what: &str, text: &[u8]) -> Result<T> {
    field(command, what, &String::from_utf8_lossy(text))
}

pub(super) fn parse_window_line(line: &[u8], user_options: &[&str]) -> Result<WindowInfo> {
    const CMD: &str = "list-windows";
    let count = WINDOW_FIXED + user_options.len();
    let (fields, path) = split_fields(line, count).ok_or_else(|| Error::UnexpectedReply {
        command: CMD.into(),
        detail: format!(
            "expected {} fields, got {:?}",
            count + 1,
            String::from_utf8_lossy(line)
        ),
    })?;
    let f = |i: usize| fields[i].as_slice();
    let lossy = |i: usize| String::from_utf8_lossy(&fields[i]).into_owned();
    Ok(WindowInfo {
        session: text_field(CMD, "session_id", f(0))?,
        window: text_field(CMD, "window_id", f(1))?,
        index: text_field(CMD, "window_index", f(2))?,
        pane: text_field(CMD, "pane_id", f(3))?,
        activity: text_field(CMD, "window_activity", f(4))?,
        alternate_on: flag_field(CMD, "alternate_on", f(5))?,
        cursor_x: text_field(CMD, "cursor_x", f(6))?,
        cursor_y: text_field(CMD, "cursor_y", f(7))?,
        cursor_visible: flag_field(CMD, "cursor_flag", f(8))?,
        history_size: text_field(CMD, "history_size", f(9))?,
        in_mode: flag_field(CMD, "pane_in_mode", f(10))?,
        dead: flag_field(CMD, "pane_dead", f(11))?,
        dead_status: if f(12).is_empty() {
            None
        } else {
            Some(text_field(CMD, "pane_dead_status", f(12))?)
        },
        pane_pid: text_field(CMD, "pane_pid", f(13))?,
        width: text_field(CMD, "pane_width", f(14))?,
        height: text_field(CMD, "pane_height", f(15))?,
        name: lossy(16),
        current_command: lossy(17),
        user_options: user_options
            .iter()
            .enumerate()
            .map(|(i, name)| (name.to_string(), lossy(WINDOW_FIXED + i)))
            .collect(),
        current_path: PathBuf::from(OsStr::from_bytes(path)),
    })
}
