//! What an input's command printed, added to a wait's answer: the rows its marks framed, as
//! the pane's transcript shows them; where its marks are missing, the pane read until tmux has
//! read the command's last bytes, its rows found past the echo, and the answer says its rows
//! were read from the screen (`docs/design/output.md`).

use std::time::Duration;

use tmux_cc::Command;

use crate::terminals::controller::{TmuxFailure, lines};
use crate::terminals::output::marked::{self, Place};
use crate::terminals::texts;
use crate::terminals::texts::wait_exit;
use crate::terminals::transcript::{Follow, Lines, MarkId, Report, Transcript};
use crate::terminals::window::WindowDescription;
use output::Probe;

use crate::terminals::{foreground, output, prompts};

use super::Terminals;

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

/// Waits, `within` at most, until `done` holds of `follow`'s transcript; whether it does.
async fn fed_until(follow: &Follow, done: impl Fn(&Transcript) -> bool, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        // Created before the look: a piece fed after it wakes it.
        let fed = follow.fed();
        if done(&follow.transcript()) {
            return true;
        }
        if follow.end().is_some() || tokio::time::timeout_at(deadline, fed).await.is_err() {
            return done(&follow.transcript());
        }
    }
}

/// What the transcript reported of an input's command, and how the answer starts.
enum Marked {
    /// Its rows, after the answer's `text` (its first line replaced when a later input ran).
    Answer(String),
    /// Its marks are missing: its rows are read from the screen, said so.
    FromScreen,
    /// No command of the input's is framed (no command ran, nothing sent, no hook): the
    /// screen as before.
    Screen,
}

/// What the line the cursor is on is, for an answer about a command still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CursorLine {
    /// A row the command printed, maybe still growing.
    Output,
    /// A prompt rat knows of (a bash started inside, at its prompt): left out.
    Prompt,
    /// Likely a prompt (a program with prompts of its own runs): left out, named as such.
    LikelyPrompt,
}

impl Terminals {
    /// `text` (a wait's answer) followed by what input `input`'s command printed (the last
    /// input when `None`), on lines of its own; `finished`: bash is back at its prompt. The
    /// rows are the transcript's (see [`crate::terminals::transcript`]); where the command's
    /// marks are missing, they are read from the screen ([`Terminals::screen_output`]), and
    /// the answer says so.
    pub(super) async fn with_output(
        &self,
        window: &str,
        w: &WindowDescription,
        text: String,
        finished: bool,
        input: Option<u64>,
    ) -> Result<String, TmuxFailure> {
        // A program with prompts of its own (a REPL, su, ssh) shows its prompt on the
        // cursor's line while it waits: not a row it printed.
        let cursor = if !finished && foreground::runs_its_own_prompts(&w.command) {
            CursorLine::LikelyPrompt
        } else {
            CursorLine::Output
        };
        self.with_output_then(window, w, text, (finished, cursor), input)
            .await
    }

    /// [`Terminals::with_output`] of a command that runs a bash started inside, known to be at
    /// its prompt: the line the cursor is on is that prompt, not a row the command printed.
    pub(super) async fn with_output_at_prompt(
        &self,
        window: &str,
        w: &WindowDescription,
        text: String,
        input: Option<u64>,
    ) -> Result<String, TmuxFailure> {
        self.with_output_then(window, w, text, (false, CursorLine::Prompt), input)
            .await
    }

    async fn with_output_then(
        &self,
        window: &str,
        w: &WindowDescription,
        text: String,
        (finished, cursor): (bool, CursorLine),
        input: Option<u64>,
    ) -> Result<String, TmuxFailure> {
        let pane = w.pane;
        // Before the rows are masked: a variable set by the command is known.
        self.learn_secrets(pane, w.pane_pid);
        match self
            .marked_output(window, pane, &text, (finished, cursor), input)
            .await?
        {
            Marked::Answer(answer) => Ok(answer),
            Marked::Screen => self.screen_output(window, pane, text, finished).await,
            Marked::FromScreen => {
                let answer = self.screen_output(window, pane, text, finished).await?;
                Ok(match answer.split_once('\n') {
                    Some((head, block)) => {
                        format!("{head}\n{} {block}", texts::ROWS_FROM_SCREEN)
                    }
                    None => answer,
                })
            }
        }
    }

    /// The answer from the transcript, when the input's command is framed by its marks.
    async fn marked_output(
        &self,
        window: &str,
        pane: u32,
        text: &str,
        (finished, cursor): (bool, CursorLine),
        input: Option<u64>,
    ) -> Result<Marked, TmuxFailure> {
        let live = self.inner().current_server();
        let state = live.prompts.pane(pane);
        let input = input.unwrap_or(state.started);
        let Some(follow) = live.follows.get(pane) else {
            // Nothing sent to it since ratd started, or its pipe refused.
            return Ok(if input > 0 {
                Marked::FromScreen
            } else {
                Marked::Screen
            });
        };
        let own = state.input_at(input);
        let mut head = text.to_string();
        let (ids, ended) = if finished {
            let Some(record) = state.prompt.as_ref() else {
                return Ok(Marked::Screen);
            };
            let (Some(shell), Some(mark)) = (record.shell, record.mark) else {
                return Ok(Marked::Screen);
            };
            let last = (record.ran && mark > 1).then_some(MarkId {
                shell,
                prompt: mark - 1,
            });
            let ids: Vec<MarkId> = match (own, last) {
                (Some(own), Some(last)) if own.shell == last.shell && own.prompt < last.prompt => {
                    if input < state.started {
                        // A later input's command ran after this one's.
                        vec![own]
                    } else {
                        // The input's lines ran one after the other (a pasted script).
                        (own.prompt..=last.prompt)
                            .map(|prompt| MarkId { shell, prompt })
                            .collect()
                    }
                }
                (_, Some(last)) => vec![last],
                // No command ran (an empty line), or the hook's marks are off.
                _ => return Ok(Marked::Screen),
            };
            let after = MarkId {
                shell,
                prompt: mark,
            };
            let first = ids[0];
            fed_until(
                &follow,
                |t| t.seen_prompt(after) || t.was_reported(first),
                MARK_WAIT,
            )
            .await;
            (ids, true)
        } else {
            let running = follow.transcript().running();
            match own.filter(|o| Some(*o) == running).or(running) {
                Some(id) => (vec![id], false),
                // bash still reads the command line (its continuation prompt): no command
                // started, nothing printed.
                None if own.is_some_and(|o| follow.transcript().seen_prompt(o)) => {
                    return Ok(Marked::Answer(format!(
                        "{head}\n{}",
                        texts::nothing_printed(false)
                    )));
                }
                None => return Ok(Marked::FromScreen),
            }
        };
        let ((mut rows, status, full_screen, left_on), current) = {
            let mut transcript = follow.transcript();
            let mut all: Option<(Lines, Option<i32>, bool, bool)> = None;
            for (i, &id) in ids.iter().enumerate() {
                let report = transcript.report(id);
                if i == 0 && report.is_none() && transcript.was_reported(id) {
                    return Ok(Marked::Answer(format!(
                        "{head}\n{}",
                        texts::nothing_printed(true)
                    )));
                }
                match report {
                    Some(Report::Framed {
                        lines: rows,
                        ended: end,
                        full_screen,
                        alternate_left_on,
                    }) if end.is_some() == ended => match &mut all {
                        None => all = Some((rows, end.flatten(), full_screen, alternate_left_on)),
                        Some((all_rows, status, _, left_on)) => {
                            all_rows.lines.extend(rows.lines);
                            all_rows.whole = all_rows.lines.len();
                            all_rows.rows += rows.rows;
                            all_rows.gone += rows.gone;
                            *status = end.flatten();
                            *left_on |= alternate_left_on;
                        }
                    },
                    // A line of a pasted script that ran no command (empty, or a comment).
                    None if i > 0 => {}
                    _ => return Ok(Marked::FromScreen),
                }
            }
            // read_window's output_rows reads the window's current command: the rows are
            // reached by number when they are that one's, of one command.
            let current = ids.len() == 1 && transcript.current() == Some(ids[0]);
            match all {
                Some(all) => (all, current),
                None => return Ok(Marked::FromScreen),
            }
        };
        if ended && self.superseded(&state, ids[ids.len() - 1]) {
            let exit = status.map_or_else(|| ".".to_string(), |s| wait_exit(&[s]));
            head = texts::superseded(window, &exit);
        }
        if full_screen {
            return Ok(Marked::Answer(format!(
                "{head}\n{}",
                texts::FULL_SCREEN_HOLDS
            )));
        }
        let vault = self.vault();
        if cursor != CursorLine::Output && rows.whole < rows.lines.len() {
            if cursor == CursorLine::LikelyPrompt
                && let Some(line) = rows.lines.last().filter(|l| !l.is_empty())
            {
                let masked =
                    crate::secrets::mask_rows(vault.as_deref(), vec![line.as_str().into()], true);
                head.push_str(&texts::likely_prompt(&masked.concat()));
            }
            rows.rows = rows
                .rows
                .saturating_sub((rows.lines.len() - rows.whole) as u64);
            rows.lines.truncate(rows.whole);
        }
        marked::mask(&mut rows, vault.as_deref());
        let place = if marked::cut(&rows) {
            let target = self.target(window);
            let reply = self
                .inner()
                .reply(Command::new("display-message").args([
                    "-p",
                    "-t",
                    &target,
                    "#{history_size} #{cursor_y}",
                ]))
                .await?;
            let said = lines(&reply).join("");
            let mut fields = said.split(' ').map(|f| f.trim().parse::<u64>().ok());
            match (fields.next().flatten(), fields.next().flatten()) {
                (Some(history), Some(cursor_y)) => Some(Place {
                    history,
                    cursor_y,
                    ended,
                }),
                _ => None,
            }
        } else {
            None
        };
        let reach = output::AnswerContext {
            window,
            budget: self.inner().config.read_budget,
            // Masked above, before the cut.
            secrets: None,
        };
        let numbered = current && rows.first > 0;
        let mut answer = format!("{head}\n{}", marked::block(reach, &rows, place, numbered));
        if left_on {
            answer.push('\n');
            answer.push_str(texts::ALTERNATE_LEFT_ON);
        }
        Ok(Marked::Answer(answer))
    }

    /// Whether `id`, the command an answer is about, is not the last that ran in its pane: a
    /// later input's command ran after it.
    fn superseded(&self, state: &crate::terminals::prompts::PaneState, id: MarkId) -> bool {
        state
            .prompt
            .as_ref()
            .is_some_and(|r| r.shell == Some(id.shell) && r.mark.is_some_and(|m| m > id.prompt + 1))
    }

    /// `text` (a wait's answer) followed by what the last input's command printed, read from
    /// the screen (see [`output`]); `finished`: bash is back at its prompt. The pane is
    /// read until two reads in a row find its cursor and history alike: tmux may still be
    /// reading the command's last output from the terminal when the prompt is recorded.
    pub(super) async fn screen_output(
        &self,
        window: &str,
        pane: u32,
        text: String,
        finished: bool,
    ) -> Result<String, TmuxFailure> {
        let inner = self.inner();
        let target = self.target(window);
        let prompts = inner.current_server().prompts;
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
        // with an empty history leaves no count to show it), the rows left are the screen's.
        let mut cleared = false;
        // Where the echo was found, once looked for: `Some(None)` when it is gone.
        let mut found: Option<Option<u64>> = None;
        for _ in 0..50 {
            let Some(now) = last else {
                return Ok(text);
            };
            let state = prompts.pane(pane);
            let Some(mut region) = output::region(&state, &now, finished) else {
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
                    let rows = output::echo_rows(row, &now);
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
                                        output::echo_at(line, &first, x)
                                            || drawn
                                                .is_some_and(|x| output::echo_at(line, &first, x))
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
                // The echo's rows are counted on rows captured whole; text typed ahead is
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
            let seen = output::prompt_of(&region, &joined);
            let prompt = seen.clone().filter(|_| tail && !ps1_changed);
            let row = if tail {
                lines(&replies[after]).join("")
            } else {
                String::new()
            };
            // Text on the cursor's row, but not the prompt at its end: bash may not have drawn
            // it yet (the prompt's mark comes before it). Waited for, a little.
            if let Some(prompt) = &prompt
                && output::prompt_awaited(&row, prompt)
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
                .and_then(|prompt| output::tail(&row, &prompt))
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
                prompts.note_answered_up_to(
                    pane,
                    prompts::AnsweredUpTo {
                        input: state.started,
                        row: now.row(),
                        history: now.history,
                        typed: output::typed_left(&region, &joined),
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
            let block = output::block(
                output::AnswerContext {
                    window,
                    budget: inner.config.read_budget,
                    secrets: self.vault().as_deref(),
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
}
