//! Typed operations: sessions, windows, captures, buffers and pastes, keys, options.
//!
//! Each is a method of [`Client`] sending one command line per tmux command (never `;`-joined:
//! after a failure, the rest of such a line gives no reply in 3.3a), plus free functions that
//! build the [`Command`]s, for callers composing one unbroken [`Client::input`] (leave modes,
//! record a pane option and send keys in the same write).
//!
//! Targets are passed to tmux as given: the caller builds exact targets (`=session:=window`,
//! `@3`, `%5`); tmux-cc never matches a prefix or keeps ids between calls. tmux-cc never sets
//! the global `window-size` to `manual` (tmux 3.3a segfaults on the next new-window or
//! new-session, issue 4849): windows are sized one by one with `resize-window`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::client::{Client, into_output};
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::{PaneId, Reply, SessionId, WindowId};
use crate::version::Difference;

/// The size tmux-cc gives sessions and windows unless told otherwise: 200 columns.
pub const DEFAULT_WIDTH: u32 = 200;
/// The size tmux-cc gives sessions and windows unless told otherwise: 24 rows.
pub const DEFAULT_HEIGHT: u32 = 24;

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
    /// The command, as in [`NewSession::command`].
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

/// `capture-pane -p`: what to capture. The default is the visible screen, rows as displayed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// `-J`: join wrapped rows (and keep trailing spaces, as tmux does with `-J`).
    pub join: bool,
    /// `-S -N`: also this many history rows above the screen.
    pub history: Option<u32>,
    /// `-a`: tmux's "alternate screen" capture: the screen NOT shown, i.e. the normal screen
    /// saved while a full-screen program runs (an error when there is none; with `-q` in
    /// tmux, one empty row). To read what a full-screen program shows, capture without it.
    pub alternate: bool,
    /// `-e`: keep text and background attributes as escape sequences.
    pub escapes: bool,
    /// `-N`: keep trailing spaces on each row.
    pub trailing_spaces: bool,
}

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

/// `copy-mode -q -t TARGET`: the pane leaves copy mode and any other mode (no error when in
/// none). Put it first in an input so keys and pastes reach the program.
pub fn leave_modes(target: &str) -> Command {
    Command::new("copy-mode").args(["-q", "-t", target])
}

/// `send-keys -t TARGET -- KEY...`: keys by tmux name (`Enter`, `C-c`, `a`). tmux types an
/// unknown name as text: validate names before. tmux's parser fails a command of some 9990
/// arguments or more (`parse error: yacc stack overflow`, its stack being 10000 deep): split a
/// longer list into several commands sent in one input, which presses them in order.
pub fn send_keys<K: AsRef<[u8]>>(target: &str, keys: &[K]) -> Command {
    Command::new("send-keys")
        .args(["-t", target, "--"])
        .args(keys.iter().map(AsRef::as_ref))
}

/// `send-keys -l -t TARGET -- TEXT`: the text typed literally, character by character.
pub fn send_literal(target: &str, text: &[u8]) -> Command {
    Command::new("send-keys")
        .args(["-l", "-t", target, "--"])
        .arg(text)
}

/// `set-option -p -t TARGET -- NAME VALUE`: a pane option (user options start with `@`).
pub fn set_pane_option(target: &str, name: &str, value: &[u8]) -> Command {
    Command::new("set-option")
        .args(["-p", "-t", target, "--", name])
        .arg(value)
}

fn check_user_option_name(name: &str) -> Result<()> {
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

fn check_buffer_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(Error::Refused(
            "a buffer name is ASCII letters, digits, '_', '-' or '.'",
        ))
    }
}

fn push_new_common(
    mut cmd: Command,
    start_directory: &Option<PathBuf>,
    environment: &[(String, Vec<u8>)],
    command: &[Vec<u8>],
) -> Command {
    if let Some(dir) = start_directory {
        cmd = cmd.arg("-c").arg(dir.as_os_str().as_bytes());
    }
    for (name, value) in environment {
        let mut pair = name.as_bytes().to_vec();
        pair.push(b'=');
        pair.extend_from_slice(value);
        cmd = cmd.arg("-e").arg(pair);
    }
    if !command.is_empty() {
        cmd = cmd.arg("--").args(command);
    }
    cmd
}

fn one_line(command: &str, lines: Vec<Vec<u8>>) -> Result<String> {
    match <[Vec<u8>; 1]>::try_from(lines) {
        Ok([line]) => Ok(String::from_utf8_lossy(&line).into_owned()),
        Err(lines) => Err(Error::UnexpectedReply {
            command: command.to_string(),
            detail: format!("expected one line, got {}", lines.len()),
        }),
    }
}

fn field<T: std::str::FromStr>(command: &str, what: &str, text: &str) -> Result<T> {
    text.parse().map_err(|_| Error::UnexpectedReply {
        command: command.to_string(),
        detail: format!("{what} is {text:?}"),
    })
}

/// Splits a `-F` line into `count` space-separated fields (an empty field stays empty; a
/// backslash takes the next byte literally, as `q:` quotes) and the rest of the line.
fn split_fields(line: &[u8], count: usize) -> Option<(Vec<Vec<u8>>, &[u8])> {
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

/// Removes a file when dropped (a paste's data never outlives the paste).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn write_private_file(path: &Path, data: &[u8]) -> Result<RemoveOnDrop> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
    let guard = RemoveOnDrop(path.to_path_buf());
    file.write_all(data)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(guard)
}

impl Client {
    // ---- sessions ----

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

    // ---- windows ----

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

    // ---- captures ----

    /// `capture-pane -p -t TARGET [-J] [-S -N] [-a] [-e] [-N]`: the rows as bytes, each ended
    /// by LF (exactly what a forked `tmux capture-pane -p` prints).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find pane`, `no alternate screen`), and the
    /// connection's errors.
    pub async fn capture(&self, target: &str, capture: &Capture) -> Result<Vec<u8>> {
        let cmd = Command::new("capture-pane")
            .args(["-p", "-t", target])
            .flag("-J", capture.join)
            .opt("-S", capture.history.map(|n| format!("-{n}")))
            .flag("-a", capture.alternate)
            .flag("-e", capture.escapes)
            .flag("-N", capture.trailing_spaces);
        let lines = self.run(&cmd).await?;
        let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            out.extend_from_slice(&line);
            out.push(b'\n');
        }
        Ok(out)
    }

    // ---- buffers and pastes ----

    /// Loads `data` (any bytes, any size) into buffer `name` and checks tmux holds all of it:
    /// the data goes through a private file (0600 in the client's 0700 directory, removed
    /// before this returns), never through a command line (which tmux would parse slowly and
    /// keep in its message log). `delete-buffer`, `load-buffer -b NAME -- FILE`, then
    /// `list-buffers` for its size, in one input (3.3a: `load-buffer`'s `%end` comes before the
    /// load is done; the next command waits for it).
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad buffer name or empty data (tmux drops an empty buffer);
    /// [`Error::Command`] for `load-buffer` when the
    /// buffer is missing or its size differs (tmux's stray message as the message when there
    /// is one); [`Error::Io`] for the file; the connection's errors.
    pub async fn load_buffer(&self, name: &str, data: &[u8]) -> Result<()> {
        check_buffer_name(name)?;
        if data.is_empty() {
            return Err(Error::Refused(
                "tmux keeps no empty buffer: there is nothing to load",
            ));
        }
        let path = self.private_dir().join(format!("load-{}", self.next_id()));
        let _file = write_private_file(&path, data)?;
        let replies = self
            .input(&[
                Command::new("delete-buffer").args(["-b", name]),
                Command::new("load-buffer")
                    .args(["-b", name, "--"])
                    .arg(path.as_os_str().as_bytes()),
                buffer_size_query(name),
            ])
            .await?;
        let [_, load, size] = <[Reply; 3]>::try_from(replies).expect("three commands");
        into_output("load-buffer", load)?;
        self.check_buffer_size(name, size, data.len() as u64, "load-buffer")
    }

    fn check_buffer_size(&self, name: &str, reply: Reply, want: u64, command: &str) -> Result<()> {
        let lines = into_output("list-buffers", reply)?;
        let got: Option<u64> = match &lines[..] {
            [line] => std::str::from_utf8(line).ok().and_then(|s| s.parse().ok()),
            _ => None,
        };
        if got == Some(want) {
            return Ok(());
        }
        let stray = self
            .last_stray_line()
            .map(|l| String::from_utf8_lossy(&l).into_owned());
        Err(Error::Command {
            command: command.to_string(),
            message: match got {
                None => format!("buffer {name} does not exist after {command}"),
                Some(got) => format!("buffer {name} holds {got} bytes, not {want}"),
            } + &stray
                .map(|s| format!(" (tmux printed: {s})"))
                .unwrap_or_default(),
        })
    }

    /// The bytes of buffer `name`, exactly: `save-buffer -b NAME -- FILE` to a private file
    /// read and removed here, checked against `#{buffer_size}`.
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad buffer name; [`Error::Command`] (e.g. `no buffer NAME`);
    /// [`Error::Io`]; the connection's errors.
    pub async fn save_buffer(&self, name: &str) -> Result<Vec<u8>> {
        check_buffer_name(name)?;
        let path = self.private_dir().join(format!("save-{}", self.next_id()));
        let _file = RemoveOnDrop(path.clone());
        let replies = self
            .input(&[
                Command::new("save-buffer")
                    .args(["-b", name, "--"])
                    .arg(path.as_os_str().as_bytes()),
                buffer_size_query(name),
            ])
            .await?;
        let [save, size] = <[Reply; 2]>::try_from(replies).expect("two commands");
        into_output("save-buffer", save)?;
        let data = std::fs::read(&path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        self.check_buffer_size(name, size, data.len() as u64, "save-buffer")?;
        Ok(data)
    }

    /// `delete-buffer -b NAME`.
    ///
    /// # Errors
    /// [`Error::Command`] (`unknown buffer: NAME`), and the connection's errors.
    pub async fn delete_buffer(&self, name: &str) -> Result<()> {
        self.run(&Command::new("delete-buffer").args(["-b", name]))
            .await
            .map(drop)
    }

    /// Pastes `data` into pane `target` as ONE unbroken input: the `before` commands (e.g.
    /// [`leave_modes`]) on lines of their own, then on ONE line `load-buffer -b NAME -- FILE ;
    /// paste-buffer -p -r [-S] -d -b NAME -t TARGET ; AFTER...` (e.g. `send-keys Enter`). `-r`
    /// keeps LF as LF, `-p` brackets the paste when the program asked for it (mode 2004), `-S`
    /// (from tmux 3.7, [`Difference::PasteEscapes`](crate::Difference)) keeps tmux from escaping
    /// the data, `-d` deletes the buffer. The data goes through a private file removed before
    /// this returns, never a command line. Empty `data` sends `before`, then `after` on one
    /// line. tmux 3.3a does not sanitise pasted data: an `ESC[201~` inside ends the bracket
    /// early.
    ///
    /// The paste and the `after` commands are all or nothing from the first failure on (see
    /// [`Client::group`]): a paste that fails (its data did not load, the pane is gone) never
    /// presses the keys after it, even when tmux was stopped, the call timed out (its file is
    /// then removed, so the load fails) and tmux reads the line later. A buffer left by a failed
    /// paste is deleted.
    ///
    /// # Errors
    /// The first command of the input that failed, as [`Error::Command`] (`load-buffer` when
    /// the data did not load); [`Error::Io`] for the file; the connection's errors.
    pub async fn paste(
        &self,
        target: &str,
        data: &[u8],
        before: &[Command],
        after: &[Command],
    ) -> Result<()> {
        self.paste_after(target, data, before, after)
            .await
            .map(drop)
    }

    /// [`Client::paste`], returning the output of each `before` command, in order (empty for
    /// one that failed, whose error is then the call's): a query
    /// among them (`display-message -p`) reads the pane in the same write as the paste, just
    /// before it, at no extra round trip.
    ///
    /// # Errors
    /// As [`Client::paste`].
    pub async fn paste_after(
        &self,
        target: &str,
        data: &[u8],
        before: &[Command],
        after: &[Command],
    ) -> Result<Vec<Vec<Vec<u8>>>> {
        let mut group: Vec<Command> = Vec::new();
        let mut guard = None;
        let id = self.next_id();
        let name = format!("tmux-cc-paste-{}-{id}", std::process::id());
        if !data.is_empty() {
            let path = self.private_dir().join(format!("paste-{id}"));
            guard = Some(write_private_file(&path, data)?);
            group.push(
                Command::new("load-buffer")
                    .args(["-b", &name, "--"])
                    .arg(path.as_os_str().as_bytes()),
            );
            group.push(
                Command::new("paste-buffer")
                    .args(self.features().paste_flags())
                    .args(["-d", "-b", &name, "-t", target]),
            );
        }
        group.extend(after.iter().cloned());
        let replies = self.lines(before, &group).await;
        drop(guard);
        let replies = replies?;
        let cmds: Vec<&Command> = before.iter().chain(&group).collect();
        let paste_index = before.len() + 1;
        let mut first_error = None;
        let mut outputs = Vec::with_capacity(before.len());
        for (i, (cmd, reply)) in cmds.iter().zip(replies).enumerate() {
            let failed = !reply.success;
            let result = into_output(cmd.name(), reply);
            if i < before.len() {
                // One entry per `before` command, a failed one's empty (its error is the
                // call's): the indices stay the caller's.
                outputs.push(result.as_ref().cloned().unwrap_or_default());
            }
            if !data.is_empty() && i == paste_index && failed {
                let missing = matches!(&result, Err(Error::Command { message, .. }) if message.starts_with("no buffer"));
                if missing {
                    let stray = self
                        .last_stray_line()
                        .map(|l| String::from_utf8_lossy(&l).into_owned());
                    first_error.get_or_insert(Error::Command {
                        command: "load-buffer".into(),
                        message: format!(
                            "the pasted data did not load into buffer {name}{}",
                            stray
                                .map(|s| format!(" (tmux printed: {s})"))
                                .unwrap_or_default()
                        ),
                    });
                    continue;
                }
                // The buffer holds the caller's text: never leave it behind.
                let _ = self.delete_buffer(&name).await;
            }
            if let Err(e) = result {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(outputs),
        }
    }

    /// `send-keys -t TARGET -- KEY...` (see [`send_keys`]).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find pane`), and the connection's errors.
    pub async fn send_keys<K: AsRef<[u8]>>(&self, target: &str, keys: &[K]) -> Result<()> {
        self.run(&send_keys(target, keys)).await.map(drop)
    }

    /// `copy-mode -q -t TARGET` (see [`leave_modes`]).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find pane`), and the connection's errors.
    pub async fn leave_modes(&self, target: &str) -> Result<()> {
        self.run(&leave_modes(target)).await.map(drop)
    }

    // ---- options ----

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

fn buffer_size_query(name: &str) -> Command {
    Command::new("list-buffers").args([
        "-F",
        "#{buffer_size}",
        "-f",
        &format!("#{{==:#{{buffer_name}},{name}}}"),
    ])
}

fn parse_window_line(line: &[u8], user_options: &[&str]) -> Result<WindowInfo> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_on_unescaped_spaces_and_keep_empty_ones() {
        let (fields, rest) = split_fields(br"a\ b  c\\d\; /home/x y", 3).unwrap();
        assert_eq!(
            fields,
            vec![b"a b".to_vec(), b"".to_vec(), br"c\d;".to_vec()]
        );
        assert_eq!(rest, b"/home/x y");
        assert_eq!(split_fields(b"a b", 3), None);
        assert_eq!(split_fields(b"a\\", 1), None);
    }

    #[test]
    fn a_window_line_parses() {
        let line =
            br"$1 @2 3 %4 1796040214 1 5 6 0 1000 1 1 127 4242 200 24 my\ win vim 7\ 8 /tmp/a b";
        let info = parse_window_line(line, &["@x"]).unwrap();
        assert_eq!(
            info,
            WindowInfo {
                session: SessionId(1),
                window: WindowId(2),
                index: 3,
                name: "my win".into(),
                pane: PaneId(4),
                activity: 1796040214,
                alternate_on: true,
                cursor_x: 5,
                cursor_y: 6,
                cursor_visible: false,
                history_size: 1000,
                in_mode: true,
                dead: true,
                dead_status: Some(127),
                pane_pid: 4242,
                width: 200,
                height: 24,
                current_command: "vim".into(),
                current_path: PathBuf::from("/tmp/a b"),
                user_options: vec![("@x".into(), "7 8".into())],
            }
        );
    }

    #[test]
    fn option_and_buffer_names_are_checked() {
        assert!(check_user_option_name("@rat_prompt-1").is_ok());
        for bad in ["", "@", "x", "@a}b", "@a b", "@#{x}"] {
            assert!(check_user_option_name(bad).is_err(), "{bad}");
        }
        assert!(check_buffer_name("tmux-cc-paste-1.2").is_ok());
        for bad in ["", "a,b", "a}b", "a b"] {
            assert!(check_buffer_name(bad).is_err(), "{bad}");
        }
    }
}
