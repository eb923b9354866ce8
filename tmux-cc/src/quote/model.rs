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
//!
//! Built with the feature `test-support` only.

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
