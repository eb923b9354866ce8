//! Windows as tmux describes them (`docs/design/terminals.md`, Sessions and windows: targets are
//! exact, format output): always from `list-windows`, never `display-message`, which silently
//! describes another window when the one named is missing.
//!
//! tmux replaces control characters with `_` in `-F` output, so fields are separated by spaces.
//! Every field starts with a letter of its own (so that an empty value is still a field), and
//! text fields are quoted with `q:` (a backslash before spaces and special characters) and
//! unquoted here.

use super::hook::Record;
use super::prompts::Prompts;

/// The fields of a window, for `list-windows -F` (`-a` adds the session first), sent through
/// tmux-cc's builder ([`tmux_cc::commands::list_windows`]). The format stays rat's own rather
/// than tmux-cc's `WindowInfo` fields: it holds what those lack (the session by name, the
/// working directory `q:`-quoted, each field tagged with its letter, so that an empty or spaced
/// value still parses), and only what the terminal tools read.
pub(crate) fn window_format(with_session: bool) -> String {
    let mut fields = Vec::new();
    if with_session {
        fields.push("s#{q:session_name}".to_string());
    }
    fields.extend([
        "n#{q:window_name}".to_string(),
        "a#{window_activity}".to_string(),
        "f#{alternate_on}".to_string(),
        "h#{history_size}".to_string(),
        "P#{pane_id}".to_string(),
        "b#{pane_pid}".to_string(),
        "c#{q:pane_current_command}".to_string(),
        "d#{q:pane_current_path}".to_string(),
        // A pane whose shell ended, kept by `remain-on-exit`: its status, or the signal that
        // killed it (tmux 3.3 and later: empty on 3.2a), and when (3.3 and later).
        "D#{pane_dead}".to_string(),
        "E#{pane_dead_status}".to_string(),
        "G#{pane_dead_signal}".to_string(),
        "T#{pane_dead_time}".to_string(),
    ]);
    fields.join(" ")
}

/// How a window's shell ended, as tmux reports it for its pane (kept by `remain-on-exit`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Ended {
    /// Its exit status, when it exited (`#{pane_dead_status}`).
    pub status: Option<i32>,
    /// The signal that killed it, as tmux names it (a number on Linux), from tmux 3.3 on
    /// (`#{pane_dead_signal}`); 3.2a gives no signal.
    pub signal: Option<String>,
    /// When, Unix seconds (`#{pane_dead_time}`, tmux 3.3 and later).
    pub time: Option<i64>,
}

impl Ended {
    /// Whether tmux reported how it ended: its terminal closes before the shell's status is
    /// collected, and tmux shows the pane dead in between with neither (and, on tmux 3.2a, a
    /// shell killed by a signal for good).
    pub(crate) fn known(&self) -> bool {
        self.status.is_some() || self.signal.is_some() || self.time.is_some()
    }
}

/// A window as `list-windows` describes it (its active pane).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WindowDescription {
    /// The session, with `-a` only.
    pub session: Option<String>,
    /// The window's name.
    pub name: String,
    /// The last output, Unix seconds (`window_activity`, whole seconds).
    pub activity: i64,
    /// A full-screen program shows its alternate screen.
    pub alternate: bool,
    /// Rows of history.
    pub history: u64,
    /// The number of its active pane (`%3` is 3).
    pub pane: u32,
    /// The time of the last input no prompt answered yet, Unix seconds with a fraction.
    pub input: Option<f64>,
    /// The last prompt recorded, if rat's hook ran.
    pub prompt: Option<Record>,
    /// The pid of the pane's shell (`pane_pid`): where its foreground process is found.
    pub pane_pid: u32,
    /// The foreground command.
    pub command: String,
    /// The working directory of the foreground process.
    pub path: String,
    /// Its shell ended: the pane stays, dead, until an answer reported it (see
    /// `docs/design/prompts.md`, A shell that ends).
    pub ended: Option<Ended>,
}

impl WindowDescription {
    /// Bash back at its prompt since the last input: a prompt answered every input sent, and
    /// bash is in the foreground (`docs/design/prompts.md`, What "finished" means).
    pub(crate) fn finished(&self) -> bool {
        self.input.is_none() && self.prompt.is_some() && self.command == "bash"
    }

    /// Fills in what the hook reported of its pane (see [`Prompts`]): the last prompt, and the
    /// last input when no prompt answered it yet. A pane whose bash is just starting may not
    /// report its command nor directory yet: tmux started bash there, in the home directory
    /// (`home`). Until bash is executed, the pane runs tmux's own child, forked to start it,
    /// named `tmux`: with no prompt recorded ever and no input sent, that is bash starting,
    /// not a tmux typed there (likewise a pane with no name yet). Its directory may still be
    /// the server's: the home is returned.
    pub(crate) fn fill(&mut self, prompts: &Prompts, home: &str) {
        let state = prompts.pane(self.pane);
        self.input = match state.finished_prompt() {
            Some(_) => None,
            None => state.input_time,
        };
        self.prompt = state.prompt;
        let before_bash = self.prompt.is_none() && state.started == 0;
        let starting = self.command == "tmux" && before_bash;
        if starting {
            self.path = String::new();
        }
        // An empty name is bash starting only before its first prompt: later it is a program
        // whose name tmux 3.7 will not show (a control character, not UTF-8), which
        // `foreground::exact` names from /proc, and never bash back at its prompt.
        if (self.command.is_empty() && before_bash) || starting {
            self.command = "bash".to_string();
        }
        if self.path.is_empty() {
            self.path = home.to_string();
        }
    }
}

/// Splits a line of `q:`-quoted fields at unescaped spaces, removing the escapes.
fn split_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            ' ' => fields.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    fields.push(current);
    fields
}

/// Parses one line of [`window_format`]; `None` for a line of another shape.
pub(crate) fn parse_window(line: &str, with_session: bool) -> Option<WindowDescription> {
    let fields = split_fields(line);
    let expected = if with_session { 13 } else { 12 };
    if fields.len() != expected {
        return None;
    }
    let mut it = fields.iter();
    let mut field =
        |letter: char| -> Option<String> { it.next()?.strip_prefix(letter).map(str::to_string) };
    let session = if with_session {
        Some(field('s')?)
    } else {
        None
    };
    let name = field('n')?;
    let activity = field('a')?.parse().ok()?;
    let alternate = field('f')? == "1";
    let history = field('h')?.parse().ok()?;
    let pane = field('P')?.strip_prefix('%')?.parse().ok()?;
    let pane_pid = field('b')?.parse().unwrap_or(0);
    let command = field('c')?;
    let path = field('d')?;
    let dead = field('D')? == "1";
    let status = field('E')?.parse().ok();
    let signal = Some(field('G')?).filter(|s| !s.is_empty());
    let time = field('T')?.parse().ok();
    let ended = dead.then_some(Ended {
        status,
        signal,
        time,
    });
    Some(WindowDescription {
        session,
        name,
        activity,
        alternate,
        history,
        pane,
        input: None,
        prompt: None,
        pane_pid,
        command,
        path,
        ended,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        let w = parse_window(
            r"nbuild a1700000000 f0 h12 P%7 b42 cmake d/home/me/my\ dir D0 E G T",
            false,
        )
        .unwrap();
        assert_eq!(w.name, "build");
        assert_eq!(w.activity, 1_700_000_000);
        assert!(!w.alternate);
        assert_eq!(w.history, 12);
        assert_eq!((w.pane, w.pane_pid), (7, 42));
        assert_eq!(w.command, "make");
        assert_eq!(w.path, "/home/me/my dir");
        assert_eq!(w.ended, None);
        let w = parse_window(r"sme nmain a1 f1 h0 P%0 b42 c d D1 E3 G T1700000009", true).unwrap();
        assert_eq!(w.session.as_deref(), Some("me"));
        assert_eq!((w.pane, w.command.as_str(), w.alternate), (0, "", true));
        assert_eq!(
            w.ended,
            Some(Ended {
                status: Some(3),
                signal: None,
                time: Some(1_700_000_009)
            })
        );
        let w = parse_window(r"nmain a1 f0 h0 P%0 b42 c d D1 E G9 T", false).unwrap();
        assert_eq!(
            w.ended,
            Some(Ended {
                status: None,
                signal: Some("9".into()),
                time: None
            })
        );
        assert_eq!(parse_window("garbage", false), None);
        assert_eq!(
            parse_window(r"nx a1 f0 h0 P7 b42 cbash d/ D0 E G T", false),
            None
        );
    }
}
