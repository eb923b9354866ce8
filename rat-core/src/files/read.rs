//! read_file, done now: the blocking part, run on a blocking thread by [`super::read_file`].

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Instant, SystemTime};

use super::scan::{self, LineStart, NotText, Offence, Scanner};
use super::text::{self, ago_text, size_text};
use super::{Access, ReadFile, failure, linked_file, not_regular};
use crate::result::{ReadBudget, ToolResult};

/// Room left in a result for the header of a range, around the path: its longest form is a fixed
/// text with numbers and sizes (`lines -9223372036854775808 to ... counted from the end, 1023.9
/// KiB (too large to count its lines), modified 47h ago; cut to the read budget (...): continue
/// with start_line ...`), under 256 bytes.
const HEADER_ROOM: usize = 256;

/// Reads the lines `input` asks of the regular file at `path` (absolute, normalized), scanning
/// until `scan_deadline` at most, times given relative to `now`. What it sends is checked first, as
/// it can not be taken back from the context of a model: a regular file, a bounded read, text, the
/// read budget.
pub(super) fn read_now(
    path: &Path,
    input: &ReadFile,
    budget: ReadBudget,
    scan_deadline: Instant,
    now: SystemTime,
) -> ToolResult {
    match open(path) {
        Ok(opened) => read_opened(path, opened, input, budget, scan_deadline, now),
        Err(refused) => refused,
    }
}

/// A regular file opened for reading, described when opened.
pub(super) struct Opened {
    file: File,
    /// Its size when opened, which bounds the read.
    size: u64,
    modified: Option<SystemTime>,
}

/// Opens the regular file at `path` for reading: checked before opening (`stat`), opened without
/// blocking (a FIFO put in place of the file checked would block until written to), and checked
/// again once opened (`fstat`), as the file opened may not be the one checked.
pub(super) fn open(path: &Path) -> Result<Opened, ToolResult> {
    let what = text::reading(path.display());
    let fail = |error: &io::Error| failure(error, &what, path, Access::Read, false);
    let meta = fs::metadata(path).map_err(|error| fail(&error))?;
    if let Some(refused) = not_regular(path, meta.file_type(), Access::Read) {
        return Err(refused);
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|error| fail(&error))?;
    let meta = file.metadata().map_err(|error| fail(&error))?;
    if let Some(refused) = not_regular(path, meta.file_type(), Access::Read) {
        return Err(refused);
    }
    Ok(Opened {
        file,
        size: meta.len(),
        modified: meta.modified().ok(),
    })
}

/// Reads what [`read_now`] does from `opened`, the regular file at `path`, up to its size when
/// opened: a file growing meanwhile (a log) is read as it was, consistently with the size reported.
pub(super) fn read_opened(
    path: &Path,
    opened: Opened,
    input: &ReadFile,
    budget: ReadBudget,
    scan_deadline: Instant,
    now: SystemTime,
) -> ToolResult {
    // through a symbolic link, the file read is named, and the link
    let shown = match linked_file(path, &opened.file) {
        Some(file) => {
            let link = super::link_as_given(&input.path, path);
            text::file_named(&file, Some(link.as_deref().unwrap_or(path)))
        }
        None => text::file_named(path, None),
    };
    let mut read = FileRead {
        path,
        shown,
        what: text::reading(path.display()),
        file: opened.file,
        input,
        budget,
        size: opened.size,
        seen: 0,
        modified: opened.modified.unwrap_or(now),
        now,
        deadline: scan_deadline,
    };
    let result = if input.start_line.unwrap_or(0) == 0 && input.max_lines.unwrap_or(0) == 0 {
        read.whole()
    } else {
        read.lines()
    };
    result.with_log("size", read.size.max(read.seen))
}

/// A read of read_file in progress.
struct FileRead<'a> {
    path: &'a Path,
    /// How the results name the file: its path, or the file a link led to and the link.
    shown: String,
    /// "Reading PATH", for failures.
    what: String,
    file: File,
    input: &'a ReadFile,
    budget: ReadBudget,
    /// The size of the file when opened, which bounds the read: a file growing meanwhile (a log)
    /// is read as it was, consistently with the size reported. 0 for files showing no size (/proc),
    /// read to their end within the deadline.
    size: u64,
    /// How far the file was read: the size reported for a file showing none.
    seen: u64,
    /// The last modification, given relatively: a command may still be writing the file.
    modified: SystemTime,
    now: SystemTime,
    /// The end of scanning: reaching a line, counting lines.
    deadline: Instant,
}

/// The end of a read: the result to return.
type Done = ToolResult;

impl FileRead<'_> {
    fn end(&self) -> u64 {
        scan::end_of(self.size)
    }

    fn size_text(&self) -> String {
        size_text(self.size.max(self.seen))
    }

    fn ago(&self) -> String {
        ago_text(self.modified, self.now)
    }

    fn fail(&self, error: &io::Error) -> Done {
        failure(error, &self.what, self.path, Access::Read, false)
    }

    /// The whole file, if it fits the read budget. Otherwise its size, line count and
    /// modification, for the agent to pick a range: nothing big lands in its context by surprise.
    /// The start of the file is checked to be text all the same, as a range of it would be
    /// refused.
    fn whole(&mut self) -> Done {
        let budget = self.budget.bytes();
        let mut data = Vec::with_capacity(budget.min(self.size as usize) + 1);
        let limit = (budget as u64 + 1).min(self.end());
        if let Err(error) = (&self.file).take(limit).read_to_end(&mut data) {
            return self.fail(&error);
        }
        self.seen = data.len() as u64;
        let over = data.len() > budget;
        let mut scanner = Scanner::new(true);
        scanner.feed(&data);
        let tally = scanner.finish(!over);
        if let Some(not_text) = tally.not_text {
            return self.not_text(not_text, 1);
        }
        if !over {
            let lines = tally.lines();
            let header = text::whole_header(
                &self.shown,
                lines,
                &size_text(data.len() as u64),
                &self.ago(),
            );
            let text = with_header(header, &self.numbered(&data, 1));
            if text.len() <= budget {
                let bytes = text.len();
                return ToolResult::ok(text)
                    .with_log("lines", lines)
                    .with_log("bytes", bytes)
                    .with_log("cut", false)
                    .with_log("counted", true);
            }
        }
        let counted = match scan::scan_file(&self.file, 0, self.end(), false, self.deadline) {
            Ok(Some(tally)) => {
                self.seen = self.seen.max(tally.bytes);
                Some(tally.lines())
            }
            Ok(None) => None,
            Err(error) => return self.fail(&error),
        };
        // A file under the budget by itself is over it once its header (and line numbers) is
        // added: said so, or "more than the read budget" reads as false beside its size.
        let with = match (over, self.input.line_numbers == Some(true)) {
            (true, _) => "",
            (false, false) => "with its header, ",
            (false, true) => "with its header and line numbers, ",
        };
        ToolResult::message(text::over_budget(
            &self.shown,
            &self.size_text(),
            counted,
            &self.ago(),
            with,
            &self.budget,
        ))
        .with_log("lines", 0)
        .with_log("cut", false)
        .with_log("counted", counted.is_some())
    }

    /// The range of lines asked. A negative start is found reading backwards, instant on any size:
    /// its lines are numbered from the end when the lines before them can not be counted in time.
    fn lines(&mut self) -> Done {
        let asked = self.input.start_line.unwrap_or(0);
        let mut start = if asked == 0 { 1 } else { asked };
        // the offset of the first line read, its number (negative when counted from the end), and
        // the lines before it, when known
        let (offset, first, before): (u64, i64, Option<u64>);
        if start < 0 && self.size > 0 {
            let count = start.unsigned_abs();
            match scan::line_from_end(&self.file, count, self.size, self.deadline) {
                Ok(Some((found, clamped))) => {
                    offset = found;
                    if clamped {
                        (first, before) = (1, Some(0));
                    } else {
                        match scan::scan_file(&self.file, 0, found, false, self.deadline) {
                            Ok(Some(tally)) => {
                                (first, before) = (tally.newlines as i64 + 1, Some(tally.newlines));
                            }
                            Ok(None) => (first, before) = (start, None),
                            Err(error) => return self.fail(&error),
                        }
                    }
                }
                Ok(None) => return self.too_far(start, "use the terminal (tail -n)"),
                Err(error) => return self.fail(&error),
            }
        } else {
            if start < 0 {
                // no size to read backwards from (/proc): the lines are counted first
                match scan::scan_file(&self.file, 0, self.end(), false, self.deadline) {
                    Ok(Some(tally)) => {
                        self.seen = self.seen.max(tally.bytes);
                        start += tally.lines() as i64 + 1;
                    }
                    Ok(None) => return self.too_far(start, "use the terminal (tail -n)"),
                    Err(error) => return self.fail(&error),
                }
            }
            let number = start.max(1);
            match scan::line_start(&self.file, number as u64, self.end(), self.deadline) {
                Ok(Some((LineStart::At(found), read))) => {
                    self.seen = self.seen.max(read);
                    (offset, first, before) = (found, number, Some(number as u64 - 1));
                }
                Ok(Some((LineStart::Past { lines }, read))) => {
                    self.seen = self.seen.max(read);
                    return ToolResult::refused(
                        text::past_end(&self.shown, lines, asked),
                        "start_line past the end",
                    );
                }
                Ok(None) => {
                    return self.too_far(
                        number,
                        "count from the end (negative start_line), or use the terminal (sed -n)",
                    );
                }
                Err(error) => return self.fail(&error),
            }
        }
        self.collect(offset, first, before)
    }

    /// The lines from `offset`, numbered from `first`, at most max_lines of them: the whole lines
    /// that fit the read budget, saying where to continue after a cut. `before` is the number of
    /// lines before `offset`, when known: the total is reported only then.
    fn collect(&mut self, offset: u64, first: i64, before: Option<u64>) -> Done {
        let budget = self.budget.bytes();
        // the header is written once the lines are read: room is left for its longest form
        let room = budget.saturating_sub(self.shown.len() + HEADER_ROOM);
        let max_lines = match self.input.max_lines {
            Some(0) | None => u64::MAX,
            Some(max) => max,
        };
        if let Err(error) = (&self.file).seek(SeekFrom::Start(offset)) {
            return self.fail(&error);
        }
        let limit = self.end().saturating_sub(offset);
        let mut reader = BufReader::with_capacity(scan::CHUNK, (&self.file).take(limit));
        let mut content = String::new();
        let (mut count, mut consumed, mut next) = (0u64, 0u64, None);
        while count < max_lines {
            let number = first + count as i64;
            // the first line is sized when too long, to show it; the others are only cut before
            let line = match read_line(&mut reader, room + 1, count == 0, self.deadline) {
                Ok(line) => line,
                Err(error) => return self.fail(&error),
            };
            self.seen = self.seen.max(offset + consumed + line.size);
            if line.out_of_time {
                return self.line_too_long(number, line.size, true);
            }
            if line.size == 0 {
                break;
            }
            let cut = (line.kept.len() as u64) < line.size;
            let mut scanner = Scanner::new(true);
            scanner.feed(&line.kept);
            if let Some(not_text) = scanner.finish(!cut).not_text {
                return self.not_text(not_text, number);
            }
            let entry = self.numbered(&line.kept, number);
            if content.len() + entry.len() > room {
                if count == 0 {
                    return self.line_too_long(number, line.size, false);
                }
                next = Some(number);
                break;
            }
            content.push_str(&entry);
            consumed += line.size;
            count += 1;
        }
        let total = match before {
            // the lines after the ones read, the one cut included
            Some(before) => {
                match scan::scan_file(
                    &self.file,
                    offset + consumed,
                    self.end(),
                    false,
                    self.deadline,
                ) {
                    Ok(Some(after)) => {
                        self.seen = self.seen.max(offset + consumed + after.bytes);
                        Some(before + count + after.lines())
                    }
                    Ok(None) => None,
                    Err(error) => return self.fail(&error),
                }
            }
            None => None,
        };
        let header = self.header(first, first + count as i64 - 1, total, next);
        let text = format!("{header}\n{content}");
        let bytes = text.len();
        ToolResult::ok(text)
            .with_log("lines", count)
            .with_log("bytes", bytes)
            .with_log("cut", next.is_some())
            .with_log("counted", total.is_some())
    }

    /// The header of the lines `first` to `last`, out of `total` if counted, saying where to
    /// continue after a cut at `next`.
    fn header(&self, first: i64, last: i64, total: Option<u64>, next: Option<i64>) -> String {
        text::range_header(
            &self.shown,
            (first, last),
            total,
            &self.size_text(),
            &self.ago(),
            next.map(|next| (next, &self.budget)),
        )
    }

    /// `data`, lines numbered from `first` if asked, as `cat -n` does (`%6d\t`).
    fn numbered(&self, data: &[u8], first: i64) -> String {
        // checked to be text before
        let text = String::from_utf8_lossy(data);
        if !self.input.line_numbers.unwrap_or(false) || text.is_empty() {
            return text.into_owned();
        }
        let mut out = String::with_capacity(text.len() + 8 * 64);
        for (number, line) in (first..).zip(text.split_inclusive('\n')) {
            out += &format!("{number:6}\t{line}");
        }
        out
    }

    /// Refuses content that is not text, saying the line of the first offence (counted as the
    /// lines sent are, from `first`), and pointing to the terminal.
    fn not_text(&self, not_text: NotText, first: i64) -> Done {
        let line = first + not_text.line as i64 - 1;
        let (why, cause) = match not_text.offence {
            Offence::Nul => ("it holds a NUL byte", "not text: NUL byte"),
            Offence::InvalidUtf8 => ("it is not valid UTF-8", "not text: invalid UTF-8"),
        };
        ToolResult::refused(text::not_text(&self.shown, why, line), cause)
    }

    /// Refuses line `number`, of `size` bytes (at least, if `at_least`), over the read budget
    /// alone: it can not be cut into lines.
    fn line_too_long(&self, number: i64, size: u64, at_least: bool) -> Done {
        ToolResult::refused(
            text::line_too_long(
                number,
                &self.shown,
                &size_text(size),
                at_least,
                &self.budget,
            ),
            "a line over the read budget",
        )
    }

    /// Refuses line `number`, which could not be reached before the deadline, pointing to how.
    fn too_far(&self, number: i64, how: &str) -> Done {
        ToolResult::refused(
            text::too_far(number, &self.shown, &self.size_text(), how),
            "scan deadline reached",
        )
    }
}

/// `header` then `content` on the lines below it, or the header alone for no content.
fn with_header(header: String, content: &str) -> String {
    if content.is_empty() {
        header
    } else {
        format!("{header}\n{content}")
    }
}

/// A line read by [`read_line`].
struct Line {
    /// Its first bytes, up to what was asked to keep.
    kept: Vec<u8>,
    /// Its size, new line included: 0 at the end of the file. At least this much if cut short.
    size: u64,
    /// Sizing it reached the deadline.
    out_of_time: bool,
}

/// Reads the next line, its new line included (a last line may have none), keeping up to `keep`
/// bytes of it. A longer line is sized if `sized` (read to its end, up to the deadline), otherwise
/// returned as soon as it is longer.
fn read_line(
    reader: &mut impl BufRead,
    keep: usize,
    sized: bool,
    deadline: Instant,
) -> io::Result<Line> {
    let mut line = Line {
        kept: Vec::new(),
        size: 0,
        out_of_time: false,
    };
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            return Ok(line);
        }
        let (piece, ends) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (&buffer[..=at], true),
            None => (buffer, false),
        };
        let room = keep.saturating_sub(line.kept.len());
        line.kept.extend_from_slice(&piece[..piece.len().min(room)]);
        let taken = piece.len();
        line.size += taken as u64;
        reader.consume(taken);
        if ends {
            return Ok(line);
        }
        if line.size > keep as u64 {
            if !sized {
                return Ok(line);
            }
            if Instant::now() >= deadline {
                line.out_of_time = true;
                return Ok(line);
            }
        }
    }
}
