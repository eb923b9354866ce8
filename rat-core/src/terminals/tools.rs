//! The seven terminal tools bound to a tmux session (`docs/design/terminals.md`; plumbing and
//! errors: `docs/design/tools.md`).

use std::time::Duration;

use tmux_cc::{Client, Command};
use tokio_util::sync::CancellationToken;

use super::controller::{
    Controller, FIRST_WINDOW, Fail, HISTORY_LIMIT, lines, resize_to_terminal, unix_now,
};
use super::hook::{Exit, Record};
use super::input::{
    CloseWindow, CreateWindow, ReadWindow, SendKeys, SendText, WaitWindow, checked_send_wait,
};
use super::keys::first_invalid_key;
use super::names::{is_valid_name, is_valid_window_name};
use super::output::{PROBE, Probe};
use super::prompts::{InputTurn, now_f64};
use super::screen::{Capture, render, trim_capture};
use super::status::{ago, list_exit, wait_exit};
use super::text::first_control_char;
use super::texts::{self, Origin};
use super::window::WindowInfo;
use super::{detached, foreground};
use crate::tools::{Outcome, ToolResult};

/// The most keys in one `send-keys` command: far below what tmux's parser holds (about 9990
/// arguments, its yacc stack being 10000 deep).
const KEYS_PER_COMMAND: usize = 1000;

/// The seven terminal tools bound to one tmux session: the client's, named by its certificate.
/// Agents never see the session's name. Get one with [`Controller::session`].
#[derive(Clone, Debug)]
pub struct Terminals {
    pub(crate) controller: Controller,
    pub(crate) session: String,
}

/// How long the processes of a closed window have to end before those still running are told
/// as left running: they end on the terminal's hangup, within milliseconds.
const LEFT_GRACE: Duration = Duration::from_millis(300);

/// How often a wait looks at its window when no prompt is recorded meanwhile: a window closed,
/// or the terminals restarted, are seen within this time. A prompt wakes it at once.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// Nothing displayed for this long makes `wait_window` say it calmly.
const QUIET_HINT_AFTER: i64 = 10;

/// The longest an answer about a finished command waits for tmux to have read the prompt's
/// mark (every byte the command printed) from the terminal before it reads the rows anyway.
const MARK_WAIT: Duration = Duration::from_secs(2);

/// The longest an answer waits for bash to draw its prompt after a command's output without a
/// final new line (the prompt's mark, read, comes before it): past it, the row is left out as
/// the prompt's (the prompt may be another now).
const PROMPT_WAIT: Duration = Duration::from_millis(250);

/// Sleeps `pause` between two reads of a pane an answer waits on, then doubles it, to 20 ms at
/// most.
async fn back_off(pause: &mut Duration) {
    tokio::time::sleep(*pause).await;
    *pause = (*pause * 2).min(Duration::from_millis(20));
}

/// What a failed input tells: the window missing, or the session (created then).
enum Missing {
    Window,
    /// The session was missing: created by this call (why it had to be), or concurrently.
    Session(Origin),
}

impl Terminals {
    fn inner(&self) -> &super::controller::Inner {
        &self.controller.inner
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
    fn describe(&self, w: &WindowInfo, now: i64) -> String {
        let check = self.controller.terminal_check();
        let mut line = texts::window_line(&w.name, &w.command, &w.path, &ago(now - w.activity));
        if check.records_prompts() {
            match &w.prompt {
                None => line.push_str(texts::NO_PROMPT_YET),
                Some(prompt) if check.tells_statuses() && w.finished() => {
                    let age = ago(age_of(prompt.exit_time));
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
                Some(_) => {}
            }
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

    async fn list_windows_inner(&self) -> Result<ToolResult, Fail> {
        let inner = self.inner();
        let mut created = None;
        let windows = match inner.list_windows(&self.session).await? {
            Some(windows) => windows,
            None => {
                created = inner.create_session(&self.session).await?;
                inner.list_windows(&self.session).await?.ok_or_else(|| {
                    Fail::Internal("session missing right after its creation".into())
                })?
            }
        };
        let features = inner.features();
        let windows: Vec<WindowInfo> = windows
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
        Ok(ToolResult::ok(text).with_log("windows", windows.len()))
    }

    /// create_window: the session made if missing, then the window (bash at home, 200x24,
    /// manual size). An existing window is a message telling what it runs and where; `main` in
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

    async fn create_window_inner(&self, name: &str) -> Result<ToolResult, Fail> {
        let inner = self.inner();
        let home = inner.config.home.to_string_lossy().into_owned();
        // Names are unique: checked free, then created, with nothing of rat's in between.
        let _guard = inner.create_lock.lock().await;
        let windows = match inner.list_windows(&self.session).await? {
            Some(windows) => windows,
            None => {
                let created = inner.create_session(&self.session).await?;
                if let (Some(origin), FIRST_WINDOW) = (created, name) {
                    return Ok(ToolResult::ok(texts::window_created(name, &home, origin)));
                }
                inner.list_windows(&self.session).await?.unwrap_or_default()
            }
        };
        if let Some(w) = windows.into_iter().find(|w| w.name == name) {
            let w = foreground::exact(w, &inner.features());
            return Ok(ToolResult::message(texts::window_exists(
                name, &w.command, &w.path,
            )));
        }
        let replies = inner
            .input(&[
                tmux_cc::commands::new_window(&format!("={}:", self.session), name, &home),
                resize_to_terminal(&self.target(name)),
            ])
            .await?;
        if !replies[0].success {
            return Err(Fail::Internal(format!(
                "new-window failed: {}",
                lines(&replies[0]).join(" ")
            )));
        }
        Ok(ToolResult::ok(texts::window_created(
            name,
            &home,
            Origin::New,
        )))
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
            // What runs in the window, noted before the kill, to tell what outlives it.
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
                    return Err(Fail::Internal(format!(
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

    /// Tells why an input found no window: the session missing (created now, nothing sent) or
    /// the window.
    async fn explain_missing(&self) -> Result<Missing, Fail> {
        let inner = self.inner();
        if inner.has_session(&self.session).await? {
            return Ok(Missing::Window);
        }
        let origin = inner.create_session(&self.session).await?;
        Ok(Missing::Session(origin.unwrap_or(Origin::New)))
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

    /// The commands every input starts with, in its write: any tmux mode left (`copy-mode
    /// -q`: keys would go to the mode, a paste would not be bracketed).
    fn input_prelude(&self, target: &str) -> Vec<Command> {
        vec![tmux_cc::leave_modes(target)]
    }

    /// The query of the pane's cursor and history ([`PROBE`]).
    fn probe(&self, target: &str) -> Command {
        Command::new("display-message").args(["-p", "-t", target, PROBE])
    }

    /// The pane an input to `window` goes to (its active pane), or why there is none: the
    /// session missing (created now, nothing sent) or the window.
    async fn input_pane(&self, window: &str) -> Result<Result<WindowInfo, Missing>, Fail> {
        let inner = self.inner();
        match inner.list_windows(&self.session).await? {
            None => {
                let origin = inner.create_session(&self.session).await?;
                Ok(Err(Missing::Session(origin.unwrap_or(Origin::New))))
            }
            Some(windows) => Ok(windows
                .iter()
                .find(|w| w.name == window)
                .cloned()
                .ok_or(Missing::Window)),
        }
    }

    /// Numbers an input to `window` for the prompt hook, before it is written (see
    /// [`super::prompts`]); or the result telling why nothing can be sent.
    async fn start_input(&self, window: &str) -> Result<InputTurn, ToolResult> {
        let w = match self.input_pane(window).await {
            Ok(Ok(w)) => w,
            Ok(Err(missing)) => return Err(self.missing_result(missing, window)),
            Err(fail) => return Err(fail.result()),
        };
        // The hook told a prompt for the last input: bash is on its way to read the next line
        // (the rest of PROMPT_COMMAND, which may run a program, first).
        let editor_reads =
            w.input.is_none() && w.prompt.is_some() && until_readline_reads(&w).await;
        let prompts = self.inner().live_any().prompts;
        let mut turn = prompts.start_input(w.pane).await.map_err(|e| {
            Fail::Internal(format!("recording an input for the prompt hook: {e}")).result()
        })?;
        turn.editor_reads = editor_reads;
        Ok(turn)
    }

    /// What an input's outcome tells: tmux answered (the input reached the pane), refused it
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
        turn: InputTurn,
        sent: Result<(), tmux_cc::Error>,
        look: &str,
        ok: impl FnOnce() -> ToolResult,
    ) -> ToolResult {
        match sent {
            Ok(()) => {
                let _ = client.with_timeout(WRITTEN_WAIT).written().await;
                match turn.answered() {
                    Ok(()) => ok(),
                    Err(e) => {
                        Fail::Internal(format!("recording an input for the prompt hook: {e}"))
                            .result()
                    }
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

    /// Tells why an input failed: a command refused by tmux means a missing window or session
    /// (asked to tmux, never read from its message); the session is then created.
    async fn explain_input_error(&self, window: &str, e: tmux_cc::Error) -> Result<Missing, Fail> {
        let inner = self.inner();
        if !matches!(e, tmux_cc::Error::Command { .. }) {
            return Err(inner.map_error(e));
        }
        match inner.list_windows(&self.session).await? {
            None => {
                let origin = inner.create_session(&self.session).await?;
                Ok(Missing::Session(origin.unwrap_or(Origin::New)))
            }
            Some(windows) if windows.iter().any(|w| w.name == window) => {
                Err(Fail::Internal(e.to_string()))
            }
            Some(_) => Ok(Missing::Window),
        }
    }

    /// send_text: the text pasted as one all-or-nothing input (`set-buffer`, then
    /// `paste-buffer -p -r -d`, then Enter if asked, in one write). Control characters but tab
    /// and new line are refused, naming the first one and its line; nothing is sent.
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
        let turn = match self.start_input(window).await {
            Ok(turn) => turn,
            Err(result) => return log(result),
        };
        let enter = tmux_cc::send_keys(&target, &["Enter"]);
        let after: &[Command] = if input.enter {
            std::slice::from_ref(&enter)
        } else {
            &[]
        };
        let mut before = self.input_prelude(&target);
        before.push(self.probe(&target));
        let sent = client
            .paste_after(&target, input.text.as_bytes(), &before, after)
            .await;
        let edit = if input.enter {
            super::prompts::LineEdit::Ends
        } else {
            super::prompts::LineEdit::Types
        };
        let sent = sent.map(|outputs| mark(&turn, &outputs, &input.text, edit));
        let look = texts::look_text(window);
        let result = self
            .end_input(&client, window, turn, sent, &look, || {
                let chars = input.text.chars().count();
                ToolResult::ok(texts::text_sent(window, chars, input.enter))
            })
            .await;
        log(self.then_wait(window, result, seconds, cancel).await)
    }

    /// After an input asking for a wait: the answer of wait_window once it was sent, or the
    /// input's own when it was not.
    async fn then_wait(
        &self,
        window: &str,
        sent: ToolResult,
        seconds: u32,
        cancel: CancellationToken,
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
        let result = match self.wait_loop(window, seconds, cancel, &check).await {
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
        let names = super::texts::key_names();
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
            Ok(turn) => turn,
            Err(result) => return log(result),
        };
        let sent = client
            .input_ok(&cmds)
            .await
            .map(|outputs| mark(&turn, &outputs, "", line_edit(&input.keys)));
        let look = texts::look_keys(window);
        let result = self
            .end_input(&client, window, turn, sent, &look, || {
                ToolResult::ok(texts::keys_sent(window, &texts::keys_pressed(&input.keys)))
            })
            .await;
        log(self.then_wait(window, result, seconds, cancel).await)
    }

    /// read_window: the screen (200x24), preceded by up to `scrollback_rows` rows of history;
    /// under a full-screen program the screen as displayed with its cursor, never history; the
    /// read budget cuts history from its start, never the screen (a screen over it is refused).
    pub async fn read_window(&self, input: ReadWindow) -> ToolResult {
        let window = &input.window;
        if let Some(refused) = self.check_names(window) {
            return refused;
        }
        let asked = input.scrollback_rows.unwrap_or(0);
        let result = match self.read_inner(window, asked).await {
            Ok(result) => result,
            Err(fail) => fail.result(),
        };
        result
            .with_log("window", window)
            .with_log("rows_asked", asked)
    }

    async fn capture(&self, window: &str, asked: u32) -> Result<Option<Capture>, Fail> {
        let target = self.target(window);
        let rows = asked.min(HISTORY_LIMIT);
        let mut joined = Command::new("capture-pane").args(["-p", "-J"]);
        if rows > 0 {
            joined = joined.args(["-S", &format!("-{rows}")]);
        }
        // The row above the first one read, with it, joined: one line when it wraps into it (the
        // first line read continues a line begun above). tmux clamps a start beyond the history
        // to its top, and no row is above it then: the line count tells nothing, and the history
        // size decides (below).
        let above = Command::new("capture-pane").args([
            "-p",
            "-J",
            "-S",
            &format!("-{}", u64::from(rows) + 1),
            "-E",
            &format!("-{rows}"),
            "-t",
            &target,
        ]);
        let replies = self
            .inner()
            .input(&[
                Command::new("display-message").args([
                    "-p",
                    "-t",
                    &target,
                    "#{alternate_on} #{history_size} #{cursor_flag} #{cursor_x} #{cursor_y} \
                     #{pane_width} #{pane_height} #{==:#{pane_current_command},bash} \
                     #{pane_pid}",
                ]),
                Command::new("capture-pane").args(["-p", "-t", &target]),
                joined.args(["-t", &target]),
                above,
            ])
            .await?;
        // display-message describes another window when this one is missing: the captures tell.
        if !replies[1].success || !replies[2].success {
            return Ok(None);
        }
        let state = lines(&replies[0]).join(" ");
        let numbers: Vec<i64> = state.split(' ').filter_map(|n| n.parse().ok()).collect();
        let [
            alternate,
            history,
            cursor_flag,
            x,
            y,
            width,
            height,
            bash,
            pane_pid,
        ] = numbers[..]
        else {
            return Err(Fail::Internal(format!("unexpected window state {state:?}")));
        };
        let alternate = alternate == 1;
        let continued = !alternate
            && i64::from(rows) < history
            && replies[3].success
            && lines(&replies[3]).len() == 1;
        let screen = trim_capture(&lines(&replies[1]).join("\n"));
        let (content, rows) = if alternate {
            (screen.clone(), 0)
        } else {
            (
                trim_capture(&lines(&replies[2]).join("\n")),
                (rows as i64).min(history) as u32,
            )
        };
        Ok(Some(Capture {
            alternate,
            // tmux names bash when a job's leader ended while the rest of it runs (a pager
            // behind a pipe): that program holds the full screen, not one that ended.
            left_on: alternate
                && bash == 1
                && u32::try_from(pane_pid).map_or(true, |pid| {
                    super::foreground::job_without_leader(pid).is_none()
                }),
            continued,
            // tmux puts the cursor past the last column after a full row (where the next
            // character would go): told at the last column, where it shows.
            cursor: (cursor_flag == 1).then_some((
                (y + 1).clamp(1, height.max(1)) as u32,
                (x + 1).clamp(1, width.max(1)) as u32,
            )),
            rows_asked: asked,
            rows,
            screen,
            content,
        }))
    }

    async fn read_inner(&self, window: &str, asked: u32) -> Result<ToolResult, Fail> {
        let mut created = None;
        let capture = match self.capture(window, asked).await? {
            Some(capture) => capture,
            None => match self.explain_missing().await? {
                Missing::Window => {
                    return Ok(ToolResult::refused(
                        texts::no_window(window),
                        "no such window",
                    ));
                }
                Missing::Session(origin) if window != FIRST_WINDOW => {
                    return Ok(ToolResult::refused(
                        texts::other_window_in_new_session(window, origin),
                        "session just created",
                    ));
                }
                Missing::Session(origin) => {
                    created = Some(origin);
                    self.capture(window, asked).await?.ok_or_else(|| {
                        Fail::Internal("main missing right after its creation".into())
                    })?
                }
            },
        };
        let budget = self.inner().config.read_budget;
        Ok(match render(created, &capture, budget) {
            Ok(text) => ToolResult::ok(text).with_log("rows_read", capture.rows),
            Err(too_large) => ToolResult::refused(
                texts::screen_over_budget(window, too_large.bytes, budget),
                "screen over the read budget",
            )
            .with_log("screen_bytes", too_large.bytes),
        })
    }

    /// wait_window: waits until the command sent last to the window finished (a prompt recorded
    /// since the last input, bash in the foreground), then tells how it exited; after
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
    ) -> Result<ToolResult, Fail> {
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
                    .unwrap_or(Origin::New);
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
        let result = self.wait_loop(window, seconds, cancel, &check).await?;
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
    async fn wait_loop(
        &self,
        window: &str,
        seconds: u32,
        cancel: CancellationToken,
        check: &super::TerminalCheck,
    ) -> Result<ToolResult, Fail> {
        let inner = self.inner();
        let started = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(u64::from(seconds));
        let prompts = inner.live_any().prompts;
        // Subscribed before the first look: a prompt recorded after it wakes the wait.
        let mut recorded = prompts.subscribe();
        let stopping = inner.stopping.clone();
        loop {
            let windows = inner.list_windows(&self.session).await?;
            let Some(w) = windows.and_then(|ws| ws.into_iter().find(|w| w.name == window)) else {
                return Ok(ToolResult::refused(
                    texts::closed_while_waiting(window),
                    "window closed while waiting",
                ));
            };
            if w.finished() {
                let text = self.finished_text(window, &w, check);
                return Ok(ToolResult::ok(
                    self.with_output(window, w.pane, text, true).await?,
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
                    _ = tokio::time::sleep_until(deadline) => return self.timed_out(window, w, started, check).await,
                    _ = &mut look_again => break,
                    changed = recorded.changed() => {
                        if changed.is_err() {
                            // The server was replaced: the next look tells.
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
        w: WindowInfo,
        started: std::time::Instant,
        check: &super::TerminalCheck,
    ) -> Result<ToolResult, Fail> {
        if w.finished() {
            let text = self.finished_text(window, &w, check);
            return Ok(ToolResult::ok(
                self.with_output(window, w.pane, text, true).await?,
            ));
        }
        let waited = started.elapsed().as_secs_f64().round() as i64;
        let w = foreground::exact(w, &self.inner().features());
        let text = running_text(window, &w, now_f64(), waited);
        Ok(if w.prompt.is_none() && w.input.is_none() {
            ToolResult::message(text)
        } else {
            ToolResult::ok(self.with_output(window, w.pane, text, false).await?)
        })
    }

    /// `text` (a wait's answer) followed by what the last input's command printed, on a line
    /// of its own (see [`super::output`]); `finished`: bash is back at its prompt. The pane is
    /// read until two reads in a row find its cursor and history alike: tmux may still be
    /// reading the command's last output from the terminal when the prompt is recorded.
    async fn with_output(
        &self,
        window: &str,
        pane: u32,
        text: String,
        finished: bool,
    ) -> Result<String, Fail> {
        let inner = self.inner();
        let target = self.target(window);
        let prompts = inner.live_any().prompts;
        let parse = |reply: &tmux_cc::Reply| {
            if !reply.success {
                return None;
            }
            Probe::parse(&lines(reply).join(" "))
        };
        let mut last = parse(&inner.reply(self.probe(&target)).await?);
        // The hook's record is read as soon as it is written, while tmux may still be reading
        // the command's last bytes from the terminal: the rows are read once the pane's path
        // shows the prompt's mark, printed after them (docs/design/output.md).
        let mut behind = false;
        let mut pause = Duration::from_millis(1);
        let mut prompt_deadline = None;
        if finished && let Some(k) = prompts.pane(pane).prompt.and_then(|p| p.mark) {
            let deadline = tokio::time::Instant::now() + MARK_WAIT;
            while let Some(now) = last
                && now.path.behind(k)
            {
                if tokio::time::Instant::now() >= deadline {
                    behind = true;
                    break;
                }
                back_off(&mut pause).await;
                last = parse(&inner.reply(self.probe(&target)).await?);
            }
        }
        // The echo's row no longer holds the command with no history left: cleared (`clear`
        // with an empty history leaves no count to tell it), the rows left are the screen's.
        let mut cleared = false;
        // Where the echo was found, once looked for: `Some(None)` when it is gone.
        let mut found: Option<Option<u64>> = None;
        for _ in 0..50 {
            let Some(now) = last else {
                return Ok(text);
            };
            let state = prompts.pane(pane);
            let Some(mut region) = super::output::region(&state, &now, finished) else {
                return Ok(text);
            };
            if cleared {
                region.start = None;
                region.echo = None;
                region.typed = None;
            }
            // A history near full dropped its oldest tenth as often as the command printed past
            // it: the echo is looked for where each number of drops puts it, in one write.
            if let (Some((row, x)), Some((_, first)), false) =
                (region.noted, region.echo.clone(), cleared)
            {
                if found.is_none() {
                    let rows = super::output::echo_rows(row, &now);
                    found = Some(if rows.len() > 1 {
                        let history = now.history as i64;
                        let cmds: Vec<Command> = rows
                            .iter()
                            .map(|r| {
                                let at = (*r as i64 - history).to_string();
                                Command::new("capture-pane")
                                    .args(["-p", "-J", "-S", &at, "-E", &at, "-t", &target])
                            })
                            .collect();
                        let replies = inner.input(&cmds).await?;
                        // After output without a final new line, bash's line editor draws the
                        // echo as if the row began with its prompt: that far from the start.
                        let drawn = region
                            .after_tail
                            .as_ref()
                            .map(|t| x.saturating_sub(t.chars().count() as u64));
                        rows.iter()
                            .zip(&replies)
                            .find(|(_, reply)| {
                                reply.success
                                    && lines(reply).first().is_some_and(|line| {
                                        super::output::echo_at(line, &first, x)
                                            || drawn.is_some_and(|x| {
                                                super::output::echo_at(line, &first, x)
                                            })
                                    })
                            })
                            .map(|(r, _)| Some(*r))
                            .unwrap_or(None)
                    } else {
                        region.start
                    });
                }
                match found {
                    Some(Some(r)) => region.start = Some(r),
                    Some(None) => {
                        // Not where any number of drops would put it: dropped itself, every
                        // row of the history is the command's.
                        region.start = None;
                        region.echo = None;
                    }
                    None => {}
                }
            }
            let mut cmds = vec![self.probe(&target)];
            let history = now.history as i64;
            let first = region.first() as i64 - history;
            let end = region.end as i64 - 1 - history;
            let capture = !now.alternate && end >= first;
            if capture {
                // The echo's rows are counted on rows captured whole; a text typed ahead is
                // shown again after the previous command's rows, anywhere in the region.
                let echo_rows = match (&region.echo, &region.typed, &region.before) {
                    (_, Some(_), _) => end - first,
                    (Some((n, _)), None, _) | (None, None, Some((n, _))) => 4 * *n as i64 + 64,
                    (None, None, None) => 0,
                };
                cmds.push(Command::new("capture-pane").args([
                    "-p",
                    "-J",
                    "-S",
                    &first.to_string(),
                    "-E",
                    &end.to_string(),
                    "-t",
                    &target,
                ]));
                cmds.push(Command::new("capture-pane").args([
                    "-p",
                    "-N",
                    "-S",
                    &first.to_string(),
                    "-E",
                    &end.min(first + echo_rows).to_string(),
                    "-t",
                    &target,
                ]));
            }
            // Bash at its prompt: the cursor's row, for what was printed on it before the
            // prompt (no final new line), and whether the row above continues on it.
            let cursor = now.y as i64;
            let tail = finished && !now.alternate && now.row() >= region.first();
            let above = tail && now.row() > region.first();
            if tail {
                let row = cursor.to_string();
                cmds.push(
                    Command::new("capture-pane")
                        .args(["-p", "-N", "-S", &row, "-E", &row, "-t", &target]),
                );
            }
            if above {
                cmds.push(Command::new("capture-pane").args([
                    "-p",
                    "-J",
                    "-S",
                    &(cursor - 1).to_string(),
                    "-E",
                    &cursor.to_string(),
                    "-t",
                    &target,
                ]));
            }
            let replies = inner.input(&cmds).await?;
            let again = parse(&replies[0]);
            if again != last {
                last = again;
                continue;
            }
            let (joined, rows) = if capture {
                (lines(&replies[1]).join("\n"), lines(&replies[2]).join("\n"))
            } else {
                (String::new(), String::new())
            };
            let after = if capture { 3 } else { 1 };
            // PS1 changed since the command was sent: the prompt after it is another, unknown.
            let ps1_changed = finished
                && matches!(
                    (region.ps1_len, state.prompt.as_ref().and_then(|p| p.ps1_len)),
                    (Some(then), Some(now)) if then != now
                );
            // The prompt the command was sent at, as these rows show it.
            let seen = super::output::prompt_of(&region, &joined);
            let prompt = seen.clone().filter(|_| tail && !ps1_changed);
            let row = if tail {
                lines(&replies[after]).join("")
            } else {
                String::new()
            };
            // Text on the cursor's row, but not the prompt at its end: bash may not have drawn
            // it yet (the prompt's mark comes before it). Waited for, a little.
            if let Some(prompt) = &prompt
                && super::output::prompt_awaited(&row, prompt)
            {
                let deadline = *prompt_deadline
                    .get_or_insert_with(|| tokio::time::Instant::now() + PROMPT_WAIT);
                if tokio::time::Instant::now() < deadline {
                    back_off(&mut pause).await;
                    last = parse(&inner.reply(self.probe(&target)).await?);
                    continue;
                }
            }
            let tail = prompt
                .and_then(|prompt| super::output::tail(&row, &prompt))
                .map(|t| {
                    let wrapped = above
                        && replies[after + 1].success
                        && lines(&replies[after + 1]).len() == 1;
                    (t, wrapped)
                });
            if now.history == 0
                && region.start.is_some()
                && let Some((_, first)) = &region.echo
                && !joined
                    .split('\n')
                    .next()
                    .is_some_and(|l| l.contains(first.as_str()))
            {
                cleared = true;
                continue;
            }
            if !finished && !now.alternate {
                prompts.note_shown(
                    pane,
                    super::prompts::Shown {
                        input: state.started,
                        row: now.row(),
                        history: now.history,
                        typed: super::output::typed_left(&region, &joined),
                        prompt: seen.clone(),
                    },
                );
            }
            if ps1_changed {
                prompts.forget_prompt(pane);
            } else if finished {
                prompts.note_tail(
                    pane,
                    state.started,
                    tail.as_ref().map(|(t, _)| t.clone()),
                    seen,
                );
            }
            let block = super::output::block(
                super::output::Reach {
                    window,
                    budget: inner.config.read_budget,
                },
                &region,
                &joined,
                &rows,
                now.history,
                now.alternate,
                tail,
            );
            if behind {
                return Ok(format!("{text}\n{}\n{block}", texts::BEHIND));
            }
            return Ok(format!("{text}\n{block}"));
        }
        Ok(text)
    }

    fn finished_text(&self, window: &str, w: &WindowInfo, check: &super::TerminalCheck) -> String {
        let prompt = w.prompt.as_ref().expect("finished means a prompt");
        finished_text(window, prompt, check)
    }
}

/// Notes where an input's rows start from the output of its probe (the second command of its
/// write, after the one leaving modes): the input tmux answered, the mark read just before it.
fn mark(turn: &InputTurn, outputs: &[Vec<Vec<u8>>], text: &str, edit: super::prompts::LineEdit) {
    let Some(probe) = outputs
        .get(1)
        .and_then(|lines| lines.first())
        .and_then(|line| Probe::parse(&String::from_utf8_lossy(line)))
    else {
        return;
    };
    // Its first line, as the echo shows it: before any tab (shown as spaces). The echo's check
    // takes its start; a text typed ahead is found at the end of the line showing it, whole.
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
fn line_edit(keys: &[String]) -> super::prompts::LineEdit {
    let ends = [
        "Enter", "KPEnter", "C-m", "C-j", "C-c", "C-d", "^M", "^J", "^C", "^D",
    ];
    if keys
        .iter()
        .any(|k| ends.iter().any(|e| k.eq_ignore_ascii_case(e)))
    {
        super::prompts::LineEdit::Ends
    } else {
        super::prompts::LineEdit::Keeps
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

/// How long an answered input waits for tmux to confirm its bytes were written to the pane
/// (one round trip; see `Terminals::end_input`).
const WRITTEN_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Waits until bash at its prompt reads its terminal with its line editor (canonical mode off),
/// [`READLINE_WAIT`] at most. rat's hook records a prompt from `PROMPT_COMMAND`, before bash
/// prints the prompt and starts reading: a paste arriving in between meets the terminal's own
/// line discipline, which echoes the bracketed-paste marks and keeps at most 4095 bytes of a
/// line (docs/design/prompts.md, "Before readline reads"). A bash that never leaves canonical
/// mode (`set +o emacs +o vi`) costs the whole wait, then is pasted into as before. Whether
/// the editor was seen reading.
async fn until_readline_reads(w: &WindowInfo) -> bool {
    let started = std::time::Instant::now();
    loop {
        match foreground::reads_keys(w.pane_pid) {
            Some(true) => return true,
            Some(false) if started.elapsed() < READLINE_WAIT => {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            _ => return false,
        }
    }
}

fn age_of(time: i64) -> i64 {
    (now_f64() - time as f64 - 0.5).round().max(0.0) as i64
}

/// The answer of a wait whose window's prompt answers the last input.
fn finished_text(window: &str, prompt: &Record, check: &super::TerminalCheck) -> String {
    let age = ago(age_of(prompt.exit_time));
    match &prompt.exit {
        Exit::Started => texts::at_prompt(window, &ago(age_of(prompt.time))),
        Exit::Statuses(statuses) if check.tells_statuses() => {
            texts::finished_with(window, &age, &wait_exit(statuses))
        }
        Exit::Statuses(_) => {
            texts::finished_without_status(window, &age, texts::STATUS_NOT_RECORDED)
        }
        Exit::Unknown => texts::finished_without_status(window, &age, texts::STATUS_UNKNOWN),
    }
}

/// The answer of a wait that ran out of time (or a window that never ran rat's hook).
pub(crate) fn running_text(window: &str, w: &WindowInfo, now: f64, waited: i64) -> String {
    let since = |time: f64| ago((now - time).round() as i64);
    // No prompt ever, and nothing sent: bash starting, or a startup file replacing the hook.
    // A text sent before bash's first prompt is read at it, and the hook records no prompt
    // while a line waits: what runs then is the text's command, told as any other.
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
    // window_activity is whole seconds (tmux's clock, truncated): its middle is taken.
    let quiet = (now - w.activity as f64 - 0.5).round() as i64;
    if quiet >= QUIET_HINT_AFTER {
        text.push_str(&texts::quiet_hint(&ago(quiet)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(
        command: &str,
        input: Option<f64>,
        prompt: Option<Record>,
        activity: i64,
    ) -> WindowInfo {
        WindowInfo {
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
