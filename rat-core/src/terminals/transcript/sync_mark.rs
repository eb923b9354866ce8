//! The sync mark: an OSC sequence rat writes to a pane's terminal itself (`ESC ] rat-sync ; N
//! BEL`), as if the program had printed it, so that the transcript knows when it has every
//! byte the program printed before: the pipe that feeds it has no order with tmux's commands
//! (`Follow::sync`). tmux ignores an OSC whose number is not a number (`input_exit_osc`), so
//! the screen does not change; the mark is taken out of the bytes before the transcript sees
//! them. Sans-IO: the bytes go in as they come, a mark split across pieces included.

use std::borrow::Cow;

/// What every sync mark starts with.
const PREFIX: &[u8] = b"\x1b]rat-sync;";

/// The longest a mark is (the prefix, a number of at most 20 digits, BEL): a sequence that
/// starts like one and is not ended by BEL within this many bytes is not one.
const LONGEST: usize = PREFIX.len() + 20 + 1;

/// Sync mark number `n`.
pub(crate) fn sync_mark(n: u64) -> Vec<u8> {
    let mut mark = PREFIX.to_vec();
    mark.extend_from_slice(n.to_string().as_bytes());
    mark.push(0x07);
    mark
}

/// Takes sync marks out of a pane's bytes and keeps the highest number seen.
#[derive(Debug, Default)]
pub(crate) struct SyncMarks {
    /// The end of the last piece, when it may be the start of a mark.
    held: Vec<u8>,
    /// The highest mark number seen (0: none).
    seen: u64,
}

impl SyncMarks {
    /// The highest mark number seen so far: every byte before that mark was handed out.
    pub(crate) fn seen(&self) -> u64 {
        self.seen
    }

    /// The bytes of `piece`, after what was kept back, without sync marks. A piece without
    /// a mark or the start of one, nothing kept back, is handed on as it is.
    pub(crate) fn filter<'a>(&mut self, piece: &'a [u8]) -> Cow<'a, [u8]> {
        if self.held.is_empty()
            && memchr::memmem::find(piece, PREFIX).is_none()
            && !ends_with_a_start(piece)
        {
            return Cow::Borrowed(piece);
        }
        Cow::Owned(self.filter_owned(piece))
    }

    fn filter_owned(&mut self, piece: &[u8]) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.held);
        bytes.extend_from_slice(piece);
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        while let Some(found) = memchr::memchr(0x1b, &bytes[at..]) {
            let start = at + found;
            out.extend_from_slice(&bytes[at..start]);
            let rest = &bytes[start..];
            match mark_at(rest) {
                Mark::Whole { len, number } => {
                    self.seen = self.seen.max(number);
                    at = start + len;
                }
                Mark::Partial => {
                    self.held = rest.to_vec();
                    return out;
                }
                Mark::Not => {
                    out.push(0x1b);
                    at = start + 1;
                }
            }
        }
        out.extend_from_slice(&bytes[at..]);
        out
    }

    /// Bytes were lost: what was kept back goes with them.
    pub(crate) fn lost(&mut self) {
        self.held.clear();
    }
}

/// Whether `piece` ends with the start of a mark, shorter than the prefix.
fn ends_with_a_start(piece: &[u8]) -> bool {
    let tail = &piece[piece.len().saturating_sub(PREFIX.len() - 1)..];
    memchr::memrchr(0x1b, tail).is_some_and(|at| PREFIX.starts_with(&tail[at..]))
}

/// What the bytes at an ESC are.
enum Mark {
    /// A whole mark of `len` bytes.
    Whole {
        len: usize,
        number: u64,
    },
    /// The start of one, until more bytes come.
    Partial,
    Not,
}

fn mark_at(bytes: &[u8]) -> Mark {
    let head = bytes.len().min(PREFIX.len());
    if bytes[..head] != PREFIX[..head] {
        return Mark::Not;
    }
    if bytes.len() <= PREFIX.len() {
        return Mark::Partial;
    }
    let digits = bytes[PREFIX.len()..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = PREFIX.len() + digits;
    match bytes.get(end) {
        None if end < LONGEST => Mark::Partial,
        Some(0x07) if digits > 0 => match std::str::from_utf8(&bytes[PREFIX.len()..end])
            .ok()
            .and_then(|n| n.parse().ok())
        {
            Some(number) => Mark::Whole {
                len: end + 1,
                number,
            },
            None => Mark::Not,
        },
        _ => Mark::Not,
    }
}

#[cfg(test)]
mod tests {
    use super::{SyncMarks, sync_mark};

    fn filtered(pieces: &[&[u8]]) -> (Vec<u8>, u64) {
        let mut marks = SyncMarks::default();
        let mut out = Vec::new();
        for piece in pieces {
            out.extend_from_slice(&marks.filter(piece));
        }
        (out, marks.seen())
    }

    #[test]
    fn a_mark_is_taken_out_and_its_number_kept() {
        let mut whole = b"before\x1b[?2004h".to_vec();
        whole.extend(sync_mark(7));
        whole.extend(b"after\x1b]0;title\x07");
        let expected = b"before\x1b[?2004hafter\x1b]0;title\x07".to_vec();
        assert_eq!(filtered(&[&whole]), (expected.clone(), 7));
        // Split anywhere, in two pieces and byte by byte.
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(filtered(&[a, b]), (expected.clone(), 7), "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = whole.chunks(1).collect();
        assert_eq!(filtered(&bytes), (expected, 7));
    }

    #[test]
    fn what_only_looks_like_a_mark_is_kept() {
        for text in [
            &b"\x1b]rat-sync;\x07"[..],
            b"\x1b]rat-sync;12x\x07",
            b"\x1b]rat-syncs;1\x07",
            b"\x1b]rat-sync;123456789012345678901234\x07",
            b"\x1b\x1b]rat",
        ] {
            let mut marks = SyncMarks::default();
            let mut out = marks.filter(text).into_owned();
            marks.lost();
            out.extend_from_slice(&marks.filter(b""));
            // A start kept back at the end of the bytes is the start of a mark until bytes say
            // otherwise; the rest is handed out as it came.
            let held = if text.ends_with(b"rat") { 5 } else { 0 };
            assert_eq!(out, text[..text.len() - held], "{text:?}");
            assert_eq!(marks.seen(), 0);
        }
    }

    #[test]
    fn the_highest_number_is_kept() {
        let mut bytes = sync_mark(3);
        bytes.extend(sync_mark(2));
        assert_eq!(filtered(&[&bytes]), (Vec::new(), 3));
    }
}
