//! The words of the file tools: sizes, relative times, counts, and the sentences of write_file's
//! answers and of the files they name (the file a symbolic link led to). One function each,
//! unit-tested, so that every result says them the same way.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

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

#[cfg(test)]
mod tests {
    use super::*;

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
