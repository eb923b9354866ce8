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

/// A duration in its largest unit, as list_windows tells activity: `12s`, `5m`, `3h`, then days
/// beyond two days (`47h`, `2d`). Seconds are rounded to the nearest (2.6 s is `3s`, not the
/// `2s` of a truncation), then truncated to the unit: `59m` until the hour is complete.
pub fn since_text(elapsed: Duration) -> String {
    let seconds = (elapsed.as_millis() + 500) / 1000;
    rat_wire::words::ago(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// How long ago `modified` was at `now`, as [`since_text`] says it. A time in the future (a clock
/// set back, a file touched with a date to come) is told as `0s`: models do not know the current
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
/// from the end not counted is numbered from the end, `first` negative), telling where to
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
/// (`None`: not counted in time) and modification. `with` tells a file under the budget by
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_file_sentences() {
        let budget = ReadBudget::DEFAULT;
        let file = file_named(Path::new("/data/n.txt"), Some(Path::new("/home/u/n")));
        assert_eq!(
            whole_header(&file, 3, "14 B", "3s"),
            "[/data/n.txt (through the link /home/u/n): 3 lines, 14 B, modified 3s ago]"
        );
        assert_eq!(
            whole_header("/x", 0, "0 B", "1m"),
            "[/x: empty, modified 1m ago]"
        );
        assert_eq!(
            range_header(&file, (2, 2), Some(3), "14 B", "3s", None),
            "[/data/n.txt (through the link /home/u/n): line 2 of 3, 14 B, modified 3s ago]"
        );
        assert_eq!(
            range_header("/x", (-100, -41), None, "2 GiB", "3h", Some((-40, &budget))),
            "[/x: lines -100 to -41 counted from the end, 2 GiB (too large to count its lines), \
             modified 3h ago; cut to the read budget (64 KiB): continue with start_line -40]"
        );
        assert_eq!(
            range_header("/x", (1, 9), None, "2 GiB", "3h", None),
            "[/x: lines 1 to 9, 2 GiB (too large to count its lines), modified 3h ago]"
        );
        assert_eq!(
            over_budget(&file, "195.3 KiB", Some(100_000), "3h", "", &budget),
            "/data/n.txt (through the link /home/u/n) holds 195.3 KiB, 100000 lines, modified 3h \
             ago: more than the read budget (64 KiB). Read a range with start_line and max_lines \
             (start_line -100 for the last 100 lines)."
        );
        assert_eq!(
            over_budget("/x", "3 GiB", None, "1m", "with its header, ", &budget),
            "/x holds 3 GiB, too large to count its lines, modified 1m ago: with its header, more \
             than the read budget (64 KiB). Read a range with start_line and max_lines \
             (start_line -100 for the last 100 lines)."
        );
        assert_eq!(
            past_end("/x", 1, 5),
            "/x has 1 line: start_line 5 is past its end."
        );
        assert_eq!(
            not_text("/x", "it holds a NUL byte", 7),
            "/x is not a text file: it holds a NUL byte (line 7). Look at it in the terminal \
             (file, xxd, base64)."
        );
        assert_eq!(
            line_too_long(1, "/x", "1 MiB", true, &budget),
            "Line 1 of /x holds more than 1 MiB alone, more than the read budget (64 KiB): read \
             it in the terminal (head -c, cut -c)."
        );
        assert_eq!(
            too_far(30_000, "/x", "1 GiB", "use the terminal (sed -n)"),
            "Line 30000 of /x (1 GiB) is too far to reach in time: use the terminal (sed -n)."
        );
    }

    #[test]
    fn files_named_through_links() {
        let (file, link) = (
            Path::new("/nonexistent"),
            Path::new("/home/u/files/dangling"),
        );
        assert_eq!(file_named(file, None), "/nonexistent");
        assert_eq!(
            file_named(file, Some(link)),
            "/nonexistent (through the link /home/u/files/dangling)"
        );
        assert_eq!(
            written(true, file, None, 13, 0),
            "Created /nonexistent (13 B)."
        );
        assert_eq!(
            written(true, file, Some(link), 13, 0),
            "Created /nonexistent (13 B, through the link /home/u/files/dangling)."
        );
        let big = Path::new("/data/big.txt");
        assert_eq!(
            written(false, big, None, 9, 2_000_000),
            "Replaced /data/big.txt (9 B, 1.9 MiB before)."
        );
        assert_eq!(
            written(
                false,
                big,
                Some(Path::new("/home/u/link.txt")),
                9,
                2_000_000
            ),
            "Replaced /data/big.txt (9 B, 1.9 MiB before, through the link /home/u/link.txt)."
        );
        assert_eq!(
            dangling_link(Path::new("/x/y"), true),
            " It is a symbolic link to /x/y, whose directory does not exist."
        );
        assert_eq!(
            dangling_link(Path::new("/x/y"), false),
            " It is a symbolic link to /x/y, which does not exist."
        );
    }

    #[test]
    fn directories() {
        let (a, b) = (PathBuf::from("/a"), PathBuf::from("/a/b"));
        assert_eq!(
            directories_created(&[a.clone(), b.clone()]),
            " Missing directories created: /a, /a/b. Check the path if you did not mean them."
        );
        assert_eq!(directories_undone(&[], &[]), "");
        assert_eq!(
            directories_undone(&[b], &[a]),
            " The directories made for it were removed: /a/b. Directories made for it were \
             left, no longer empty: /a."
        );
        assert_eq!(
            not_a_directory_above(Path::new("/f"), Path::new("/f/x")),
            "/f is not a directory: /f/x can not be written under it."
        );
    }

    #[test]
    fn sizes_in_their_largest_unit_with_one_decimal_at_most() {
        let cases = [
            (0, "0 B"),
            (14, "14 B"),
            (1023, "1023 B"),
            (1024, "1 KiB"),
            (80_000, "78.1 KiB"),
            (100 * 1024 + 13, "100 KiB"),
            (64 * 1024, "64 KiB"),
            (1024 * 1024 - 1, "1024 KiB"),
            (1024 * 1024, "1 MiB"),
            (3 << 30, "3 GiB"),
            (2 << 30, "2 GiB"),
            ((2 << 30) + 200 * 1024 * 1024, "2.2 GiB"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(size_text(bytes), expected, "{bytes} bytes");
        }
    }

    #[test]
    fn durations_in_their_largest_unit() {
        let cases = [
            (0, "0s"),
            (3, "3s"),
            (59, "59s"),
            (60, "1m"),
            (3599, "59m"),
            (3600, "1h"),
            (47 * 3600 + 3599, "47h"),
            (48 * 3600, "2d"),
            (10 * 86_400 + 5, "10d"),
        ];
        for (seconds, expected) in cases {
            assert_eq!(
                since_text(Duration::from_secs(seconds)),
                expected,
                "{seconds} s"
            );
        }
        // Seconds rounded to the nearest, never up from 3.06 s.
        for (millis, expected) in [(3060, "3s"), (3499, "3s"), (3500, "4s"), (3999, "4s")] {
            assert_eq!(
                since_text(Duration::from_millis(millis)),
                expected,
                "{millis} ms"
            );
        }
    }

    #[test]
    fn a_time_in_the_future_is_now() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        assert_eq!(ago_text(now + Duration::from_secs(30), now), "0s");
        assert_eq!(ago_text(now - Duration::from_secs(3), now), "3s");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(0, "line"), "0 lines");
        assert_eq!(plural(1, "line"), "1 line");
        assert_eq!(plural(20_000, "line"), "20000 lines");
    }
}
