//! The words of the file tools: sizes, relative times, counts, and the sentences of write_file's
//! answers and of the files they name (the file a symbolic link led to). One function each,
//! unit-tested, so that every result says them the same way.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::result::ReadBudget;

/// A size in bytes as agents and admins read it: in its largest binary unit, with one decimal at
/// most, rounded (`500 B`, `14 B`, `78.1 KiB`, `64 KiB`, `3 GiB`).
pub fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0} {}", UNITS[unit])
    } else {
        format!("{rounded:.1} {}", UNITS[unit])
    }
}

/// A duration in its largest unit, as list_windows shows activity: `12s`, `5m`, `3h`, then days
/// beyond two days (`47h`, `2d`). Seconds are rounded to the nearest (2.6 s is `3s`, not the
/// `2s` of a truncation), then truncated to the unit: `59m` until the hour is complete.
pub fn since_text(elapsed: Duration) -> String {
    let seconds = (elapsed.as_millis() + 500) / 1000;
    rat_wire::words::ago(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// How long ago `modified` was at `now`, as [`since_text`] says it. A time in the future (a clock
/// set back, a file touched with a date to come) is reported as `0s`: models do not know the current
/// time, and "in the future" would only puzzle them.
pub fn ago_text(modified: SystemTime, now: SystemTime) -> String {
    since_text(now.duration_since(modified).unwrap_or_default())
}

/// `count` and `noun`, in the plural unless one: `1 line`, `0 lines`, `3 lines`.
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The file a result names: `file`, or, when the path given was a symbolic link, the file it
/// led to and the link (`/data/notes.txt (through the link /home/u/notes)`).
pub(crate) fn file_named(file: &Path, link: Option<&Path>) -> String {
    match link {
        Some(link) => format!("{} (through the link {})", file.display(), link.display()),
        None => file.display().to_string(),
    }
}

/// write_file's answer: `file` created, or replaced (`former` bytes before), with `size` bytes;
/// through a symbolic link, the file written is named, and the link after the sizes
/// (`Created /srv/new.txt (13 B, through the link /home/u/dangling).`).
pub(crate) fn written(
    created: bool,
    file: &Path,
    link: Option<&Path>,
    size: u64,
    former: u64,
) -> String {
    let through = link.map_or(String::new(), |link| {
        format!(", through the link {}", link.display())
    });
    let (file, size) = (file.display(), size_text(size));
    if created {
        format!("Created {file} ({size}{through}).")
    } else {
        format!(
            "Replaced {file} ({size}, {} before{through}).",
            size_text(former)
        )
    }
}

/// `paths`, separated by commas.
fn joined(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Added to write_file's answer: the directories it created (a typo in a path creates
/// directories the agent did not mean).
pub(crate) fn directories_created(directories: &[PathBuf]) -> String {
    format!(
        " Missing directories created: {}. Check the path if you did not mean them.",
        joined(directories)
    )
}

/// Added to a failed write_file: the directories made for it, `removed` again, and those `kept`
/// because something else came into them meanwhile.
pub(crate) fn directories_undone(removed: &[PathBuf], kept: &[PathBuf]) -> String {
    let mut text = String::new();
    if !removed.is_empty() {
        text += &format!(
            " The directories made for it were removed: {}.",
            joined(removed)
        );
    }
    if !kept.is_empty() {
        text += &format!(
            " Directories made for it were left, no longer empty: {}.",
            joined(kept)
        );
    }
    text
}

/// write_file refused: `above`, on the way to `file`, is no directory.
pub(crate) fn not_a_directory_above(above: &Path, file: &Path) -> String {
    format!(
        "{} is not a directory: {} can not be written under it.",
        above.display(),
        file.display()
    )
}

/// Added to the failure of a path that is a dangling symbolic link: where its chain of links
/// leads (`end`), which does not exist (a read) or whose directory does not (a write).
pub(crate) fn dangling_link(end: &Path, write: bool) -> String {
    format!(
        " It is a symbolic link to {}, {}.",
        end.display(),
        if write {
            "whose directory does not exist"
        } else {
            "which does not exist"
        }
    )
}

/// The header of a whole file read: its name (see [`file_named`]), lines, size and last
/// modification (`[/x: 3 lines, 14 B, modified 3s ago]`, `[/x: empty, modified 3s ago]`).
pub(crate) fn whole_header(file: &str, lines: u64, size: &str, ago: &str) -> String {
    if lines == 0 {
        format!("[{file}: empty, modified {ago} ago]")
    } else {
        format!(
            "[{file}: {}, {size}, modified {ago} ago]",
            plural(lines, "line")
        )
    }
}

/// The header of a range of lines, `first` to `last`, out of `total` when counted (a range
/// from the end not counted is numbered from the end, `first` negative), saying where to
/// continue after a cut at `next` to the read `budget`.
pub(crate) fn range_header(
    file: &str,
    (first, last): (i64, i64),
    total: Option<u64>,
    size: &str,
    ago: &str,
    cut: Option<(i64, &ReadBudget)>,
) -> String {
    let mut lines = if first == last {
        format!("line {first}")
    } else {
        format!("lines {first} to {last}")
    };
    let mut size = size.to_owned();
    match total {
        _ if first < 0 => {
            lines += " counted from the end";
            size += " (too large to count its lines)";
        }
        Some(total) => lines += &format!(" of {total}"),
        None => size += " (too large to count its lines)",
    }
    let cut = cut.map_or(String::new(), |(next, budget)| {
        format!("; cut to the read budget ({budget}): continue with start_line {next}")
    });
    format!("[{file}: {lines}, {size}, modified {ago} ago{cut}]")
}

/// What a file over the read budget, read without a range, returns: its size, its line count
/// (`None`: not counted in time) and modification. `with` introduces a file under the budget by
/// itself, over it with its header (`"with its header, "`) and line numbers.
pub(crate) fn over_budget(
    file: &str,
    size: &str,
    lines: Option<u64>,
    ago: &str,
    with: &str,
    budget: &ReadBudget,
) -> String {
    let count = lines.map_or("too large to count its lines".to_owned(), |lines| {
        plural(lines, "line")
    });
    format!(
        "{file} holds {size}, {count}, modified {ago} ago: {with}more than the read budget \
         ({budget}). Read a range with start_line and max_lines (start_line -100 for the last 100 \
         lines)."
    )
}

/// read_file refused: `start_line` `asked` past the end of a file of `lines` lines.
pub(crate) fn past_end(file: &str, lines: u64, asked: i64) -> String {
    format!(
        "{file} has {}: start_line {asked} is past its end.",
        plural(lines, "line")
    )
}

/// read_file refused: not text, `why` (`it holds a NUL byte`), first at `line`.
pub(crate) fn not_text(file: &str, why: &str, line: i64) -> String {
    format!(
        "{file} is not a text file: {why} (line {line}). Look at it in the terminal (file, xxd, \
         base64)."
    )
}

/// read_file refused: line `number`, of `size` (`more than ` it when `at_least`), over the read
/// budget alone: it can not be cut into lines.
pub(crate) fn line_too_long(
    number: i64,
    file: &str,
    size: &str,
    at_least: bool,
    budget: &ReadBudget,
) -> String {
    let more = if at_least { "more than " } else { "" };
    format!(
        "Line {number} of {file} holds {more}{size} alone, more than the read budget ({budget}): \
         read it in the terminal (head -c, cut -c)."
    )
}

/// read_file refused: line `number` of a file of `size` not reached in time, `how` to reach it.
pub(crate) fn too_far(number: i64, file: &str, size: &str, how: &str) -> String {
    format!("Line {number} of {file} ({size}) is too far to reach in time: {how}.")
}

// ---- descriptions ----

/// The description of write_file (`docs/design/files.md`): what it does, the path rule, the
/// missing directories, and the subagent for copies. It gives no way around for binary content:
/// an agent that needs one encodes it by itself, and pointing to one (`base64 -d`) would invite
/// it into its context, a third larger and meaningless to the model.
pub fn write_file_description() -> String {
    "Write a whole text file on the machine of the terminals, creating or replacing it, with exactly \
     the content given: nothing is added, end it with a new line if the file needs one. The path is \
     absolute or starts with ~/. Missing directories are created. To copy a file from your own file \
     system, if you can start a subagent, have it do both steps, reading the file and writing it \
     here (rather than reading it yourself or passing its content in its prompt): the file then \
     fills the subagent's context, discarded once done, instead of yours."
        .to_owned()
}

/// The description of read_file (`docs/design/files.md`), stating the read budget.
pub fn read_file_description(budget: ReadBudget) -> String {
    format!(
        "Read a text file on the machine of the terminals: whole lines, from start_line (1 by \
         default, and for 0; negative counts from the end: -100 for the last 100 lines), at most \
         max_lines (all by default, and for 0). The result holds at most {budget}: a larger file read without a range \
         tells its size and line count, for you to pick a range. The path is absolute or starts \
         with ~/."
    )
}

// ---- paths ----

/// write_file refused: the path given ends with `end` (`/`, `/.`), naming a directory.
pub(crate) fn path_names_a_directory(given: &str, end: &str) -> String {
    format!(
        "Path {given:?} ends with \"{end}\", which names a directory: write_file writes a file; \
         give the path of the file."
    )
}

/// A path refused: it holds a NUL byte.
pub(crate) fn path_with_nul(given: &str) -> String {
    format!("Path {given:?} holds a NUL byte, which no file name can hold.")
}

/// A path starting with `~/` failed: ratd's home directory is unknown.
pub(crate) fn home_unknown(given: &str) -> String {
    format!(
        "Path {given:?} starts with ~/, but the home directory is unknown: give an absolute path."
    )
}

/// A path refused: `~user/...`, another user's home, which rat does not look up.
pub(crate) fn another_users_home(given: &str) -> String {
    format!(
        "Path {given:?} names another user's home (~user), which rat does not look up: give an \
         absolute path, or one starting with ~/ for your own home."
    )
}

/// A path refused: relative.
pub(crate) fn path_relative(given: &str) -> String {
    format!(
        "Path {given:?} is relative: give an absolute path, or one starting with ~/ (list_windows \
         shows the directories of your windows)."
    )
}

// ---- what is not a regular file, and failures ----

/// Refused: `path` is a directory (pointing a read to `ls`).
pub(crate) fn a_directory(path: &Path, read: bool) -> String {
    let path = path.display();
    if read {
        format!("{path} is a directory, not a file: list it in the terminal (ls).")
    } else {
        format!("{path} is a directory, not a file.")
    }
}

/// Refused: `path` is `kind` (`a FIFO`, `a device`, `a socket`), not a regular file.
pub(crate) fn not_regular(path: &Path, kind: &str, read: bool) -> String {
    let tool = if read {
        "read_file only reads"
    } else {
        "write_file only writes"
    };
    format!(
        "{} is not a regular file ({kind}): {tool} regular files.",
        path.display()
    )
}

/// What an operation on `path` was doing, for its failures: `Writing /x`.
pub(crate) fn writing(path: impl std::fmt::Display) -> String {
    format!("Writing {path}")
}

/// `Reading /x`, as [`writing`].
pub(crate) fn reading(path: impl std::fmt::Display) -> String {
    format!("Reading {path}")
}

/// `Creating /x` (a missing directory), as [`writing`].
pub(crate) fn creating(path: impl std::fmt::Display) -> String {
    format!("Creating {path}")
}

/// Why a file operation failed.
#[derive(Debug)]
pub(crate) enum Failed<'a> {
    /// A denied permission: the file can not be `verb` (`read`, `written`, `created`) by `user`.
    Denied { verb: &'a str, user: &'a str },
    /// The system's reason, as [`rat_wire::words::os_reason`] words it.
    Os(String),
    /// No errno: internal, logged, not shown.
    Internal,
}

/// A failed file operation, `what` naming it (`Writing /x`): the system's reason as is
/// (`Writing /x failed: no space left on device.`), a denied permission naming the user the
/// terminals run as; `partial` says the file was truncated before failing.
pub(crate) fn failed(what: &str, path: &Path, failed: &Failed, partial: bool) -> String {
    let mut text = match failed {
        Failed::Denied { verb, user } => format!(
            "Permission denied: {} can not be {verb} by {user}, the user the terminals run as.",
            path.display()
        ),
        Failed::Os(reason) => format!("{what} failed: {reason}."),
        Failed::Internal => internal_error(what),
    };
    if partial {
        text += " The file may be partial: write it again once fixed.";
    }
    text
}

/// A file operation failed inside ratd: `Writing /x failed: internal error, logged.`
pub(crate) fn internal_error(what: &str) -> String {
    format!("{what} failed: internal error, logged.")
}

/// write_file failed: the file system did not answer within the call's time.
pub(crate) fn write_not_answered(path: &str) -> String {
    format!(
        "The file system did not answer in time: {path} may still be written, partially or not. \
         Check it before writing again."
    )
}

/// read_file failed: the file system did not answer within the call's time.
pub(crate) fn read_not_answered(path: &str) -> String {
    format!("The file system did not answer in time: {path} could not be read.")
}

/// Reported first, once, by the first read_file or write_file of a file a write was cut short in,
/// by the end of ratd: `size` the content's, `began` when the write began (UTC).
pub(crate) fn write_cut_short(size: u64, began: &str) -> String {
    format!(
        "A write_file of {} to this file was cut short at {began}: ratd ended during it. The file \
         may be partial or empty: check it, and write it again if needed.",
        size_text(size)
    )
}

#[cfg(test)]
mod tests;
