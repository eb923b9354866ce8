//! Framing: lines found by their LF, reply blocks opened by `%begin` and closed only by the
//! `%end`/`%error` with the same fields; every other line outside a block is a notification
//! (see the [module docs](super)).

use std::fmt;

use memchr::memchr;
use nom::Parser as _;
use nom::combinator::all_consuming;
use nom::sequence::preceded;

use super::notification::{decimal, name_of, parse_notification, signed, sp};
use super::{Event, Notification, ParseError, Reply};

/// A reply block whose `%begin` has been read but not yet its `%end`/`%error`.
#[derive(Debug)]
struct OpenBlock {
    time: i64,
    number: u64,
    flags: u32,
    /// The raw bytes after `%begin` (` TIME NUMBER FLAGS`): the closing line must be `%end` or
    /// `%error` followed by exactly these bytes.
    guard_fields: Vec<u8>,
    lines: Vec<Vec<u8>>,
}

/// The incremental control-mode parser. See the [module docs](super).
///
/// Feed it every byte read from `tmux -C`'s standard output with [`Parser::feed`], then take
/// items with [`Parser::next_item`] until it returns `None`; at end of file call
/// [`Parser::finish`].
#[derive(Default)]
pub struct Parser {
    /// Bytes fed and not yet consumed start at `start`; bytes before it are done.
    buf: Vec<u8>,
    /// First byte of the current (incomplete) line.
    start: usize,
    /// Bytes in `start..scanned` are known to hold no LF: the next search starts here.
    scanned: usize,
    block: Option<OpenBlock>,
}

impl fmt::Debug for Parser {
    /// A summary (the buffer may hold megabytes): bytes pending, and the open block if any.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Parser");
        d.field("pending_bytes", &self.buf.len().saturating_sub(self.start));
        match &self.block {
            Some(b) => d.field(
                "open_block",
                &format_args!(
                    "%begin {} {} {} ({} body lines)",
                    b.time,
                    b.number,
                    b.flags,
                    b.lines.len()
                ),
            ),
            None => d.field("open_block", &None::<()>),
        };
        d.finish()
    }
}

impl Parser {
    /// A parser with nothing fed, outside any block.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Appends bytes read from tmux's standard output. Any split is fine.
    pub fn feed(&mut self, bytes: &[u8]) {
        // Drop consumed bytes once they are at least half the buffer: amortised O(1) per byte.
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete item, `None` when more bytes are needed. A reply is returned once its
    /// closing `%end`/`%error` line has been fed; a line that cannot be parsed is returned as
    /// `Some(Err(..))` and parsing goes on after it.
    pub fn next_item(&mut self) -> Option<Result<Event, ParseError>> {
        loop {
            let unscanned = self.buf.get(self.scanned..)?;
            let Some(offset) = memchr(b'\n', unscanned) else {
                self.scanned = self.buf.len();
                return None;
            };
            let end = self.scanned + offset;
            let line = self.buf.get(self.start..end)?;
            let item = process_line(line, &mut self.block);
            self.start = end + 1;
            self.scanned = self.start;
            if item.is_some() {
                return item;
            }
        }
    }

    /// True when a reply block is open: its `%begin` line was taken by [`Parser::next_item`],
    /// its `%end`/`%error` not yet.
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }

    /// Call at end of file, after [`Parser::next_item`] returned `None`: reports what the
    /// connection's end cut short and resets the parser.
    ///
    /// - An unterminated reply block gives a [`ParseError`] whose `line` is its `%begin` line.
    ///   If that block's last body line is a valid `%exit` line, that line is taken out of the
    ///   block and returned, after the error, as the [`Notification::Exit`] it is: the tmux
    ///   client prints `%exit` itself when the server goes away, even in the middle of a reply.
    /// - Bytes after the last LF give a [`ParseError`] for that incomplete line.
    pub fn finish(&mut self) -> Vec<Result<Event, ParseError>> {
        let mut items = Vec::new();
        if let Some(mut block) = self.block.take() {
            let exit = match block.lines.last() {
                Some(last) if last.starts_with(b"%exit") => match parse_notification(last) {
                    Ok(exit @ Notification::Exit { .. }) => Some(exit),
                    _ => None,
                },
                _ => None,
            };
            if exit.is_some() {
                block.lines.pop();
            }
            let mut line = b"%begin".to_vec();
            line.extend_from_slice(&block.guard_fields);
            items.push(Err(ParseError {
                line,
                reason: format!(
                    "the output ended inside the reply block of command {} (body lines read: \
                     {}; no `%end`/`%error`): the command's result is unknown",
                    block.number,
                    block.lines.len()
                ),
            }));
            if let Some(exit) = exit {
                items.push(Ok(Event::Notification(exit)));
            }
        }
        if let Some(partial) = self.buf.get(self.start..)
            && !partial.is_empty()
        {
            items.push(Err(ParseError {
                line: partial.to_vec(),
                reason: "the output ended in the middle of a line (no LF after it)".into(),
            }));
        }
        self.buf.clear();
        self.start = 0;
        self.scanned = 0;
        items
    }
}

/// Handles one complete line (without its LF); returns an item when the line completes one.
fn process_line(line: &[u8], block: &mut Option<OpenBlock>) -> Option<Result<Event, ParseError>> {
    if let Some(open) = block {
        if let Some(success) = closes(line, &open.guard_fields) {
            let open = block.take()?;
            return Some(Ok(Event::Reply(Reply {
                time: open.time,
                number: open.number,
                flags: open.flags,
                success,
                lines: open.lines,
            })));
        }
        open.lines.push(line.to_vec());
        return None;
    }
    if let Some(fields) = line.strip_prefix(b"%begin")
        && (fields.is_empty() || fields.first() == Some(&b' '))
    {
        return match guard_fields(fields) {
            Ok((time, number, flags)) => {
                *block = Some(OpenBlock {
                    time,
                    number,
                    flags,
                    guard_fields: fields.to_vec(),
                    lines: Vec::new(),
                });
                None
            }
            Err(()) => Some(Err(error(
                line,
                "malformed `%begin`: expected `%begin TIME NUMBER FLAGS` (decimal numbers as tmux prints them)",
            ))),
        };
    }
    if line.first() != Some(&b'%') {
        return Some(Err(error(
            line,
            "a line outside any reply block that is not a notification (no leading `%`)",
        )));
    }
    let name = name_of(line);
    if name == b"%end" || name == b"%error" {
        return Some(Err(error(
            line,
            "a reply's end with no open `%begin` block",
        )));
    }
    Some(
        parse_notification(line)
            .map(Event::Notification)
            .map_err(|reason| error(line, &reason)),
    )
}

fn error(line: &[u8], reason: &str) -> ParseError {
    ParseError {
        line: line.to_vec(),
        reason: reason.to_owned(),
    }
}

/// `Some(success)` if `line` is `%end`/`%error` followed by exactly `fields`.
fn closes(line: &[u8], fields: &[u8]) -> Option<bool> {
    if line.first() != Some(&b'%') {
        return None;
    }
    if line
        .strip_prefix(b"%end")
        .is_some_and(|rest| rest == fields)
    {
        Some(true)
    } else if line
        .strip_prefix(b"%error")
        .is_some_and(|rest| rest == fields)
    {
        Some(false)
    } else {
        None
    }
}

/// ` TIME NUMBER FLAGS` after `%begin`, written as tmux writes them (`%ld %u %d`: no leading
/// zeros, no `+`, no `-0`). The closing line is matched byte for byte against these fields, so
/// they must be exactly the ones `render` writes back.
fn guard_fields(fields: &[u8]) -> Result<(i64, u64, u32), ()> {
    let (time, number, flags) = all_consuming((
        preceded(sp, signed),
        preceded(sp, decimal),
        preceded(sp, decimal),
    ))
    .parse(fields)
    .map(|(_, v)| v)
    .map_err(|_| ())?;
    if format!(" {time} {number} {flags}").as_bytes() != fields {
        return Err(());
    }
    Ok((time, number, flags))
}
