//! The control-mode parser: bytes in, events out, no I/O, never panics.
//!
//! API NOTE for users inside this workspace (the engine): the names rat-core builds on
//! (`PaneId`, `WindowId`, `SessionId`, `Event`, `Reply`, `Notification`, `ParseError`,
//! `Parser::{new, feed, next_item, finish}`, `render`) are stable. `Notification` is
//! `#[non_exhaustive]`: a `match` on it needs a `_ =>` arm.
//!
//! A `tmux -C` client prints two kinds of lines on its standard output (tmux 3.3a `control.c`,
//! `cmd-queue.c`, `control-notify.c`, `client.c`; measured on this machine, see
//! `tests/fixtures/`):
//!
//! - **Reply blocks**, one per command: `%begin TIME NUMBER FLAGS`, the command's output lines,
//!   then `%end TIME NUMBER FLAGS` (success) or `%error TIME NUMBER FLAGS` (failure) with the
//!   SAME three fields. The body lines are NOT escaped: a capture of a pane that shows
//!   `%end 1 2 1` prints that line as it is. So a block is closed only by a line that is exactly
//!   `%end`/`%error` followed by the same fields as its `%begin`; every other line in between,
//!   whatever it looks like, is body. FLAGS is 1 for the commands this client sent and 0 for
//!   the initial attach block; NUMBER is server-wide and skips values.
//! - **Notifications**, outside any block: a line starting with `%NAME`. `%output %PANE DATA`
//!   escapes only bytes below 0x20 and `\` (as `\ooo`, three octal digits); every other byte is
//!   raw and need not be UTF-8, so output is decoded to bytes. Notification names this module
//!   does not know are kept as [`Notification::Unknown`].
//!
//! Lines end with a single LF (`\n`); tmux 3.3a prints no CR. The parser does not strip a CR:
//! a body line keeps every byte except its LF.
//!
//! A line that cannot be understood (a known notification with malformed fields, text outside
//! any block, an `%end` with no open block) becomes one [`ParseError`] item carrying the line;
//! parsing then goes on with the next line, nothing is lost or left behind in the buffer.
//!
//! Feeding is incremental: bytes may arrive split anywhere (inside a line, inside an escape);
//! the items produced are the same as if all bytes had been fed at once. Line ends are found
//! with `memchr`, and no byte is scanned twice for its line end.
//!
//! # Example
//!
//! ```
//! use tmux_cc::parse::{Event, Notification, PaneId, Parser};
//!
//! let mut parser = Parser::new();
//! parser.feed(b"%begin 1700000000 12 1\nhello\n%end 1700000000 12 1\n%output %3 a\\015\\012b");
//! let reply = match parser.next_item() {
//!     Some(Ok(Event::Reply(reply))) => reply,
//!     other => panic!("expected a reply, got {other:?}"),
//! };
//! assert_eq!((reply.number, reply.success), (12, true));
//! assert_eq!(reply.lines, vec![b"hello".to_vec()]);
//! // The %output line has no LF yet: more bytes are needed.
//! assert!(parser.next_item().is_none());
//! parser.feed(b"\n");
//! assert_eq!(
//!     parser.next_item(),
//!     Some(Ok(Event::Notification(Notification::Output {
//!         pane: PaneId(3),
//!         data: b"a\r\nb".to_vec(),
//!     })))
//! );
//! ```

use std::fmt;
use std::str::FromStr;

use memchr::memchr;
use nom::Parser as _;
use nom::branch::alt;
use nom::bytes::complete::take_till1;
use nom::character::complete::{char as byte, digit1};
use nom::combinator::{all_consuming, map, map_res, opt, recognize, rest};
use nom::sequence::preceded;

/// A tmux pane id: `%N` in tmux's output and target syntax. Displayed as `%N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneId(pub u32);

/// A tmux window id: `@N` in tmux's output and target syntax. Displayed as `@N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WindowId(pub u32);

/// A tmux session id: `$N` in tmux's output and target syntax. Displayed as `$N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub u32);

/// The error of parsing a [`PaneId`], [`WindowId`] or [`SessionId`] from text such as `%3`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a tmux {what} id: expected `{sigil}` followed by a decimal number, as tmux prints it"
)]
pub struct IdError {
    text: String,
    what: &'static str,
    sigil: char,
}

macro_rules! id_impls {
    ($ty:ident, $sigil:literal, $what:literal) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($sigil, "{}"), self.0)
            }
        }

        impl FromStr for $ty {
            type Err = IdError;

            /// Parses the id as tmux prints it (`#{pane_id}`, `#{window_id}`,
            /// `#{session_id}`): the sigil then decimal digits, nothing else.
            fn from_str(s: &str) -> Result<Self, IdError> {
                let err = || IdError {
                    text: s.to_owned(),
                    what: $what,
                    sigil: $sigil,
                };
                let digits = s.strip_prefix($sigil).ok_or_else(err)?;
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err());
                }
                digits.parse().map($ty).map_err(|_| err())
            }
        }
    };
}
id_impls!(PaneId, '%', "pane");
id_impls!(WindowId, '@', "window");
id_impls!(SessionId, '$', "session");

/// One item of control-mode output: a command's reply or a notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A whole `%begin` ... `%end`/`%error` block.
    Reply(Reply),
    /// A `%NAME ...` line outside any block.
    Notification(Notification),
}

/// A command's reply: one `%begin TIME NUMBER FLAGS` ... `%end`/`%error` block (tmux 3.3a
/// `cmdq_guard` in cmd-queue.c prints the guards as `%%%s %ld %u %d`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// TIME: the server's clock (seconds since the epoch) when the command started.
    pub time: i64,
    /// NUMBER: the server-wide command number (increasing, not contiguous).
    pub number: u64,
    /// FLAGS: 1 for commands this client sent, 0 for others (the initial attach block).
    pub flags: u32,
    /// `true` for `%end` (the command succeeded), `false` for `%error`.
    pub success: bool,
    /// The body lines, raw bytes as tmux printed them, each without its LF. Not escaped: may
    /// hold any byte but LF, including lines that look like guards or notifications. For a
    /// failed command the body is tmux's error message (e.g. `can't find pane: %99`).
    pub lines: Vec<Vec<u8>>,
}

/// A notification: a `%NAME ...` line tmux prints outside reply blocks.
///
/// Sources: tmux 3.3a control.c (`%output`, `%extended-output`, `%pause`, `%continue`,
/// `%subscription-changed`), control-notify.c (the window, session, client and layout
/// notifications), client.c (`%exit`); tmux 3.4+ adds `%paste-buffer-changed`,
/// `%paste-buffer-deleted`, `%message` and `%config-error`. Field lists follow what 3.3a
/// prints, which is not always what its man page says: `%session-renamed` carries the session
/// id, window and session names are the rest of the line (they may hold spaces), and
/// `%layout-change` has four fields. Text fields (names, reasons) are decoded as UTF-8 with
/// invalid bytes replaced by U+FFFD; pane output stays bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notification {
    /// `%output %PANE DATA`: bytes a pane printed, unescaped (`\ooo` decoded).
    Output {
        /// The pane that printed.
        pane: PaneId,
        /// The raw bytes, not necessarily UTF-8.
        data: Vec<u8>,
    },
    /// `%extended-output %PANE AGE ... : DATA` (with `refresh-client -f pause-after`).
    ExtendedOutput {
        /// The pane that printed.
        pane: PaneId,
        /// How long the output waited in tmux before being sent, in milliseconds.
        age_ms: u64,
        /// The raw bytes, unescaped.
        data: Vec<u8>,
    },
    /// `%pause %PANE`: tmux stopped sending this pane's output (pause-after). In 3.3a it is
    /// printed inside the reply block of the `refresh-client` that caused it, so it arrives as
    /// a body line of that reply, not as this notification.
    Pause {
        /// The paused pane.
        pane: PaneId,
    },
    /// `%continue %PANE`: output of a paused pane resumes (same 3.3a caveat as `Pause`).
    Continue {
        /// The resumed pane.
        pane: PaneId,
    },
    /// `%exit [REASON]`: the control client is exiting (printed by the `tmux -C` client process
    /// itself, client.c, so it can come even in the middle of a reply: see [`Parser::finish`]).
    /// Seen on 3.3a (tests/fixtures): no reason after an empty line, `detach-client` or
    /// `kill-server`; `server exited unexpectedly` when the server was killed. tmux also has
    /// `too far behind` and `detached` (read in its source).
    Exit {
        /// The reason, or `None` when tmux printed `%exit` alone.
        reason: Option<String>,
    },
    /// `%session-changed $SESSION NAME`: this client is now attached to that session.
    SessionChanged {
        /// The session's id.
        session: SessionId,
        /// Its name (may hold spaces).
        name: String,
    },
    /// `%client-session-changed CLIENT $SESSION NAME`: another client changed session.
    ClientSessionChanged {
        /// The other client's name (its tty or `client-PID`).
        client: String,
        /// The session's id.
        session: SessionId,
        /// Its name.
        name: String,
    },
    /// `%session-renamed $SESSION NAME`.
    SessionRenamed {
        /// The session's id.
        session: SessionId,
        /// Its new name.
        name: String,
    },
    /// `%sessions-changed`: a session was created or destroyed.
    SessionsChanged,
    /// `%session-window-changed $SESSION @WINDOW`: a session's current window changed.
    SessionWindowChanged {
        /// The session.
        session: SessionId,
        /// Its new current window.
        window: WindowId,
    },
    /// `%window-add @WINDOW`: a window was linked to this client's session.
    WindowAdd {
        /// The window.
        window: WindowId,
    },
    /// `%unlinked-window-add @WINDOW`: a window was created in another session.
    UnlinkedWindowAdd {
        /// The window.
        window: WindowId,
    },
    /// `%window-close @WINDOW`: a window of this client's session closed.
    WindowClose {
        /// The window.
        window: WindowId,
    },
    /// `%unlinked-window-close @WINDOW`: a window of another session closed.
    UnlinkedWindowClose {
        /// The window.
        window: WindowId,
    },
    /// `%window-renamed @WINDOW NAME`: a window of this client's session was renamed.
    WindowRenamed {
        /// The window.
        window: WindowId,
        /// Its new name, raw to the end of the line (may hold spaces).
        name: String,
    },
    /// `%unlinked-window-renamed @WINDOW NAME`: a window of another session was renamed.
    UnlinkedWindowRenamed {
        /// The window.
        window: WindowId,
        /// Its new name.
        name: String,
    },
    /// `%window-pane-changed @WINDOW %PANE`: the window's active pane changed.
    WindowPaneChanged {
        /// The window.
        window: WindowId,
        /// Its new active pane.
        pane: PaneId,
    },
    /// `%layout-change @WINDOW LAYOUT VISIBLE_LAYOUT FLAGS` (3.3a prints four fields; FLAGS
    /// is `#{window_raw_flags}` and may be empty).
    LayoutChange {
        /// The window.
        window: WindowId,
        /// `#{window_layout}`.
        layout: String,
        /// `#{window_visible_layout}`.
        visible_layout: String,
        /// `#{window_raw_flags}` (e.g. `*`, `*Z`, or empty).
        flags: String,
    },
    /// `%pane-mode-changed %PANE`: the pane entered or left a mode (copy mode...).
    PaneModeChanged {
        /// The pane.
        pane: PaneId,
    },
    /// `%client-detached CLIENT`: a client detached.
    ClientDetached {
        /// The client's name.
        client: String,
    },
    /// `%paste-buffer-changed NAME` (tmux 3.4+).
    PasteBufferChanged {
        /// The buffer's name.
        name: String,
    },
    /// `%paste-buffer-deleted NAME` (tmux 3.4+).
    PasteBufferDeleted {
        /// The buffer's name.
        name: String,
    },
    /// `%subscription-changed NAME $SESSION @WINDOW INDEX %PANE ... : VALUE` (from
    /// `refresh-client -B`); the window, index and pane are `-` for a session subscription,
    /// the pane is `-` for a window subscription.
    SubscriptionChanged {
        /// The subscription's name.
        name: String,
        /// The session.
        session: SessionId,
        /// The window, if the subscription is for a window or pane.
        window: Option<WindowId>,
        /// The window's index in the session, if any.
        window_index: Option<u32>,
        /// The pane, if the subscription is for a pane.
        pane: Option<PaneId>,
        /// The format's value, to the end of the line.
        value: String,
    },
    /// `%message MESSAGE` (tmux 3.4+): a message tmux would show in the status line.
    Message {
        /// The message text.
        message: String,
    },
    /// `%config-error ERROR` (tmux 3.4+): an error in a configuration file.
    ConfigError {
        /// The error text.
        error: String,
    },
    /// A notification this version of the parser does not know (newer tmux), kept as is.
    Unknown {
        /// The name without its `%`, e.g. `new-thing` for `%new-thing a b`.
        name: String,
        /// The bytes after the first space following the name (empty if none).
        rest: Vec<u8>,
    },
}

/// A line the parser could not understand. It is reported once and skipped; the lines after it
/// parse as if it had not been there.
#[derive(Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The whole offending line, without its LF (for [`Parser::finish`]: the unterminated
    /// bytes, or the `%begin` line of the unterminated block).
    pub line: Vec<u8>,
    /// What was wrong and what was expected, in words.
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 200;
        let shown = self.line.get(..SHOWN).unwrap_or(&self.line);
        write!(
            f,
            "tmux control mode: {}, in line \"{}\"",
            self.reason,
            shown.escape_ascii()
        )?;
        if self.line.len() > SHOWN {
            write!(f, "... ({} bytes)", self.line.len())?;
        }
        Ok(())
    }
}

impl fmt::Debug for ParseError {
    /// Shows `line` as escaped text rather than a list of numbers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParseError")
            .field("line", &format_args!("\"{}\"", self.line.escape_ascii()))
            .field("reason", &self.reason)
            .finish()
    }
}

impl std::error::Error for ParseError {}

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

/// The incremental control-mode parser. See the [module docs](self).
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

/// The `%NAME` at the start of a line (up to the first space).
fn name_of(line: &[u8]) -> &[u8] {
    match memchr(b' ', line) {
        Some(i) => line.get(..i).unwrap_or(line),
        None => line,
    }
}

type In<'a> = &'a [u8];
type Res<'a, T> = nom::IResult<In<'a>, T>;

fn decimal<T: FromStr>(i: In<'_>) -> Res<'_, T> {
    map_res(digit1, |d: In<'_>| {
        std::str::from_utf8(d)
            .map_err(|_| ())
            .and_then(|s| s.parse::<T>().map_err(|_| ()))
    })
    .parse(i)
}

fn signed(i: In<'_>) -> Res<'_, i64> {
    map_res(recognize((opt(byte('-')), digit1)), |d: In<'_>| {
        std::str::from_utf8(d)
            .map_err(|_| ())
            .and_then(|s| s.parse::<i64>().map_err(|_| ()))
    })
    .parse(i)
}

fn pane(i: In<'_>) -> Res<'_, PaneId> {
    map(preceded(byte('%'), decimal), PaneId).parse(i)
}

fn window(i: In<'_>) -> Res<'_, WindowId> {
    map(preceded(byte('@'), decimal), WindowId).parse(i)
}

fn session(i: In<'_>) -> Res<'_, SessionId> {
    map(preceded(byte('$'), decimal), SessionId).parse(i)
}

fn sp(i: In<'_>) -> Res<'_, char> {
    byte(' ').parse(i)
}

/// A field up to the next space (at least one byte).
fn word(i: In<'_>) -> Res<'_, In<'_>> {
    take_till1(|b| b == b' ').parse(i)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// ` TIME NUMBER FLAGS` after `%begin`, written as tmux writes them (`%ld %u %d`: no leading
/// zeros, no `+`, no `-0`). The closing line is matched byte for byte against these fields, so
/// they must be exactly the ones [`render`] writes back.
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

/// `-` or `item`.
fn dash_or<'a, T>(
    item: impl nom::Parser<In<'a>, Output = T, Error = nom::error::Error<In<'a>>>,
) -> impl nom::Parser<In<'a>, Output = Option<T>, Error = nom::error::Error<In<'a>>> {
    alt((map(byte('-'), |_| None), map(item, Some)))
}

/// Runs `p` over all of `args`; on failure, the reason names the expected form.
fn fields<'a, T>(
    mut p: impl nom::Parser<In<'a>, Output = T, Error = nom::error::Error<In<'a>>>,
    args: In<'a>,
    name: &[u8],
    usage: &str,
) -> Result<T, String> {
    match p.parse(args) {
        Ok((b"", v)) => Ok(v),
        Ok(_) => Err(format!(
            "malformed `%{}`: unexpected bytes after its fields; expected `{usage}`",
            text(name)
        )),
        Err(_) => Err(format!("malformed `%{}`: expected `{usage}`", text(name))),
    }
}

/// Splits `... : DATA` (the tail of `%extended-output` and `%subscription-changed`): the bytes
/// before ` : ` are fields a newer tmux may add (ignored), DATA is everything after.
fn after_colon<'a>(tail: In<'a>, name: &[u8], usage: &str) -> Result<In<'a>, String> {
    if tail.is_empty() {
        return Err(format!("malformed `%{}`: expected `{usage}`", text(name)));
    }
    match memchr::memmem::find(tail, b" : ") {
        Some(at) => Ok(tail.get(at + 3..).unwrap_or_default()),
        None if tail.ends_with(b" :") => Ok(&[]),
        None => Err(format!(
            "malformed `%{}`: no ` : ` before the data; expected `{usage}`",
            text(name)
        )),
    }
}

/// Parses a notification line (starting with `%`). The error is the reason, in words.
fn parse_notification(line: &[u8]) -> Result<Notification, String> {
    use Notification as N;
    let name_pct = name_of(line);
    let after = line.get(name_pct.len()..).unwrap_or_default();
    let name = name_pct.get(1..).unwrap_or_default();
    // Everything after the single space that follows the name.
    let args = after.get(1..).unwrap_or_default();
    Ok(match name {
        b"output" => {
            let usage = "%output %PANE DATA";
            let (pane, data) = fields((pane, preceded(sp, rest)), args, name, usage)?;
            N::Output {
                pane,
                data: unescape(data, name)?,
            }
        }
        b"extended-output" => {
            let usage = "%extended-output %PANE AGE ... : DATA";
            let (pane, age_ms, tail) = fields(
                (pane, preceded(sp, decimal::<u64>), rest),
                args,
                name,
                usage,
            )?;
            let data = after_colon(tail, name, usage)?;
            N::ExtendedOutput {
                pane,
                age_ms,
                data: unescape(data, name)?,
            }
        }
        b"pause" => N::Pause {
            pane: fields(pane, args, name, "%pause %PANE")?,
        },
        b"continue" => N::Continue {
            pane: fields(pane, args, name, "%continue %PANE")?,
        },
        b"exit" => N::Exit {
            reason: if args.is_empty() {
                None
            } else {
                Some(text(args))
            },
        },
        b"session-changed" => {
            let (session, n) = fields(
                (session, preceded(sp, rest)),
                args,
                name,
                "%session-changed $SESSION NAME",
            )?;
            N::SessionChanged {
                session,
                name: text(n),
            }
        }
        b"client-session-changed" => {
            let (c, session, n) = fields(
                (word, preceded(sp, session), preceded(sp, rest)),
                args,
                name,
                "%client-session-changed CLIENT $SESSION NAME",
            )?;
            N::ClientSessionChanged {
                client: text(c),
                session,
                name: text(n),
            }
        }
        b"session-renamed" => {
            let (session, n) = fields(
                (session, preceded(sp, rest)),
                args,
                name,
                "%session-renamed $SESSION NAME",
            )?;
            N::SessionRenamed {
                session,
                name: text(n),
            }
        }
        // No fields in 3.3 to 3.5; anything a later tmux adds is ignored.
        b"sessions-changed" => N::SessionsChanged,
        b"session-window-changed" => {
            let (session, window) = fields(
                (session, preceded(sp, window)),
                args,
                name,
                "%session-window-changed $SESSION @WINDOW",
            )?;
            N::SessionWindowChanged { session, window }
        }
        b"window-add" => N::WindowAdd {
            window: fields(window, args, name, "%window-add @WINDOW")?,
        },
        b"unlinked-window-add" => N::UnlinkedWindowAdd {
            window: fields(window, args, name, "%unlinked-window-add @WINDOW")?,
        },
        b"window-close" => N::WindowClose {
            window: fields(window, args, name, "%window-close @WINDOW")?,
        },
        b"unlinked-window-close" => N::UnlinkedWindowClose {
            window: fields(window, args, name, "%unlinked-window-close @WINDOW")?,
        },
        b"window-renamed" => {
            let (window, n) = fields(
                (window, preceded(sp, rest)),
                args,
                name,
                "%window-renamed @WINDOW NAME",
            )?;
            N::WindowRenamed {
                window,
                name: text(n),
            }
        }
        b"unlinked-window-renamed" => {
            let (window, n) = fields(
                (window, preceded(sp, rest)),
                args,
                name,
                "%unlinked-window-renamed @WINDOW NAME",
            )?;
            N::UnlinkedWindowRenamed {
                window,
                name: text(n),
            }
        }
        b"window-pane-changed" => {
            let (window, pane) = fields(
                (window, preceded(sp, pane)),
                args,
                name,
                "%window-pane-changed @WINDOW %PANE",
            )?;
            N::WindowPaneChanged { window, pane }
        }
        b"layout-change" => {
            let (window, l, v, flags) = fields(
                (
                    window,
                    preceded(sp, word),
                    preceded(sp, word),
                    opt(preceded(sp, rest)),
                ),
                args,
                name,
                "%layout-change @WINDOW LAYOUT VISIBLE_LAYOUT FLAGS",
            )?;
            N::LayoutChange {
                window,
                layout: text(l),
                visible_layout: text(v),
                flags: text(flags.unwrap_or_default()),
            }
        }
        b"pane-mode-changed" => N::PaneModeChanged {
            pane: fields(pane, args, name, "%pane-mode-changed %PANE")?,
        },
        b"client-detached" => N::ClientDetached { client: text(args) },
        b"paste-buffer-changed" => N::PasteBufferChanged { name: text(args) },
        b"paste-buffer-deleted" => N::PasteBufferDeleted { name: text(args) },
        b"subscription-changed" => {
            let usage = "%subscription-changed NAME $SESSION @WINDOW|- INDEX|- %PANE|- ... : VALUE";
            let (n, session, window, window_index, pane, tail) = fields(
                (
                    word,
                    preceded(sp, session),
                    preceded(sp, dash_or(window)),
                    preceded(sp, dash_or(decimal::<u32>)),
                    preceded(sp, dash_or(pane)),
                    rest,
                ),
                args,
                name,
                usage,
            )?;
            let value = after_colon(tail, name, usage)?;
            N::SubscriptionChanged {
                name: text(n),
                session,
                window,
                window_index,
                pane,
                value: text(value),
            }
        }
        b"message" => N::Message {
            message: text(args),
        },
        b"config-error" => N::ConfigError { error: text(args) },
        b"" => return Err("a line with `%` and no notification name".into()),
        _ => N::Unknown {
            name: text(name),
            rest: args.to_vec(),
        },
    })
}

/// Decodes `%output` data: `\ooo` (three octal digits, at most 377) is one byte, every other
/// byte is itself (tmux 3.3a `control_append_data`: bytes < 0x20 and `\` are escaped).
fn unescape(data: &[u8], name: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(data.len());
    let mut rest = data;
    while let Some(at) = memchr(b'\\', rest) {
        out.extend_from_slice(rest.get(..at).unwrap_or_default());
        let digits = rest.get(at + 1..at + 4);
        let value = match digits {
            Some(&[a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) => {
                (a - b'0') * 64 + (b - b'0') * 8 + (c - b'0')
            }
            _ => {
                return Err(format!(
                    "malformed `%{}` data: a `\\` at data byte {} is not followed by three \
                     octal digits 000 to 377 (tmux escapes bytes as \\ooo)",
                    text(name),
                    data.len() - rest.len() + at
                ));
            }
        };
        out.push(value);
        rest = rest.get(at + 4..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
    Ok(out)
}

/// Escapes pane bytes as tmux 3.3a does in `%output`: bytes below 0x20 and `\` as `\ooo`.
pub fn escape_output(data: &[u8], out: &mut Vec<u8>) {
    for &b in data {
        if b < 0x20 || b == b'\\' {
            out.extend_from_slice(&[
                b'\\',
                b'0' + (b >> 6),
                b'0' + ((b >> 3) & 7),
                b'0' + (b & 7),
            ]);
        } else {
            out.push(b);
        }
    }
}

/// The bytes tmux would print for `event`, each line ending with LF: the inverse of
/// [`Parser`] for events tmux can print (body lines without LF, names without LF, a reply body
/// holding no line equal to its own closing guard). For tests, fuzzing and fixtures.
pub fn render(event: &Event) -> Vec<u8> {
    let mut out = Vec::new();
    match event {
        Event::Reply(r) => {
            let fields = format!(" {} {} {}", r.time, r.number, r.flags);
            out.extend_from_slice(b"%begin");
            out.extend_from_slice(fields.as_bytes());
            out.push(b'\n');
            for line in &r.lines {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            out.extend_from_slice(if r.success { b"%end" } else { b"%error" });
            out.extend_from_slice(fields.as_bytes());
        }
        Event::Notification(n) => render_notification(n, &mut out),
    }
    out.push(b'\n');
    out
}

fn render_notification(n: &Notification, out: &mut Vec<u8>) {
    use Notification as N;
    let line = match n {
        N::Output { pane, data } => {
            out.extend_from_slice(format!("%output {pane} ").as_bytes());
            escape_output(data, out);
            return;
        }
        N::ExtendedOutput { pane, age_ms, data } => {
            out.extend_from_slice(format!("%extended-output {pane} {age_ms} : ").as_bytes());
            escape_output(data, out);
            return;
        }
        N::Pause { pane } => format!("%pause {pane}"),
        N::Continue { pane } => format!("%continue {pane}"),
        N::Exit { reason: None } => "%exit".to_owned(),
        N::Exit { reason: Some(r) } => format!("%exit {r}"),
        N::SessionChanged { session, name } => format!("%session-changed {session} {name}"),
        N::ClientSessionChanged {
            client,
            session,
            name,
        } => {
            format!("%client-session-changed {client} {session} {name}")
        }
        N::SessionRenamed { session, name } => format!("%session-renamed {session} {name}"),
        N::SessionsChanged => "%sessions-changed".to_owned(),
        N::SessionWindowChanged { session, window } => {
            format!("%session-window-changed {session} {window}")
        }
        N::WindowAdd { window } => format!("%window-add {window}"),
        N::UnlinkedWindowAdd { window } => format!("%unlinked-window-add {window}"),
        N::WindowClose { window } => format!("%window-close {window}"),
        N::UnlinkedWindowClose { window } => format!("%unlinked-window-close {window}"),
        N::WindowRenamed { window, name } => format!("%window-renamed {window} {name}"),
        N::UnlinkedWindowRenamed { window, name } => {
            format!("%unlinked-window-renamed {window} {name}")
        }
        N::WindowPaneChanged { window, pane } => format!("%window-pane-changed {window} {pane}"),
        N::LayoutChange {
            window,
            layout,
            visible_layout,
            flags,
        } => {
            format!("%layout-change {window} {layout} {visible_layout} {flags}")
        }
        N::PaneModeChanged { pane } => format!("%pane-mode-changed {pane}"),
        N::ClientDetached { client } => format!("%client-detached {client}"),
        N::PasteBufferChanged { name } => format!("%paste-buffer-changed {name}"),
        N::PasteBufferDeleted { name } => format!("%paste-buffer-deleted {name}"),
        N::SubscriptionChanged {
            name,
            session,
            window,
            window_index,
            pane,
            value,
        } => {
            let dash = |o: Option<String>| o.unwrap_or_else(|| "-".to_owned());
            format!(
                "%subscription-changed {name} {session} {} {} {} : {value}",
                dash(window.map(|w| w.to_string())),
                dash(window_index.map(|i| i.to_string())),
                dash(pane.map(|p| p.to_string())),
            )
        }
        N::Message { message } => format!("%message {message}"),
        N::ConfigError { error } => format!("%config-error {error}"),
        N::Unknown { name, rest } => {
            out.push(b'%');
            out.extend_from_slice(name.as_bytes());
            if !rest.is_empty() {
                out.push(b' ');
                out.extend_from_slice(rest);
            }
            return;
        }
    };
    out.extend_from_slice(line.as_bytes());
}
