//! One command's output rendered as a terminal shows it (the `vt100` crate's emulator), with
//! the rows that scrolled off its screen kept as text: what the command printed, after its
//! own `\r`, erases and redraws, in rows of the pane's width.

use std::collections::VecDeque;
use std::num::NonZeroU16;

/// A row of text, trailing blanks left out, and whether it continues on the next row (a line
/// longer than the width, wrapped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Row {
    /// Its text, trailing blanks left out.
    pub(super) text: String,
    /// Whether the line goes on in the next row.
    pub(super) wrapped: bool,
}

/// The rows of the normal screen pushed off its top, handed over by the emulator.
#[derive(Default)]
struct Scrolled {
    rows: Vec<Row>,
}

/// A writer that keeps only whether the first character is a new line, then stops: how
/// `RowContents` shows whether the row before was wrapped.
struct FirstChar(Option<char>);

impl std::fmt::Write for FirstChar {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if let Some(c) = s.chars().next() {
            self.0 = Some(c);
            return Err(std::fmt::Error);
        }
        Ok(())
    }
}

impl vt100::Callbacks for Scrolled {
    fn on_scroll(&mut self, contents: vt100::capture::RowContents<'_>, alternate_screen: bool) {
        // The alternate screen's rows are a full-screen program's, never a command's rows.
        if alternate_screen {
            return;
        }
        let mut formatted = String::new();
        let mut state = vt100::capture::BasicFormattedCaptureState::new();
        let _ = contents.write_formatted_basic(&mut formatted, &mut state);
        // The state now holds whether a new line follows this row: not when it is wrapped.
        let mut first = FirstChar(None);
        let _ = contents.write_formatted_basic(&mut first, &mut state);
        let wrapped = first.0 != Some('\n');
        let mut text: String = vt100::capture::basic_formatted_to_plain(&formatted).collect();
        text.truncate(text.trim_end().len());
        self.rows.push(Row { text, wrapped });
    }
}

/// One command's rendering, with what of it was reported.
pub struct Render {
    parser: vt100::Parser<Scrolled>,
    /// Rows pushed off the screen's top, oldest first.
    history: VecDeque<Row>,
    /// How many rows to keep in `history` at most (as tmux's `history-limit`).
    limit: usize,
    /// Rows removed from `history`'s front (past the limit, or erased by `ESC[3J`): the
    /// absolute number of its first row. Rows are numbered from the command's first.
    dropped: u64,
    /// Lines that went past the limit whole: the number of the first line kept, less one.
    /// Lines are numbered from the command's first, as its answers and read_window's
    /// `output_rows` number them; rows it erased with its history (`ESC[3J`) are not its
    /// rows, and the numbers start again after them.
    lines_dropped: u64,
    /// Rows numbered below this are not reported again (reported, or erased by the command).
    reported: u64,
    /// Rows dropped past the limit before they were reported.
    gone: u64,
    /// Rows of it were reported before (an answer about it while it ran showed some).
    answered: bool,
    /// The line the cursor was on when reported last (reported again as it grows): its first row's
    /// number and its text. Reported again unchanged, it is left out.
    partial: Option<(u64, String)>,
    /// The first row of a prompt line of a shell started inside this command: that row and
    /// those after it are not this command's until that shell runs a command (see
    /// [`Render::hold_from_cursor`]).
    held: Option<u64>,
}

/// The rows of a command not yet reported, joined into lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lines {
    /// The lines, each its rows end to end, trailing blanks left out.
    pub lines: Vec<String>,
    /// How many of them are whole (the rest is the line the cursor is on, still being
    /// printed).
    pub whole: usize,
    /// The rows these lines take at the pane's width.
    pub rows: u64,
    /// Rows not reported that were dropped past the history's limit before this.
    pub gone: u64,
    /// The number of the first line, counted from the command's first (1); 0 when there is
    /// none.
    pub first: u64,
    /// Rows of the command were reported before these (they are the rows since).
    pub reported_before: bool,
}

impl Render {
    /// An empty screen of `width` columns and `height` rows, keeping `limit` rows of history.
    pub fn new(width: u16, height: u16, limit: usize) -> Render {
        Render {
            parser: vt100::Parser::new_with_callbacks(
                nonzero(height),
                nonzero(width),
                0,
                Scrolled::default(),
            ),
            history: VecDeque::new(),
            limit,
            dropped: 0,
            lines_dropped: 0,
            reported: 0,
            gone: 0,
            answered: false,
            partial: None,
            held: None,
        }
    }

    /// Renders `bytes`, the command's output after what was fed before.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
        let scrolled = std::mem::take(&mut self.parser.callbacks_mut().rows);
        self.history.extend(scrolled);
        while self.history.len() > self.limit {
            if self.history.pop_front().is_some_and(|row| !row.wrapped) {
                self.lines_dropped += 1;
            }
            if self.dropped >= self.reported {
                self.gone += 1;
            }
            self.dropped += 1;
        }
        self.reported = self.reported.max(self.dropped);
    }

    /// The bytes fed last ended with `ESC[2J` (`history` false) or `ESC[3J`: rows the
    /// command erased are not its rows; rows printed after on the erased screen are new.
    pub fn erased(&mut self, history: bool) {
        if self.parser.screen().alternate_screen() {
            return;
        }
        if history {
            self.dropped += self.history.len() as u64;
            self.history.clear();
            self.lines_dropped = 0;
            self.reported = self.reported.max(self.dropped);
        } else {
            self.reported = self.reported.min(self.screen_start());
        }
    }

    /// The rows it keeps: its history and its screen.
    pub fn rows_kept(&self) -> usize {
        self.history.len() + usize::from(self.parser.screen().size().0.get())
    }

    /// Whether the cursor stands at the start of a row.
    pub fn at_row_start(&self) -> bool {
        self.parser.screen().cursor_position().1 == 0
    }

    /// Whether a full-screen program holds the screen (the alternate screen is on).
    pub fn alternate(&self) -> bool {
        self.parser.screen().alternate_screen()
    }

    /// Leaves the alternate screen (a program that ended without leaving it): what shows then
    /// is the normal screen, the command's rows.
    pub fn leave_alternate(&mut self) {
        self.feed(b"\x1b[?1049l");
    }

    /// The number of the screen's first row.
    fn screen_start(&self) -> u64 {
        self.dropped + self.history.len() as u64
    }

    /// The screen's rows, up to the last one the command printed on.
    fn screen_rows(&self) -> (Vec<Row>, usize) {
        let screen = self.parser.screen();
        let (_, width) = screen.size();
        let mut rows: Vec<Row> = screen
            .rows(0, width.get())
            .enumerate()
            .map(|(i, mut text)| {
                text.truncate(text.trim_end().len());
                Row {
                    text,
                    wrapped: screen.row_wrapped(i as u16),
                }
            })
            .collect();
        let (cursor_row, cursor_col) = screen.cursor_position();
        let printed = rows
            .iter()
            .rposition(|r| !r.text.is_empty())
            .map_or(0, |i| i + 1);
        // The rows above the cursor's were printed (empty lines included); the cursor's row
        // too when the cursor left its start.
        let end = printed.max(usize::from(cursor_row) + usize::from(cursor_col > 0));
        rows.truncate(end);
        (rows, usize::from(cursor_row))
    }

    /// Takes the rows above the cursor's line as reported: they are a shell's started inside
    /// this command (its prompts, its commands' rows, which the answers about those commands
    /// report), not this command's own.
    pub fn skip_to_cursor(&mut self) {
        let cursor_line = self.cursor_line();
        self.held = None;
        if cursor_line > self.reported {
            self.reported = cursor_line;
            self.answered = true;
            self.partial = None;
        }
    }

    /// A shell started inside this command prints its prompt from the cursor's line on: that
    /// line and those after it are not shown as this command's until [`Render::skip_to_cursor`]
    /// (the shell's next command).
    pub fn hold_from_cursor(&mut self) {
        if self.held.is_none() {
            self.held = Some(self.cursor_line());
        }
    }

    /// The number of the first row of the line the cursor is on.
    fn cursor_line(&self) -> u64 {
        let (screen, cursor_row) = self.screen_rows();
        let all: Vec<&Row> = self.history.iter().chain(screen.iter()).collect();
        self.line_start(&all, cursor_row)
    }

    /// The number of the first row of the line holding screen row `row`, `all` the rows kept:
    /// the first of the wrapped rows above it.
    fn line_start(&self, all: &[&Row], row: usize) -> u64 {
        let start = self.screen_start();
        let mut line = start + row as u64;
        while line > start
            && all
                .get((line - 1 - self.dropped) as usize)
                .is_some_and(|r| r.wrapped)
        {
            line -= 1;
        }
        line
    }

    /// The rows not yet reported, as lines; `report` marks them reported: all of them when the command
    /// ended, else all but the line the cursor is on (reported again next time, as it grows).
    pub fn lines(&mut self, report: bool, ended: bool) -> Lines {
        let (screen, cursor_row) = self.screen_rows();
        let first = self.reported.max(self.dropped);
        let skip = (first - self.dropped) as usize;
        let all: Vec<&Row> = self.history.iter().chain(screen.iter()).collect();
        let cursor_line = self.line_start(&all, cursor_row);
        let end = (self.dropped + all.len() as u64).min(self.held.unwrap_or(u64::MAX));
        let whole_end = if ended { end } else { cursor_line.min(end) };
        let mut out = Lines {
            gone: self.gone,
            reported_before: self.answered,
            ..Lines::default()
        };
        let mut line = String::new();
        let mut open = false;
        // Each line's first row's number and its rows.
        let mut spans: Vec<(u64, u64)> = Vec::new();
        for (i, row) in all.iter().enumerate().skip(skip) {
            let number = self.dropped + i as u64;
            if number >= end {
                break;
            }
            if !open {
                if number == whole_end {
                    out.whole = out.lines.len();
                }
                spans.push((number, 0));
            }
            line.push_str(&row.text);
            open = true;
            out.rows += 1;
            if let Some(span) = spans.last_mut() {
                span.1 += 1;
            }
            if !row.wrapped || i + 1 == all.len() || number + 1 == end {
                line.truncate(line.trim_end().len());
                out.lines.push(std::mem::take(&mut line));
                open = false;
            }
        }
        if whole_end >= end {
            out.whole = out.lines.len();
        }
        if !out.lines.is_empty() {
            // The line a row belongs to: the lines begun at or before it.
            let starts = (0..=skip.min(all.len() - 1))
                .filter(|&i| i == 0 || !all[i - 1].wrapped)
                .count();
            out.first = self.lines_dropped + starts as u64;
        }
        // The line reported last as the cursor's, unchanged: reported already.
        if let (Some((number, text)), Some(&(first_number, rows))) = (&self.partial, spans.first())
            && *number == first_number
            && out.lines.first() == Some(text)
        {
            out.lines.remove(0);
            spans.remove(0);
            out.first += 1;
            out.rows -= rows;
            out.whole = out.whole.saturating_sub(1);
        }
        if report {
            self.reported = self.reported.max(whole_end);
            self.gone = 0;
            // An answer that showed none of its rows reported nothing: the next ones are not "since".
            self.answered |= !out.lines.is_empty();
            self.partial = (out.whole < out.lines.len())
                .then(|| {
                    spans
                        .get(out.whole)
                        .map(|&(n, _)| (n, out.lines[out.whole].clone()))
                })
                .flatten();
        }
        out
    }
}

impl Render {
    /// Every line it keeps, reported or not, the line the cursor is on included, with the number
    /// of the first (numbered as [`Lines::first`]): what read_window's `output_rows` reads.
    pub fn numbered(&self) -> (u64, Vec<String>) {
        let (screen, _) = self.screen_rows();
        let mut lines = Vec::new();
        let mut line = String::new();
        let all: Vec<&Row> = self.history.iter().chain(screen.iter()).collect();
        for (i, row) in all.iter().enumerate() {
            line.push_str(&row.text);
            if !row.wrapped || i + 1 == all.len() {
                line.truncate(line.trim_end().len());
                lines.push(std::mem::take(&mut line));
            }
        }
        (self.lines_dropped + 1, lines)
    }
}

fn nonzero(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}
