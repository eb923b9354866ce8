//! The terminal tools bound to a tmux session (`docs/design/terminals.md`; plumbing and
//! errors: `docs/design/tools.md`).
//!
//! Here: the session's windows listed, created and closed. `send` (send_text, send_keys: an
//! input and the wait asked after it), `read` (read_window), `wait` (wait_window's loop and
//! answers), `command_output` (what the last command printed, added to a wait's answer).

use std::time::Duration;

use tmux_cc::Command;

use super::controller::{
    Controller, FIRST_WINDOW, TmuxFailure, lines, resize_to_terminal, unix_now,
};
use super::hook::Exit;
use super::input::{CloseWindow, CreateWindow};
use super::names::{is_valid_name, is_valid_window_name};
use super::prompts::now_f64;
use super::texts::{self, NewSessionCause};
use super::texts::{ago, list_exit};
use super::window::WindowDescription;
use super::{detached, foreground};
use crate::result::ToolResult;

mod command_output;
mod ended;
mod read;
mod rows;
mod send;
mod wait;

/// The terminal tools bound to one tmux session: the client's, named by its certificate.
/// Agents never see the session's name. Get one with [`Controller::session`].
#[derive(Clone, Debug)]
pub struct Terminals {
    pub(crate) controller: Controller,
    pub(crate) session: String,
}

impl Controller {
    /// The terminal tools bound to the tmux session `session` (a client name). Cheap.
    pub fn session(&self, session: &str) -> Terminals {
        Terminals {
            controller: self.clone(),
            session: session.to_string(),
        }
    }
}

/// How long the processes of a closed window have to end before those still running are reported
/// as left running: they end on the terminal's hangup, within milliseconds.
const LEFT_GRACE: Duration = Duration::from_millis(300);

/// What a failed input means: the window missing, or the session (created then).
enum Missing {
    Window,
    /// The session was missing: created by this call (why it had to be), or concurrently.
    Session(NewSessionCause),
}

impl Terminals {
    fn inner(&self) -> &super::controller::ControllerState {
        &self.controller.inner
    }

    /// The session's placeholders, `None` when secrets are shown.
    pub(crate) fn vault(&self) -> Option<std::sync::Arc<crate::secrets::Vault>> {
        self.inner().secrets.vault(&self.session)
    }

    /// Learns the values of the secret-named variables of pane `pane`'s shells, before an
    /// answer about it is masked (docs/design/secrets.md): those its hook handed over at its
    /// last prompt, the environment its shell (`pane_pid`, 0 when not known) started with, and
    /// the environment of the process leading its terminal (a command started with them).
    pub(crate) fn learn_secrets(&self, pane: u32, pane_pid: u32) {
        let Some(vault) = self.vault() else {
            return;
        };
        vault.learn_handed(&self.inner().current_server().prompts.secrets_path(pane));
        if pane_pid == 0 {
            return;
        }
        vault.learn_environ(pane_pid);
        if let Some(leader) = foreground::foreground_group(pane_pid).filter(|&g| g != pane_pid) {
            vault.learn_environ(leader);
        }
    }

    fn target(&self, window: &str) -> String {
        format!("={}:={}", self.session, window)
    }

    fn check_names(&self, window: &str) -> Option<ToolResult> {
        if !is_valid_name(&self.session) {
            return Some(ToolResult::failed(
                texts::INTERNAL,
                format!("invalid session name {:?}", self.session),
            ));
        }
        if !is_valid_window_name(window) {
            return Some(ToolResult::refused(
                texts::invalid_name(window),
                "invalid window name",
            ));
        }
        None
    }

    /// One line of `list_windows` for `w`.
    fn describe(&self, w: &WindowDescription, now: i64) -> String {
        if let Some(ended) = &w.ended {
            return texts::line_ended(&w.name, &ended::how_ended(w, ended));
        }
        let check = self.controller.terminal_check();
        let mut line = texts::window_line(&w.name, &w.command, &w.path, &ago(now - w.activity));
        if check.records_prompts() {
            match &w.prompt {
                // An input sent before the first prompt: its command runs (bash reads it at
                // that prompt, which the hook does not record while the line waits).
                // A window made outside rat (tmux new-window running another program) has
                // no prompt to wait for.
                None if w.input.is_none() && w.command == "bash" => {
                    line.push_str(texts::NO_PROMPT_YET)
                }
                None => {}
                Some(prompt) if check.reports_statuses() && w.finished() => {
                    let age = ago(age_of(prompt.exit_time));
                    if let Some(job) = foreground::stopped_job(prompt).filter(|job| job.new) {
                        line.push_str(&texts::line_stopped(job.number, &job.name, &age));
                        return self.describe_screen(w, line);
                    }
                    match &prompt.exit {
                        Exit::Statuses(statuses) => {
                            line.push_str(", ");
                            line.push_str(&list_exit(statuses, &age));
                        }
                        Exit::Unknown => line.push_str(&texts::last_status_unknown(&age)),
                        Exit::Started => {}
                    }
                }
                Some(prompt) if w.finished() && !matches!(prompt.exit, Exit::Started) => {
                    // Where statuses are lost, a status would stand here: say so, once.
                    line.push_str(texts::LINE_STATUS_NOT_RECORDED);
                }
                // An input no prompt answered yet, bash in the foreground: said, as bash
                // alone there reads as an idle shell (a loop or a pipeline may be running in it).
                Some(_) if w.command == "bash" => {
                    if let Some(input) = w.input {
                        let state = self.inner().current_server().prompts.pane(w.pane);
                        if state.open.is_some() {
                            line.push_str(texts::LINE_TEXT_WAITS);
                        } else {
                            line.push_str(&texts::line_no_prompt_since(&ago(now - input as i64)));
                        }
                    }
                }
                Some(_) => {}
            }
        }
        self.describe_screen(w, line)
    }

    /// The end of a window's line in `list_windows`: its screen (full-screen, history).
    fn describe_screen(&self, w: &WindowDescription, mut line: String) -> String {
        if foreground::runs_its_own_prompts(&w.command) {
            line.push_str(texts::LINE_PROMPTS_INSIDE);
        }
        if w.alternate && w.command == "bash" {
            // bash never shows the alternate screen itself: a program ended (killed, crashed)
            // without leaving it, and history stays out of reach until it is left.
            line.push_str(texts::FULL_SCREEN_LEFT_ON);
        } else if w.alternate {
            line.push_str(texts::FULL_SCREEN);
        } else if w.history > 0 {
            line.push_str(&texts::rows_of_history(w.history));
        }
        line
    }

    /// list_windows: every window of the session, one line each (`docs/design/terminals.md`,
    /// list_windows).
    /// A missing session is created, with a header saying so.
    pub async fn list_windows(&self) -> ToolResult {
        if let Some(refused) = self.check_names(FIRST_WINDOW) {
            return refused;
        }
        match self.list_windows_inner().await {
            Ok(result) => result,
            Err(fail) => fail.result(),
        }
    }

    async fn list_windows_inner(&self) -> Result<ToolResult, TmuxFailure> {
        let inner = self.inner();
        let mut created = None;
        let windows = match self.windows_settled().await? {
            Some(windows) => windows,
            None => {
                created = inner.create_session(&self.session).await?;
                inner.list_windows(&self.session).await?.ok_or_else(|| {
                    TmuxFailure::Internal("session missing right after its creation".into())
                })?
            }
        };
        let features = inner.features();
        let windows: Vec<WindowDescription> = windows
            .into_iter()
            .map(|w| foreground::exact(w, &features))
            .collect();
        let now = unix_now();
        let mut text = String::new();
        if let Some(origin) = created {
            text.push_str(&format!("[{}]\n", texts::created_header(origin)));
        }
        let lines: Vec<String> = windows.iter().map(|w| self.describe(w, now)).collect();
        text.push_str(&lines.join("\n"));
        // A window whose shell ended stays: its line names the wait that shows the rows it
        // printed since the last answer, which then closes it.
        Ok(ToolResult::ok(text).with_log("windows", windows.len()))
    }

    /// create_window: the session made if missing, then the window (bash at home, 200x24,
    /// manual size). An existing window is a message saying what it runs and where; `main` in
    /// a missing session is a success.
    pub async fn create_window(&self, input: CreateWindow) -> ToolResult {
        if let Some(refused) = self.check_names(&input.name) {
            return refused;
        }
        match self.create_window_inner(&input.name).await {
            Ok(result) => result.with_log("window", &input.name),
            Err(fail) => fail
                .result_sent(texts::LOOK_CREATED)
                .with_log("window", &input.name),
        }
    }

    async fn create_window_inner(&self, name: &str) -> Result<ToolResult, TmuxFailure> {
        let inner = self.inner();
        let home = inner.config.home.to_string_lossy().into_owned();
        // Names are unique: checked free, then created, with nothing of rat's in between.
        let _guard = inner.create_lock.lock().await;
        let windows = match self.windows_settled().await? {
            Some(windows) => windows,
            None => {
                let created = inner.create_session(&self.session).await?;
                if let (Some(origin), FIRST_WINDOW) = (created, name) {
                    return Ok(ToolResult::ok(texts::window_created(name, &home, origin)));
                }
                inner.list_windows(&self.session).await?.unwrap_or_default()
            }
        };
        let mut old_end = None;
        if let Some(w) = windows.into_iter().find(|w| w.name == name) {
            match &w.ended {
                // Its shell ended: reported, then the window is made anew.
                Some(ended) => {
                    old_end = Some(ended::how_ended(&w, ended));
                    self.close_ended(name).await?;
                }
                None => {
                    let w = foreground::exact(w, &inner.features());
                    return Ok(ToolResult::message(texts::window_exists(
                        name, &w.command, &w.path,
                    )));
                }
            }
        }
        let replies = inner
            .input(&[
                tmux_cc::commands::new_window(&format!("={}:", self.session), name, &home),
                resize_to_terminal(&self.target(name)),
            ])
            .await?;
        if !replies[0].success {
            return Err(TmuxFailure::Internal(format!(
                "new-window failed: {}",
                lines(&replies[0]).join(" ")
            )));
        }
        let created = texts::window_created(name, &home, NewSessionCause::New);
        Ok(ToolResult::ok(match old_end {
            Some(how) => texts::created_after_end(&created, name, &how),
            None => created,
        }))
    }

    /// close_window: terminates what runs in the window (`kill-window`), and names the processes
    /// started from it that outlive it (detached from its shell's jobs). Nothing to close is a
    /// message: when `kill-window` fails, tmux is asked which windows exist (its message is
    /// never read), and a window still there is an internal error. The last window closed says
    /// a fresh main will be there on the next call (one `has-session`). Never creates the
    /// session.
    pub async fn close_window(&self, input: CloseWindow) -> ToolResult {
        if let Some(refused) = self.check_names(&input.name) {
            return refused;
        }
        let name = &input.name;
        let result = async {
            let inner = self.inner();
            // What runs in the window, noted before the kill, to say what outlives it.
            let pane_pid = inner
                .list_windows(&self.session)
                .await?
                .and_then(|ws| ws.into_iter().find(|w| &w.name == name))
                .map(|w| w.pane_pid)
                .filter(|&pid| pid > 0);
            let noted = pane_pid.map(detached::note).unwrap_or_default();
            let reply = inner
                .reply(Command::new("kill-window").args(["-t", &self.target(name)]))
                .await?;
            if !reply.success {
                let exists = inner
                    .list_windows(&self.session)
                    .await?
                    .is_some_and(|windows| windows.iter().any(|w| &w.name == name));
                if exists {
                    return Err(TmuxFailure::Internal(format!(
                        "kill-window failed on an existing window: {}",
                        lines(&reply).join(" ")
                    )));
                }
                return Ok(ToolResult::message(texts::nothing_to_close(name)));
            }
            let left = detached::left_text(&detached::left_running(noted, LEFT_GRACE).await);
            let last = !inner.has_session(&self.session).await?;
            Ok(ToolResult::ok(texts::window_closed(name, &left, last)))
        }
        .await;
        result
            .unwrap_or_else(|fail| fail.result_sent(texts::LOOK_CLOSED))
            .with_log("window", name)
    }

    /// Says why an input found no window: the session missing (created now, nothing sent) or
    /// the window.
    async fn explain_missing(&self) -> Result<Missing, TmuxFailure> {
        let inner = self.inner();
        if inner.has_session(&self.session).await? {
            return Ok(Missing::Window);
        }
        let origin = inner.create_session(&self.session).await?;
        Ok(Missing::Session(origin.unwrap_or(NewSessionCause::New)))
    }

    fn missing_result(&self, missing: Missing, window: &str) -> ToolResult {
        let check = self.controller.terminal_check();
        let prompt_tool = if check.records_prompts() {
            "wait_window"
        } else {
            "read_window"
        };
        match missing {
            Missing::Window => ToolResult::refused(texts::no_window(window), "no such window"),
            Missing::Session(origin) => ToolResult::refused(
                texts::sent_to_new_session(window, prompt_tool, origin),
                "session just created, nothing sent",
            ),
        }
    }
}

fn age_of(time: i64) -> i64 {
    (now_f64() - time as f64 - 0.5).round().max(0.0) as i64
}

#[cfg(test)]
mod tests {
    use super::super::hook::Record;
    use super::wait::running_text;
    use super::*;

    fn window(
        command: &str,
        input: Option<f64>,
        prompt: Option<Record>,
        activity: i64,
    ) -> WindowDescription {
        WindowDescription {
            session: None,
            name: "build".into(),
            activity,
            alternate: false,
            history: 0,
            pane: 0,
            input,
            prompt,
            pane_pid: 0,
            command: command.into(),
            path: "/home/me".into(),
            ended: None,
        }
    }

    #[test]
    fn what_still_runs() {
        let now = 1_000_000;
        let nowf = now as f64 + 0.5;
        let prompt = Some(Record {
            pane: 0,
            covers: 1,
            time: now - 400,
            exit_time: now - 400,
            exit: Exit::Statuses(vec![0]),
            seen: 1,
            ran: true,
            mark: Some(1),
            ps1_len: Some(2),
            shell: None,
            job: None,
        });
        let cases = [
            (
                "make, input 3m ago, output now",
                window("make", Some(nowf - 180.0), prompt.clone(), now),
            ),
            (
                "make, input 3m ago, quiet 25s",
                window("make", Some(nowf - 180.0), prompt.clone(), now - 25),
            ),
            (
                "no input recorded, vim",
                window("vim", None, prompt.clone(), now),
            ),
            (
                "bash without a prompt since the input",
                window("bash", Some(nowf - 5.0), prompt.clone(), now - 2),
            ),
            (
                "make, input 3.06s ago: 3s, not 4s",
                window("make", Some(nowf - 3.06), prompt.clone(), now),
            ),
            (
                "bash, quiet 12s, no prompt since the input",
                window("bash", Some(nowf - 40.0), prompt, now - 12),
            ),
            ("no prompt recorded", window("bash", None, None, now)),
        ];
        let mut out = String::new();
        for (case, w) in cases {
            out.push_str(&format!(
                "{case}:\n  {}\n",
                running_text("build", &w, nowf, 20)
            ));
        }
        insta::assert_snapshot!(out);
    }
}
