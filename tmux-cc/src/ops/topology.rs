//! The server's shape: every session, every window with EVERY pane, panes with geometry.
//!
//! Each listing is one `list-* -a -F` query (or a few in one write), no fork. Names and
//! commands are read through `#{q:...}` (tmux escapes spaces and shell characters with `\`,
//! which [`all_fields`] undoes), the path last and raw, so names with spaces and non-UTF-8
//! paths survive. The client's own hidden sessions (its service session and those of its extra
//! connections, [`Client::is_own_session`]) are LEFT OUT of every list: they are tmux-cc's,
//! not the user's.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::client::Client;
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::{Layout, PaneId, SessionId, WindowId};

use super::field;
use super::windows::split_fields;

/// One session, as `list-sessions -F` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// `#{session_id}`.
    pub id: SessionId,
    /// `#{session_name}` (lossy UTF-8; may hold spaces).
    pub name: String,
    /// `#{session_windows}`: how many windows it has.
    pub windows: u32,
    /// `#{session_attached}`: how many clients are attached to it.
    pub attached: u32,
    /// `#{session_created}`: when it was created, whole seconds since the epoch.
    pub created: i64,
    /// `#{session_group}` when `#{session_grouped}`: the name of its group (sessions of one
    /// group share their windows), `None` for a session in no group.
    pub group: Option<String>,
}

/// One pane of one window link, as `list-panes -F` describes it. Geometry in terminal cells,
/// from the window's top left corner (0, 0): the same numbers as the window's
/// [`Layout::panes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneInfo {
    /// `#{session_id}` of the session the window is listed in.
    pub session: SessionId,
    /// `#{window_id}`.
    pub window: WindowId,
    /// `#{window_index}` in that session.
    pub window_index: u32,
    /// `#{pane_id}`.
    pub id: PaneId,
    /// `#{pane_index}`: its place in the window, from `pane-base-index`.
    pub index: u32,
    /// `#{pane_left}`, column.
    pub left: u32,
    /// `#{pane_top}`, row.
    pub top: u32,
    /// `#{pane_width}`, columns.
    pub width: u32,
    /// `#{pane_height}`, rows.
    pub height: u32,
    /// `#{pane_active}`: the window's active pane.
    pub active: bool,
    /// `#{pane_dead}`: its process has exited (kept with `remain-on-exit`).
    pub dead: bool,
    /// `#{pane_dead_status}` (see [`crate::WindowInfo::dead_status`] for why it may lag).
    pub dead_status: Option<i32>,
    /// `#{pane_pid}`: the pid of its first process.
    pub pid: u32,
    /// `#{pane_current_command}` (lossy UTF-8): the terminal's foreground process; `tmux`
    /// for a moment after the pane starts (the forked child, before it runs the command).
    pub current_command: String,
    /// `#{pane_current_path}` (raw bytes): the working directory of the terminal's
    /// foreground process. Empty for a moment after the pane starts, before its child has
    /// made itself the terminal's foreground process group (3 runs in 6 of a test listing
    /// right after a split, 3.3a), and when tmux can not read it.
    pub current_path: PathBuf,
}

/// One window link with all its panes: `list-windows -a` and `list-panes -a` read in one
/// write. A window linked in two sessions is listed once in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowPanes {
    /// `#{session_id}`.
    pub session: SessionId,
    /// `#{window_id}`.
    pub id: WindowId,
    /// `#{window_index}`.
    pub index: u32,
    /// `#{window_name}` (lossy UTF-8).
    pub name: String,
    /// `#{window_active}`: the session's current window.
    pub active: bool,
    /// `#{window_zoomed_flag}`: a pane is zoomed.
    pub zoomed: bool,
    /// `#{window_width}`, columns.
    pub width: u32,
    /// `#{window_height}`, rows.
    pub height: u32,
    /// `#{window_layout}`, parsed.
    pub layout: Layout,
    /// `#{window_visible_layout}` (a zoomed window: the zoomed pane alone), parsed.
    pub visible_layout: Layout,
    /// Its panes in `#{pane_index}` order.
    pub panes: Vec<PaneInfo>,
}

/// Which panes [`Client::list_panes`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaneScope {
    /// Every pane of the server (`-a`), the service session's left out.
    All,
    /// The panes of one session (`-s -t TARGET`, e.g. `=work`).
    Session(String),
    /// The panes of one window (`-t TARGET`, e.g. `@3` or `=work:1`).
    Window(String),
}

/// The whole server: [`Client::shape`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shape {
    /// Sessions in `list-sessions` order (by name).
    pub sessions: Vec<SessionInfo>,
    /// Window links, sorted by (session, index).
    pub windows: Vec<WindowPanes>,
}

const SESSION_FORMAT: &str = "#{session_id} #{session_windows} #{session_attached} #{session_created} #{session_grouped} #{q:session_group} #{q:session_name}";
const WINDOW_FORMAT: &str = "#{session_id} #{window_id} #{window_index} #{window_active} #{window_zoomed_flag} #{window_width} #{window_height} #{window_layout} #{window_visible_layout} #{q:session_name} #{q:window_name}";
const PANE_FORMAT: &str = "#{session_id} #{window_id} #{window_index} #{pane_id} #{pane_index} #{pane_left} #{pane_top} #{pane_width} #{pane_height} #{pane_active} #{pane_dead} #{pane_dead_status} #{pane_pid} #{q:session_name} #{q:pane_current_command} #{pane_current_path}";
const PANE_FIXED: usize = 15;

impl Client {
    /// Every session but this client's service session: one `list-sessions -F` query.
    ///
    /// # Errors
    /// [`Error::UnexpectedReply`] if a line does not parse; the connection's errors.
    pub async fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        let lines = self.run(&list_sessions_command()).await?;
        self.sessions_of(&lines)
    }

    /// Panes with their geometry: one `list-panes -F` query (`-a`, `-s -t` or `-t`).
    ///
    /// # Errors
    /// [`Error::Command`] for a target that does not exist; [`Error::UnexpectedReply`] if a
    /// line does not parse; the connection's errors.
    pub async fn list_panes(&self, scope: &PaneScope) -> Result<Vec<PaneInfo>> {
        let cmd = Command::new("list-panes");
        let cmd = match scope {
            PaneScope::All => cmd.arg("-a"),
            PaneScope::Session(target) => cmd.args(["-s", "-t", target]),
            PaneScope::Window(target) => cmd.args(["-t", target]),
        };
        let lines = self.run(&cmd.args(["-F", PANE_FORMAT])).await?;
        self.panes_of(&lines)
    }

    /// Every window link of every session (the service session's left out), each with all
    /// its panes and its parsed layouts: `list-windows -a` and `list-panes -a` in one write.
    ///
    /// # Errors
    /// [`Error::UnexpectedReply`] if a line or a layout does not parse; the connection's
    /// errors.
    pub async fn list_windows_all(&self) -> Result<Vec<WindowPanes>> {
        let replies = self
            .input_ok(&[list_windows_command(), list_panes_all_command()])
            .await?;
        let [windows, panes] = <[Vec<Vec<u8>>; 2]>::try_from(replies)
            .map_err(|_| unexpected("list-windows", "expected two replies".into()))?;
        self.windows_of(&windows, self.panes_of(&panes)?)
    }

    /// The whole server, sessions and window links with their panes, read in ONE write
    /// (`list-sessions`, `list-windows -a`, `list-panes -a`), so the three agree unless another
    /// client changed the server between them.
    ///
    /// # Errors
    /// As [`Client::list_windows_all`].
    pub async fn shape(&self) -> Result<Shape> {
        let replies = self
            .input_ok(&[
                list_sessions_command(),
                list_windows_command(),
                list_panes_all_command(),
            ])
            .await?;
        let [sessions, windows, panes] = <[Vec<Vec<u8>>; 3]>::try_from(replies)
            .map_err(|_| unexpected("list-sessions", "expected three replies".into()))?;
        Ok(Shape {
            sessions: self.sessions_of(&sessions)?,
            windows: self.windows_of(&windows, self.panes_of(&panes)?)?,
        })
    }

    fn sessions_of(&self, lines: &[Vec<u8>]) -> Result<Vec<SessionInfo>> {
        const CMD: &str = "list-sessions";
        let mut out = Vec::new();
        for line in lines {
            let f = all_fields(line);
            let [id, windows, attached, created, grouped, group, name] = &f[..] else {
                return Err(count_error(CMD, 7, line));
            };
            let name = lossy(name);
            if self.is_own_session(&name) {
                continue;
            }
            out.push(SessionInfo {
                id: text_field(CMD, "session_id", id)?,
                name,
                windows: text_field(CMD, "session_windows", windows)?,
                attached: text_field(CMD, "session_attached", attached)?,
                created: text_field(CMD, "session_created", created)?,
                group: flag_field(CMD, "session_grouped", grouped)?.then(|| lossy(group)),
            });
        }
        Ok(out)
    }

    fn panes_of(&self, lines: &[Vec<u8>]) -> Result<Vec<PaneInfo>> {
        const CMD: &str = "list-panes";
        let mut out = Vec::new();
        for line in lines {
            let (f, path) =
                split_fields(line, PANE_FIXED).ok_or_else(|| count_error(CMD, 16, line))?;
            if self.is_own_session(&lossy(&f[13])) {
                continue;
            }
            out.push(PaneInfo {
                session: text_field(CMD, "session_id", &f[0])?,
                window: text_field(CMD, "window_id", &f[1])?,
                window_index: text_field(CMD, "window_index", &f[2])?,
                id: text_field(CMD, "pane_id", &f[3])?,
                index: text_field(CMD, "pane_index", &f[4])?,
                left: text_field(CMD, "pane_left", &f[5])?,
                top: text_field(CMD, "pane_top", &f[6])?,
                width: text_field(CMD, "pane_width", &f[7])?,
                height: text_field(CMD, "pane_height", &f[8])?,
                active: flag_field(CMD, "pane_active", &f[9])?,
                dead: flag_field(CMD, "pane_dead", &f[10])?,
                dead_status: if f[11].is_empty() {
                    None
                } else {
                    Some(text_field(CMD, "pane_dead_status", &f[11])?)
                },
                pid: text_field(CMD, "pane_pid", &f[12])?,
                current_command: lossy(&f[14]),
                current_path: PathBuf::from(OsStr::from_bytes(path)),
            });
        }
        Ok(out)
    }

    fn windows_of(&self, lines: &[Vec<u8>], panes: Vec<PaneInfo>) -> Result<Vec<WindowPanes>> {
        const CMD: &str = "list-windows";
        let mut out = Vec::new();
        for line in lines {
            let f = all_fields(line);
            let [
                session,
                id,
                index,
                active,
                zoomed,
                width,
                height,
                layout,
                visible,
                session_name,
                name,
            ] = &f[..]
            else {
                return Err(count_error(CMD, 11, line));
            };
            if self.is_own_session(&lossy(session_name)) {
                continue;
            }
            let layout_field = |what: &str, text: &[u8]| {
                Layout::parse(text).map_err(|e| unexpected(CMD, format!("{what}: {e}")))
            };
            out.push(WindowPanes {
                session: text_field(CMD, "session_id", session)?,
                id: text_field(CMD, "window_id", id)?,
                index: text_field(CMD, "window_index", index)?,
                name: lossy(name),
                active: flag_field(CMD, "window_active", active)?,
                zoomed: flag_field(CMD, "window_zoomed_flag", zoomed)?,
                width: text_field(CMD, "window_width", width)?,
                height: text_field(CMD, "window_height", height)?,
                layout: layout_field("window_layout", layout)?,
                visible_layout: layout_field("window_visible_layout", visible)?,
                panes: Vec::new(),
            });
        }
        for pane in panes {
            if let Some(w) = out
                .iter_mut()
                .find(|w| w.session == pane.session && w.index == pane.window_index)
            {
                w.panes.push(pane);
            }
        }
        for w in &mut out {
            w.panes.sort_by_key(|p| p.index);
        }
        out.sort_by_key(|w| (w.session, w.index));
        Ok(out)
    }
}

fn list_sessions_command() -> Command {
    Command::new("list-sessions").args(["-F", SESSION_FORMAT])
}

fn list_windows_command() -> Command {
    Command::new("list-windows").args(["-a", "-F", WINDOW_FORMAT])
}

fn list_panes_all_command() -> Command {
    Command::new("list-panes").args(["-a", "-F", PANE_FORMAT])
}

/// Every space-separated field of a `-F` line, a backslash taking the next byte literally (as
/// `q:` quotes). An empty field stays empty.
pub(crate) fn all_fields(line: &[u8]) -> Vec<Vec<u8>> {
    let mut fields = Vec::new();
    let mut current = Vec::new();
    let mut bytes = line.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' => current.extend(bytes.next()),
            b' ' => fields.push(std::mem::take(&mut current)),
            _ => current.push(b),
        }
    }
    fields.push(current);
    fields
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn unexpected(command: &str, detail: String) -> Error {
    Error::UnexpectedReply {
        command: command.to_string(),
        detail,
    }
}

fn count_error(command: &str, count: usize, line: &[u8]) -> Error {
    unexpected(
        command,
        format!(
            "expected {count} fields, got {:?}",
            String::from_utf8_lossy(line)
        ),
    )
}

fn flag_field(command: &str, what: &str, text: &[u8]) -> Result<bool> {
    match text {
        b"1" => Ok(true),
        b"0" | b"" => Ok(false),
        _ => Err(unexpected(
            command,
            format!("{what} is {:?}", String::from_utf8_lossy(text)),
        )),
    }
}

fn text_field<T: std::str::FromStr>(command: &str, what: &str, text: &[u8]) -> Result<T> {
    field(command, what, &String::from_utf8_lossy(text))
}

#[cfg(test)]
mod tests {
    use super::all_fields;

    #[test]
    fn fields_undo_q_quoting_and_keep_empty_ones() {
        assert_eq!(
            all_fields(b"$1  a\\ b\\\\c x"),
            vec![
                b"$1".to_vec(),
                b"".to_vec(),
                b"a b\\c".to_vec(),
                b"x".to_vec()
            ]
        );
    }
}
