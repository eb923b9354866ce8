//! send_text and send_keys: an input numbered for the prompt hook, written in one write with
//! the probe of where its rows start, and the wait asked after it (`docs/design/terminals.md`,
//! send_text and send_keys).

use tmux_cc::{Client, Command};
use tokio_util::sync::CancellationToken;

use crate::result::{Outcome, ToolResult};
use crate::terminals::control_chars::first_control_char;
use crate::terminals::controller::TmuxFailure;
use crate::terminals::foreground;
use crate::terminals::input::{SendKeys, SendText, checked_send_wait};
use crate::terminals::keys::first_invalid_key;
use crate::terminals::output::{PROBE, Probe};
use crate::terminals::prompts::{LineEdit, PendingInput};
use crate::terminals::texts::{self, NewSessionCause};
use crate::terminals::window::WindowDescription;

use super::{Missing, Terminals};

/// The most keys in one `send-keys` command: far below what tmux's parser holds (about 9990
/// arguments, its yacc stack being 10000 deep).
const KEYS_PER_COMMAND: usize = 1000;

impl Terminals {
    /// The commands every input starts with, in its write: any tmux mode left (`copy-mode
    /// -q`: keys would go to the mode, a paste would not be bracketed).
    fn input_prelude(&self, target: &str) -> Vec<Command> {
        vec![tmux_cc::leave_modes(target)]
    }

    /// The query of the pane's cursor and history ([`PROBE`]).
    pub(super) fn probe(&self, target: &str) -> Command {
        Command::new("display-message").args(["-p", "-t", target, PROBE])
    }

    /// The pane an input to `window` goes to (its active pane), or why there is none: the
    /// session missing (created now, nothing sent) or the window.
    async fn input_pane(
        &self,
        window: &str,
    ) -> Result<Result<WindowDescription, Missing>, TmuxFailure> {
        let inner = self.inner();
        match self.windows_settled().await? {
            None => {
                let origin = inner.create_session(&self.session).await?;
                Ok(Err(Missing::Session(
                    origin.unwrap_or(NewSessionCause::New),
                )))
            }
            Some(windows) => Ok(windows
                .iter()
                .find(|w| w.name == window)
                .cloned()
                .ok_or(Missing::Window)),
        }
    }

    /// Numbers an input to `window` for the prompt hook, before it is written (see
    /// [`crate::terminals::prompts`]), with the process of the pane's shell; or the result
    /// saying why nothing can be sent.
    async fn start_input(&self, window: &str) -> Result<(PendingInput, u32), ToolResult> {
        let w = match self.input_pane(window).await {
            Ok(Ok(w)) => w,
            Ok(Err(missing)) => return Err(self.missing_result(missing, window)),
            Err(fail) => return Err(fail.result()),
        };
        if let Some(ended) = &w.ended {
            let how = super::ended::how_ended(&w, ended);
            return Err(
                match self
                    .report_ended(window, &w, texts::sent_to_ended(window, &how))
                    .await
                {
                    Ok(text) => ToolResult::refused(text, "the window's shell ended"),
                    Err(fail) => fail.result(),
                },
            );
        }
        // The hook reported a prompt for the last input: bash is on its way to read the next line
        // (the rest of PROMPT_COMMAND, which may run a program, first).
        // Or bash still starting, nothing sent yet: bash reads the input at its first prompt,
        // and written before its line editor reads, the terminal would echo it first, then
        // the editor a second time (`echo first` shown twice on the screen).
        let editor_reads = if w.input.is_none() && w.prompt.is_some() {
            until_readline_reads(&w, false).await
        } else if w.input.is_none() && w.prompt.is_none() {
            until_readline_reads(&w, true).await
        } else {
            false
        };
        // The pane's transcript follows it before the input is written: every byte of its
        // command, marks included, comes through its pipe.
        let live = self.inner().current_server();
        if let Ok(client) = self.inner().client().await {
            live.follows.start(&client, w.pane).await;
        }
        let prompts = live.prompts;
        let mut turn = prompts.start_input(w.pane).await.map_err(|e| {
            TmuxFailure::Internal(format!("recording an input for the prompt hook: {e}")).result()
        })?;
        turn.editor_reads = editor_reads;
        turn.note_foreground(foreground::foreground_group(w.pane_pid));
        if !turn.at_prompt() {
            turn.tty_echoes = tty_echoes(w.pane_pid);
        }
        Ok((turn, w.pane_pid))
    }

    /// What an input's outcome means: tmux answered (the input reached the pane), refused it
    /// (nothing reached it: the window or session missing, asked to tmux), or did not answer
    /// (it may still arrive: `look` says how to see).
    ///
    /// Answered, the input counts for the prompt hook only once tmux has written its bytes to
    /// the pane's terminal, which may come a pass of tmux's loop after the answer (see
    /// `docs/design/prompts.md`): one more round trip, at most [`WRITTEN_WAIT`]; a tmux that
    /// answered the input and then stopped has written it in that same pass.
    async fn end_input(
        &self,
        client: &Client,
        window: &str,
        turn: PendingInput,
        sent: Result<(), tmux_cc::Error>,
        look: &str,
        ok: impl FnOnce() -> ToolResult,
    ) -> ToolResult {
        match sent {
            Ok(()) => {
                let _ = client.with_timeout(WRITTEN_WAIT).written().await;
                match turn.answered() {
                    Ok(()) => ok(),
                    Err(e) => TmuxFailure::Internal(format!(
                        "recording an input for the prompt hook: {e}"
                    ))
                    .result(),
                }
            }
            // Written, maybe read later: left in flight, which the hook knows.
            Err(e @ tmux_cc::Error::Timeout { .. }) => {
                drop(turn);
                self.inner().map_error(e).result_sent(look)
            }
            Err(e) => {
                if matches!(e, tmux_cc::Error::Command { .. }) {
                    let _ = turn.refused();
                } else {
                    drop(turn);
                }
                match self.explain_input_error(window, e).await {
                    Ok(missing) => self.missing_result(missing, window),
                    Err(fail) => fail.result_sent(look),
                }
            }
        }
    }

    /// Says why an input failed: a command refused by tmux means a missing window or session
    /// (asked to tmux, never read from its message); the session is then created.
    async fn explain_input_error(
        &self,
        window: &str,
        e: tmux_cc::Error,
    ) -> Result<Missing, TmuxFailure> {
        let inner = self.inner();
        if !matches!(e, tmux_cc::Error::Command { .. }) {
            return Err(inner.map_error(e));
        }
        match inner.list_windows(&self.session).await? {
            None => {
                let origin = inner.create_session(&self.session).await?;
                Ok(Missing::Session(origin.unwrap_or(NewSessionCause::New)))
            }
            Some(windows) if windows.iter().any(|w| w.name == window) => {
                Err(TmuxFailure::Internal(e.to_string()))
            }
            Some(_) => Ok(Missing::Window),
        }
    }

    /// send_text: the text pasted as one all-or-nothing input (`set-buffer`, then
    /// `paste-buffer -p -r -d`, then Enter if asked, in one write), or typed as keys
    /// (`send-keys -l`) when it is one line for a program other than bash (see
    /// `types_as_keys`). Control characters but tab and new line are refused, naming the
    /// first one and its line; nothing is sent.
    pub async fn send_text(&self, input: SendText) -> ToolResult {
        self.send_text_with(input, CancellationToken::new()).await
    }

    /// send_text, whose wait (`wait_seconds`) ends at once when `cancel` fires (the request
    /// ended), as wait_window's does.
    pub async fn send_text_with(&self, input: SendText, cancel: CancellationToken) -> ToolResult {
        let window = &input.window;
        if let Some(refused) = self.check_names(window) {
            return refused;
        }
        let log = |r: ToolResult| {
            r.with_log("window", window)
                .with_log("bytes", input.text.len())
                .with_log("enter", input.enter)
                .with_wait_log(input.wait_seconds)
        };
        let seconds = match checked_send_wait(input.wait_seconds) {
            Ok(seconds) => seconds,
            Err(asked) => return log(wait_out_of_range("send_text", asked)),
        };
        if let Some(c) = first_control_char(&input.text) {
            return log(ToolResult::refused(
                texts::control_char(&c.describe(), c.line),
                "control character in text",
            ));
        }
        if input.text.is_empty() && !input.enter {
            return log(ToolResult::message(texts::NOTHING_TO_SEND));
        }
        let target = self.target(window);
        let client = match self.inner().client().await {
            Ok(client) => client,
            Err(fail) => return log(fail.result()),
        };
        let (mut turn, pane_pid) = match self.start_input(window).await {
            Ok(started) => started,
            Err(result) => return log(result),
        };
        turn.note_text(&input.text);
        self.expect_echo(&turn, &input.text, input.enter);
        // A program (not bash) in the foreground: one line is typed as keys, so that it runs
        // as a command (`:wq` in vim, `q` in less) where a paste would be inserted as text;
        // anything else is pasted, as to bash.
        // At its prompt, bash reads the line itself: no program to look for in /proc.
        let program = if turn.at_prompt() {
            None
        } else {
            foreground::program_in_foreground(pane_pid)
        };
        let typed = program.is_some() && types_as_keys(&input.text);
        // The program's bracketed-paste mode as its bytes show it before the paste: what tmux
        // brackets the paste by. The transcript has them all once a sync mark came through.
        let pasted_to_program = program.is_some() && !typed && !input.text.is_empty();
        let follow = self.inner().current_server().follows.get(turn.pane());
        let bracketed = match follow.filter(|_| pasted_to_program) {
            Some(follow) => {
                let tty = std::path::PathBuf::from(format!("/proc/{pane_pid}/fd/0"));
                follow.sync(&tty, SYNC_WITHIN).await;
                follow.transcript().bracketed_paste() == Some(true)
            }
            None => false,
        };
        let enter = tmux_cc::send_keys(&target, &["Enter"]);
        let after: &[Command] = if input.enter {
            std::slice::from_ref(&enter)
        } else {
            &[]
        };
        let mut before = self.input_prelude(&target);
        before.push(self.probe(&target));
        let sent = if typed {
            let mut cmds = before;
            cmds.push(tmux_cc::send_literal(&target, input.text.as_bytes()));
            cmds.extend(after.iter().cloned());
            client.input_ok(&cmds).await
        } else {
            client
                .paste_after(&target, input.text.as_bytes(), &before, after)
                .await
        };
        let edit = if input.enter {
            LineEdit::Ends
        } else {
            LineEdit::Types
        };
        let full_screen = sent
            .as_ref()
            .is_ok_and(|outputs| probe_of(outputs).is_some_and(|p| p.alternate));
        let sent = sent.map(|outputs| mark(&turn, &outputs, &input.text, edit));
        let number = turn.number();
        let look = texts::look_text(window);
        let result = self
            .end_input(&client, window, turn, sent, &look, || {
                let chars = input.text.chars().count();
                if typed {
                    return ToolResult::ok(texts::text_typed(window, chars, input.enter));
                }
                let mut text = texts::text_sent(window, chars, input.enter);
                if let (Some(program), true) = (&program, bracketed) {
                    text.push(' ');
                    text.push_str(&texts::pasted_bracketed(program));
                    if !full_screen && !input.enter && input.text.contains('\n') {
                        text.push(' ');
                        text.push_str(&texts::pasted_waits_on_line(program));
                    }
                }
                ToolResult::ok(text)
            })
            .await;
        log(self
            .then_wait(window, result, seconds, cancel, number)
            .await
            .with_log("typed", typed))
    }

    /// Text typed while a command runs: the terminal echoes it among the command's bytes,
    /// which the pane's transcript leaves out of its rows.
    fn expect_echo(&self, turn: &PendingInput, text: &str, enter: bool) {
        if turn.at_prompt() {
            return;
        }
        let Some(follow) = self.inner().current_server().follows.get(turn.pane()) else {
            return;
        };
        let mut echo = text.replace('\n', "\r\n").into_bytes();
        if enter {
            echo.extend_from_slice(b"\r\n");
        }
        follow.transcript().typed(echo, turn.tty_echoes);
    }

    /// After an input asking for a wait: the answer of wait_window once it was sent, or the
    /// input's own when it was not.
    async fn then_wait(
        &self,
        window: &str,
        sent: ToolResult,
        seconds: u32,
        cancel: CancellationToken,
        input: u64,
    ) -> ToolResult {
        if seconds == 0 || !matches!(sent.outcome, Outcome::Ok) {
            return sent;
        }
        let check = self.controller.terminal_check();
        if !check.records_prompts() {
            return ToolResult::ok(format!(
                "{} {}",
                sent.text,
                texts::can_not_wait(window, &check)
            ));
        }
        let cancelled = cancel.clone();
        let result = match self
            .wait_loop(window, seconds, cancel, &check, Some(input))
            .await
        {
            Ok(result) => result,
            Err(fail) => fail.result(),
        };
        if cancelled.is_cancelled() {
            result.with_log("cancelled", true)
        } else {
            result
        }
    }

    /// send_keys: the keys pressed in order, in one write. Names validated first (the first
    /// unknown one named), an empty list refused; nothing sent on refusal. The result repeats
    /// the keys pressed, the first 20 of a longer list and their count.
    pub async fn send_keys(&self, input: SendKeys) -> ToolResult {
        self.send_keys_with(input, CancellationToken::new()).await
    }

    /// send_keys, whose wait (`wait_seconds`) ends at once when `cancel` fires (the request
    /// ended), as wait_window's does.
    pub async fn send_keys_with(&self, input: SendKeys, cancel: CancellationToken) -> ToolResult {
        let window = &input.window;
        if let Some(refused) = self.check_names(window) {
            return refused;
        }
        let log = |r: ToolResult| {
            r.with_log("window", window)
                .with_log("keys", input.keys.len())
                .with_wait_log(input.wait_seconds)
        };
        let seconds = match checked_send_wait(input.wait_seconds) {
            Ok(seconds) => seconds,
            Err(asked) => return log(wait_out_of_range("send_keys", asked)),
        };
        let names = texts::key_names();
        if input.keys.is_empty() {
            return log(ToolResult::refused(texts::no_keys(&names), "no key"));
        }
        if let Some((position, key)) = first_invalid_key(&input.keys) {
            return log(ToolResult::refused(
                texts::unknown_key(
                    &texts::quoted_cut(key),
                    position + 1,
                    input.keys.len(),
                    &names,
                ),
                "unknown key",
            ));
        }
        let target = self.target(window);
        let mut cmds = self.input_prelude(&target);
        cmds.push(self.probe(&target));
        // tmux parses a command of a control client with a yacc grammar whose stack holds
        // 10000 entries: a send-keys of some 9990 keys or more fails ("yacc stack overflow").
        // Several send-keys in the same write press them all, in order.
        cmds.extend(
            input
                .keys
                .chunks(KEYS_PER_COMMAND)
                .map(|keys| tmux_cc::send_keys(&target, keys)),
        );
        let client = match self.inner().client().await {
            Ok(client) => client,
            Err(fail) => return log(fail.result()),
        };
        let turn = match self.start_input(window).await {
            Ok((turn, _)) => turn,
            Err(result) => return log(result),
        };
        let sent = client
            .input_ok(&cmds)
            .await
            .map(|outputs| mark(&turn, &outputs, "", line_edit(&input.keys)));
        let number = turn.number();
        let look = texts::keys_arrived_hint(window);
        let result = self
            .end_input(&client, window, turn, sent, &look, || {
                ToolResult::ok(texts::keys_sent(window, &texts::keys_pressed(&input.keys)))
            })
            .await;
        log(self
            .then_wait(window, result, seconds, cancel, number)
            .await)
    }
}

/// Whether the terminal of the pane whose first process is `pane_pid` echoes what is typed:
/// its line discipline's `ECHO` flag, read on the terminal the process has as standard input.
/// A program with a line editor of its own (a REPL) turns it off and shows the line itself.
fn tty_echoes(pane_pid: u32) -> bool {
    use nix::fcntl::OFlag;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NOCTTY | OFlag::O_NONBLOCK).bits())
        .open(format!("/proc/{pane_pid}/fd/0"))
    else {
        return false;
    };
    nix::sys::termios::tcgetattr(&tty)
        .is_ok_and(|t| t.local_flags.contains(nix::sys::termios::LocalFlags::ECHO))
}

/// How long a paste into a program waits, at most, for the pane's transcript to have what the
/// program printed before it (its bracketed-paste mode): a few milliseconds, unless the
/// machine is loaded or the terminal's output stopped.
const SYNC_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

/// The longest text send_text types as keys into a program rather than pasting.
const TYPED_AT_MOST: usize = 1024;

/// Whether send_text types `text` as keys into a program (not bash) rather than pasting it:
/// one line (no new line: Enter is `enter`), no tab (a key of its own to a line editor: it
/// completes), at most [`TYPED_AT_MOST`] bytes. See docs/design/terminals.md, send_text.
fn types_as_keys(text: &str) -> bool {
    !text.is_empty() && text.len() <= TYPED_AT_MOST && !text.contains(['\n', '\t'])
}

/// The output of an input's probe: the second command of its write, after the one leaving
/// modes.
fn probe_of(outputs: &[Vec<Vec<u8>>]) -> Option<Probe> {
    outputs
        .get(1)
        .and_then(|lines| lines.first())
        .and_then(|line| Probe::parse(&String::from_utf8_lossy(line)))
}

/// Notes where an input's rows start from the output of its probe: the input tmux answered,
/// the mark read just before it.
fn mark(turn: &PendingInput, outputs: &[Vec<Vec<u8>>], text: &str, edit: LineEdit) {
    let Some(probe) = probe_of(outputs) else {
        return;
    };
    // Its first line, as the echo shows it: before any tab (shown as spaces). The echo's check
    // takes its start; text typed ahead is found at the end of the line showing it, whole.
    let line = text
        .split('\n')
        .next()
        .unwrap_or("")
        .split('\t')
        .next()
        .unwrap_or("");
    let first: String = line.chars().take(60).collect();
    let whole: String = line.trim().chars().take(4096).collect();
    // bash's line editor shows a pasted text's final new line as no line of its own.
    let lines = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .matches('\n')
        .count()
        + 1;
    turn.mark(
        (probe.start_row(), probe.x),
        probe.history,
        probe.alternate,
        (lines, first.trim().to_string()),
        whole,
        edit,
    );
}

/// What `keys` do to bash's command line: Enter, C-c or C-d end it.
fn line_edit(keys: &[String]) -> LineEdit {
    let ends = [
        "Enter", "KPEnter", "C-m", "C-j", "C-c", "C-d", "^M", "^J", "^C", "^D",
    ];
    if keys
        .iter()
        .any(|k| ends.iter().any(|e| k.eq_ignore_ascii_case(e)))
    {
        LineEdit::Ends
    } else {
        LineEdit::Keeps
    }
}

/// A send's `wait_seconds` over 50: refused, nothing sent.
fn wait_out_of_range(tool: &str, asked: u32) -> ToolResult {
    ToolResult::refused(
        texts::wait_seconds_out_of_range(tool, asked),
        "wait_seconds out of range",
    )
}

/// The longest a paste waits for bash's line editor after its prompt hook ran: the other
/// `PROMPT_COMMAND` entries (direnv's, pyenv's, which fork) run in between.
const READLINE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long the first input to a window whose bash is still starting (no prompt recorded,
/// nothing sent) waits for bash's line editor to read, checked as [`READLINE_WAIT`]: startup
/// files take longer than the prompt hook's tail (a framework starting Python: seconds).
const FIRST_PROMPT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long an answered input waits for tmux to confirm its bytes were written to the pane
/// (one round trip; see `Terminals::end_input`).
const WRITTEN_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Waits until bash at its prompt reads its terminal with its line editor (canonical mode off),
/// [`READLINE_WAIT`] at most. rat's hook records a prompt from `PROMPT_COMMAND`, before bash
/// prints the prompt and starts reading: a paste arriving in between meets the terminal's own
/// line discipline, which echoes the bracketed-paste marks and keeps at most 4095 bytes of a
/// line (docs/design/prompts.md, "Before readline reads"). A bash that never leaves canonical
/// mode (`set +o emacs +o vi`) costs the whole wait, then is pasted into as before. Whether
/// the editor was seen reading. `starting`: bash has shown no prompt yet (nothing sent to the
/// window): [`FIRST_PROMPT_WAIT`] at most, and a standard input not yet the terminal is waited
/// for as well.
async fn until_readline_reads(w: &WindowDescription, starting: bool) -> bool {
    let at_most = if starting {
        FIRST_PROMPT_WAIT
    } else {
        READLINE_WAIT
    };
    let started = std::time::Instant::now();
    loop {
        match foreground::reads_keys(w.pane_pid) {
            Some(true) => return true,
            // Canonical mode, or (bash starting) a standard input not yet the terminal.
            Some(false) if started.elapsed() < at_most => {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            None if starting && started.elapsed() < at_most => {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TYPED_AT_MOST, types_as_keys};

    #[test]
    fn one_line_without_tab_and_short_is_typed() {
        assert!(types_as_keys(":wq"));
        assert!(types_as_keys("q"));
        assert!(types_as_keys(&"é".repeat(TYPED_AT_MOST / 2)));
        assert!(!types_as_keys(&"é".repeat(TYPED_AT_MOST / 2 + 1)));
        assert!(!types_as_keys(""));
        assert!(!types_as_keys("2+2\n"));
        assert!(!types_as_keys("a\nb"));
        assert!(!types_as_keys("ls\t-l"));
    }
}
