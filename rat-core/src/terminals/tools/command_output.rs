//! What the last input's command printed, added to a wait's answer: the pane read until tmux
//! has read the command's last bytes, its rows found past the echo (`docs/design/output.md`).

use std::time::Duration;

use tmux_cc::Command;

use crate::terminals::controller::{TmuxFailure, lines};
use crate::terminals::texts;
use output::Probe;

use crate::terminals::{output, prompts};

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

impl Terminals {
    /// `text` (a wait's answer) followed by what the last input's command printed, on a line
    /// of its own (see [`output`]); `finished`: bash is back at its prompt. The pane is
    /// read until two reads in a row find its cursor and history alike: tmux may still be
    /// reading the command's last output from the terminal when the prompt is recorded.
    pub(super) async fn with_output(
        &self,
        window: &str,
        pane: u32,
        text: String,
        finished: bool,
    ) -> Result<String, TmuxFailure> {
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
                prompts.note_shown(
                    pane,
                    prompts::Shown {
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
                output::Reach {
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
