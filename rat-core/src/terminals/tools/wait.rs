//! wait_window, and the wait of a send: the loop that waits for a window's prompt, and the
//! answers it ends with (`docs/design/terminals.md`, wait_window).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::result::ToolResult;
use crate::terminals::TerminalCheck;
use crate::terminals::controller::{FIRST_WINDOW, TmuxFailure};
use crate::terminals::foreground;
use crate::terminals::hook::{Exit, Record};
use crate::terminals::input::WaitWindow;
use crate::terminals::prompts::now_f64;
use crate::terminals::texts::{self, NewSessionCause};
use crate::terminals::texts::{ago, wait_exit};
use crate::terminals::window::WindowDescription;

use super::{Terminals, age_of};

/// How often a wait looks at its window when no prompt is recorded meanwhile: a window closed,
/// or the terminals restarted, are seen within this time. A prompt wakes it at once.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// Nothing displayed for this long makes `wait_window` say it calmly.
const QUIET_HINT_AFTER: i64 = 10;

impl Terminals {
    /// wait_window: waits until the command sent last to the window finished (a prompt recorded
    /// since the last input, bash in the foreground), then reports how it exited; after
    /// `max_seconds`, what still runs and since when. Returns at once when `cancel` fires (the
    /// request ended) or the controller stops. A `max_seconds` out of 1 to 50 is refused, with
    /// nothing waited for.
    pub async fn wait_window(&self, input: WaitWindow, cancel: CancellationToken) -> ToolResult {
        let window = &input.window;
        if let Some(refused) = self.check_names(window) {
            return refused;
        }
        let seconds = match input.checked_seconds() {
            Ok(seconds) => seconds,
            Err(asked) => {
                return ToolResult::refused(
                    texts::max_seconds_out_of_range(asked),
                    "max_seconds out of range",
                )
                .with_log("window", window)
                .with_log("max_seconds", asked);
            }
        };
        let cancelled = cancel.clone();
        let result = match self.wait_inner(window, seconds, cancel).await {
            Ok(result) => result,
            Err(fail) => fail.result(),
        };
        let result = result
            .with_log("window", window)
            .with_log("max_seconds", seconds);
        // A wait the client cancelled reads in the log apart from one that timed out.
        if cancelled.is_cancelled() {
            result.with_log("cancelled", true)
        } else {
            result
        }
    }

    async fn wait_inner(
        &self,
        window: &str,
        seconds: u32,
        cancel: CancellationToken,
    ) -> Result<ToolResult, TmuxFailure> {
        let check = self.controller.terminal_check();
        if !check.records_prompts() {
            return Ok(ToolResult::refused(
                texts::can_not_wait(window, &check),
                "prompts not recorded in these terminals",
            ));
        }
        let inner = self.inner();
        let mut created = None;
        match inner.list_windows(&self.session).await? {
            None => {
                let origin = inner
                    .create_session(&self.session)
                    .await?
                    .unwrap_or(NewSessionCause::New);
                if window != FIRST_WINDOW {
                    return Ok(ToolResult::refused(
                        texts::other_window_in_new_session(window, origin),
                        "session just created",
                    ));
                }
                created = Some(origin);
            }
            Some(windows) if !windows.iter().any(|w| w.name == window) => {
                return Ok(ToolResult::refused(
                    texts::no_window(window),
                    "no such window",
                ));
            }
            Some(_) => {}
        }
        let result = self
            .wait_loop(window, seconds, cancel, &check, None)
            .await?;
        Ok(match created {
            // The wait created the session: the answer says so first, and why.
            Some(origin) => ToolResult {
                text: format!("[{}] {}", texts::created_header(origin), result.text),
                ..result
            },
            None => result,
        })
    }

    /// The waiting of wait_window, once the window is known to exist.
    pub(super) async fn wait_loop(
        &self,
        window: &str,
        seconds: u32,
        cancel: CancellationToken,
        check: &TerminalCheck,
        input: Option<u64>,
    ) -> Result<ToolResult, TmuxFailure> {
        let inner = self.inner();
        let started = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(u64::from(seconds));
        let prompts = inner.current_server().prompts;
        // Subscribed before the first look: a prompt recorded after it wakes the wait.
        let mut recorded = prompts.subscribe();
        let stopping = inner.stopping.clone();
        loop {
            let windows = self.windows_settled().await?;
            let Some(w) = windows.and_then(|ws| ws.into_iter().find(|w| w.name == window)) else {
                return Ok(ToolResult::refused(
                    texts::closed_while_waiting(window),
                    "window closed while waiting",
                ));
            };
            if let Some(ended) = &w.ended {
                let how = super::ended::how_ended(&w, ended);
                let text = texts::window_ended(window, &how);
                return Ok(ToolResult::ok(self.report_ended(window, &w, text).await?));
            }
            if w.finished() {
                let text = self.finished_text(window, &w, check);
                return Ok(ToolResult::ok(
                    self.with_output(window, &w, text, true, input).await?,
                ));
            }
            // A line typed without Enter at the prompt: nothing will run until Enter.
            if w.input.is_some() && w.command == "bash" && prompts.pane(w.pane).open.is_some() {
                return Ok(ToolResult::message(texts::line_waits(window)));
            }
            // A bash started inside: at its first prompt, which its startup files may keep
            // from rat's hook; its commands' prompts are recorded (docs/design/prompts.md).
            if w.input.is_some()
                && w.command == "bash"
                && let Some(pid) = foreground::inner_bash_at_prompt(
                    w.pane_pid,
                    prompts.pane(w.pane).foreground_at_input,
                )
            {
                let text = texts::inner_bash_at_prompt(window, pid);
                return Ok(ToolResult::ok(
                    self.with_output_at_prompt(window, &w, text, input).await?,
                ));
            }
            let pane = w.pane;
            // Until its pane's prompt answers the last input (looked up in memory, at each
            // record), or a while has passed: then tmux is asked again.
            let look_again = tokio::time::sleep(LOOK_EVERY);
            tokio::pin!(look_again);
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return Ok(ToolResult::message(texts::WAIT_CANCELLED)),
                    _ = stopping.cancelled() => return Ok(ToolResult::message(texts::stopping(window))),
                    _ = tokio::time::sleep_until(deadline) => return self.timed_out(window, w, started, check, input).await,
                    _ = &mut look_again => break,
                    changed = recorded.changed() => {
                        if changed.is_err() {
                            // The server was replaced: the next look shows.
                            break;
                        }
                        if prompts.pane(pane).finished_prompt().is_some() {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// The answer of a wait whose time ran out, from the last look at the window.
    async fn timed_out(
        &self,
        window: &str,
        w: WindowDescription,
        started: std::time::Instant,
        check: &TerminalCheck,
        input: Option<u64>,
    ) -> Result<ToolResult, TmuxFailure> {
        if let Some(ended) = &w.ended {
            let how = super::ended::how_ended(&w, ended);
            let text = texts::window_ended(window, &how);
            return Ok(ToolResult::ok(self.report_ended(window, &w, text).await?));
        }
        if w.finished() {
            let text = self.finished_text(window, &w, check);
            return Ok(ToolResult::ok(
                self.with_output(window, &w, text, true, input).await?,
            ));
        }
        let waited = started.elapsed().as_secs_f64().round() as i64;
        let w = foreground::exact(w, &self.inner().features());
        let text = match self.why_no_prompt(window, &w).await? {
            Some(text) => text,
            None => running_text(window, &w, now_f64(), waited),
        };
        Ok(if w.prompt.is_none() && w.input.is_none() {
            ToolResult::message(text)
        } else {
            ToolResult::ok(self.with_output(window, &w, text, false, input).await?)
        })
    }
    /// Why bash, in the foreground with no prompt since the last input, shows none, where it
    /// is known: the input took rat's hook out (it assigned PROMPT_COMMAND), bash's `read`
    /// builtin waits for a line, or bash waits at its continuation prompt (`> `, PS2's default,
    /// before the cursor, while its line editor reads). `None`: not known.
    async fn why_no_prompt(
        &self,
        window: &str,
        w: &WindowDescription,
    ) -> Result<Option<String>, TmuxFailure> {
        let Some(input) = w.input else {
            return Ok(None);
        };
        if w.command != "bash" || w.prompt.is_none() {
            return Ok(None);
        }
        let since = ago((now_f64() - input).round() as i64);
        let state = self.inner().current_server().prompts.pane(w.pane);
        if state.sets_prompt_command {
            return Ok(Some(texts::hook_taken_out(window, &since)));
        }
        if foreground::shell_replaced(w.pane_pid)
            && foreground::reads_keys(w.pane_pid) == Some(true)
        {
            return Ok(Some(texts::shell_replaced(window, &since)));
        }
        if foreground::reads_a_line(w.pane_pid) {
            return Ok(Some(texts::reads_line(window, &since)));
        }
        if foreground::reads_keys(w.pane_pid) == Some(true)
            && self.before_cursor(window).await?.as_deref() == Some("> ")
        {
            return Ok(Some(texts::continuation(window, &since)));
        }
        Ok(None)
    }

    /// The text on the cursor's row before the cursor, as tmux shows it.
    async fn before_cursor(&self, window: &str) -> Result<Option<String>, TmuxFailure> {
        let target = self.target(window);
        let inner = self.inner();
        let reply = inner
            .reply(tmux_cc::Command::new("display-message").args([
                "-p",
                "-t",
                &target,
                "#{cursor_x} #{cursor_y}",
            ]))
            .await?;
        let said = crate::terminals::controller::lines(&reply).join("");
        let Some((x, y)) = said.trim().split_once(' ') else {
            return Ok(None);
        };
        let (Ok(x), Ok(y)) = (x.parse::<usize>(), y.parse::<u32>()) else {
            return Ok(None);
        };
        let row = y.to_string();
        let reply = inner
            .reply(
                tmux_cc::Command::new("capture-pane")
                    .args(["-p", "-t", &target, "-S", &row, "-E", &row]),
            )
            .await?;
        let line = crate::terminals::controller::lines(&reply).join("");
        // capture-pane leaves out a row's trailing spaces: the cursor stands past them.
        let mut before: String = line.chars().take(x).collect();
        while before.chars().count() < x {
            before.push(' ');
        }
        Ok(Some(before))
    }

    fn finished_text(&self, window: &str, w: &WindowDescription, check: &TerminalCheck) -> String {
        let prompt = w.prompt.as_ref().expect("finished means a prompt");
        finished_text(window, prompt, check)
    }
}

/// The answer of a wait whose window's prompt answers the last input.
fn finished_text(window: &str, prompt: &Record, check: &TerminalCheck) -> String {
    let age = ago(age_of(prompt.exit_time));
    let stopped = foreground::stopped_job(prompt);
    if let Some(job) = stopped.as_ref().filter(|job| job.new) {
        return texts::stopped(window, &age, job.number, &job.name);
    }
    let text = match &prompt.exit {
        Exit::Started => texts::at_prompt(window, &ago(age_of(prompt.time))),
        Exit::Statuses(statuses) if check.reports_statuses() => {
            texts::finished_with(window, &age, &wait_exit(statuses))
        }
        Exit::Statuses(_) => {
            texts::finished_without_status(window, &age, texts::STATUS_NOT_RECORDED)
        }
        Exit::Unknown => texts::finished_without_status(window, &age, texts::STATUS_UNKNOWN),
    };
    match stopped {
        Some(job) => text + &texts::job_stopped(job.number, &job.name),
        None => text,
    }
}

/// The answer of a wait that ran out of time (or a window that never ran rat's hook).
pub(crate) fn running_text(window: &str, w: &WindowDescription, now: f64, waited: i64) -> String {
    let since = |time: f64| ago((now - time).round() as i64);
    // No prompt ever, and nothing sent: bash starting, or a startup file replacing the hook.
    // Text sent before bash's first prompt is read at it, and the hook records no prompt
    // while a line waits: what runs then is the text's command, reported as any other.
    if w.prompt.is_none() && w.input.is_none() {
        return texts::no_prompt_recorded(window);
    }
    if let (Some(time), "bash") = (w.input, w.command.as_str()) {
        // bash itself in the foreground, no prompt since the input: not a command seen running.
        // The quiet hint is left out: this one points to read_window already.
        return texts::nothing_finished(window, &since(time));
    }
    let since = match w.input {
        Some(time) => texts::since_input(&since(time)),
        None => texts::after_waiting(&ago(waited)),
    };
    let mut text = texts::still_running(window, &since, &w.command);
    if foreground::runs_its_own_prompts(&w.command) {
        text.push_str(&texts::prompts_inside(&w.command));
    }
    // window_activity is whole seconds (tmux's clock, truncated): its middle is taken.
    let quiet = (now - w.activity as f64 - 0.5).round() as i64;
    if quiet >= QUIET_HINT_AFTER {
        text.push_str(&texts::quiet_hint(&ago(quiet)));
    }
    text
}
