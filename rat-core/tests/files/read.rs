//! read_file through its public API, against real files, FIFOs, devices and /proc
//! (`docs/design/files.md`). Results are snapshot-tested: agents read them.

use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

use crate::common::*;
use rat_core::files::text::size_text;
use rat_core::files::{ReadFile, read_file};
use rat_core::result::{Outcome, ReadBudget};

/// The lines `line 1` to `line count`, each ending with a new line.
fn numbered_lines(count: u64) -> String {
    (1..=count).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn whole_files_exact_with_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let small = file(&dir.path().join("small.txt"), "one\ntwo\nno end");
    let result = read(&small).await;
    assert!(
        result.text.ends_with("]\none\ntwo\nno end"),
        "exact, nothing added"
    );
    t.add("read small.txt", &result);
    let ended = file(&dir.path().join("ended.txt"), "é ☕ 𝄞\n\n");
    let result = read(&ended).await;
    assert!(
        result.text.ends_with("]\né ☕ 𝄞\n\n"),
        "the final new line kept"
    );
    t.add("read ended.txt", &result);
    t.add(
        "read small.txt, line_numbers",
        &read_range(&small, None, None, Some(true)).await,
    );
    let empty = file(&dir.path().join("empty.txt"), "");
    t.add("read empty.txt", &read(&empty).await);
    t.add(
        "read empty.txt, start_line -3",
        &read_range(&empty, Some(-3), None, None).await,
    );
    t.add(
        "read missing.txt",
        &read(&dir.path().join("missing.txt").display().to_string()).await,
    );
    t.add("read notes.txt", &read("notes.txt").await);
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn ranges_from_the_start_and_from_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let hundred = file(&dir.path().join("hundred.txt"), numbered_lines(100));
    for (start_line, max_lines, line_numbers) in [
        (Some(10), Some(3), None),
        (None, Some(2), None),
        (Some(0), Some(2), None),
        (Some(100), None, None),
        (Some(-3), None, None),
        (Some(-3), Some(1), Some(true)),
        (Some(-500), Some(1), None),
        (Some(98), Some(10), Some(true)),
        (Some(101), None, None),
    ] {
        t.add(
            &format!("read hundred.txt, start_line {start_line:?} max_lines {max_lines:?} line_numbers {line_numbers:?}"),
            &read_range(&hundred, start_line, max_lines, line_numbers).await,
        );
    }
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn the_read_budget_header_included() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let content = numbered_lines(20_000);
    let big = file(&dir.path().join("big.txt"), &content);
    let result = read(&big).await;
    assert_eq!(
        result.outcome,
        Outcome::Message,
        "not an error: the agent picks a range"
    );
    t.add("read big.txt", &result);
    // read on from each cut: the whole file back, each result within the budget
    let mut back = String::new();
    let mut start = 1;
    let mut cuts = Vec::new();
    loop {
        let result = read_range(&big, Some(start), None, None).await;
        assert!(result.text.len() <= ReadBudget::DEFAULT.bytes());
        let (header, lines) = result.text.split_once("]\n").unwrap();
        back += lines;
        match header.rsplit_once("continue with start_line ") {
            Some((_, next)) => {
                cuts.push(result.clone());
                start = next.parse().unwrap();
            }
            None => {
                cuts.push(result);
                break;
            }
        }
    }
    assert_eq!(back, content, "the whole file back");
    for cut in &cuts {
        t.note(&format!(
            "read big.txt, start_line from the cut before: {}",
            cut.text.lines().next().unwrap()
        ));
    }
    let long = file(
        &dir.path().join("long.txt"),
        format!("short\n{}\nafter\n", "x".repeat(100 * 1024)),
    );
    let result = read_range(&long, Some(1), None, None).await;
    t.add("read long.txt, start_line 1", &result);
    t.add(
        "read long.txt, start_line 2",
        &read_range(&long, Some(2), None, None).await,
    );
    let minified = file(&dir.path().join("min.js"), "m".repeat(100 * 1024));
    t.add("read min.js", &read(&minified).await);
    t.add(
        "read min.js, start_line 1",
        &read_range(&minified, Some(1), None, None).await,
    );
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn only_text_the_line_of_the_first_offence_told() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let nul = file(&dir.path().join("nul.bin"), "one\ntwo\nth\0ree\nfour\n");
    t.add("read nul.bin", &read(&nul).await);
    let latin1 = file(
        &dir.path().join("latin1.txt"),
        b"1\n2\n3\n4\n5\n6\ncaf\xe9\n8\n".as_slice(),
    );
    t.add("read latin1.txt", &read(&latin1).await);
    t.add(
        "read latin1.txt, start_line 5 max_lines 5",
        &read_range(&latin1, Some(5), Some(5), None).await,
    );
    // the lines before the offence are text
    t.add(
        "read latin1.txt, start_line 1 max_lines 6",
        &read_range(&latin1, Some(1), Some(6), None).await,
    );
    // over the budget: its start is checked all the same
    let mut start_binary = vec![b'\0'; 10];
    start_binary.extend(numbered_lines(20_000).into_bytes());
    let large = file(&dir.path().join("large.bin"), start_binary);
    t.add("read large.bin", &read(&large).await);
    // a character cut by the budget is not an offence
    let accents = file(&dir.path().join("accents.txt"), "é".repeat(40_000));
    t.add("read accents.txt", &read(&accents).await);
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn only_regular_files_are_read_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let link_to_fifo = dir.path().join("link-to-fifo");
    symlink(&fifo, &link_to_fifo).unwrap();
    let target = file(&dir.path().join("target.txt"), "through the link\n");
    let link = dir.path().join("link.txt");
    symlink(&target, &link).unwrap();
    let started = Instant::now();
    t.add("read fifo", &read(&fifo.display().to_string()).await);
    t.add(
        "read link-to-fifo",
        &read(&link_to_fifo.display().to_string()).await,
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "never blocks on a FIFO"
    );
    t.add("read /dev/zero", &read("/dev/zero").await);
    t.add(
        "read the directory",
        &read(&dir.path().display().to_string()).await,
    );
    t.add("read link.txt", &read(&link.display().to_string()).await);
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn a_sparse_file_of_2_gib_read_from_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse.log");
    let mut sparse = fs::File::create(&path).unwrap();
    sparse.seek(SeekFrom::Start(2 << 30)).unwrap();
    sparse.write_all(b"\nsecond to last\nlast line\n").unwrap();
    drop(sparse);
    age(&path);
    let shown_path = path.display().to_string();

    // a call of 2 s, to scan for 1 s at most: reading backwards needs none of it
    let started = Instant::now();
    let result = read_file(
        ReadFile {
            path: shown_path.clone(),
            start_line: Some(-2),
            ..Default::default()
        },
        ReadBudget::DEFAULT,
        Duration::from_secs(2),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(2));
    let (header, content) = result.text.split_once("]\n").unwrap();
    assert_eq!(content, "second to last\nlast line\n");
    assert_eq!(result.outcome, Outcome::Ok);
    // counted, or not in time on a slow disk: the time is not asserted
    assert!(
        header.ends_with("lines 2 to 3 of 3, 2 GiB, modified 3h ago")
            || header.ends_with(
                "lines -2 to -1 counted from the end, 2 GiB (too large to count its lines), modified 3h ago"
            ),
        "{header}"
    );

    // without a range, its start is checked: NUL bytes
    let mut t = Transcript::new(dir.path());
    t.add("read sparse.log", &read(&shown_path).await);
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn proc_files_are_read_to_their_end() {
    let result = read("/proc/self/status").await;
    assert_eq!(result.outcome, Outcome::Ok, "{}", result.text);
    let (header, content) = result.text.split_once("]\n").unwrap();
    let lines = content.lines().count();
    let expected = format!(
        "[/proc/self/status: {lines} lines, {}, modified ",
        size_text(content.len() as u64)
    );
    assert!(header.starts_with(&expected), "{header} / {expected}");
    assert!(content.starts_with("Name:\t"));
    assert!(content.contains("\nUmask:\t"));
    assert!(content.ends_with('\n'));
    let last = read_range("/proc/self/status", Some(-1), None, None).await;
    assert_eq!(last.outcome, Outcome::Ok, "{}", last.text);
    let (header, line) = last.text.split_once("]\n").unwrap();
    assert!(
        header.starts_with(&format!("[/proc/self/status: line {lines} of {lines}, ")),
        "{header}"
    );
    assert_eq!(line.lines().count(), 1);
}

#[tokio::test]
async fn a_file_growing_while_read_is_read_up_to_its_size_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.log");
    fs::write(&path, numbered_lines(10)).unwrap();
    let shown_path = path.display().to_string();
    // a command appends meanwhile
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut log = fs::File::options().append(true).open(&path).unwrap();
            for i in 11..=3000 {
                log.write_all(format!("line {i}\n").as_bytes()).unwrap();
            }
        })
    };
    while !writer.is_finished() {
        // every result is consistent: the lines told are the lines sent, whole, and their size
        let result = read_range(&shown_path, Some(1), None, None).await;
        let (header, content) = result.text.split_once("]\n").unwrap();
        let lines = content.lines().count();
        assert!(content.ends_with('\n'), "whole lines");
        assert!(
            header.contains(&format!(": lines 1 to {lines} of {lines}, "))
                || header.contains("cut to the read budget"),
            "{header}"
        );
    }
    writer.join().unwrap();
}

#[tokio::test]
async fn a_file_under_the_budget_over_it_with_its_header_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    // 65480 bytes (63.9 KiB) of 99-letter lines: under the 64 KiB budget alone, over it with the
    // header (some 60 bytes).
    let mut content = "y".repeat(99) + "\n";
    content = content.repeat(654);
    content.push_str(&"z".repeat(80));
    assert_eq!(content.len(), 65_480);
    let near = file(&dir.path().join("near.txt"), &content);
    t.add("read near.txt", &read(&near).await);
    t.add(
        "read near.txt, line numbers",
        &read_range(&near, None, None, Some(true)).await,
    );
    insta::assert_snapshot!(t.finish(), @r"
    > read near.txt
    message path=[DIR]/near.txt lines=0 cut=false counted=true size=65480
    [DIR]/near.txt holds 63.9 KiB, 655 lines, modified 3h ago: with its header, more than the read budget (64 KiB). Read a range with start_line and max_lines (start_line -100 for the last 100 lines).

    > read near.txt, line numbers
    message path=[DIR]/near.txt lines=0 cut=false counted=true size=65480
    [DIR]/near.txt holds 63.9 KiB, 655 lines, modified 3h ago: with its header and line numbers, more than the read budget (64 KiB). Read a range with start_line and max_lines (start_line -100 for the last 100 lines).
    ");
}

/// Through a link, the answer names the file really read, then the link: a relative link, a
/// chain of links, a range, a file over the budget; a dangling link reads nothing.
#[tokio::test]
async fn the_file_read_through_a_link_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("files")).unwrap();
    fs::create_dir_all(root.join("elsewhere")).unwrap();
    file(&root.join("elsewhere/notes.txt"), "one\ntwo\nthree\n");
    file(&root.join("elsewhere/big.txt"), "y\n".repeat(100_000));
    symlink("../elsewhere/notes.txt", root.join("files/relative")).unwrap();
    symlink("relative", root.join("files/chained")).unwrap();
    symlink(root.join("files/chained"), root.join("files/chained-twice")).unwrap();
    symlink(root.join("elsewhere/big.txt"), root.join("files/big")).unwrap();
    symlink(root.join("elsewhere/none.txt"), root.join("files/dangling")).unwrap();
    symlink("dangling", root.join("files/chained-dangling")).unwrap();
    let mut t = Transcript::new(root);
    let at = |name: &str| root.join(name).display().to_string();
    t.add("read files/relative", &read(&at("files/relative")).await);
    t.add(
        "read files/chained-twice",
        &read(&at("files/chained-twice")).await,
    );
    t.add(
        "read files/chained lines 2 to 2",
        &read_range(&at("files/chained"), Some(2), Some(1), None).await,
    );
    t.add("read files/big", &read(&at("files/big")).await);
    t.add("read files/dangling", &read(&at("files/dangling")).await);
    t.add(
        "read files/chained-dangling",
        &read(&at("files/chained-dangling")).await,
    );
    t.add(
        "read elsewhere/notes.txt",
        &read(&at("elsewhere/notes.txt")).await,
    );
    insta::assert_snapshot!(t.finish(), @r"
    > read files/relative
    ok path=[DIR]/files/relative lines=3 bytes=134 cut=false counted=true size=14
    [[DIR]/elsewhere/notes.txt (through the link [DIR]/files/relative): 3 lines, 14 B, modified 3h ago]
    one
    two
    three


    > read files/chained-twice
    ok path=[DIR]/files/chained-twice lines=3 bytes=139 cut=false counted=true size=14
    [[DIR]/elsewhere/notes.txt (through the link [DIR]/files/chained-twice): 3 lines, 14 B, modified 3h ago]
    one
    two
    three


    > read files/chained lines 2 to 2
    ok path=[DIR]/files/chained lines=1 bytes=127 cut=false counted=true size=14
    [[DIR]/elsewhere/notes.txt (through the link [DIR]/files/chained): line 2 of 3, 14 B, modified 3h ago]
    two


    > read files/big
    message path=[DIR]/files/big lines=0 cut=false counted=true size=200000
    [DIR]/elsewhere/big.txt (through the link [DIR]/files/big) holds 195.3 KiB, 100000 lines, modified 3h ago: more than the read budget (64 KiB). Read a range with start_line and max_lines (start_line -100 for the last 100 lines).

    > read files/dangling
    refused (ENOENT: No such file or directory (os error 2)) path=[DIR]/files/dangling
    Reading [DIR]/files/dangling failed: no such file or directory. It is a symbolic link to [DIR]/elsewhere/none.txt, which does not exist.

    > read files/chained-dangling
    refused (ENOENT: No such file or directory (os error 2)) path=[DIR]/files/chained-dangling
    Reading [DIR]/files/chained-dangling failed: no such file or directory. It is a symbolic link to [DIR]/elsewhere/none.txt, which does not exist.

    > read elsewhere/notes.txt
    ok path=[DIR]/elsewhere/notes.txt lines=3 bytes=84 cut=false counted=true size=14
    [[DIR]/elsewhere/notes.txt: 3 lines, 14 B, modified 3h ago]
    one
    two
    three
    ");
}
