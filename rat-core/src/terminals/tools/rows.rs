//! read_window's `output_rows`: rows of the window's current command by number, as the pane's
//! transcript keeps them and as wait_window's answers number them (`docs/design/output.md`,
//! Reading rows by number).

use std::borrow::Cow;

use crate::result::ToolResult;
use crate::terminals::controller::{FIRST_WINDOW, TmuxFailure};
use crate::terminals::input::RowRange;
use crate::terminals::output::marked::MASK_ABOVE;
use crate::terminals::texts::{self, RowsRead};
use crate::terminals::transcript::Numbered;

use super::{Missing, Terminals};

/// Room the answer keeps for its header within the read budget.
const HEADER_ROOM: usize = 1024;

impl Terminals {
    /// The rows `range` of `window`'s current command: taken from its transcript, masked, the
    /// last ones kept within the read budget.
    pub(super) async fn read_rows(
        &self,
        window: &str,
        range: RowRange,
    ) -> Result<ToolResult, TmuxFailure> {
        let inner = self.inner();
        let found = inner
            .list_windows(&self.session)
            .await?
            .and_then(|ws| ws.into_iter().find(|w| w.name == window));
        let Some(w) = found else {
            return Ok(match self.explain_missing().await? {
                Missing::Window => ToolResult::refused(texts::no_window(window), "no such window"),
                Missing::Session(origin) if window != FIRST_WINDOW => ToolResult::refused(
                    texts::other_window_in_new_session(window, origin),
                    "session just created",
                ),
                Missing::Session(origin) => ToolResult::refused(
                    format!(
                        "[{}]\n{}",
                        texts::created_header_short(origin),
                        texts::no_output_rows(window)
                    ),
                    "no command output known",
                ),
            });
        };
        let numbered = inner
            .current_server()
            .follows
            .get(w.pane)
            .and_then(|follow| follow.transcript().numbered());
        let (first, lines, ended) = match numbered {
            Some(Numbered::Rows {
                first,
                lines,
                ended,
            }) => (first, lines, ended),
            Some(Numbered::FullScreen) => {
                return Ok(ToolResult::refused(
                    texts::output_rows_full_screen(window),
                    "full-screen program",
                ));
            }
            Some(Numbered::Unframed) => {
                return Ok(ToolResult::refused(
                    texts::output_rows_unframed(window),
                    "command output not framed",
                ));
            }
            None => {
                return Ok(ToolResult::refused(
                    texts::no_output_rows(window),
                    "no command output known",
                ));
            }
        };
        if lines.is_empty() || (lines.len() == 1 && lines[0].is_empty()) {
            return Ok(ToolResult::message(texts::output_rows_none(window, ended)));
        }
        let last = first + lines.len() as u64 - 1;
        if range.from > last {
            return Ok(ToolResult::refused(
                texts::output_rows_past_end(window, range.from, last, ended),
                "output_rows past the last row",
            ));
        }
        if range.to < first {
            return Ok(ToolResult::refused(
                texts::output_rows_gone(window, first, last),
                "output_rows gone past the history",
            ));
        }
        let from = range.from.max(first);
        let to = range.to.min(last);
        let at = |n: u64| (n - first) as usize;
        let budget = inner.config.read_budget;
        let room = budget.bytes().saturating_sub(HEADER_ROOM);
        // Only the last rows asked that may fit the budget are masked (twice its room, masked
        // values' lengths differ), with the rows above them (docs/design/secrets.md): not a
        // long output whole.
        let mut start = at(to);
        let mut bytes = lines[start].len() + 1;
        while start > at(from) && bytes + lines[start - 1].len() < 2 * room {
            start -= 1;
            bytes += lines[start].len() + 1;
        }
        let above = start.saturating_sub(MASK_ABOVE);
        let rows: Vec<Cow<str>> = lines[above..=at(to)]
            .iter()
            .map(|l| Cow::Borrowed(l.as_str()))
            .collect();
        self.learn_secrets(w.pane, w.pane_pid);
        let vault = self.vault();
        // Open at its end only when the range ends at the last row of a command still running.
        let open_end = !ended && to == last;
        let masked = crate::secrets::mask_rows(vault.as_deref(), rows, open_end);
        let asked = &masked[start - above..];
        // The last rows asked within the read budget; the first ones left out, named.
        let mut kept = 0;
        let mut bytes = 0;
        for row in asked.iter().rev() {
            if bytes + row.len() + 1 > room {
                break;
            }
            kept += 1;
            bytes += row.len() + 1;
        }
        // One row over the budget alone is shown by its end.
        let (shown_from, shown): (u64, Vec<&str>) = if kept == 0 {
            let row = asked[asked.len() - 1].as_ref();
            let mut cut = row.len().saturating_sub(room);
            while !row.is_char_boundary(cut) {
                cut += 1;
            }
            (to, vec![&row[cut..]])
        } else {
            (
                to + 1 - kept as u64,
                asked[asked.len() - kept..]
                    .iter()
                    .map(|r| r.as_ref())
                    .collect(),
            )
        };
        let cut = (shown_from > from).then(|| {
            let fits = crate::terminals::output::marked::fitting_from(
                &lines,
                first,
                from,
                shown_from - 1,
                room,
            );
            (from, shown_from - 1, fits, budget)
        });
        let header = texts::rows_read(
            RowsRead {
                window,
                from: shown_from,
                to,
                last,
                ended,
            },
            (range.from < first).then_some(first),
            range.to > last,
            cut,
            (kept == 0).then_some(budget),
        );
        Ok(ToolResult::ok(format!("{header}\n{}", shown.join("\n")))
            .with_log("rows_read", shown.len()))
    }
}
