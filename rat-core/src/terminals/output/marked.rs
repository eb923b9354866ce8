//! The block of an answer made of a command's rows as its marks framed them (the transcript's
//! [`Lines`]): how many, the last ones kept within [`KEPT_ROWS`] and [`KEPT_BYTES`], and the
//! read_window call reaching the first. Every sentence comes from `texts`.

use std::borrow::Cow;

use super::{AnswerContext, KEPT_BYTES, KEPT_ROWS, READ_ROOM};
use crate::secrets::{Vault, mask_rows};
use crate::terminals::texts;
use crate::terminals::transcript::Lines;

/// How many of `lines`' last lines an answer shows, and the end of the last one alone when
/// that one is longer than an answer holds.
pub(crate) fn kept<L: AsRef<str>>(lines: &[L]) -> (usize, Option<&str>) {
    let mut kept = 0;
    let mut bytes = 0;
    for line in lines.iter().map(AsRef::as_ref).rev() {
        if kept == KEPT_ROWS || bytes + line.len() + 1 > KEPT_BYTES {
            break;
        }
        kept += 1;
        bytes += line.len() + 1;
    }
    if kept == 0 && !lines.is_empty() {
        let line = lines[lines.len() - 1].as_ref();
        let mut at = line.len() - (KEPT_BYTES - 1);
        while !line.is_char_boundary(at) {
            at += 1;
        }
        return (1, Some(&line[at..]));
    }
    (kept, None)
}

/// How many rows above those an answer can show are masked with them: a secret over several
/// rows (a key's block) is seen whole when it starts there.
pub(crate) const MASK_ABOVE: usize = 24;

/// The last lines of `lines` masked in place (`docs/design/secrets.md`), before they are cut
/// and measured: those an answer can show and [`MASK_ABOVE`] above them, not a long output
/// whole.
pub(crate) fn mask(lines: &mut Lines, vault: Option<&Vault>) {
    let Some(vault) = vault else {
        return;
    };
    let from = lines.lines.len().saturating_sub(KEPT_ROWS + MASK_ABOVE);
    let tail = lines.lines[from..]
        .iter()
        .map(|l| Cow::Borrowed(l.as_str()))
        .collect();
    // The last line is open only while the cursor is on it (the command may print more).
    let open_end = lines.whole < lines.lines.len();
    let masked = mask_rows(Some(vault), tail, open_end);
    if !masked.iter().any(|row| matches!(row, Cow::Owned(_))) {
        return;
    }
    let masked: Vec<String> = masked.into_iter().map(Cow::into_owned).collect();
    lines.lines.truncate(from);
    lines.lines.extend(masked);
}

/// The first of rows `from` to `to` (numbered as `lines`, whose first is numbered `first`)
/// that one read_window of them ending at `to` fits in `room` bytes: `from` when all do, `to`
/// when that row alone does not. Masked rows may be a little longer than the rows: a 16th of
/// the room is kept for that.
pub(crate) fn fitting_from(
    lines: &[impl AsRef<str>],
    first: u64,
    from: u64,
    to: u64,
    room: usize,
) -> u64 {
    let room = room - room / 16;
    let mut bytes = 0;
    let mut n = to;
    while n >= from.max(first) {
        let len = lines[(n - first) as usize].as_ref().len() + 1;
        if bytes + len > room {
            return (n + 1).min(to);
        }
        bytes += len;
        if n == 0 {
            break;
        }
        n -= 1;
    }
    from
}

/// Whether the block of `lines` leaves rows out, and so needs [`Place`] for its header.
pub(crate) fn cut(lines: &Lines) -> bool {
    let (kept, end) = kept(&lines.lines);
    kept < lines.lines.len() || end.is_some()
}

/// Where a command's rows stand in tmux's history, for the call reaching the first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    /// The pane's rows of history.
    pub history: u64,
    /// The cursor's row on the screen.
    pub cursor_y: u64,
    /// The command ended: its rows end above the prompt the cursor is on.
    pub ended: bool,
}

/// The block of an answer from `lines`, what the transcript reported of a command; `numbered`:
/// read_window's `output_rows` reaches them by their numbers ([`Lines::first`]), and the
/// header names exactly the rows left out; else the scrollback reaching the first.
pub(crate) fn block(
    reach: AnswerContext<'_>,
    lines: &Lines,
    place: Option<Place>,
    numbered: bool,
) -> String {
    let all = &lines.lines;
    if all.is_empty() || (all.len() == 1 && all[0].is_empty() && lines.rows == 0) {
        return texts::nothing_printed(lines.reported_before);
    }
    let total = all.len();
    let (kept, end) = kept(all);
    let mut header = texts::rows_printed(total, lines.reported_before, lines.gone);
    if kept < total || end.is_some() {
        if end.is_some() {
            header.push_str(texts::END_OF_LAST_BELOW);
        } else {
            header.push_str(&texts::last_below(kept));
        }
        let bytes: usize = all.iter().map(|l| l.len() + 1).sum();
        if numbered {
            // The rows left out: all but the last `kept`, or all of them when the last is
            // shown by its end.
            let left = if end.is_some() { total } else { total - kept };
            let from = lines.first;
            let to = from + left as u64 - 1;
            let room = reach.budget.bytes().saturating_sub(READ_ROOM);
            let fits = fitting_from(all, lines.first, from, to, room);
            header.push_str(&texts::reach_rows(
                reach.window,
                (from, to),
                fits,
                end.is_some(),
                &reach.budget,
            ));
        } else if bytes + READ_ROOM > reach.budget.bytes() {
            header.push_str(&texts::over_read_budget(bytes, &reach.budget));
        } else {
            // The command's rows end on the cursor's row (still running) or above it (the
            // prompt's): the first is that many rows up.
            let scrollback = place.map_or(0, |p| {
                let last = p.history + p.cursor_y - u64::from(p.ended);
                let first = (last + 1).saturating_sub(lines.rows);
                p.history.saturating_sub(first)
            });
            header.push_str(&texts::reach_first(reach.window, scrollback));
        }
    }
    header.push(']');
    let shown: Vec<&str> = match end {
        Some(end) => vec![end],
        None => all[total - kept..].iter().map(String::as_str).collect(),
    };
    format!("{header}\n{}", shown.join("\n"))
}
