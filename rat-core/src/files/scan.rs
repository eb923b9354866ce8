//! Scanning files: counting lines, finding where a line starts (from the start or from the end),
//! and checking that bytes are text (no NUL byte, valid UTF-8), at memory speed.
//!
//! Public, with the feature `test-support`, for the benchmark (`benches/benches/scan.rs`), which
//! measures the same code read_file runs. The anchor: the Go build rat started from scanned
//! 1 GiB in 80 ms from the page cache, text checks included (`docs/design/files.md`, Scanning, bounded in time).
//!
//! How it is fast:
//! - Files are read with `pread` into one buffer of [`CHUNK`] bytes, reused: small enough to stay
//!   in the L2 cache between the copy from the page cache and the passes over it, large enough
//!   that a system call costs nothing next to the copy.
//! - New lines are counted with `bytecount` (AVX2 or SSE2, picked at run time), which counts
//!   without stopping at each match as `memchr_iter` does: dense lines (a log of 40-byte lines)
//!   cost the same as sparse ones. The one chunk holding the line looked for is then searched
//!   with `memchr`/`memrchr`.
//! - The text checks ([`Scanner`] with `check_text`) run over the same chunk while it is in
//!   cache: `memchr` for a NUL byte, `simdutf8` for UTF-8 (a character cut between two chunks is
//!   carried over, never taken for an invalid one).
//! - A range of 16 MiB or more is scanned in parts by several threads at once (up to 4): the
//!   copy from the page cache, not the passes over the bytes, is what bounds one thread. Parts
//!   start on a character; their tallies add up to the one of a single pass.
//! - No `mmap`: a file truncated while mapped (a log rotated, a file rewritten) kills the process
//!   reading it with SIGBUS, and rat-core forbids `unsafe`. `pread` into a cached buffer is within
//!   a small factor of it (see docs/benchmarks.md).
//!
//! Every file scan takes a deadline, checked before each chunk but the first (a scan always
//! reads one chunk: small files and the ends of large ones are always reached): read_file scans
//! for half of the time of its call at most, and a disk (or a stale network file system) is much
//! slower than the page cache. `Ok(None)` means the deadline came first.

// Without the feature, the module is read_file's own: its `pub` items reach no other crate.
#![cfg_attr(not(feature = "test-support"), allow(unreachable_pub))]

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::time::Instant;

/// The size of the chunks scans read, in bytes: 256 KiB.
pub const CHUNK: usize = 256 * 1024;

/// What was wrong with bytes that are not text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offence {
    /// A NUL byte: the heuristic of git and `grep -I` for binary content.
    Nul,
    /// Bytes that are not valid UTF-8.
    InvalidUtf8,
}

/// The first offence found in bytes checked for text, and its line, counted from 1 at the start
/// of the bytes scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotText {
    /// What was found.
    pub offence: Offence,
    /// The line it is on, 1 for the first line of the bytes scanned.
    pub line: u64,
}

/// What a scan saw: bytes, new lines, the last byte and, when checked, the first offence to text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// The bytes scanned.
    pub bytes: u64,
    /// The new line characters (`\n`) among them.
    pub newlines: u64,
    /// The last byte scanned, if any.
    pub last_byte: Option<u8>,
    /// The first offence to text, when the scan checked for it.
    pub not_text: Option<NotText>,
}

impl Tally {
    /// The lines scanned: the new lines, plus a last line without one.
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(self.last_byte.is_some_and(|byte| byte != b'\n'))
    }
}

/// Counts lines over bytes fed in any number of chunks and, if asked, checks they are text, in
/// the same pass. Feeding the bytes whole or in any pieces gives the same [`Tally`].
#[derive(Debug, Clone)]
pub struct Scanner {
    check_text: bool,
    tally: Tally,
    /// The start of a character cut at the end of the last chunk (at most 3 bytes).
    carry: [u8; 4],
    carry_len: usize,
}

impl Scanner {
    /// A scanner counting lines, and checking for text if `check_text`.
    pub fn new(check_text: bool) -> Self {
        Self {
            check_text,
            tally: Tally::default(),
            carry: [0; 4],
            carry_len: 0,
        }
    }

    /// Scans the next bytes.
    pub fn feed(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        if self.check_text && self.tally.not_text.is_none() {
            self.check(chunk);
        }
        self.tally.newlines += bytecount::count(chunk, b'\n') as u64;
        self.tally.bytes += chunk.len() as u64;
        self.tally.last_byte = chunk.last().copied();
    }

    /// The tally of the bytes fed. `complete` shows they end where the text ends: a character
    /// cut at the end is then invalid; otherwise (a read cut to a size) it is not an offence.
    pub fn finish(mut self, complete: bool) -> Tally {
        if self.check_text && complete && self.carry_len > 0 && self.tally.not_text.is_none() {
            self.offend(Offence::InvalidUtf8, self.tally.newlines + 1);
        }
        self.tally
    }

    fn offend(&mut self, offence: Offence, line: u64) {
        self.tally.not_text = Some(NotText { offence, line });
        self.carry_len = 0;
    }

    /// Checks `chunk`, the bytes after those tallied so far, for text.
    fn check(&mut self, mut chunk: &[u8]) {
        // the line the chunk starts on
        let line = self.tally.newlines + 1;
        if self.carry_len > 0 {
            // complete the character cut at the end of the previous chunk: no new line in it
            let expected = utf8_length(self.carry[0]);
            let take = (expected - self.carry_len).min(chunk.len());
            self.carry[self.carry_len..self.carry_len + take].copy_from_slice(&chunk[..take]);
            self.carry_len += take;
            match simdutf8::compat::from_utf8(&self.carry[..self.carry_len]) {
                Ok(_) => self.carry_len = 0,
                Err(error) if error.error_len().is_none() => return, // still incomplete
                Err(_) => return self.offend(Offence::InvalidUtf8, line),
            }
            chunk = &chunk[take..];
        }
        let nul = memchr::memchr(0, chunk);
        let invalid = match simdutf8::compat::from_utf8(chunk) {
            Ok(_) => None,
            Err(error) => match error.error_len() {
                Some(_) => Some(error.valid_up_to()),
                None => {
                    // a character cut at the end: carried over to the next chunk
                    let tail = &chunk[error.valid_up_to()..];
                    self.carry[..tail.len()].copy_from_slice(tail);
                    self.carry_len = tail.len();
                    None
                }
            },
        };
        let found = match (nul, invalid) {
            (Some(nul), Some(invalid)) if invalid < nul => Some((Offence::InvalidUtf8, invalid)),
            (Some(nul), _) => Some((Offence::Nul, nul)),
            (None, Some(invalid)) => Some((Offence::InvalidUtf8, invalid)),
            (None, None) => None,
        };
        if let Some((offence, at)) = found {
            let before = bytecount::count(&chunk[..at], b'\n') as u64;
            // a carried character completed above holds no new line
            self.offend(offence, line + before);
        }
    }
}

/// The length of the UTF-8 character starting with `lead`, a byte valid UTF-8 may start with
/// (1 for anything else, which the validation then refuses).
fn utf8_length(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// The end of the part of a file to scan: its size when opened (a file growing meanwhile is
/// scanned as it was), or `u64::MAX` for files showing a size of 0 (/proc), read to their end.
pub fn end_of(size: u64) -> u64 {
    if size > 0 { size } else { u64::MAX }
}

/// Reads up to `buffer.len()` bytes at `offset`, fewer only at the end of the file.
fn read_full_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read_at(&mut buffer[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// Scans `file` from `from` to `to` (its end at most; `u64::MAX` reads to the end), counting
/// lines and checking for text if `check_text`. `Ok(None)` if the deadline came first.
///
/// A range of [`PARALLEL_FROM`] bytes or more is scanned by several threads at once (as many as
/// the machine runs at once, [`MAX_THREADS`] at most), each over its part: copying from the page
/// cache is what bounds a single thread. Parts start on a character, so that text checks see whole
/// characters; their tallies add up to the one of a single pass.
pub fn scan_file(
    file: &File,
    from: u64,
    to: u64,
    check_text: bool,
    deadline: Instant,
) -> io::Result<Option<Tally>> {
    scan_in_parts(file, from, to, check_text, deadline, PARALLEL_FROM)
}

/// [`scan_file`], in parts from `parallel_from` bytes on.
fn scan_in_parts(
    file: &File,
    from: u64,
    to: u64,
    check_text: bool,
    deadline: Instant,
    parallel_from: u64,
) -> io::Result<Option<Tally>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().clamp(2, MAX_THREADS));
    let size = to.saturating_sub(from);
    if to == u64::MAX || size < parallel_from {
        return scan_part(file, from, to, check_text, deadline);
    }
    let mut bounds = vec![from];
    for part in 1..threads as u64 {
        let at = from + size / threads as u64 * part;
        bounds.push(if check_text {
            character_start(file, at, to)?
        } else {
            at
        });
    }
    bounds.push(to);
    let tallies: Vec<io::Result<Option<Tally>>> = std::thread::scope(|scope| {
        let parts: Vec<_> = bounds
            .windows(2)
            .map(|part| {
                let (start, end) = (part[0], part[1]);
                scope.spawn(move || scan_part(file, start, end, check_text, deadline))
            })
            .collect();
        parts
            .into_iter()
            .map(|part| part.join().expect("a scan thread does not panic"))
            .collect()
    });
    let mut total = Tally::default();
    for tally in tallies {
        let Some(tally) = tally? else {
            return Ok(None);
        };
        if total.not_text.is_none()
            && let Some(not_text) = tally.not_text
        {
            total.not_text = Some(NotText {
                line: total.newlines + not_text.line,
                ..not_text
            });
        }
        total.newlines += tally.newlines;
        total.bytes += tally.bytes;
        total.last_byte = tally.last_byte.or(total.last_byte);
    }
    Ok(Some(total))
}

/// Ranges from this size on are scanned by several threads: 16 MiB.
pub const PARALLEL_FROM: u64 = 16 << 20;
/// The most threads a scan runs: memory bandwidth is shared beyond.
pub const MAX_THREADS: usize = 4;

/// The first offset from `at` where a character may start: past up to 3 UTF-8 continuation bytes.
fn character_start(file: &File, at: u64, to: u64) -> io::Result<u64> {
    let mut bytes = [0; 4];
    let read = read_full_at(file, &mut bytes, at)?;
    let skip = bytes[..read]
        .iter()
        .take(3)
        .take_while(|&&byte| (0x80..0xC0).contains(&byte))
        .count();
    Ok((at + skip as u64).min(to))
}

/// [`scan_file`] over one part, by one thread.
fn scan_part(
    file: &File,
    from: u64,
    to: u64,
    check_text: bool,
    deadline: Instant,
) -> io::Result<Option<Tally>> {
    let mut buffer = vec![0; CHUNK];
    let mut scanner = Scanner::new(check_text);
    let mut offset = from;
    while offset < to {
        if offset > from && Instant::now() >= deadline {
            return Ok(None);
        }
        let want = usize::try_from(to - offset).map_or(CHUNK, |left| left.min(CHUNK));
        let read = read_full_at(file, &mut buffer[..want], offset)?;
        scanner.feed(&buffer[..read]);
        offset += read as u64;
        if read < want {
            break;
        }
    }
    Ok(Some(scanner.finish(true)))
}

/// Where line `number` (from 1) of a file starts, or how many lines the file has if fewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStart {
    /// The line exists and starts at this offset.
    At(u64),
    /// The file ends before: it has this many lines.
    Past {
        /// The lines of the file.
        lines: u64,
    },
}

/// Finds where line `number` (1 or more) of `file` starts, reading forward up to `to` (see
/// [`end_of`]). Also returns the bytes read, for files showing no size. `Ok(None)` if the
/// deadline came first.
pub fn line_start(
    file: &File,
    number: u64,
    to: u64,
    deadline: Instant,
) -> io::Result<Option<(LineStart, u64)>> {
    let target = number.saturating_sub(1);
    let mut buffer = vec![0; CHUNK];
    let (mut offset, mut newlines, mut last) = (0u64, 0u64, b'\n');
    while newlines < target && offset < to {
        if offset > 0 && Instant::now() >= deadline {
            return Ok(None);
        }
        let want = usize::try_from(to - offset).map_or(CHUNK, |left| left.min(CHUNK));
        let read = read_full_at(file, &mut buffer[..want], offset)?;
        let chunk = &buffer[..read];
        if read == 0 {
            break;
        }
        let count = bytecount::count(chunk, b'\n') as u64;
        if newlines + count >= target {
            let nth = (target - newlines - 1) as usize;
            let at = memchr::memchr_iter(b'\n', chunk)
                .nth(nth)
                .expect("the chunk holds that many new lines");
            return Ok(Some((
                probe(file, offset + at as u64 + 1, to, target)?,
                offset + read as u64,
            )));
        }
        newlines += count;
        last = chunk[read - 1];
        offset += read as u64;
        if read < want {
            break;
        }
    }
    if newlines == target {
        return Ok(Some((probe(file, offset, to, target)?, offset)));
    }
    let lines = newlines + u64::from(last != b'\n');
    Ok(Some((LineStart::Past { lines }, offset)))
}

/// The line after `newlines` new lines exists if a byte follows them, at `offset`.
fn probe(file: &File, offset: u64, to: u64, newlines: u64) -> io::Result<LineStart> {
    let mut byte = [0];
    if offset < to && read_full_at(file, &mut byte, offset)? == 1 {
        Ok(LineStart::At(offset))
    } else {
        Ok(LineStart::Past { lines: newlines })
    }
}

/// Where the line `count` lines before the end of a file of `size` bytes starts (1 is the last
/// line), reading backwards: instant on any size, as only the lines asked for are read.
/// `Some((0, true))` if the file holds no more than `count` lines (clamped to its start).
/// `Ok(None)` if the deadline came first.
pub fn line_from_end(
    file: &File,
    count: u64,
    size: u64,
    deadline: Instant,
) -> io::Result<Option<(u64, bool)>> {
    let mut end = size;
    // a new line ending the file ends its last line, it does not start another
    let mut last = [0];
    if size > 0 && read_full_at(file, &mut last, size - 1)? == 1 && last[0] == b'\n' {
        end -= 1;
    }
    let mut buffer = vec![0; CHUNK];
    let mut found = 0u64;
    let mut first = true;
    while end > 0 {
        if !first && Instant::now() >= deadline {
            return Ok(None);
        }
        first = false;
        let start = end.saturating_sub(CHUNK as u64);
        let want = (end - start) as usize;
        let read = read_full_at(file, &mut buffer[..want], start)?;
        if read < want {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file shrank while being read",
            ));
        }
        let chunk = &buffer[..want];
        let newlines = bytecount::count(chunk, b'\n') as u64;
        if found + newlines >= count {
            let nth = (count - found - 1) as usize;
            let at = memchr::memrchr_iter(b'\n', chunk)
                .nth(nth)
                .expect("the chunk holds that many new lines");
            return Ok(Some((start + at as u64 + 1, false)));
        }
        found += newlines;
        end = start;
    }
    Ok(Some((0, true)))
}

#[cfg(test)]
mod tests;
