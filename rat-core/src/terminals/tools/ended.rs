//! A window whose shell ended (`exit 3`, `set -e` then a failing command, Ctrl-D, killed):
//! tmux keeps its pane, dead (`remain-on-exit`), with the shell's status or signal and the rows
//! it printed, until an answer reported it with its rows (a wait, an input, create_window of
//! that name): then the window is closed. list_windows reports the end and keeps the window.
//! `docs/design/prompts.md`, A shell that ends.

use std::time::Duration;

use tmux_cc::Command;

use crate::terminals::controller::TmuxFailure;
use crate::terminals::texts;
use crate::terminals::texts::ago;
use crate::terminals::window::{Ended, WindowDescription};

use super::{Terminals, age_of};

/// tmux 3.2a's own line in a dead pane (it has no `remain-on-exit-format`), written after the
/// shell's rows: never one of them.
const DEAD_LINE: &str = "Pane is dead (";

/// How `w`'s shell ended, worded: `ended 2m ago, exit status 3`. When tmux does not report the
/// time (before 3.3), the window's last activity stands for it: the shell's last output.
pub(crate) fn how_ended(w: &WindowDescription, ended: &Ended) -> String {
    let time = ended.time.unwrap_or(w.activity);
    texts::shell_ended(&ago(age_of(time)), ended.status, ended.signal.as_deref())
}

/// `answer` (its first line, then `[N rows printed]` and the rows) without tmux 3.2a's line of
/// a dead pane and the empty rows its linefeed left before it, its count of rows made right.
fn without_dead_line(answer: String) -> String {
    let mut lines: Vec<&str> = answer.split('\n').collect();
    if lines.len() < 3 || !lines[lines.len() - 1].starts_with(DEAD_LINE) {
        return answer;
    }
    lines.pop();
    while lines.len() > 2 && lines.last() == Some(&"") {
        lines.pop();
    }
    let counted = matches!(lines[1].strip_suffix(" printed]"), Some(h) if h.starts_with('['));
    if !counted {
        return lines.join("\n");
    }
    let header = match lines.len() - 2 {
        0 => texts::nothing_printed(false),
        n => format!("{}]", texts::rows_printed(n, false, 0)),
    };
    let mut out = vec![lines[0].to_string(), header];
    out.extend(lines[2..].iter().map(|l| l.to_string()));
    out.join("\n")
}

/// How long a window whose pane is dead may go without its status reported (see [`Ended::known`])
/// before it is reported as killed by a signal tmux does not name (3.2a's only case).
const STATUS_WAIT: Duration = Duration::from_secs(2);

/// Sends SIGCHLD to the tmux server whose pane's shell `pane_pid` is a zombie it has not
/// collected. tmux 3.3a now and then leaves a pane's shell unreaped after a SIGCHLD, until
/// another child ends (measured: 2 of 30 `exit 3` in a row, dead with no status after 0.3 s,
/// and for good in a test): its status is never reported meanwhile. tmux's handler of SIGCHLD
/// collects every child that ended; the signal is only sent to the zombie's parent when it is
/// a tmux.
fn remind_tmux(pane_pid: u32) {
    let Some(shell) = crate::terminals::foreground::stat(pane_pid) else {
        return;
    };
    if shell.state != b'Z' {
        return;
    }
    let is_tmux = crate::terminals::foreground::stat(shell.ppid)
        .is_some_and(|server| server.comm.starts_with(b"tmux"));
    if is_tmux {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(shell.ppid as i32),
            nix::sys::signal::Signal::SIGCHLD,
        );
    }
}

impl Terminals {
    /// The windows of the session (`None`: the session is missing), read again for a while
    /// when a pane is dead with its status not reported yet.
    pub(super) async fn windows_settled(
        &self,
    ) -> Result<Option<Vec<WindowDescription>>, TmuxFailure> {
        let deadline = tokio::time::Instant::now() + STATUS_WAIT;
        loop {
            let windows = self.inner().list_windows(&self.session).await?;
            let settling = windows.as_ref().is_some_and(|ws| {
                ws.iter()
                    .any(|w| w.ended.as_ref().is_some_and(|e| !e.known()))
            });
            if !settling || tokio::time::Instant::now() >= deadline {
                return Ok(windows);
            }
            for w in windows.iter().flatten() {
                if w.ended.as_ref().is_some_and(|e| !e.known()) {
                    remind_tmux(w.pane_pid);
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Reports how `w`'s shell ended, with the rows it printed since the last answer, then
    /// closes the window: `text` the answer's first line.
    pub(super) async fn report_ended(
        &self,
        window: &str,
        w: &WindowDescription,
        text: String,
    ) -> Result<String, TmuxFailure> {
        self.learn_secrets(w.pane, 0);
        let answer = self.screen_output(window, w.pane, text, false).await?;
        self.close_ended(window).await?;
        Ok(without_dead_line(answer))
    }

    /// Closes a window whose end was reported. Its pane is dead: nothing runs in it.
    pub(super) async fn close_ended(&self, window: &str) -> Result<(), TmuxFailure> {
        self.inner()
            .reply(Command::new("kill-window").args(["-t", &self.target(window)]))
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_lines_are_not_rows() {
        assert_eq!(
            without_dead_line(
                "x: its bash ended.\n[3 rows printed]\nstep1\nexit\nPane is dead (status 3, Fri)"
                    .into()
            ),
            "x: its bash ended.\n[2 rows printed]\nstep1\nexit"
        );
        assert_eq!(
            without_dead_line("x: ended.\n[1 row printed]\nPane is dead (status 3, Fri)".into()),
            "x: ended.\nNothing printed."
        );
        assert_eq!(
            without_dead_line("x: ended.\n[1 row printed]\nexit".into()),
            "x: ended.\n[1 row printed]\nexit"
        );
    }
}
