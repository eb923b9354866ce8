//! read_window: the screen and the history asked, within the read budget
//! (`docs/design/terminals.md`, read_window).

use tmux_cc::Command;

use crate::result::ToolResult;
use crate::terminals::controller::{FIRST_WINDOW, HISTORY_LIMIT, TmuxFailure, lines};
use crate::terminals::foreground;
use crate::terminals::input::ReadWindow;
use crate::terminals::screen::{ScreenCapture, render, trim_capture};
use crate::terminals::texts;

use super::{Missing, Terminals};

impl Terminals {
    /// read_window: the screen (200x24), preceded by up to `scrollback_rows` rows of history;
    /// under a full-screen program the screen as displayed with its cursor, never history; the
    /// read budget cuts history from its start, never the screen (a screen over it is refused).
    pub async fn read_window(&self, input: ReadWindow) -> ToolResult {
        let window = &input.window;
        if let Some(refused) = self.check_names(window) {
            return refused;
        }
        if let Some(range) = input.output_rows {
            let result = self
                .read_rows(window, range)
                .await
                .unwrap_or_else(|fail| fail.result());
            return result
                .with_log("window", window)
                .with_log("output_rows", format!("{}-{}", range.from, range.to));
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

    async fn capture(
        &self,
        window: &str,
        asked: u32,
    ) -> Result<Option<ScreenCapture>, TmuxFailure> {
        let target = self.target(window);
        let rows = asked.min(HISTORY_LIMIT);
        let mut joined = Command::new("capture-pane").args(["-p", "-J"]);
        if rows > 0 {
            joined = joined.args(["-S", &format!("-{rows}")]);
        }
        // The row above the first one read, with it, joined: one line when it wraps into it (the
        // first line read continues a line begun above). tmux clamps a start beyond the history
        // to its top, and no row is above it then: the line count shows nothing, and the history
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
                     #{pane_pid} #{pane_id}",
                ]),
                Command::new("capture-pane").args(["-p", "-t", &target]),
                joined.args(["-t", &target]),
                above,
            ])
            .await?;
        // display-message describes another window when this one is missing: the captures show.
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
            return Err(TmuxFailure::Internal(format!(
                "unexpected window state {state:?}"
            )));
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
        // Before the capture is masked: the pane's shell variables that say secret.
        if let Some(pane) = state
            .split(' ')
            .find_map(|f| f.trim().strip_prefix('%')?.parse().ok())
        {
            self.learn_secrets(pane, u32::try_from(pane_pid).unwrap_or(0));
        }
        Ok(Some(ScreenCapture {
            alternate,
            // tmux names bash when a job's leader ended while the rest of it runs (a pager
            // behind a pipe): that program holds the full screen, not one that ended.
            left_on: alternate
                && bash == 1
                && u32::try_from(pane_pid)
                    .map_or(true, |pid| foreground::job_without_leader(pid).is_none()),
            continued,
            // tmux puts the cursor past the last column after a full row (where the next
            // character would go): shown at the last column, where it is.
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

    async fn read_inner(&self, window: &str, asked: u32) -> Result<ToolResult, TmuxFailure> {
        let mut created = None;
        let mut capture = match self.capture(window, asked).await? {
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
                        TmuxFailure::Internal("main missing right after its creation".into())
                    })?
                }
            },
        };
        let budget = self.inner().config.read_budget;
        self.mask_capture(&mut capture, budget);
        Ok(match render(created, &capture, budget) {
            Ok(text) => ToolResult::ok(text).with_log("rows_read", capture.rows),
            Err(too_large) => ToolResult::refused(
                texts::screen_over_budget(window, too_large.bytes, budget),
                "screen over the read budget",
            )
            .with_log("screen_bytes", too_large.bytes),
        })
    }

    /// The capture's content masked before the budget cuts it (`docs/design/secrets.md`): only
    /// its end that the cut keeps, so that a 10000-row read masks 64 KiB, not 2 MB. The screen
    /// alone is only measured, never shown.
    fn mask_capture(&self, capture: &mut ScreenCapture, budget: crate::result::ReadBudget) {
        let Some(vault) = self.vault() else {
            return;
        };
        let how = crate::secrets::How {
            // Under a full-screen program the rows are as displayed, not joined.
            width: capture
                .alternate
                .then_some(crate::terminals::controller::TERMINAL_SIZE.0 as usize),
            open_end: true,
            keep_lines: capture.alternate,
        };
        capture.content = vault.mask_end(&capture.content, budget.bytes(), how);
    }
}
