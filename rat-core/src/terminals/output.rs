//! What a command printed, as the answer of a wait carries it (docs/design/output.md): the rows
//! between where its input was written (or where the last answer about it stopped) and the
//! cursor, joined (`capture-pane -J`), without the echoed command line and without the prompt
//! after it; the last rows kept within [`KEPT_ROWS`] and [`KEPT_BYTES`], with a header telling
//! how many there were and the read_window call that shows the others.
//!
//! Rows are counted from the top of the history: `history_size + cursor_y` is the cursor's.
//! tmux drops the oldest tenth of a full history at once, and `clear` (`ESC[3J`) empties it:
//! a count of history rows below the one noted tells either, and a start row no longer holding
//! the echoed command tells rows gone.

use super::prompts::{Mark, PaneState, Shown};

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
    /// hook after rat's, at the same prompt) tells nothing: not behind, as far as is known.
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
    /// A text typed while a command ran: its first line, shown again by bash's line editor
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
    /// The prompt an earlier command was sent at: taken when the echo's row does not tell this
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
/// as once: the echo check tells a wrong guess).
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
    if let Some(Shown {
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
/// echo's row before the echo, or of the row where bash's line editor showed a text typed
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
    // A line that is the text alone may be the terminal's echo: no prompt told.
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

/// The line at which bash's line editor read a text typed while a command ran (`first`: the
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
    let shows = |line: &&str| line.trim_end_matches(' ').ends_with(first);
    let alone = |line: &&str| line.trim_end_matches(' ') == first;
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

/// Whether `region`'s text typed ahead is yet to be seen in a later answer: not shown after a
/// prompt among the `joined` lines. A line that is only the text (the terminal's own echo, or
/// a prompt showing nothing) leaves it to be seen.
pub(crate) fn typed_left(region: &Region, joined: &str) -> Option<String> {
    let first = region.typed.as_ref()?;
    let joined: Vec<&str> = joined.split('\n').collect();
    match typed_line(&joined, first, region.last_prompt.as_deref()) {
        Some(at) if joined[at].trim_end_matches(' ') != first => None,
        _ => Some(first.clone()),
    }
}

/// Where the hint of a cut answer sends: the window's name, and the read budget a read_window
/// of it holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reach<'a> {
    /// The window, as the call names it.
    pub window: &'a str,
    /// The most a read_window result holds.
    pub budget: crate::tools::ReadBudget,
}

/// Room a read_window result keeps for its header and the screen's rows below the command's.
const READ_ROOM: usize = 1024;

/// The block an answer carries after its first sentence, from the captures of `region`:
/// `joined` (`-J`) and `rows` (`-N`, only the first rows, to count the echo's). `history`: the
/// rows of history now, for the read_window call. `tail`: what was printed on the cursor's row
/// before the prompt (see [`tail`]), and whether that row continues the last one (wrapped).
pub(crate) fn block(
    reach: Reach<'_>,
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
    let since = if region.since_last {
        " since the last answer"
    } else {
        ""
    };
    if lines.is_empty() {
        return if start.is_none() {
            format!(
                "[Its rows are gone: scrolled out of the history or cleared]\nNothing printed{since}."
            )
        } else {
            format!("Nothing printed{since}.")
        };
    }
    let total = lines.len();
    // The last rows, within the rows and bytes kept.
    let mut kept = 0;
    let mut bytes = 0;
    for line in lines.iter().rev() {
        if kept == KEPT_ROWS || bytes + line.len() + 1 > KEPT_BYTES {
            break;
        }
        kept += 1;
        bytes += line.len() + 1;
    }
    let mut cut_line = None;
    if kept == 0 {
        // One line longer than the bytes kept: its end.
        let line: &str = &lines[total - 1];
        let mut at = line.len() - (KEPT_BYTES - 1);
        while !line.is_char_boundary(at) {
            at += 1;
        }
        cut_line = Some(&line[at..]);
        kept = 1;
    }
    let shown: Vec<&str> = match cut_line {
        Some(end) => vec![end],
        None => lines[total - kept..].iter().map(|l| l.as_ref()).collect(),
    };
    let rows_word = |n: usize| if n == 1 { "row" } else { "rows" };
    let mut header = match start {
        Some(_) => format!("[{total} {} printed{since}", rows_word(total)),
        None => format!(
            "[its first rows are gone (scrolled out of the history, or cleared): {total} {} left",
            rows_word(total)
        ),
    };
    if kept < total || cut_line.is_some() {
        if cut_line.is_some() {
            header.push_str(", the end of the last one below");
        } else {
            header.push_str(&format!(", the last {kept} below"));
        }
        let first = region.first() + skipped_rows;
        let scrollback = history.saturating_sub(if start.is_some() { first } else { 0 });
        let window = reach.window;
        let all: usize = lines.iter().map(|l| l.len() + 1).sum();
        if all + READ_ROOM > reach.budget.bytes() {
            // A read_window reaching the first would be cut at its start to the budget.
            header.push_str(&format!(
                "; all of them take {all} bytes, more than read_window shows at once (its read \
                 budget, {}): send the command again with its output to a file, to read it in \
                 parts",
                reach.budget
            ));
        } else if scrollback > 0 {
            header.push_str(&format!(
                "; read_window {window} with scrollback_rows {scrollback} shows them from the first"
            ));
        } else {
            header.push_str(&format!("; read_window {window} shows them from the first"));
        }
    }
    header.push(']');
    format!("{header}\n{}", shown.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(window: &str) -> Reach<'_> {
        Reach {
            window,
            budget: crate::tools::ReadBudget::DEFAULT,
        }
    }

    fn probe(history: u64, y: u64, x: u64) -> Probe {
        Probe {
            history,
            y,
            x,
            alternate: false,
            limit: 10_000,
            saved_y: 4_294_967_295,
            path: PathMark::Unset,
        }
    }

    #[test]
    fn probes_parse() {
        assert_eq!(
            Probe::parse("12 3 10 0 10000 4294967295"),
            Some(probe(12, 3, 10))
        );
        assert_eq!(Probe::parse("12 3 10 0 10000"), None);
        let marked = |line: &str| Probe::parse(line).map(|p| p.path);
        assert_eq!(
            marked("12 3 10 0 10000 4294967295 rat:prompt:7"),
            Some(PathMark::Prompt(7))
        );
        assert_eq!(
            marked("12 3 10 0 10000 4294967295 file://host/a b"),
            Some(PathMark::Other)
        );
        assert_eq!(
            marked("12 3 10 0 10000 4294967295 rat:prompt:x"),
            Some(PathMark::Other)
        );
        assert_eq!(marked("12 3 10 0 10000 4294967295 "), Some(PathMark::Unset));
        assert!(PathMark::Unset.behind(1));
        assert!(PathMark::Prompt(6).behind(7));
        assert!(!PathMark::Prompt(7).behind(7));
        assert!(!PathMark::Prompt(8).behind(7));
        assert!(!PathMark::Other.behind(7));
        assert_eq!(Probe::parse("a 3 10 0 1"), None);
    }

    #[test]
    fn history_dropped_or_cleared() {
        assert_eq!(rebase(500, 400, &probe(900, 0, 0)), Some(500));
        // Full: its oldest tenth dropped.
        assert_eq!(rebase(9_990, 9_980, &probe(9_100, 0, 0)), Some(8_990));
        // Cleared.
        assert_eq!(rebase(500, 400, &probe(30, 0, 0)), None);
    }

    #[test]
    fn echo_rows_are_counted_whole() {
        let long = "x".repeat(250);
        let joined = [long.as_str(), "out"];
        let rows = ["x".repeat(200), "x".repeat(50), "out".into()];
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        assert_eq!(rows_of(&joined, &rows, 1), 2);
        assert_eq!(rows_of(&["", "a"], &["", "a"], 1), 1);
    }

    fn region(start: u64, end: u64) -> Region {
        Region {
            start: Some(start),
            end,
            echo: Some((1, "seq 3".into())),
            typed: None,
            before: None,
            twice: true,
            ps1_len: None,
            noted: None,
            since_last: false,
            prompt: None,
            after_tail: None,
            last_prompt: None,
        }
    }

    #[test]
    fn an_echo_is_looked_for_where_the_history_drops_moved_it() {
        assert_eq!(echo_rows(500, &probe(400, 10, 2)), [500]);
        let full = probe(9_500, 20, 2);
        assert_eq!(
            echo_rows(9_400, &full),
            [
                9_400, 8_400, 7_400, 6_400, 5_400, 4_400, 3_400, 2_400, 1_400, 400
            ]
        );
        assert!(echo_at("$ make", "make", 2));
        assert!(!echo_at("make[1]: step 2001", "make", 2));
        assert!(echo_at("e2e$   ls -l", "ls -l", 5));
        assert!(echo_at("漢 $ seq 3", "seq 3", 4));
        assert!(echo_at("seq 3", "seq 3", 0));
    }

    #[test]
    fn an_echo_made_twice_is_left_out_twice() {
        let r = region(0, 3);
        assert_eq!(
            block(
                reach("w"),
                &r,
                "$ seq 3\n$ seq 3\n1",
                "$ seq 3\n$ seq 3\n1",
                0,
                false,
                None
            ),
            "[1 row printed]\n1"
        );
    }

    #[test]
    fn a_text_typed_ahead_starts_after_the_prompt_that_read_it() {
        let typed = "sleep 1; echo second";
        // The terminal's echo while sleep ran, then the prompt showing it again.
        let joined = [typed, "$ sleep 1; echo second", "second"];
        assert_eq!(typed_line(&joined, typed, None), Some(1));
        // A prompt showing nothing before it: the terminal echoed nothing (no echo while the
        // command ran), the only line is the prompt's.
        assert_eq!(typed_line(&[typed, "second"], typed, None), Some(0));
        assert_eq!(typed_line(&["$ (exit 9)"], "(exit 9)", None), Some(0));
        // A row of the command before ending with the text: the prompt seen last tells.
        let joined_out = [
            "building: sleep 1; echo second",
            "$ sleep 1; echo second",
            "second",
        ];
        assert_eq!(typed_line(&joined_out, typed, None), Some(0));
        assert_eq!(typed_line(&joined_out, typed, Some("$ ")), Some(1));
        // The command before it read the text: no line shows it again.
        assert_eq!(typed_line(&["other"], typed, None), None);
        // Typed to cat: the terminal's echo, then cat's answer, the same text alone.
        assert_eq!(typed_line(&["hello", "hello"], "hello", None), Some(0));
        assert_eq!(
            typed_line(&["hello", "hello", "$ hello"], "hello", None),
            Some(2)
        );
        let r = Region {
            start: Some(0),
            end: 3,
            echo: None,
            typed: Some(typed.into()),
            before: None,
            twice: true,
            ps1_len: None,
            noted: None,
            since_last: false,
            prompt: None,
            after_tail: None,
            last_prompt: None,
        };
        let joined = joined.join("\n");
        assert_eq!(
            block(reach("w"), &r, &joined, &joined, 0, false, None),
            "[1 row printed]\nsecond"
        );
        // Sent before the echo of the command before it was drawn: that echo starts the rows.
        let r = Region {
            before: Some((1, "sleep 1; echo first".into())),
            ..r
        };
        let joined = "$ sleep 1; echo first\nfirst\n$ sleep 1; echo second\nsecond";
        assert_eq!(
            block(reach("w"), &r, joined, joined, 0, false, None),
            "[1 row printed]\nsecond"
        );
        assert_eq!(typed_left(&r, joined), None);
        // Only the terminal's echo so far: the text's prompt line is still to be seen.
        assert_eq!(
            typed_left(&r, "$ sleep 1; echo first\nsleep 1; echo second"),
            Some(typed.to_string())
        );
    }

    #[test]
    fn output_before_the_prompt_on_its_row() {
        assert_eq!(tail("abc$ ", "$ "), Some("abc".into()));
        assert_eq!(tail("abc $", "$ "), Some("abc".into()));
        assert_eq!(tail("$ ", "$ "), None);
        assert_eq!(tail("$", "$ "), None);
        // Another prompt now (another directory in it, say): left out.
        assert_eq!(tail("abc ~/src$ ", "~$ "), None);
        assert_eq!(tail("abc", ""), Some("abc".into()));
        let r = Region {
            noted: Some((0, 2)),
            ..region(0, 2)
        };
        assert_eq!(prompt_of(&r, "$ seq 3\n1"), Some("$ ".into()));
        // After a command whose output had no final new line.
        let r = Region {
            noted: Some((0, 5)),
            after_tail: Some("abc".into()),
            ..region(0, 2)
        };
        assert_eq!(prompt_of(&r, "abc$ seq 3\n1"), Some("$ ".into()));
        // The echo's row drawn over by bash's line editor: the prompt found before.
        let r = Region {
            noted: Some((0, 5)),
            last_prompt: Some("$ ".into()),
            ..region(0, 2)
        };
        assert_eq!(prompt_of(&r, "abseq 3\n1"), Some("$ ".into()));
        let text = block(
            reach("w"),
            &region(0, 2),
            "$ seq 3\n1\n2",
            "$ seq 3",
            0,
            false,
            Some(("3".into(), false)),
        );
        assert_eq!(text, "[3 rows printed]\n1\n2\n3");
        let text = block(
            reach("w"),
            &region(0, 2),
            "$ seq 3\nxx",
            "$ seq 3",
            0,
            false,
            Some(("yy".into(), true)),
        );
        assert_eq!(text, "[1 row printed]\nxxyy");
    }

    #[test]
    fn blocks() {
        let r = region(10, 14);
        assert_eq!(
            block(
                reach("w"),
                &r,
                "$ seq 3\n1\n2\n3",
                "$ seq 3\n",
                0,
                false,
                None
            ),
            "[3 rows printed]\n1\n2\n3"
        );
        assert_eq!(
            block(
                reach("w"),
                &Region {
                    echo: Some((1, "true".into())),
                    ..region(10, 11)
                },
                "$ true",
                "$ true",
                0,
                false,
                None
            ),
            "Nothing printed."
        );
        assert_eq!(
            block(reach("w"), &r, "$ seq 3\n1", "", 0, true, None),
            "A full-screen program holds the screen: read_window shows it."
        );
        // The echo gone from its row: cleared.
        assert_eq!(
            block(reach("w"), &r, "1\n2", "1\n2", 0, false, None),
            "[its first rows are gone (scrolled out of the history, or cleared): 2 rows left]\n1\n2"
        );
        let many: Vec<String> = (1..=100).map(|n| n.to_string()).collect();
        let joined = format!("$ seq 3\n{}", many.join("\n"));
        let text = block(
            reach("w"),
            &region(0, 101),
            &joined,
            "$ seq 3\n1",
            90,
            false,
            None,
        );
        let (header, rows) = text.split_once('\n').unwrap();
        assert_eq!(
            header,
            "[100 rows printed, the last 40 below; read_window w with scrollback_rows 89 shows them from the first]"
        );
        assert_eq!(rows, many[60..].join("\n"));
        let long = "é".repeat(10_000);
        let text = block(
            reach("w"),
            &region(0, 2),
            &format!("$ seq 3\n{long}"),
            "$ seq 3\n",
            0,
            false,
            None,
        );
        assert!(text.len() < KEPT_BYTES + 200, "{}", text.len());
        assert!(text.starts_with("[1 row printed, the end of the last one below; read_window w shows them from the first]\n"));
    }
}
