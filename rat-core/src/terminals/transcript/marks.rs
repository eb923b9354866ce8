//! The marks rat's hook prints in a pane's output (OSC 133, as FinalTerm and VS Code's shell
//! integration print them, with rat's identity added), found in the bytes as they come, in
//! pieces of any size.
//!
//! - `ESC]133;A;rat=SHELL:K ESC\`: prompt `K` of shell `SHELL` (its process id) starts.
//! - `ESC]133;C;rat=SHELL:K ESC\`: the output of the command typed at prompt `K` starts
//!   (printed by `PS0`, on stderr).
//! - `ESC]133;D;STATUS;rat=SHELL:K ESC\`: that command ended with `STATUS`; `ESC]133;D;rat=SHELL:K
//!   ESC\` (no status) after an empty line, which runs no command.
//!
//! A mark without `rat=` (a shell integration of the user's own) is left in the bytes, where a
//! terminal emulator ignores it. Two erases a command's rows depend on are found too: `ESC[2J`
//! (the screen erased) and `ESC[3J` (the history erased, as `clear` does).

/// The shell that printed a mark and the count of its prompts: a shell started inside
/// another (`bash` typed in a window) counts from 1 again, with a process id of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MarkId {
    /// The shell's process id (`$$`).
    pub shell: u32,
    /// The prompt's count in that shell (1 at its first prompt).
    pub prompt: u64,
}

/// One mark of rat's hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A prompt starts (OSC 133 A).
    Prompt(MarkId),
    /// The output of the command typed at that prompt starts (OSC 133 C).
    Output(MarkId),
    /// The command typed at that prompt ended (OSC 133 D): its status, `None` after an empty
    /// line (no command ran).
    End(MarkId, Option<i32>),
}

/// What the scanner finds, in the order of the bytes.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Piece<'a> {
    /// Bytes of the pane (marks of others, and the erases below, included).
    Bytes(&'a [u8]),
    /// A mark of rat's hook (its bytes are not in any `Bytes`).
    Mark(Mark),
    /// `ESC[2J` or `ESC[3J`, given in the `Bytes` before this piece: `true` for the history.
    Erased { history: bool },
}

const OSC_133: &[u8] = b"\x1b]133;";
const ERASE_SCREEN: &[u8] = b"\x1b[2J";
const ERASE_HISTORY: &[u8] = b"\x1b[3J";
/// The longest mark read: `D;-2147483648;rat=4294967295:18446744073709551615` and the
/// terminator fit well within it. A longer OSC 133 is not rat's.
const LONGEST: usize = 96;

/// Finds marks in a pane's bytes fed in pieces of any size: a mark cut between two pieces is
/// held until its end comes.
#[derive(Debug, Default)]
pub(super) struct MarkScanner {
    held: Vec<u8>,
}

impl MarkScanner {
    /// Scans `bytes`, the pane's output following what was fed before, and gives each piece
    /// to `out`.
    pub(super) fn feed(&mut self, bytes: &[u8], out: &mut impl FnMut(Piece<'_>)) {
        if self.held.is_empty() {
            let rest = scan(bytes, out);
            self.held.extend_from_slice(rest);
        } else {
            let mut joined = std::mem::take(&mut self.held);
            joined.extend_from_slice(bytes);
            let rest = scan(&joined, out).to_vec();
            self.held = rest;
        }
    }

    /// Gives what is held (the start of a mark that never ended) as bytes: the stream lost
    /// bytes or ended.
    pub(super) fn flush(&mut self, out: &mut impl FnMut(Piece<'_>)) {
        if !self.held.is_empty() {
            out(Piece::Bytes(&self.held));
            self.held.clear();
        }
    }
}

/// What a sequence starting at an escape is.
enum Found {
    /// Not one of ours: the escape is a byte like the others.
    Other,
    /// Maybe one of ours, its end not yet fed.
    Incomplete,
    /// A mark of rat's hook, `len` bytes long.
    Mark(Mark, usize),
    /// An erase, 4 bytes long.
    Erase { history: bool },
}

/// Scans `bytes`, gives every piece it can, and returns the tail to hold.
fn scan<'a>(bytes: &'a [u8], out: &mut impl FnMut(Piece<'_>)) -> &'a [u8] {
    let mut start = 0;
    let mut at = 0;
    while let Some(i) = memchr::memchr(0x1b, &bytes[at..]) {
        let esc = at + i;
        match found(&bytes[esc..]) {
            Found::Other => at = esc + 1,
            Found::Incomplete => {
                if start < esc {
                    out(Piece::Bytes(&bytes[start..esc]));
                }
                return &bytes[esc..];
            }
            Found::Mark(mark, len) => {
                if start < esc {
                    out(Piece::Bytes(&bytes[start..esc]));
                }
                out(Piece::Mark(mark));
                start = esc + len;
                at = start;
            }
            Found::Erase { history } => {
                out(Piece::Bytes(&bytes[start..esc + 4]));
                out(Piece::Erased { history });
                start = esc + 4;
                at = start;
            }
        }
    }
    if start < bytes.len() {
        out(Piece::Bytes(&bytes[start..]));
    }
    &bytes[bytes.len()..]
}

/// What `bytes`, starting with an escape, starts with.
fn found(bytes: &[u8]) -> Found {
    for (erase, history) in [(ERASE_SCREEN, false), (ERASE_HISTORY, true)] {
        if bytes.starts_with(erase) {
            return Found::Erase { history };
        }
        if erase.starts_with(bytes) {
            return Found::Incomplete;
        }
    }
    if bytes.len() < OSC_133.len() {
        return if OSC_133.starts_with(bytes) {
            Found::Incomplete
        } else {
            Found::Other
        };
    }
    if !bytes.starts_with(OSC_133) {
        return Found::Other;
    }
    let body_start = OSC_133.len();
    let window = &bytes[body_start..bytes.len().min(body_start + LONGEST)];
    // The terminator: ST (`ESC \`) or BEL.
    let Some(end) = window.iter().position(|&b| b == 0x1b || b == 0x07) else {
        return if window.len() < LONGEST {
            Found::Incomplete
        } else {
            Found::Other
        };
    };
    let len = if window[end] == 0x07 {
        body_start + end + 1
    } else if end + 1 >= window.len() {
        return if window.len() < LONGEST {
            Found::Incomplete
        } else {
            Found::Other
        };
    } else if window[end + 1] == b'\\' {
        body_start + end + 2
    } else {
        return Found::Other;
    };
    match parse(&window[..end]) {
        Some(mark) => Found::Mark(mark, len),
        None => Found::Other,
    }
}

/// Reads a mark's body, `A;rat=S:K`, `C;rat=S:K`, `D;STATUS;rat=S:K` or `D;rat=S:K`.
pub(super) fn parse(body: &[u8]) -> Option<Mark> {
    let body = std::str::from_utf8(body).ok()?;
    let mut fields = body.split(';');
    let kind = fields.next()?;
    let mut status = None;
    let mut id = None;
    for field in fields {
        if let Some(rat) = field.strip_prefix("rat=") {
            let (shell, prompt) = rat.split_once(':')?;
            id = Some(MarkId {
                shell: shell.parse().ok()?,
                prompt: prompt.parse().ok()?,
            });
        } else if kind == "D" && status.is_none() && id.is_none() {
            status = Some(field.parse().ok()?);
        }
    }
    let id = id?;
    match kind {
        "A" => Some(Mark::Prompt(id)),
        "C" => Some(Mark::Output(id)),
        "D" => Some(Mark::End(id, status)),
        _ => None,
    }
}
