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
//! [`model`] is a small model of the lexer the property tests and the fuzz target check the
//! quoting against. An argument ending in `;` stays one argument: the `;` is inside quotes.
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
/// A NUL byte anywhere in `arg`: the error tells its byte offset.
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
/// an argument (the error tells which argument and at which byte offset).
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

pub mod model {
    //! A small model of how tmux 3.3a's `cmd-parse.y` lexes one command line, for testing
    //! [`quote_arg`](super::quote_arg) without a tmux server (the property tests and the
    //! `quote` fuzz target; the real round trip through tmux is an integration test).
    //!
    //! Modelled faithfully from `yylex`, `yylex_token`, `yylex_getc` and `yylex_token_escape`:
    //! whitespace between words; `;`, `{`, `}` as tokens of their own and ending a word
    //! outside quotes; `#` at a word's start commenting out the rest of the line; `%` words;
    //! single quotes (nothing special inside); double quotes; `\` escapes outside single
    //! quotes (`\ooo` octal with a first digit 0 to 3, `\a \b \e \f \s \v \r \n \t`, any other
    //! byte standing for itself); `\` + LF joining lines; byte 0xFF read as `EOF` (tmux
    //! reads the line through a signed `char`). What the model cannot know is an error:
    //! `$VAR` and `~` expansion (they depend on the server's environment), `\u`/`\U` escapes
    //! (they depend on the locale), conditions and formats.

    /// A token of the command line.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Token {
        /// A word (an argument or the command name), unquoted and unescaped.
        Word(Vec<u8>),
        /// `;`: a command separator.
        Semicolon,
        /// `{`.
        OpenBrace,
        /// `}`.
        CloseBrace,
        /// The end of a line within the input (an LF, a `#` comment's end, or a 0xFF byte,
        /// which tmux takes for the end of the input).
        Newline,
    }

    /// Why the model cannot lex the line, or what tmux would reject or expand.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    pub enum LexError {
        /// tmux would report a syntax error (a bad escape).
        #[error("tmux would reject the line: {0}")]
        Syntax(&'static str),
        /// The result would depend on tmux's environment or locale (`$`, `~`, `\u`).
        #[error("the word would be expanded by tmux ({0}), which the model cannot know")]
        Expansion(&'static str),
        /// A `%` word that is a condition (`%if`...), which the model does not follow.
        #[error("a `%` condition, which the model does not follow")]
        Condition,
    }

    const EOF: i32 = -1;

    struct Lexer<'a> {
        buf: &'a [u8],
        off: usize,
        escapes: u32,
        eof: bool,
    }

    impl Lexer<'_> {
        fn getc1(&mut self) -> i32 {
            match self.buf.get(self.off) {
                None => EOF,
                Some(&b) => {
                    self.off += 1;
                    // `ch = ps->buf[ps->off++]` with a signed char: 0xFF is -1, i.e. EOF.
                    if b == 0xFF { EOF } else { i32::from(b) }
                }
            }
        }

        fn ungetc(&mut self, ch: i32) {
            if self.off > 0 && ch != EOF {
                self.off -= 1;
            }
        }

        fn getc(&mut self) -> i32 {
            if self.escapes != 0 {
                self.escapes -= 1;
                return i32::from(b'\\');
            }
            loop {
                let ch = self.getc1();
                if ch == i32::from(b'\\') {
                    self.escapes += 1;
                    continue;
                }
                if ch == i32::from(b'\n') && self.escapes % 2 == 1 {
                    self.escapes -= 1;
                    continue;
                }
                if self.escapes != 0 {
                    self.ungetc(ch);
                    self.escapes -= 1;
                    return i32::from(b'\\');
                }
                return ch;
            }
        }

        /// `yylex`: the next token, `None` at the end of input.
        fn next(&mut self) -> Result<Option<Token>, LexError> {
            loop {
                let ch = self.getc();
                if ch == EOF {
                    if self.eof {
                        return Ok(None);
                    }
                    self.eof = true;
                    return Ok(Some(Token::Newline));
                }
                match u8::try_from(ch).unwrap_or(0) {
                    b' ' | b'\t' => continue,
                    b'\n' => return Ok(Some(Token::Newline)),
                    b';' => return Ok(Some(Token::Semicolon)),
                    b'{' => return Ok(Some(Token::OpenBrace)),
                    b'}' => return Ok(Some(Token::CloseBrace)),
                    b'#' => {
                        let mut next = self.getc();
                        while next != i32::from(b'\n') && next != EOF {
                            next = self.getc();
                        }
                        if next == i32::from(b'\n') {
                            return Ok(Some(Token::Newline));
                        }
                        continue;
                    }
                    b'%' => {
                        let word = self.get_word(ch);
                        if word.iter().all(|&b| b == b'%' || b.is_ascii_digit()) {
                            return Ok(Some(Token::Word(word)));
                        }
                        return Err(LexError::Condition);
                    }
                    _ => return self.token(ch).map(|w| Some(Token::Word(w))),
                }
            }
        }

        fn get_word(&mut self, mut ch: i32) -> Vec<u8> {
            let mut word = Vec::new();
            loop {
                word.push(ch as u8);
                ch = self.getc();
                if ch == EOF
                    || ch == i32::from(b' ')
                    || ch == i32::from(b'\t')
                    || ch == i32::from(b'\n')
                {
                    break;
                }
            }
            self.ungetc(ch);
            word
        }

        /// `yylex_token`.
        fn token(&mut self, mut ch: i32) -> Result<Vec<u8>, LexError> {
            #[derive(Clone, Copy, PartialEq, Eq)]
            enum State {
                Start,
                None,
                Double,
                Single,
            }
            let mut state = State::None;
            let mut last = State::Start;
            let mut buf = Vec::new();
            let is = |ch: i32, b: u8| ch == i32::from(b);
            loop {
                if ch == EOF || (state == State::None && is(ch, b'\n')) {
                    break;
                }
                if (is(ch, b' ') || is(ch, b'\t') || is(ch, b';') || is(ch, b'}'))
                    && state == State::None
                {
                    break;
                }
                if is(ch, b'\n') && state != State::None {
                    buf.push(b'\n');
                    loop {
                        ch = self.getc();
                        if !(is(ch, b' ') || is(ch, b'\t')) {
                            break;
                        }
                    }
                    if !is(ch, b'#') {
                        continue;
                    }
                    ch = self.getc();
                    if ch != EOF && b",#{}:".contains(&(ch as u8)) {
                        self.ungetc(ch);
                        ch = i32::from(b'#');
                    } else {
                        loop {
                            ch = self.getc();
                            if is(ch, b'\n') || ch == EOF {
                                break;
                            }
                        }
                    }
                    continue;
                }
                if is(ch, b'\\') && state != State::Single {
                    self.escape(&mut buf)?;
                    last = state;
                    ch = self.getc();
                    continue;
                }
                if is(ch, b'~') && last != state && state != State::Single {
                    return Err(LexError::Expansion("`~` home directory"));
                }
                if is(ch, b'$') && state != State::Single {
                    return Err(LexError::Expansion("`$` environment variable"));
                }
                let toggles = match (state, ch as u8) {
                    (State::None, b'\'') => Some(State::Single),
                    (State::Single, b'\'') => Some(State::None),
                    (State::None, b'"') => Some(State::Double),
                    (State::Double, b'"') => Some(State::None),
                    _ => None,
                };
                if let Some(new) = toggles {
                    state = new;
                    ch = self.getc();
                    continue;
                }
                buf.push(ch as u8);
                last = state;
                ch = self.getc();
            }
            // No check that quotes were closed: tmux 3.3a takes `'open` as the word `open`.
            self.ungetc(ch);
            Ok(buf)
        }

        /// `yylex_token_escape`.
        fn escape(&mut self, buf: &mut Vec<u8>) -> Result<(), LexError> {
            let ch = self.getc();
            if ch == EOF {
                return Err(LexError::Syntax("`\\` at the end of the input"));
            }
            let c = ch as u8;
            if (b'4'..=b'7').contains(&c) {
                return Err(LexError::Syntax("invalid octal escape"));
            }
            if (b'0'..=b'3').contains(&c) {
                let o2 = self.getc();
                if o2 != EOF && (b'0'..=b'7').contains(&(o2 as u8)) {
                    let o3 = self.getc();
                    if o3 != EOF && (b'0'..=b'7').contains(&(o3 as u8)) {
                        buf.push((c - b'0') * 64 + (o2 as u8 - b'0') * 8 + (o3 as u8 - b'0'));
                        return Ok(());
                    }
                }
                return Err(LexError::Syntax("invalid octal escape"));
            }
            let byte = match c {
                b'a' => 0x07,
                b'b' => 0x08,
                b'e' => 0x1b,
                b'f' => 0x0c,
                b's' => b' ',
                b'v' => 0x0b,
                b'r' => b'\r',
                b'n' => b'\n',
                b't' => b'\t',
                b'u' | b'U' => return Err(LexError::Expansion("`\\u` Unicode escape")),
                other => other,
            };
            buf.push(byte);
            Ok(())
        }
    }

    /// Lexes `line` as tmux 3.3a would (see the [module docs](self)). The end of the input is
    /// not a token; an LF, a comment's end or a 0xFF byte inside it is [`Token::Newline`].
    /// A NUL byte ends the input, as in the C string tmux parses.
    pub fn lex(line: &[u8]) -> Result<Vec<Token>, LexError> {
        let end = memchr::memchr(0, line).unwrap_or(line.len());
        let mut lexer = Lexer {
            buf: line.get(..end).unwrap_or(line),
            off: 0,
            escapes: 0,
            eof: false,
        };
        let mut tokens = Vec::new();
        while let Some(token) = lexer.next()? {
            tokens.push(token);
        }
        // The synthetic newline tmux adds at the end of every string.
        if tokens.last() == Some(&Token::Newline) {
            tokens.pop();
        }
        Ok(tokens)
    }
}
