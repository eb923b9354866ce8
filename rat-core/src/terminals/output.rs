//! What a command printed, as the answer of a wait carries it (docs/design/output.md): the rows
//! between where its input was written (or where the last answer about it stopped) and the
//! cursor, joined (`capture-pane -J`), without the echoed command line and without the prompt
//! after it; the last rows kept within [`KEPT_ROWS`] and [`KEPT_BYTES`], with a header saying
//! how many there were and the read_window call that shows the others.
//!
//! Rows are counted from the top of the history: `history_size + cursor_y` is the cursor's.
//! tmux drops the oldest tenth of a full history at once, and `clear` (`ESC[3J`) empties it:
//! a count of history rows below the one noted shows either, and a start row no longer holding
//! the echoed command shows rows gone.

use super::prompts::{AnsweredUpTo, Mark, PaneState};
use super::texts;

/// The most rows an answer carries.
pub(crate) const KEPT_ROWS: usize = 40;
/// The most bytes of rows an answer carries.
pub(crate) const KEPT_BYTES: usize = 8 * 1024;

/// The format read from the pane, in the same write as an input, and before each capture.
pub(crate) const PROBE: &str = "#{history_size} #{cursor_y} #{cursor_x} #{alternate_on} \
     #{history_limit} #{alternate_saved_y} #{pane_path}";

/// What the pane's path (`#{pane_path}`, set by OSC 7) held when read: rat's hook sets it to
/// `rat:prompt:K` at each prompt, after every byte the command before printed
/// ([`super::hook::Record::mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathMark {
    /// Nothing set it yet.
    Unset,
    /// The mark of the hook's prompt `K`.
    Prompt(u64),
    /// Something else set it (a program printing OSC 7 of its own).
    Other,
}

impl PathMark {
    fn parse(path: &str) -> PathMark {
        if path.is_empty() {
            return PathMark::Unset;
        }
        match path.strip_prefix("rat:prompt:").map(str::parse) {
            Some(Ok(k)) => PathMark::Prompt(k),
            _ => PathMark::Other,
        }
    }

    /// Whether tmux has not yet read the mark of prompt `k` from the terminal: the path shows
    /// an earlier prompt's, or none. A path something else set after rat's hook (printed by a
    /// hook after rat's, at the same prompt) shows nothing: not behind, as far as is known.
    pub(crate) fn behind(&self, k: u64) -> bool {
        match self {
            PathMark::Unset => true,
            PathMark::Prompt(j) => *j < k,
            PathMark::Other => false,
        }
    }
}

/// The pane's cursor and history, as [`PROBE`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Probe {
    /// Rows of history.
    pub history: u64,
    /// The cursor's row on the screen, from 0.
    pub y: u64,
    /// The cursor's column, from 0.
    pub x: u64,
    /// A full-screen program shows its alternate screen.
    pub alternate: bool,
    /// The most rows of history tmux keeps.
    pub limit: u64,
    /// Under a full-screen program, the row of the normal screen's cursor, saved when the
    /// program took the screen and restored when it leaves it (`alternate_saved_y`; tmux keeps
    /// the history as it was meanwhile). A number past the screen when none was saved.
    pub saved_y: u64,
    /// The prompt mark the pane's path shows.
    pub path: PathMark,
}

impl Probe {
    /// Parses the output of [`PROBE`].
    pub(crate) fn parse(line: &str) -> Option<Probe> {
        let mut fields = line.splitn(7, ' ');
        let numbers: Vec<u64> = fields
            .by_ref()
            .take(6)
            .map(|n| n.trim().parse().ok())
            .collect::<Option<_>>()?;
        let [history, y, x, alternate, limit, saved_y] = numbers[..] else {
            return None;
        };
        let path = PathMark::parse(fields.next().unwrap_or("").trim_end());
        Some(Probe {
            history,
            y,
            x,
            alternate: alternate == 1,
            limit,
            saved_y,
            path,
        })
    }

    /// The cursor's row from the top of the history.
    pub(crate) fn row(&self) -> u64 {
        self.history + self.y
    }

    /// Where the rows of an input's command start, from the top of the history: the cursor's
    /// row; under a full-screen program, the normal screen's saved one, where what is printed
    /// after the program leaves the screen goes (`less; echo done`).
    pub(crate) fn start_row(&self) -> u64 {
        if self.alternate && self.saved_y < 10_000 {
            self.history + self.saved_y
        } else {
            self.row()
        }
    }
}

/// The rows an answer covers, in the pane as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region {
    /// The first row, from the top of the history; `None`: gone (scrolled out of the history
    /// or cleared), the rows from the top of the history are what is left.
    pub start: Option<u64>,
    /// The row after the last one.
    pub end: u64,
    /// The echo to leave out: its lines, and the start of its first line.
    pub echo: Option<(usize, String)>,
    /// Text typed while a command ran: its first line, shown again by bash's line editor
    /// after the prompt it reads it at (see [`typed_line`]).
    pub typed: Option<String>,
    /// The echo of the input before, drawn at the start of these rows (see [`Mark::before`]).
    pub before: Option<(usize, String)>,
    /// The echo may be made twice (see [`Mark::twice`]).
    pub twice: bool,
    /// The length of `PS1` when the command was sent (see [`Mark::ps1_len`]).
    pub ps1_len: Option<u64>,
    /// The row and column the echo was noted at, before any drop of the history's oldest
    /// rows (see [`echo_rows`]); `None` without an echo to find.
    pub noted: Option<(u64, u64)>,
    /// The rows follow those of an earlier answer about the same command.
    pub since_last: bool,
    /// The prompt the command was sent at, noted by an earlier answer about it.
    pub prompt: Option<String>,
    /// What the command before printed before its prompt, on the echo's row (see [`tail`]).
    pub after_tail: Option<String>,
    /// The prompt an earlier command was sent at: taken when the echo's row does not show this
    /// one's (bash's line editor draws it as if its row began with the prompt, and after a
    /// command's output without a final new line it does not).
    pub last_prompt: Option<String>,
}

impl Region {
    /// The first row captured.
    pub(crate) fn first(&self) -> u64 {
        self.start.unwrap_or(0)
    }
}

/// `row`, noted when the history held `then` rows, in the pane as `now` shows it; `None` when
/// it is gone. A history that shrank was cleared, or dropped its oldest tenth when full (taken
/// as once: the echo check shows a wrong guess).
fn rebase(row: u64, then: u64, now: &Probe) -> Option<u64> {
    if now.history >= then {
        return Some(row);
    }
    let gap = (now.limit / 10).max(1);
    if now.history + gap >= now.limit && row >= gap {
        Some(row - gap)
    } else {
        None
    }
}

/// The rows of the last input's command in `state`, with the pane as `now` shows it;
/// `finished`: bash is back at its prompt, whose row is left out. `None` when no input's start
/// was noted (nothing was sent since ratd started, or tmux did not answer the note).
pub(crate) fn region(state: &PaneState, now: &Probe, finished: bool) -> Option<Region> {
    let end = now.row() + u64::from(!finished && now.x > 0);
    if let Some(AnsweredUpTo {
        input,
        row,
        history,
        typed,
        prompt,
    }) = &state.shown
        && *input == state.started
    {
        return Some(Region {
            start: rebase(*row, *history, now),
            end,
            echo: None,
            typed: typed.clone(),
            before: None,
            twice: false,
            ps1_len: None,
            noted: None,
            since_last: true,
            prompt: prompt.clone(),
            after_tail: None,
            last_prompt: state.last_prompt.clone(),
        });
    }
    let Mark {
        input,
        row,
        x,
        history,
        alternate,
        echo,
        typed,
        before,
        twice,
        ps1_len,
    } = state.mark.as_ref()?;
    if *input != state.started {
        return None;
    }
    if *alternate {
        // Sent to a full-screen program: what it printed went to its own screen; what follows
        // it starts where the normal screen's cursor was saved ([`Probe::start_row`]).
        return Some(Region {
            start: rebase(*row, *history, now).map(|row| row.min(end)),
            end,
            echo: None,
            typed: None,
            before: None,
            twice: false,
            ps1_len: None,
            noted: None,
            since_last: false,
            prompt: None,
            after_tail: None,
            last_prompt: None,
        });
    }
    Some(Region {
        start: rebase(*row, *history, now),
        end,
        echo: echo.clone(),
        typed: typed.clone(),
        before: before.clone(),
        twice: *twice,
        ps1_len: *ps1_len,
        noted: echo.as_ref().map(|_| (*row, *x)),
        since_last: false,
        prompt: None,
        after_tail: state
            .tail
            .as_ref()
            .filter(|(n, _)| n + 1 == *input)
            .map(|(_, t)| t.clone()),
        last_prompt: state.last_prompt.clone(),
    })
}

/// How many physical rows the first `lines` joined lines take: `joined` is the capture with
/// `-J`, `rows` the same rows without it (`-N`, so that each row is whole); a joined line is
/// its rows put end to end.
fn rows_of(joined: &[&str], rows: &[&str], lines: usize) -> usize {
    let mut r = 0;
    for line in joined.iter().take(lines) {
        let mut length = 0;
        loop {
            let Some(row) = rows.get(r) else {
                return r;
            };
            length += row.len();
            r += 1;
            if length >= line.len() {
                break;
            }
        }
    }
    r
}

/// The rows the echo noted at `row` may be at now, most likely first: tmux drops the oldest
/// tenth of a full history at once, as many times as the command printed past it, so with a
/// history near full the row moved up by some number of tenths. Without a full history, only
/// `row` itself. Rows past the cursor's are left out.
pub(crate) fn echo_rows(row: u64, now: &Probe) -> Vec<u64> {
    let gap = (now.limit / 10).max(1);
    if now.history + gap < now.limit {
        return vec![row];
    }
    (0..=10u64)
        .filter_map(|k| row.checked_sub(k * gap))
        .filter(|r| *r <= now.row())
        .collect()
}

/// Whether `line` (a row captured joined) holds an echo of `first` starting near column `x`,
/// the cursor's when the input was written: after a prefix (the prompt) of about `x` columns.
/// Column and character counts differ for wide characters (2 columns) and for leading spaces
/// of the text (left out of `first`): the prefix is taken between `x / 2` and `x + 8`
/// characters, so that a row of output merely holding the text (`make` in `make[1]: ...`) is
/// not taken for the echo.
pub(crate) fn echo_at(line: &str, first: &str, x: u64) -> bool {
    echo_start(line, first, x).is_some()
}

/// Where in `line` the echo of `first` starts, by the rule of [`echo_at`].
fn echo_start(line: &str, first: &str, x: u64) -> Option<usize> {
    line.match_indices(first)
        .find(|(at, _)| {
            let prefix = line[..*at].chars().count() as u64;
            prefix * 2 >= x && prefix <= x + 8
        })
        .map(|(at, _)| at)
}

/// The lines an input sent before the echo of the one before was drawn starts with: that echo
/// (see [`Region::before`]); 0 when it does not start them.
fn before_lines(region: &Region, joined: &[&str]) -> usize {
    match &region.before {
        Some((lines, before)) if joined.first().is_some_and(|l| l.contains(before.as_str())) => {
            (*lines).min(joined.len())
        }
        _ => 0,
    }
}

/// The prompt `region`'s command was sent at, as the `joined` lines show it: the start of the
/// echo's row before the echo, or of the row where bash's line editor showed text typed
/// ahead; kept by an earlier answer. `None` when no row shows it (keys, rows gone).
pub(crate) fn prompt_of(region: &Region, joined: &str) -> Option<String> {
    if region.prompt.is_some() {
        return region.prompt.clone();
    }
    region.start?;
    let joined: Vec<&str> = joined.split('\n').collect();
    if let Some((_, first)) = &region.echo {
        let line = joined.first()?;
        let x = region.noted.map_or(0, |(_, x)| x);
        let Some(before) = echo_start(line, first, x).map(|at| &line[..at]) else {
            return region.last_prompt.clone();
        };
        // After a command whose output had no final new line, the row starts with its end; bash's
        // line editor may have drawn the echo over it (nothing left of the prompt after it):
        // then the prompt found before.
        return match &region.after_tail {
            None => Some(before.to_string()),
            Some(t) => match before.strip_prefix(t.as_str()) {
                Some(prompt) if !prompt.trim().is_empty() => Some(prompt.to_string()),
                _ => region.last_prompt.clone(),
            },
        };
    }
    let first = region.typed.as_ref()?;
    let base = before_lines(region, &joined);
    let at = typed_line(&joined[base..], first, region.last_prompt.as_deref())?;
    let line = joined[base + at].trim_end_matches(' ');
    // A line that is the text alone may be the terminal's echo: no prompt shown.
    line.strip_suffix(first.as_str())
        .filter(|prompt| !prompt.is_empty())
        .map(str::to_string)
}

/// Whether the cursor's `row` holds text without `prompt` at its end: bash has not drawn its
/// prompt yet, after output without a final new line (or the prompt is another now).
pub(crate) fn prompt_awaited(row: &str, prompt: &str) -> bool {
    let row = row.trim_end_matches(' ');
    !row.is_empty() && !row.ends_with(prompt.trim_end_matches(' '))
}

/// What was printed on the cursor's row before the prompt (output without a final new line):
/// `row` is that row, trailing spaces kept or not, `prompt` the prompt the command was sent at.
/// `None` when the row is the prompt alone, or does not end with that prompt (another prompt
/// now: the row is left out, as the prompt's).
pub(crate) fn tail(row: &str, prompt: &str) -> Option<String> {
    let t = row
        .trim_end_matches(' ')
        .strip_suffix(prompt.trim_end_matches(' '))?
        .trim_end_matches(' ');
    (!t.is_empty()).then(|| t.to_string())
}

/// The line at which bash's line editor read text typed while a command ran (`first`: the
/// start of its first line), among the `joined` lines from where it was written: the first
/// line starting with the pane's last prompt seen (`prompt`) then the text; else the first
/// line ending with it, but a line that is only that text (the terminal's own echo, while the
/// command ran, or a prompt showing nothing) when a later line shows it after something (a
/// prompt). `None` when no line shows it (the running command read it, say): then every row
/// is taken.
fn typed_line(joined: &[&str], first: &str, prompt: Option<&str>) -> Option<usize> {
    if let Some(prompt) = prompt.filter(|p| !p.trim().is_empty()) {
        let shown = format!("{prompt}{first}");
        if let Some(at) = joined.iter().position(|line| line.starts_with(&shown)) {
            return Some(at);
        }
    }
    let shows = |line: &&str| unmarked(line).ends_with(first);
    let alone = |line: &&str| unmarked(line) == first;
    let at = joined.iter().position(shows)?;
    // A later line showing it after a prompt; later lines that are the text alone are a
    // program's answer to it (cat), the first one the terminal's echo.
    if alone(&joined[at])
        && let Some(later) = joined[at + 1..]
            .iter()
            .position(|line| shows(line) && !alone(line))
    {
        return Some(at + 1 + later);
    }
    Some(at)
}

/// The caret form in which the terminal's line discipline echoes the bracketed-paste marks
/// (`ESC [200~`, `ESC [201~`): a paste that tmux wrapped in them because bash's line editor had
/// not yet told tmux, when the paste reached the pane, that it stopped reading (the command's
/// start), is echoed with them by the terminal while the command runs.
const PASTE_START_ECHO: &str = "^[[200~";
const PASTE_END_ECHO: &str = "^[[201~";

/// `line` without its trailing spaces and without the echoed bracketed-paste marks around it
/// (see [`PASTE_START_ECHO`]): what the terminal's echo of a typed-ahead text compares as.
fn unmarked(line: &str) -> &str {
    let line = line.trim_end_matches(' ');
    let line = line.strip_prefix(PASTE_START_ECHO).unwrap_or(line);
    line.strip_suffix(PASTE_END_ECHO).unwrap_or(line)
}

/// Whether `region`'s text typed ahead is yet to be seen in a later answer: not shown after a
/// prompt among the `joined` lines. A line that is only the text (the terminal's own echo, or
/// a prompt showing nothing) leaves it to be seen.
pub(crate) fn typed_left(region: &Region, joined: &str) -> Option<String> {
    let first = region.typed.as_ref()?;
    let joined: Vec<&str> = joined.split('\n').collect();
    match typed_line(&joined, first, region.last_prompt.as_deref()) {
        Some(at) if unmarked(joined[at]) != first => None,
        _ => Some(first.clone()),
    }
}

/// Where the hint of a cut answer sends: the window's name, and the read budget a read_window
/// of it holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AnswerContext<'a> {
    /// The window, as the call names it.
    pub window: &'a str,
    /// The most a read_window result holds.
    pub budget: crate::result::ReadBudget,
    /// The session's placeholders: rows are masked before their cut (docs/design/secrets.md).
    pub secrets: Option<&'a crate::secrets::Vault>,
}

/// Room a read_window result keeps for its header and the screen's rows below the command's.
const READ_ROOM: usize = 1024;

/// The block an answer carries after its first sentence, from the captures of `region`:
/// `joined` (`-J`) and `rows` (`-N`, only the first rows, to count the echo's). `history`: the
/// rows of history now, for the read_window call. `tail`: what was printed on the cursor's row
/// before the prompt (see [`tail`]), and whether that row continues the last one (wrapped).
pub(crate) fn block(
    reach: AnswerContext<'_>,
    region: &Region,
    joined: &str,
    rows: &str,
    history: u64,
    alternate: bool,
    tail: Option<(String, bool)>,
) -> String {
    if alternate {
        return "A full-screen program holds the screen: read_window shows it.".to_string();
    }
    let joined: Vec<&str> = if region.end > region.first() {
        joined.split('\n').collect()
    } else {
        Vec::new()
    };
    let mut start = region.start;
    let mut skip = 0;
    let mut skipped_rows = 0;
    if let (Some(_), Some((lines, first))) = (start, &region.echo) {
        if joined
            .first()
            .is_some_and(|line| line.contains(first.as_str()))
        {
            skip = (*lines).min(joined.len());
            // A paste that met the terminal's line discipline before bash's line editor took
            // it (the editor's start slower than the wait for it) is echoed twice: by the
            // terminal after the prompt, then by the editor after the prompt drawn again.
            if *lines == 1
                && region.twice
                && joined
                    .get(1)
                    .is_some_and(|again| again.trim_end() == joined[0].trim_end())
            {
                skip = 2;
            }
            let physical: Vec<&str> = rows.split('\n').collect();
            skipped_rows = rows_of(&joined, &physical, skip) as u64;
        } else {
            // The row noted no longer holds the command: the rows before it went.
            start = None;
        }
    } else if start.is_some() && (region.typed.is_some() || region.before.is_some()) {
        // The echo of the input before (or the command line this input ends), when it starts
        // these rows, then the text's line.
        let base = before_lines(region, &joined);
        skip = base
            + region
                .typed
                .as_ref()
                .and_then(|first| typed_line(&joined[base..], first, region.last_prompt.as_deref()))
                .map_or(0, |at| at + 1);
        let physical: Vec<&str> = rows.split('\n').collect();
        skipped_rows = rows_of(&joined, &physical, skip) as u64;
    }
    let mut lines: Vec<std::borrow::Cow<str>> = joined[skip..]
        .iter()
        .map(|l| l.trim_end_matches(' ').into())
        .collect();
    if let Some((tail, wrapped)) = tail {
        match lines.last_mut() {
            Some(last) if wrapped => last.to_mut().push_str(&tail),
            _ => lines.push(tail.into()),
        }
    }
    let lines = crate::secrets::mask_rows(reach.secrets, lines, true);
    let since = region.since_last;
    if lines.is_empty() {
        let nothing = texts::nothing_printed(since);
        return match start {
            Some(_) => nothing,
            None => format!("{}\n{nothing}", texts::ROWS_GONE),
        };
    }
    let total = lines.len();
    let (kept, cut_line) = marked::kept(&lines);
    let shown: Vec<&str> = match cut_line {
        Some(end) => vec![end],
        None => lines[total - kept..].iter().map(|l| l.as_ref()).collect(),
    };
    let mut header = match start {
        Some(_) => texts::rows_printed(total, since, 0),
        None => texts::first_rows_gone(total),
    };
    if kept < total || cut_line.is_some() {
        if cut_line.is_some() {
            header.push_str(texts::END_OF_LAST_BELOW);
        } else {
            header.push_str(&texts::last_below(kept));
        }
        let first = region.first() + skipped_rows;
        let scrollback = history.saturating_sub(if start.is_some() { first } else { 0 });
        let all: usize = lines.iter().map(|l| l.len() + 1).sum();
        if all + READ_ROOM > reach.budget.bytes() {
            // A read_window reaching the first would be cut at its start to the budget.
            header.push_str(&texts::over_read_budget(all, &reach.budget));
        } else {
            header.push_str(&texts::reach_first(reach.window, scrollback));
        }
    }
    header.push(']');
    format!("{header}\n{}", shown.join("\n"))
}

pub(crate) mod marked;
#[cfg(test)]
mod tests;
