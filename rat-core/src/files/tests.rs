//! Unit tests of what the public API can not reach deterministically: the failure texts of every
//! errno (root bypasses permissions), the opens without blocking, scans cut by their deadline,
//! and times given against an injected clock.

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use super::*;

/// The text of `result`, its outcome, and the log facts but the path, with `dir` shown as `[DIR]`.
fn shown(result: &ToolResult, dir: &Path) -> String {
    let outcome = match &result.outcome {
        Outcome::Ok => "ok".to_owned(),
        Outcome::Message => "message".to_owned(),
        Outcome::Refused { cause } => format!("refused ({cause})"),
        Outcome::Failed { cause } => format!("failed ({cause})"),
    };
    let facts: Vec<String> = result
        .log
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    format!("{outcome} {}\n{}", facts.join(" "), result.text)
        .replace(&dir.display().to_string(), "[DIR]")
}

#[test]
fn failure_texts_give_the_system_reason_and_name_the_user() {
    let path = Path::new("/srv/app/config.toml");
    let cases = [
        (Some(Errno::EACCES), Access::Write, false),
        (Some(Errno::EACCES), Access::Read, false),
        (Some(Errno::EACCES), Access::Create, false),
        (Some(Errno::ENOSPC), Access::Write, true),
        (Some(Errno::EROFS), Access::Write, false),
        (Some(Errno::ENOENT), Access::Read, false),
        (Some(Errno::EIO), Access::Read, false),
        (Some(Errno::EDQUOT), Access::Write, true),
        (None, Access::Write, false),
    ];
    let texts: Vec<String> = cases
        .iter()
        .map(|&(errno, access, partial)| {
            let what = match access {
                Access::Read => "Reading /srv/app/config.toml",
                Access::Write => "Writing /srv/app/config.toml",
                Access::Create => "Creating /srv/app",
            };
            failure_text(errno, what, path, access, "nobody", partial)
        })
        .collect();
    insta::assert_snapshot!(texts.join("\n"), @r"
    Permission denied: /srv/app/config.toml can not be written by nobody, the user the terminals run as.
    Permission denied: /srv/app/config.toml can not be read by nobody, the user the terminals run as.
    Permission denied: /srv/app/config.toml can not be created by nobody, the user the terminals run as.
    Writing /srv/app/config.toml failed: no space left on device. The file may be partial: write it again once fixed.
    Writing /srv/app/config.toml failed: read-only file system.
    Reading /srv/app/config.toml failed: no such file or directory.
    Reading /srv/app/config.toml failed: input/output error.
    Writing /srv/app/config.toml failed: disk quota exceeded. The file may be partial: write it again once fixed.
    Writing /srv/app/config.toml failed: internal error, logged.
    ");
}

#[test]
fn failures_the_agent_did_not_cause_are_warnings() {
    let path = Path::new("/x");
    let outcome = |errno: i32| {
        failure(
            &io::Error::from_raw_os_error(errno),
            "Writing /x",
            path,
            Access::Write,
            false,
        )
        .outcome
    };
    assert!(matches!(outcome(libc::EACCES), Outcome::Refused { .. }));
    assert!(matches!(outcome(libc::EROFS), Outcome::Refused { .. }));
    assert!(matches!(outcome(libc::ENOENT), Outcome::Refused { .. }));
    assert!(matches!(outcome(libc::ENOSPC), Outcome::Failed { .. }));
    assert!(matches!(outcome(libc::EIO), Outcome::Failed { .. }));
    let internal = failure(
        &io::Error::other("boom"),
        "Writing /x",
        path,
        Access::Write,
        false,
    );
    assert_eq!(
        internal.outcome,
        Outcome::Failed {
            cause: "boom".into()
        }
    );
}

#[test]
fn the_user_is_the_effective_one() {
    let expected = nix::unistd::User::from_uid(nix::unistd::geteuid())
        .unwrap()
        .map(|user| user.name);
    assert_eq!(Some(user_name()), expected);
}

#[test]
fn paths_are_absolute_or_from_home() {
    let home = std::env::home_dir().unwrap();
    assert_eq!(absolute_path("/a//b/./c/").unwrap(), Path::new("/a/b/c"));
    assert_eq!(absolute_path("/a/../b").unwrap(), Path::new("/a/../b"));
    assert_eq!(absolute_path("~").unwrap(), home);
    assert_eq!(absolute_path("~/x/y").unwrap(), home.join("x/y"));
    let refused = absolute_path("~alice/x").unwrap_err();
    assert_eq!(
        refused.text,
        "Path \"~alice/x\" names another user's home (~user), which rat does not look up: give \
         an absolute path, or one starting with ~/ for your own home."
    );
    assert_eq!(
        refused.outcome,
        Outcome::Refused {
            cause: "another user's home".into()
        }
    );
    for relative in ["notes.txt", "./notes.txt", ""] {
        let refused = absolute_path(relative).unwrap_err();
        assert_eq!(
            refused.text,
            format!(
                "Path {relative:?} is relative: give an absolute path, or one starting with ~/ \
                 (list_windows shows the directories of your windows)."
            )
        );
        assert_eq!(
            refused.outcome,
            Outcome::Refused {
                cause: "relative path".into()
            }
        );
    }
    assert_eq!(
        absolute_path("/a\0b").unwrap_err().text,
        r#"Path "/a\0b" holds a NUL byte, which no file name can hold."#
    );
}

#[test]
fn a_fifo_without_a_reader_fails_to_open_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let error = write::open(&fifo).unwrap_err();
    assert_eq!(error.raw_os_error(), Some(libc::ENXIO));
    // with a reader, it opens without blocking, and is refused once open (fstat)
    let _reader = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let (opened, created) = write::open(&fifo).unwrap();
    assert!(!created);
    let refused = not_regular(&fifo, opened.metadata().unwrap().file_type(), Access::Write);
    insta::assert_snapshot!(shown(&refused.unwrap(), dir.path()), @r"
    refused (not a regular file: a FIFO) 
    [DIR]/fifo is not a regular file (a FIFO): write_file only writes regular files.
    ");
}

/// A file of `lines` lines `line N` (1 MiB for 100000 lines... about), modified at `modified`.
fn numbered_file(dir: &Path, name: &str, lines: u64, modified: SystemTime) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut file = File::create(&path).unwrap();
    let mut content = String::new();
    for i in 1..=lines {
        content += &format!("line {i}\n");
    }
    file.write_all(content.as_bytes()).unwrap();
    file.set_modified(modified).unwrap();
    path
}

fn read_at(
    path: &Path,
    start_line: i64,
    max_lines: u64,
    scan_deadline: Instant,
    now: SystemTime,
) -> ToolResult {
    let input = ReadFile {
        path: path.display().to_string(),
        start_line: Some(start_line),
        max_lines: Some(max_lines),
        line_numbers: None,
    };
    read::read_now(path, &input, ReadBudget::DEFAULT, scan_deadline, now)
}

#[test]
fn scans_cut_by_their_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
    let now = modified + Duration::from_secs(3);
    // 200000 lines, 1.6 MiB: several chunks of scanning
    let path = numbered_file(dir.path(), "big.log", 200_000, modified);
    let past = Instant::now();
    let results = [
        // from the start: reached within the first chunk, the total not counted
        read_at(&path, 3, 2, past, now),
        // out of reach from the start
        read_at(&path, 150_000, 2, past, now),
        // from the end: reached backwards, numbered from the end
        read_at(&path, -3, 0, past, now),
        read_at(&path, -100, 10, past, now),
        // out of reach from the end
        read_at(&path, -150_000, 2, past, now),
        // the whole file, over the budget: not counted
        read::read_now(
            &path,
            &ReadFile {
                path: String::new(),
                ..Default::default()
            },
            ReadBudget::DEFAULT,
            past,
            now,
        ),
        // in time, the same ranges are numbered from the start and counted
        read_at(&path, -3, 0, Instant::now() + Duration::from_secs(60), now),
    ];
    let shown: Vec<String> = results.iter().map(|r| shown(r, dir.path())).collect();
    insta::assert_snapshot!(shown.join("\n\n"));
}

#[test]
fn a_range_from_the_end_cut_keeps_numbering_from_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
    let now = modified + Duration::from_secs(3 * 3600 + 1800);
    let path = dir.path().join("wide.log");
    // 20000 lines of 100 bytes, several chunks: the last 1000 do not fit 64 KiB
    let line = format!("{}\n", "w".repeat(99));
    fs::write(&path, line.repeat(20_000)).unwrap();
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let result = read_at(&path, -1000, 0, Instant::now(), now);
    let header = result.text.lines().next().unwrap().to_owned();
    assert_eq!(
        header.replace(&dir.path().display().to_string(), "[DIR]"),
        "[[DIR]/wide.log: lines -1000 to -349 counted from the end, 1.9 MiB (too large to count \
         its lines), modified 3h ago; cut to the read budget (64 KiB): continue with start_line -348]"
    );
    assert_eq!(result.text.len() - header.len() - 1, 652 * 100);
}

#[test]
fn a_line_too_long_to_size_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("minified.js");
    fs::write(&path, "x".repeat(4 * scan::CHUNK)).unwrap();
    let now = SystemTime::now();
    let result = read_at(&path, 1, 0, Instant::now(), now);
    insta::assert_snapshot!(shown(&result, dir.path()), @r"
    refused (a line over the read budget) size=1048576
    Line 1 of [DIR]/minified.js holds more than 256 KiB alone, more than the read budget (64 KiB): read it in the terminal (head -c, cut -c).
    ");
}

#[test]
fn a_file_growing_is_read_as_it_was_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
    let now = modified + Duration::from_secs(3);
    let path = numbered_file(dir.path(), "growing.log", 3, modified);
    let later = Instant::now() + Duration::from_secs(60);
    let mut results = Vec::new();
    for (start_line, max_lines) in [(0, 0), (1, 0), (-2, 0), (2, 5)] {
        let opened = read::open(&path).unwrap_or_else(|_| panic!("{path:?} opens"));
        // a command appends to it meanwhile
        let mut log = File::options().append(true).open(&path).unwrap();
        log.write_all(b"line 4\nline 5\n").unwrap();
        let input = ReadFile {
            path: String::new(),
            start_line: Some(start_line),
            max_lines: Some(max_lines),
            line_numbers: None,
        };
        let result = read::read_opened(&path, opened, &input, ReadBudget::DEFAULT, later, now);
        results.push(shown(&result, dir.path()));
        // as it was again
        fs::write(&path, "line 1\nline 2\nline 3\n").unwrap();
        let file = File::options().write(true).open(&path).unwrap();
        file.set_modified(modified).unwrap();
    }
    insta::assert_snapshot!(results.join("\n"));
}

#[tokio::test]
async fn a_file_system_not_answering_ends_the_call_at_its_deadline() {
    let started = Instant::now();
    let result = within(
        Duration::from_millis(100),
        || {
            std::thread::sleep(Duration::from_secs(3));
            ToolResult::ok("too late")
        },
        || "broken".to_owned(),
        || "The file system did not answer in time: /mnt/nfs/x could not be read.".to_owned(),
    )
    .await;
    // Long before the work's 3 s (the deadline is 100 ms): room for a loaded machine.
    assert!(started.elapsed() < Duration::from_millis(2500));
    assert_eq!(
        result,
        ToolResult::failed(
            "The file system did not answer in time: /mnt/nfs/x could not be read.",
            "the file system did not answer within 100ms"
        )
    );
}

#[test]
fn input_schemas_and_descriptions() {
    let schemas = serde_json::to_string_pretty(&serde_json::json!({
        "write_file": schemars::schema_for!(WriteFile),
        "read_file": schemars::schema_for!(ReadFile),
    }))
    .unwrap();
    let budget = ReadBudget::new(20 * 1024).unwrap();
    insta::assert_snapshot!(format!(
        "{schemas}\n\n{}\n\n{}\n\n{}",
        write_file_description(),
        read_file_description(ReadBudget::DEFAULT),
        read_file_description(budget)
    ));
}

#[test]
fn inputs_parse_with_their_defaults() {
    let read: ReadFile = serde_json::from_str(r#"{"path": "/x"}"#).unwrap();
    assert_eq!(
        read,
        ReadFile {
            path: "/x".into(),
            ..Default::default()
        }
    );
    let read: ReadFile = serde_json::from_str(
        r#"{"path": "/x", "start_line": -100, "max_lines": 5, "line_numbers": true}"#,
    )
    .unwrap();
    assert_eq!(
        (read.start_line, read.max_lines, read.line_numbers),
        (Some(-100), Some(5), Some(true))
    );
    assert!(serde_json::from_str::<ReadFile>(r#"{"path": "/x", "max_lines": -1}"#).is_err());
    assert!(serde_json::from_str::<WriteFile>(r#"{"path": "/x"}"#).is_err());
}
