//! The unit tests of the file tools' words and sentences, each against its exact text.

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

#[test]
fn paths_refused() {
    assert_eq!(
        path_names_a_directory("/x/", "/"),
        "Path \"/x/\" ends with \"/\", which names a directory: write_file writes a file; give \
         the path of the file."
    );
    assert_eq!(
        path_with_nul("/x\0"),
        "Path \"/x\\0\" holds a NUL byte, which no file name can hold."
    );
    assert_eq!(
        home_unknown("~/x"),
        "Path \"~/x\" starts with ~/, but the home directory is unknown: give an absolute path."
    );
    assert_eq!(
        another_users_home("~bob/x"),
        "Path \"~bob/x\" names another user's home (~user), which rat does not look up: give an \
         absolute path, or one starting with ~/ for your own home."
    );
    assert_eq!(
        path_relative("x.txt"),
        "Path \"x.txt\" is relative: give an absolute path, or one starting with ~/ \
         (list_windows shows the directories of your windows)."
    );
}

#[test]
fn failures() {
    let x = Path::new("/x");
    assert_eq!(
        a_directory(x, true),
        "/x is a directory, not a file: list it in the terminal (ls)."
    );
    assert_eq!(a_directory(x, false), "/x is a directory, not a file.");
    assert_eq!(
        not_regular(x, "a FIFO", true),
        "/x is not a regular file (a FIFO): read_file only reads regular files."
    );
    assert_eq!(
        not_regular(x, "a device", false),
        "/x is not a regular file (a device): write_file only writes regular files."
    );
    let denied = Failed::Denied {
        verb: "written",
        user: "alice",
    };
    assert_eq!(
        failed(&writing(x.display()), x, &denied, false),
        "Permission denied: /x can not be written by alice, the user the terminals run as."
    );
    let full = Failed::Os("no space left on device".into());
    assert_eq!(
        failed(&writing("/x"), x, &full, true),
        "Writing /x failed: no space left on device. The file may be partial: write it again \
         once fixed."
    );
    assert_eq!(
        failed(&reading("/x"), x, &Failed::Internal, false),
        "Reading /x failed: internal error, logged."
    );
    assert_eq!(creating("/d"), "Creating /d");
    assert_eq!(
        write_not_answered("/x"),
        "The file system did not answer in time: /x may still be written, partially or not. \
         Check it before writing again."
    );
    assert_eq!(
        read_not_answered("/x"),
        "The file system did not answer in time: /x could not be read."
    );
    assert_eq!(
        write_cut_short(4 << 20, "2026-12-04 16:20:01 UTC"),
        "A write_file of 4 MiB to this file was cut short at 2026-12-04 16:20:01 UTC: ratd ended \
         during it. The file may be partial or empty: check it, and write it again if needed."
    );
}
