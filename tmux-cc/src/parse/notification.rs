//! Notification lines (`%NAME ...` outside any block): their fields, read with nom, and the
//! `\ooo` escapes of pane output.

use std::str::FromStr;

use memchr::memchr;
use nom::Parser as _;
use nom::branch::alt;
use nom::bytes::complete::take_till1;
use nom::character::complete::{char as byte, digit1};
use nom::combinator::{map, map_res, opt, recognize, rest};
use nom::sequence::preceded;

use super::{BadLayout, Notification, PaneId, SessionId, WindowId};

/// The `%NAME` at the start of a line (up to the first space).
pub(super) fn name_of(line: &[u8]) -> &[u8] {
    match memchr(b' ', line) {
        Some(i) => line.get(..i).unwrap_or(line),
        None => line,
    }
}

pub(super) type In<'a> = &'a [u8];
pub(super) type Res<'a, T> = nom::IResult<In<'a>, T>;

pub(super) fn decimal<T: FromStr>(i: In<'_>) -> Res<'_, T> {
    map_res(digit1, |d: In<'_>| {
        std::str::from_utf8(d)
            .map_err(|_| ())
            .and_then(|s| s.parse::<T>().map_err(|_| ()))
    })
    .parse(i)
}

pub(super) fn signed(i: In<'_>) -> Res<'_, i64> {
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

pub(super) fn sp(i: In<'_>) -> Res<'_, char> {
    byte(' ').parse(i)
}

/// A field up to the next space (at least one byte).
fn word(i: In<'_>) -> Res<'_, In<'_>> {
    take_till1(|b| b == b' ').parse(i)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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
pub(super) fn parse_notification(line: &[u8]) -> Result<Notification, String> {
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
                layout: BadLayout::parse(l),
                visible_layout: BadLayout::parse(v),
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
