//! tmux-cc's end marker: the OSC sequence a job's gate prints once its command is done
//! (`ESC ] tmux-cc-end ; PID-JOB-NANOS BEL`, which terminals ignore), and the filter that takes
//! every such sequence out of the bytes a stream hands its caller.

/// What every end marker starts with.
pub(crate) const PREFIX: &[u8] = b"\x1b]tmux-cc-end;";

/// The longest a marker is (the prefix, three numbers, BEL): a sequence that starts like one
/// and is not ended by BEL within this many bytes is not one.
const LONGEST: usize = 96;

/// A job's end marker: its number, this process's pid and the time, so that no command prints
/// it by chance.
pub(crate) fn end_marker(id: u64) -> Vec<u8> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut marker = PREFIX.to_vec();
    marker.extend_from_slice(format!("{}-{id}-{nanos}\x07", std::process::id()).as_bytes());
    marker
}

/// Takes end markers out of a run of bytes that comes in pieces: a piece that ends with what
/// may be the start of a marker keeps that start back until the next piece decides.
#[derive(Debug, Default)]
pub(crate) struct MarkerFilter {
    held: Vec<u8>,
    /// The marker that ends the run (a job's, for a stream opened with it): nothing after it
    /// is handed out.
    end_at: Option<Vec<u8>>,
    ended: bool,
}

impl MarkerFilter {
    /// A filter whose run ends at `marker`.
    pub(crate) fn ending_at(marker: Vec<u8>) -> MarkerFilter {
        MarkerFilter {
            end_at: Some(marker),
            ..MarkerFilter::default()
        }
    }

    /// Whether the marker the run ends at was seen.
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    /// [`MarkerFilter::feed`] for a stream's piece, which is most often handed on as it is:
    /// nothing kept back, and no ESC in it.
    pub(crate) fn feed_bytes(&mut self, piece: bytes::Bytes) -> bytes::Bytes {
        if !self.ended && self.held.is_empty() && memchr::memchr(0x1b, &piece).is_none() {
            return piece;
        }
        bytes::Bytes::from(self.feed(&piece))
    }

    /// The bytes of `piece` (after what was kept back) without markers, up to the end marker.
    pub(crate) fn feed(&mut self, piece: &[u8]) -> Vec<u8> {
        if self.ended {
            return Vec::new();
        }
        let mut input = std::mem::take(&mut self.held);
        input.extend_from_slice(piece);
        let mut out = Vec::with_capacity(input.len());
        let mut at = 0;
        while at < input.len() {
            let rest = &input[at..];
            let Some(esc) = memchr::memchr(0x1b, rest) else {
                out.extend_from_slice(rest);
                break;
            };
            out.extend_from_slice(&rest[..esc]);
            let candidate = &rest[esc..];
            let n = candidate.len().min(PREFIX.len());
            if candidate[..n] != PREFIX[..n] {
                out.push(0x1b);
                at += esc + 1;
                continue;
            }
            if candidate.len() < PREFIX.len() {
                self.held = candidate.to_vec();
                break;
            }
            match memchr::memchr(0x07, &candidate[PREFIX.len()..]) {
                Some(bel) if PREFIX.len() + bel < LONGEST => {
                    let len = PREFIX.len() + bel + 1;
                    if self.end_at.as_deref() == Some(&candidate[..len]) {
                        self.ended = true;
                        break;
                    }
                    at += esc + len;
                }
                None if candidate.len() < LONGEST => {
                    self.held = candidate.to_vec();
                    break;
                }
                _ => {
                    out.push(0x1b);
                    at += esc + 1;
                }
            }
        }
        out
    }

    /// What was kept back, handed out as it is: the run was cut (a pause, its end).
    pub(crate) fn flush(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `input` fed in pieces of `size` bytes, joined.
    fn through(filter: &mut MarkerFilter, input: &[u8], size: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in input.chunks(size) {
            out.extend(filter.feed(piece));
        }
        out.extend(filter.flush());
        out
    }

    #[test]
    fn markers_go_in_any_cut() {
        let marker = end_marker(7);
        let mut input = b"first\r\n\x1b[1mbold\x1b[0m".to_vec();
        input.extend_from_slice(&marker);
        input.extend_from_slice(b"after\x1b]tmux-cc-en");
        for size in 1..input.len() + 1 {
            let mut filter = MarkerFilter::default();
            assert_eq!(
                through(&mut filter, &input, size),
                b"first\r\n\x1b[1mbold\x1b[0mafter\x1b]tmux-cc-en".to_vec(),
                "pieces of {size}"
            );
        }
    }

    #[test]
    fn the_end_marker_ends_the_run() {
        let marker = end_marker(3);
        let mut input = b"first\r\nsecond\r\n".to_vec();
        input.extend_from_slice(&end_marker(2));
        input.extend_from_slice(&marker);
        input.extend_from_slice(b"never");
        for size in 1..input.len() + 1 {
            let mut filter = MarkerFilter::ending_at(marker.clone());
            let mut out = Vec::new();
            for piece in input.chunks(size) {
                out.extend(filter.feed(piece));
            }
            assert!(filter.ended(), "pieces of {size}");
            assert_eq!(out, b"first\r\nsecond\r\n".to_vec(), "pieces of {size}");
        }
    }

    #[test]
    fn a_lookalike_without_its_end_is_data() {
        let mut input = PREFIX.to_vec();
        input.extend(std::iter::repeat_n(b'x', 200));
        let mut filter = MarkerFilter::default();
        assert_eq!(through(&mut filter, &input, 7), input);
    }
}
