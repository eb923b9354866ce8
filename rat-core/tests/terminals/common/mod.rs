//! Shared by the terminals tests: a controller per test on a private socket, helpers.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use rat_core::result::{ReadBudget, ToolResult};
use rat_core::terminals::{
    Controller, ControllerConfig, ReadWindow, SendKeys, SendText, TerminalCheck, Terminals,
    WaitWindow,
};
use tmux_cc::test_support::{SocketGuard, socket_name};
use tokio_util::sync::CancellationToken;

/// A controller on a private socket, with a home directory of its own; the server is killed by
/// its socket when the fixture drops, even when the test fails (the guard, dropped first, also
/// removes the socket file tmux 3.3a leaves behind, as the test ends before tmux-cc does).
pub struct Fixture {
    pub guard: SocketGuard,
    pub controller: Controller,
    pub home: tempfile::TempDir,
}

/// What a test's home directory holds before the controller starts.
#[derive(Default)]
pub struct Home<'a> {
    /// Appended to `.bash_profile` after `PS1='$ '`.
    pub profile: &'a str,
    /// `.inputrc`, when not empty.
    pub inputrc: &'a str,
    pub budget: Option<ReadBudget>,
    /// How long a tmux command may take (10 s by default): shorter for tests that wait it out.
    pub command_timeout: Option<Duration>,
    /// Files written in the home instead of `.bash_profile` (name, content), when not empty:
    /// a home set up as a user's, with its own prompt.
    pub files: &'a [(&'a str, &'a str)],
}

/// A tenant no other test uses, `t-PID-N`: its socket `rat-t-PID-N` is this test's alone.
pub fn tenant() -> String {
    socket_name("t")
}

/// A fixture with the default home, its terminals checked, and `main` of session `s` at its
/// prompt: where most tests start.
pub async fn start_ready() -> Fixture {
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    f
}

pub async fn start(home: Home<'_>) -> Fixture {
    let dir = tempfile::tempdir().expect("home");
    if home.files.is_empty() {
        std::fs::write(
            dir.path().join(".bash_profile"),
            format!("PS1='$ '\n{}\n", home.profile),
        )
        .unwrap();
    }
    for (name, content) in home.files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    if !home.inputrc.is_empty() {
        std::fs::write(dir.path().join(".inputrc"), home.inputrc).unwrap();
    }
    let tenant = tenant();
    let mut config = ControllerConfig::new(&tenant);
    config.home = dir.path().to_path_buf();
    if let Some(budget) = home.budget {
        config.read_budget = budget;
    }
    if let Some(timeout) = home.command_timeout {
        config.command_timeout = timeout;
    }
    let guard = SocketGuard::named(config.socket_name());
    let controller = Controller::start(config).await.expect("controller starts");
    Fixture {
        guard,
        controller,
        home: dir,
    }
}

impl Fixture {
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The socket of the fixture's tmux server (`tmux -L`).
    pub fn socket(&self) -> &str {
        &self.guard.socket
    }

    /// Replaces what varies from run to run: the home directory, and relative times.
    pub fn redact(&self, text: &str) -> String {
        redact_times(&text.replace(&self.home().to_string_lossy().into_owned(), "~"))
    }

    /// Runs a line in `window` of session `s` and waits for its prompt (at most 20 s).
    pub async fn run(&self, s: &str, window: &str, line: &str) -> ToolResult {
        let t = self.controller.session(s);
        let sent = t.send_text(text(window, line, true)).await;
        assert!(!sent.outcome.is_error(), "{}", sent.text);
        waited(&t, window, 20).await
    }

    /// Waits for the prompt of `window`, and for the screen to show it (a last line `$`).
    pub async fn ready(&self, s: &str, window: &str) -> ToolResult {
        let ready = waited(&self.controller.session(s), window, 20).await;
        self.read_until(s, window, 0, |screen| {
            screen == "$" || screen.ends_with("\n$")
        })
        .await;
        ready
    }

    /// Starts `cat > ~/NAME` in `main` of session `s`, and waits until cat has the terminal:
    /// keys that arrive while bash's line editor still has it are read without its CR-to-LF
    /// translation (ICRNL off), and cat would write CR. Returns the file's path.
    pub async fn cat_into(&self, name: &str) -> PathBuf {
        let out = self.home().join(name);
        self.controller
            .session("s")
            .send_text(text("main", &format!("cat > {}", out.display()), true))
            .await;
        self.wait_command("s", "main", "cat").await;
        out
    }

    /// A tmux command on the fixture's server, forked (for what agents can not do: a human
    /// entering copy mode, a command typed elsewhere).
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("tmux")
            .arg("-L")
            .arg(self.socket())
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// A send_text input.
pub fn text(window: &str, text: &str, enter: bool) -> SendText {
    SendText {
        window: window.into(),
        text: text.into(),
        enter,
        wait_seconds: 0,
    }
}

/// A send_text input that waits `seconds` for what it runs.
pub fn run_text(window: &str, text: &str, seconds: u32) -> SendText {
    SendText {
        window: window.into(),
        text: text.into(),
        enter: true,
        wait_seconds: seconds,
    }
}

/// A send_keys input.
pub fn keys(window: &str, keys: &[&str]) -> SendKeys {
    SendKeys {
        window: window.into(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
        wait_seconds: 0,
    }
}

/// A read_window input.
pub fn read(window: &str, rows: u32) -> ReadWindow {
    ReadWindow {
        window: window.into(),
        scrollback_rows: Some(rows),
        output_rows: None,
    }
}

/// A read_window input of rows `from` to `to` of `window`'s last command (`output_rows`).
pub fn read_rows(window: &str, from: u64, to: u64) -> ReadWindow {
    ReadWindow {
        window: window.into(),
        scrollback_rows: None,
        output_rows: Some(rat_core::terminals::RowRange { from, to }),
    }
}

/// The hint of an answer showing the last rows of `total`, `kept` of them: the read_window
/// call reading the others by number.
pub fn rows_hint(total: u64, kept: u64) -> String {
    format!(
        "[{total} rows printed, the last {kept} below; read_window main with output_rows \
         {{\"from\": 1, \"to\": {}}} shows the others]",
        total - kept
    )
}

/// A wait_window input.
pub fn wait(window: &str, seconds: u32) -> WaitWindow {
    WaitWindow {
        window: window.into(),
        max_seconds: Some(seconds),
    }
}

/// wait_window on `window` of `t`, `seconds` at most, never cancelled: its answer.
pub async fn waited(t: &Terminals, window: &str, seconds: u32) -> ToolResult {
    t.wait_window(wait(window, seconds), CancellationToken::new())
        .await
}

/// 120 lines of 99 letters as keys, each line's letters and then Enter (a through j, the
/// line's number modulo 10), and the text `cat` writes of them: a long key list whose order
/// shows.
pub fn letter_lines() -> (Vec<String>, String) {
    let mut pressed = Vec::new();
    let mut expected = String::new();
    for line in 0..120 {
        let letter = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"][line % 10];
        pressed.extend(std::iter::repeat_n(letter.to_string(), 99));
        pressed.push("Enter".to_string());
        expected.push_str(&letter.repeat(99));
        expected.push('\n');
    }
    (pressed, expected)
}

/// Whether everything the check looks at holds: it ran, bracketed paste, prompts, statuses.
pub fn all_hold(check: &TerminalCheck) -> bool {
    check.ran && check.bracketed_paste && check.prompts && check.statuses
}

/// `12s ago`, `3m since`: the digits of a relative time become `N`.
pub fn redact_times(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let unit = chars.get(i).copied();
            let after = chars.get(i + 1).copied();
            if matches!(unit, Some('s' | 'm' | 'h' | 'd'))
                && !after.is_some_and(char::is_alphanumeric)
            {
                out.push('N');
            } else {
                out.extend(&chars[start..i]);
            }
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The tmux first on this process's PATH: the one the tests' servers run. A terminal types
/// it by its path, since a login shell's PATH (set again by /etc/profile) may find another
/// tmux first, whose client a server of another version refuses (the version matrix runs
/// every release this way).
pub fn tmux_on_path() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("tmux"))
                .find(|tmux| tmux.is_file())
        })
        .expect("tmux on PATH")
}

pub fn path_of(p: &Path) -> PathBuf {
    p.to_path_buf()
}

pub async fn eventually<F: Fn() -> bool>(what: &str, f: F) {
    for _ in 0..500 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never happened: {what}");
}

impl Fixture {
    /// Waits (10 s at most) for `command` in the foreground of `window` of session `s`, as tmux
    /// tells it (`#{pane_current_command}`, read with a forked tmux).
    pub async fn wait_command(&self, s: &str, window: &str, command: &str) {
        let target = format!("={s}:={window}");
        eventually(&format!("{command} runs"), || {
            self.tmux(&[
                "display-message",
                "-p",
                "-t",
                &target,
                "#{pane_current_command}",
            ])
            .trim()
                == command
        })
        .await;
    }

    /// Reads `window` until its text satisfies `until` (at most 10 s), and returns that read.
    pub async fn read_until(
        &self,
        s: &str,
        window: &str,
        rows: u32,
        until: impl Fn(&str) -> bool,
    ) -> ToolResult {
        let t = self.controller.session(s);
        let mut last = String::new();
        for _ in 0..500 {
            let r = t
                .read_window(rat_core::terminals::ReadWindow {
                    window: window.into(),
                    scrollback_rows: Some(rows),
                    output_rows: None,
                })
                .await;
            if until(&r.text) {
                return r;
            }
            last = r.text;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the screen never showed what was expected; last read:\n{last}");
    }
}

/// The numbers `from` to `to`, one a line: what `seq FROM TO` prints.
pub fn numbers(from: u32, to: u32) -> String {
    (from..=to)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
