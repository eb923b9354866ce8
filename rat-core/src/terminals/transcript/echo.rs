//! The terminal's echo of text typed while a command runs: the pane's line discipline
//! prints it among the command's bytes, and it is not the command's output. The text is
//! expected before it is written; its echo, found in the bytes as they come (in pieces of any
//! size), is given apart ([`Fed::Echo`]) for the transcript to leave out; a mark (the command
//! ended or another started) drops what is expected.

use std::collections::VecDeque;

/// How many echoes are expected at most (older ones are dropped).
const EXPECTED: usize = 8;

/// What [`Echoes::filter`] gives, in the order of the bytes.
pub(super) enum Fed<'a> {
    /// Bytes of the command's.
    Bytes(&'a [u8]),
    /// An echo expected, found whole; `sure`: the terminal's `ECHO` was seen on when it was
    /// typed (else it may be a program's own display of what it read).
    Echo(&'a [u8], bool),
}

/// The terminal's echo of bracketed paste's marks (`ESC[200~`, `ESC[201~` shown as `^[`):
/// text pasted while bash's line editor still asked for bracketed paste, read by a program
/// reading lines.
const PASTE_MARKS: [&[u8]; 2] = [b"^[[200~", b"^[[201~"];

/// The echoes expected, in the order their inputs were typed.
#[derive(Debug, Default)]
pub(super) struct Echoes {
    expected: VecDeque<(Vec<u8>, bool)>,
    /// How many bytes of the first one matched at the end of what was fed: held, not given.
    matched: usize,
}

impl Echoes {
    /// Expects `echo`, the terminal's echo of an input about to be typed (`sure`: its `ECHO`
    /// seen on).
    pub(super) fn expect(&mut self, echo: Vec<u8>, sure: bool) {
        if echo.is_empty() {
            return;
        }
        self.expected.push_back((echo, sure));
        while self.expected.len() > EXPECTED {
            self.expected.pop_front();
            self.matched = 0;
        }
    }

    /// Drops what is expected, giving the bytes held back to `out`.
    pub(super) fn forget(&mut self, out: &mut impl FnMut(Fed<'_>)) {
        self.release(out);
        self.expected.clear();
    }

    /// Gives the bytes held back (a partial match that stopped there) to `out`.
    pub(super) fn release(&mut self, out: &mut impl FnMut(Fed<'_>)) {
        if self.matched > 0 {
            if let Some((echo, _)) = self.expected.front() {
                out(Fed::Bytes(&echo[..self.matched]));
            }
            self.matched = 0;
        }
    }

    /// Gives `bytes` to `out`, the first echo expected apart where it is found.
    pub(super) fn filter(&mut self, bytes: &[u8], out: &mut impl FnMut(Fed<'_>)) {
        let unmarked;
        let mut rest = bytes;
        if !self.expected.is_empty() && memchr::memmem::find(bytes, b"^[[20").is_some() {
            let mut kept = bytes.to_vec();
            for mark in PASTE_MARKS {
                while let Some(at) = memchr::memmem::find(&kept, mark) {
                    kept.drain(at..at + mark.len());
                }
            }
            unmarked = kept;
            rest = &unmarked;
        }
        while !rest.is_empty() {
            let Some((echo, sure)) = self.expected.front() else {
                out(Fed::Bytes(rest));
                return;
            };
            let sure = *sure;
            if self.matched > 0 {
                let want = &echo[self.matched..];
                let n = want.len().min(rest.len());
                if rest[..n] == want[..n] {
                    self.matched += n;
                    rest = &rest[n..];
                    if self.matched == echo.len() {
                        if let Some((echo, _)) = self.expected.pop_front() {
                            out(Fed::Echo(&echo, sure));
                        }
                        self.matched = 0;
                    }
                    continue;
                }
                // Not the echo: the bytes held were the command's.
                self.release(out);
                continue;
            }
            let found = memchr::memchr_iter(echo[0], rest).find_map(|at| {
                let tail = &rest[at..];
                if tail.starts_with(echo) {
                    Some((at, true))
                } else if tail.len() < echo.len() && echo.starts_with(tail) {
                    Some((at, false))
                } else {
                    None
                }
            });
            match found {
                None => {
                    out(Fed::Bytes(rest));
                    return;
                }
                Some((at, whole)) => {
                    if at > 0 {
                        out(Fed::Bytes(&rest[..at]));
                    }
                    if whole {
                        rest = &rest[at + echo.len()..];
                        if let Some((echo, _)) = self.expected.pop_front() {
                            out(Fed::Echo(&echo, sure));
                        }
                    } else {
                        self.matched = rest.len() - at;
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Echoes, Fed};

    fn run(echoes: &mut Echoes, pieces: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut keep = |fed: Fed<'_>| {
            if let Fed::Bytes(b) = fed {
                out.extend_from_slice(b)
            }
        };
        for piece in pieces {
            echoes.filter(piece, &mut keep);
        }
        echoes.forget(&mut keep);
        out
    }

    #[test]
    fn an_echo_is_left_out_whole_or_cut_across_pieces() {
        let mut e = Echoes::default();
        e.expect(b"hello\r\n".to_vec(), true);
        assert_eq!(run(&mut e, &[b"hello\r\nhello\r\n"]), b"hello\r\n");
        e.expect(b"hello\r\n".to_vec(), true);
        assert_eq!(run(&mut e, &[b"out hel", b"lo\r", b"\nend"]), b"out end");
    }

    #[test]
    fn a_partial_match_that_stops_is_output() {
        let mut e = Echoes::default();
        e.expect(b"hello\r\n".to_vec(), true);
        assert_eq!(run(&mut e, &[b"he", b"y"]), b"hey");
        let mut e = Echoes::default();
        e.expect(b"abc".to_vec(), true);
        assert_eq!(run(&mut e, &[b"ab", b"x abc y"]), b"abx  y");
    }

    #[test]
    fn bracketed_paste_marks_echoed_are_part_of_the_echo() {
        let mut e = Echoes::default();
        e.expect(b"echo two\r\n".to_vec(), true);
        assert_eq!(
            run(&mut e, &[b"^[[200~echo two^[[201~\r\nout\r\n"]),
            b"out\r\n"
        );
    }
}
