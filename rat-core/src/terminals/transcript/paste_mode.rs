//! A pane's bracketed-paste mode, read from its own output: the program in it asks for it with
//! `ESC[?2004h` and gives it up with `ESC[?2004l` (DECSET/DECRST 2004, alone or among other
//! modes: `ESC[?1049;2004h`); the full reset `ESC c` (RIS) turns it off, as tmux's `input.c`
//! does. tmux 3.2a to 3.6 have no format showing it, and tmux brackets a paste (`paste-buffer
//! -p`) only while it is on. Sans-IO: the bytes go in as they come, a sequence split across
//! pieces included. Strings (OSC, DCS, APC, PM, SOS: the marks of rat's hook among them) are
//! skipped as tmux's parser skips them; so is a sequence cancelled (CAN, SUB) or cut by an
//! ESC, or one tmux drops (too many parameters, or too long).

/// A control sequence of this many parameters or more is dropped, as tmux's `input_split`
/// drops it (it keeps 24, the last one empty).
const MAX_PARAMS: usize = 24;

/// The most bytes of a control sequence's parameters tmux keeps (`param_buf`, 64 with its
/// NUL): a sequence with more is dropped.
const MAX_PARAM_BYTES: usize = 63;

/// The largest parameter tmux reads (`INT_MAX`): a sequence with a larger one is dropped.
const MAX_PARAM: u32 = i32::MAX as u32;

/// Where the parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// After ESC and an intermediate byte (`ESC ( B`): ends at its final byte.
    EscapeIntermediate,
    /// In a control sequence (after `ESC [`).
    Csi,
    /// In a string (OSC, APC, PM, SOS, tmux's `ESC k` title) until ST; an OSC ends at BEL
    /// too (`bel`). An ESC ends it and starts a sequence, as in tmux.
    String { bel: bool },
    /// In a DCS string, which only ST (`ESC \`) ends.
    Dcs,
    /// In a DCS string, after ESC.
    DcsEscape,
}

/// A pane's bracketed-paste mode, followed from its output (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct PasteMode {
    state: State,
    /// The control sequence's private marker (`?`), seen as its first byte.
    private: bool,
    /// It has an intermediate byte, or a byte no DECSET has: not a mode set or reset.
    other: bool,
    /// Its parameters so far (the last one being read).
    params: Vec<u32>,
    /// The bytes of its parameters so far (digits, `;`, `:`).
    param_bytes: usize,
    /// The mode: `Some(on)` once a sequence setting or resetting it was seen (or the reset);
    /// `None` before, or after bytes were lost.
    mode: Option<bool>,
}

impl PasteMode {
    /// The mode as the bytes fed so far leave it: `Some(true)` the program asked for
    /// bracketed paste, `Some(false)` it gave it up (or never asked since a full reset),
    /// `None` when nothing fed showed it yet (or bytes were lost since).
    pub fn bracketed(&self) -> Option<bool> {
        self.mode
    }

    /// Bytes were lost: the mode is no longer known, and a sequence being read is dropped.
    pub fn lost(&mut self) {
        self.state = State::Ground;
        self.mode = None;
    }

    /// The pane's output, following what was fed before.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        match (self.state, b) {
            (State::Dcs, 0x1b) => self.state = State::DcsEscape,
            (State::Dcs, _) => {}
            (State::DcsEscape, b'\\') => self.state = State::Ground,
            (State::DcsEscape, _) => self.state = State::Dcs,
            // CAN and SUB cancel any other sequence or string; ESC starts another.
            (_, 0x18 | 0x1a) => self.state = State::Ground,
            (_, 0x1b) => self.state = State::Escape,
            (State::String { bel: true }, 0x07) => self.state = State::Ground,
            (State::String { .. } | State::Ground, _) => {}
            (State::Escape, b'[') => {
                self.state = State::Csi;
                self.private = false;
                self.other = false;
                self.params.clear();
                self.param_bytes = 0;
            }
            (State::Escape, b']') => self.state = State::String { bel: true },
            (State::Escape, b'_' | b'^' | b'X' | b'k') => self.state = State::String { bel: false },
            (State::Escape, b'P') => self.state = State::Dcs,
            (State::Escape, b'c') => {
                self.mode = Some(false);
                self.state = State::Ground;
            }
            (State::Escape, 0x20..=0x2f) => self.state = State::EscapeIntermediate,
            // Other C0 controls run inside a sequence without ending it.
            (State::Escape | State::EscapeIntermediate | State::Csi, 0x00..=0x1f) => {}
            (State::EscapeIntermediate, 0x20..=0x2f) => {}
            (State::Escape | State::EscapeIntermediate, _) => self.state = State::Ground,
            (State::Csi, _) => self.csi(b),
        }
    }

    fn csi(&mut self, b: u8) {
        if matches!(b, b'0'..=b'9' | b':' | b';') {
            // tmux keeps 63 bytes of parameters: a longer sequence is dropped.
            self.param_bytes += 1;
            if self.param_bytes > MAX_PARAM_BYTES {
                self.other = true;
            }
        }
        match b {
            b'?' if self.param_bytes == 0 && !self.private && !self.other => {
                self.private = true;
                self.params.push(0);
            }
            b'0'..=b'9' => {
                if self.params.is_empty() {
                    self.params.push(0);
                }
                if let Some(p) = self.params.last_mut() {
                    match p
                        .checked_mul(10)
                        .and_then(|p| p.checked_add(u32::from(b - b'0')))
                        .filter(|&p| p <= MAX_PARAM)
                    {
                        Some(n) => *p = n,
                        // tmux drops a sequence with a parameter over INT_MAX.
                        None => self.other = true,
                    }
                }
            }
            b';' => {
                if self.params.is_empty() {
                    self.params.push(0);
                }
                self.params.push(0);
                if self.params.len() >= MAX_PARAMS {
                    self.other = true;
                }
            }
            // Intermediate bytes, other private markers, sub-parameters: not a DECSET.
            0x20..=0x3f => self.other = true,
            0x40..=0x7e => {
                self.state = State::Ground;
                if self.private
                    && !self.other
                    && matches!(b, b'h' | b'l')
                    && self.params.contains(&2004)
                {
                    self.mode = Some(b == b'h');
                }
            }
            // DEL and bytes above ASCII are ignored inside a sequence.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PasteMode;

    fn fed(pieces: &[&[u8]]) -> Option<bool> {
        let mut mode = PasteMode::default();
        for piece in pieces {
            mode.feed(piece);
        }
        mode.bracketed()
    }

    #[test]
    fn on_and_off() {
        assert_eq!(fed(&[b"plain text\r\n"]), None);
        assert_eq!(fed(&[b"$ \x1b[?2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b[?2004h$ ls\r\n\x1b[?2004l\r"]), Some(false));
        assert_eq!(fed(&[b"\x1b[?2004l", b"\x1b[?2004h"]), Some(true));
    }

    #[test]
    fn split_across_pieces() {
        let whole = b"out\x1b[?2004hin";
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(fed(&[a, b]), Some(true), "cut at {cut}");
        }
        let mut pieces: Vec<&[u8]> = vec![b"\x1b[?2004h"];
        pieces.extend(b"\x1b[?2004l".chunks(1));
        assert_eq!(fed(&pieces), Some(false));
    }

    #[test]
    fn among_other_modes() {
        assert_eq!(fed(&[b"\x1b[?1049;2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b[?2004;1h"]), Some(true));
        assert_eq!(fed(&[b"\x1b[?2004h\x1b[?1049;2004;1l"]), Some(false));
        // Other modes leave it as it was.
        assert_eq!(
            fed(&[b"\x1b[?2004h\x1b[?1049l\x1b[?25l\x1b[?12;25h"]),
            Some(true)
        );
        assert_eq!(fed(&[b"\x1b[?20040h"]), None);
        assert_eq!(fed(&[b"\x1b[?200h\x1b[?4h"]), None);
    }

    #[test]
    fn not_a_mode_set() {
        // No private marker (ANSI mode 2004), another marker, an intermediate byte (DECRQM).
        assert_eq!(fed(&[b"\x1b[2004h"]), None);
        assert_eq!(fed(&[b"\x1b[>2004h"]), None);
        assert_eq!(fed(&[b"\x1b[?2004$p"]), None);
        assert_eq!(fed(&[b"\x1b[?2004 h"]), None);
        // Text that looks like it without its ESC.
        assert_eq!(fed(&[b"[?2004h"]), None);
    }

    #[test]
    fn full_reset() {
        assert_eq!(fed(&[b"\x1b[?2004h\x1bc"]), Some(false));
        assert_eq!(fed(&[b"\x1b[?2004h\x1b", b"c"]), Some(false));
        // ESC ( c is no reset.
        assert_eq!(fed(&[b"\x1b[?2004h\x1b(c"]), Some(true));
        assert_eq!(fed(&[b"\x1bc\x1b[?2004h"]), Some(true));
    }

    #[test]
    fn strings_are_skipped() {
        // A mark of rat's hook, a title, a DCS holding the sequence: none of them sets it.
        assert_eq!(fed(&[b"\x1b]133;A;1;2\x07\x1b[?2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b]0;title\x07\x1b[?2004h"]), Some(true));
        // A DCS holds anything until ST, CAN included.
        assert_eq!(fed(&[b"\x1bPq\x1b[?2004h\x1b\\"]), None);
        assert_eq!(fed(&[b"\x1bPq\x18\x1b[?2004h\x1b\\"]), None);
        assert_eq!(fed(&[b"\x1bPq\x1b", b"\\\x1b[?2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b]2;title\x1b\\", b"\x1b[?2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b_x\x1b", b"\\\x1b[?2004h"]), Some(true));
        // An ESC ends any other string and starts a sequence, as in tmux.
        assert_eq!(fed(&[b"\x1b]0;t\x1b[?2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b_t\x07\x1b[?2004h"]), Some(true));
    }

    #[test]
    fn cancelled_or_cut() {
        assert_eq!(fed(&[b"\x1b[?20\x1804h"]), None);
        assert_eq!(fed(&[b"\x1b[?20\x1a04h"]), None);
        assert_eq!(fed(&[b"\x1b[?20\x1b[?2004h"]), Some(true));
        // A C0 control inside runs without ending it.
        assert_eq!(fed(&[b"\x1b[?20\r04h"]), Some(true));
    }

    #[test]
    fn lost_bytes_forget_it() {
        let mut mode = PasteMode::default();
        mode.feed(b"\x1b[?2004h\x1b[?20");
        mode.lost();
        assert_eq!(mode.bracketed(), None);
        mode.feed(b"04l");
        assert_eq!(mode.bracketed(), None);
        mode.feed(b"\x1b[?2004l");
        assert_eq!(mode.bracketed(), Some(false));
    }

    #[test]
    fn many_parameters() {
        let mut seq = b"\x1b[?".to_vec();
        for _ in 0..40 {
            seq.extend_from_slice(b"1;");
        }
        seq.extend_from_slice(b"2004h");
        // Past tmux's 24 parameters, or 63 bytes of them, or a parameter over INT_MAX, the
        // sequence is dropped, as tmux drops it.
        assert_eq!(fed(&[&seq]), None);
        let params = |n: usize| format!("\x1b[?{}2004h", "1;".repeat(n - 1));
        assert_eq!(fed(&[params(23).as_bytes()]), Some(true));
        assert_eq!(fed(&[params(24).as_bytes()]), None);
        assert_eq!(fed(&[b"\x1b[?2147483647;2004h"]), Some(true));
        assert_eq!(fed(&[b"\x1b[?2147483648;2004h"]), None);
        let long = format!("\x1b[?{}2004h", "0".repeat(59));
        assert_eq!(fed(&[long.as_bytes()]), Some(true));
        let longer = format!("\x1b[?{}2004h", "0".repeat(60));
        assert_eq!(fed(&[longer.as_bytes()]), None);
    }
}
