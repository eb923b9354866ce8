//! Quoting any argument into a control-mode command line, byte for byte.
//!
//! A control client sends one command per line; tmux parses the line with its configuration
//! grammar (tmux 3.3a `cmd-parse.y`), where `$VAR` and `~` expand from the server's
//! environment, `#` starts a comment, `%` starts a condition, `;` and `{}` separate commands,
//! and `\` starts an escape. Inside single quotes nothing is special except the closing quote.
//! So [`quote_arg`] writes the data in single quotes, and writes the four bytes that cannot be
//! inside them *outside* the quotes, in the same word, as escapes tmux decodes
//! (`yylex_token_escape`):
//!
//! | byte          | written as | why                                                      |
//! |---------------|------------|----------------------------------------------------------|
//! | `'`           | `\'`       | it would close the quotes                                |
//! | LF (0x0A)     | `\n`       | it would end the command line                            |
//! | CR (0x0D)     | `\r`       | kept off the wire so a line is plain text (tmux would keep it) |
//! | 0xFF          | `\377`     | tmux reads the byte as a signed `char`: 0xFF is `EOF`, which ends the input |
//! | NUL (0x00)    | refused    | the line is a C string: NUL would cut it                 |
//!
//! Every other byte (0x01 to 0xFE: tabs, ESC, `\`, `$`, `~`, `#`, `;`, `{}`, invalid UTF-8)
//! goes inside the quotes as it is. These rules were verified on this machine's tmux 3.3a by
//! set-buffer/save-buffer round trips of every byte 0x01 to 0xFF, and
//! `model` (with the feature `test-support`) is a small model of the lexer the property tests
//! and the fuzz target check the quoting against. An argument ending in `;` stays one argument: the `;` is inside quotes.
//!
//! The command name itself is not quoted by [`command_line`]: it must be a plain tmux command
//! name such as `set-buffer`. Put `--` before data arguments that may start with `-`.
//!
//! # Example
//!
//! ```
//! use tmux_cc::quote::{command_line, quote_arg};
//!
//! assert_eq!(quote_arg(b"it's $HOME").unwrap(), b"'it'\\''s $HOME'".to_vec());
//! assert_eq!(quote_arg(b"a\nb").unwrap(), b"'a'\\n'b'".to_vec());
//! assert_eq!(quote_arg(b"").unwrap(), b"''".to_vec());
//! assert_eq!(
//!     command_line("set-buffer", &[b"-b", b"x", b"--", b"ends with;"]).unwrap(),
//!     b"set-buffer '-b' 'x' '--' 'ends with;'".to_vec()
//! );
//! let err = quote_arg(b"a\0b").unwrap_err();
//! assert_eq!(err.offset(), 1);
//! ```

use std::fmt;

/// Why an argument or a command could not be written as a control-mode command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct QuoteError {
    kind: QuoteErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum QuoteErrorKind {
    /// A NUL byte at `offset` of argument `argument` (`None` from [`quote_arg`]).
    Nul {
        argument: Option<usize>,
        offset: usize,
    },
    /// The command name is not a plain tmux command name.
    CommandName { name: String },
}

impl QuoteError {
    /// The byte offset of the NUL byte in its argument (0 for a bad command name).
    pub fn offset(&self) -> usize {
        match self.kind {
            QuoteErrorKind::Nul { offset, .. } => offset,
            QuoteErrorKind::CommandName { .. } => 0,
        }
    }

    /// The index (from 0) in `args` of the argument holding the NUL byte, when the error comes
    /// from [`command_line`].
    pub fn argument(&self) -> Option<usize> {
        match self.kind {
            QuoteErrorKind::Nul { argument, .. } => argument,
            QuoteErrorKind::CommandName { .. } => None,
        }
    }
}

impl fmt::Display for QuoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            QuoteErrorKind::Nul { argument, offset } => {
                match argument {
                    Some(i) => write!(
                        f,
                        "argument {i} (counting from 0) holds a NUL byte at byte offset {offset}"
                    )?,
                    None => write!(f, "the argument holds a NUL byte at byte offset {offset}")?,
                }
                write!(
                    f,
                    ": a tmux command line cannot carry NUL bytes; remove them, or pass such \
                     data through a file (load-buffer) instead of the command line"
                )
            }
            QuoteErrorKind::CommandName { name } => write!(
                f,
                "{name:?} is not a tmux command name: expected lowercase letters, digits and \
                 `-` only (such as `set-buffer`); pass everything else as arguments"
            ),
        }
    }
}

/// Quotes one argument as one word of a tmux command line, byte for byte (see the
/// [module docs](self) for the rules). The result holds no LF, CR or NUL byte, and tmux 3.3a
/// parses it back to exactly `arg`.
///
/// # Errors
/// A NUL byte anywhere in `arg`: the error shows its byte offset.
pub fn quote_arg(arg: &[u8]) -> Result<Vec<u8>, QuoteError> {
    let mut out = Vec::with_capacity(arg.len() + 2);
    push_quoted(arg, &mut out).map_err(|offset| QuoteError {
        kind: QuoteErrorKind::Nul {
            argument: None,
            offset,
        },
    })?;
    Ok(out)
}

/// Appends the quoted word for `arg` to `out`; `Err(offset)` of the first NUL byte.
fn push_quoted(arg: &[u8], out: &mut Vec<u8>) -> Result<(), usize> {
    if let Some(offset) = memchr::memchr(0, arg) {
        return Err(offset);
    }
    if arg.is_empty() {
        out.extend_from_slice(b"''");
        return Ok(());
    }
    let mut quoted = false;
    for &b in arg {
        let escape: &[u8] = match b {
            b'\'' => b"\\'",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            0xFF => b"\\377",
            _ => {
                if !quoted {
                    out.push(b'\'');
                    quoted = true;
                }
                out.push(b);
                continue;
            }
        };
        if quoted {
            out.push(b'\'');
            quoted = false;
        }
        out.extend_from_slice(escape);
    }
    if quoted {
        out.push(b'\'');
    }
    Ok(())
}

/// One command line (without its LF): `name` then each argument quoted by [`quote_arg`],
/// separated by single spaces, e.g. `set-buffer '-b' 'x' '--' 'data'`.
///
/// # Errors
/// `name` empty or holding anything but ASCII lowercase letters, digits and `-`; a NUL byte in
/// an argument (the error reports which argument and at which byte offset).
pub fn command_line(name: &str, args: &[&[u8]]) -> Result<Vec<u8>, QuoteError> {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !plain {
        return Err(QuoteError {
            kind: QuoteErrorKind::CommandName {
                name: name.to_owned(),
            },
        });
    }
    let size = name.len() + args.iter().map(|a| a.len() + 3).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(name.as_bytes());
    for (i, arg) in args.iter().enumerate() {
        out.push(b' ');
        push_quoted(arg, &mut out).map_err(|offset| QuoteError {
            kind: QuoteErrorKind::Nul {
                argument: Some(i),
                offset,
            },
        })?;
    }
    Ok(out)
}

#[cfg(feature = "test-support")]
pub mod model;
