//! The control-mode parser: bytes in, events out, no I/O, never panics.
//!
//! API NOTE for users inside this workspace (the engine): the names rat-core builds on
//! (`PaneId`, `WindowId`, `SessionId`, `Event`, `Reply`, `Notification`, `ParseError`,
//! `Parser::{new, feed, next_item, finish}`, `render`) are stable. `Notification` is
//! `#[non_exhaustive]`: a `match` on it needs a `_ =>` arm. `render` and `escape_output`, the
//! parser's inverse for tests, fuzzing and fixtures, exist with the feature `test-support`
//! only.
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
//! # Window layouts
//!
//! [`Layout`] reads the layout strings tmux prints in `#{window_layout}`,
//! `#{window_visible_layout}` and [`Notification::LayoutChange`] (e.g.
//! `4364,159x47,0,0{79x47,0,0,1,79x47,80,0,2}`) into a tree of [`Cell`]s, a pane or a split
//! left-right `{...}` or top-bottom `[...]`, with sizes and offsets in terminal cells, plus the
//! floating panes of tmux 3.7 (`<...>`). The checksum is checked as tmux computes it
//! ([`layout_checksum`]); [`Layout::panes`] lists the panes with their geometry; `Display`
//! prints the layout back byte for byte. Errors are [`LayoutError`]s with the byte offset; it
//! never panics. The grammar, and where it is stricter than tmux's `select-layout`, are in
//! [`Layout`]'s documentation.
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

mod layout;
mod lines;
mod notification;
#[cfg(feature = "test-support")]
mod render;

pub use layout::{
    Cell, CellKind, Layout, LayoutError, LayoutPane, MAX_LAYOUT_DEPTH, Panes, layout_checksum,
};
pub use lines::Parser;
#[cfg(feature = "test-support")]
pub use render::{escape_output, render};

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
    ///
    /// The layouts are parsed ([`Layout`], checksum checked). One that does not parse does
    /// not lose the notification: it arrives with [`BadLayout`] in place of the layout, the
    /// bytes tmux printed and why they do not parse, so a caller still learns that the
    /// window changed (and can list it again). tmux sends this only for the windows of the
    /// client's own session: for other sessions, see `Topology` and [`Client::watch`](crate::Client::watch).
    LayoutChange {
        /// The window.
        window: WindowId,
        /// `#{window_layout}`: the whole window.
        layout: Result<Layout, BadLayout>,
        /// `#{window_visible_layout}`: what shows (a zoomed window: its zoomed pane alone).
        visible_layout: Result<Layout, BadLayout>,
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

/// A layout of a [`Notification::LayoutChange`] that [`Layout::parse`] refused: the bytes as
/// tmux printed them and why. Kept so that the notification is never dropped for its layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLayout {
    /// The layout field, raw bytes.
    pub text: Vec<u8>,
    /// Why it is not a layout.
    pub error: LayoutError,
}

impl BadLayout {
    /// Parses `text` as a layout, keeping the bytes and the reason when it is not one.
    pub fn parse(text: &[u8]) -> Result<Layout, BadLayout> {
        Layout::parse(text).map_err(|error| BadLayout {
            text: text.to_vec(),
            error,
        })
    }
}

impl fmt::Display for BadLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in \"{}\"", self.error, self.text.escape_ascii())
    }
}

impl std::error::Error for BadLayout {}

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
