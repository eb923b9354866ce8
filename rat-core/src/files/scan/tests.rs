use super::*;
use std::io::Write;
use std::time::Duration;

fn tally(bytes: &[u8], check: bool, pieces: usize) -> Tally {
    let mut scanner = Scanner::new(check);
    let size = bytes.len().div_ceil(pieces.max(1)).max(1);
    for piece in bytes.chunks(size) {
        scanner.feed(piece);
    }
    scanner.finish(true)
}

#[test]
fn the_same_tally_whole_or_in_any_pieces() {
    let text = "one\ntwo\ncafé ☕ 𝄞\n\nlast".as_bytes();
    let whole = tally(text, true, 1);
    assert_eq!(whole.lines(), 5);
    assert_eq!(whole.newlines, 4);
    assert_eq!(whole.not_text, None);
    for pieces in 2..=text.len() {
        assert_eq!(tally(text, true, pieces), whole, "{pieces} pieces");
    }
}

#[test]
fn offences_name_their_line_whole_or_in_pieces() {
    let nul = b"a\nb\nc\0\nd\n";
    let invalid = b"1\n2\n3\n4\n5\n6\ncaf\xe9\n8\n";
    let cut_at_end = b"a\nb\xe2\x98";
    for pieces in 1..=10 {
        assert_eq!(
            tally(nul, true, pieces).not_text,
            Some(NotText {
                offence: Offence::Nul,
                line: 3
            })
        );
        assert_eq!(
            tally(invalid, true, pieces).not_text,
            Some(NotText {
                offence: Offence::InvalidUtf8,
                line: 7
            })
        );
        assert_eq!(
            tally(cut_at_end, true, pieces).not_text,
            Some(NotText {
                offence: Offence::InvalidUtf8,
                line: 2
            })
        );
    }
    // the first offence wins
    assert_eq!(
        tally(b"a\n\xff\n\0", true, 1).not_text,
        Some(NotText {
            offence: Offence::InvalidUtf8,
            line: 2
        })
    );
    // not checked when not asked
    assert_eq!(tally(nul, false, 1).not_text, None);
}

#[test]
fn a_character_cut_by_a_read_is_not_an_offence() {
    let mut scanner = Scanner::new(true);
    scanner.feed("ab\u{e9}".as_bytes().split_last().unwrap().1);
    assert_eq!(scanner.finish(false).not_text, None);
}

fn file_with(content: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(content).unwrap();
    file
}

fn later() -> Instant {
    Instant::now() + Duration::from_secs(60)
}

#[test]
fn lines_found_from_the_start_and_from_the_end_across_chunks() {
    // lines of varied lengths, crossing chunk boundaries
    let mut content = Vec::new();
    let mut starts = Vec::new();
    for i in 0..40_000u64 {
        starts.push(content.len() as u64);
        content.extend(std::iter::repeat_n(b'x', (i % 97) as usize));
        content.push(b'\n');
    }
    let file = file_with(&content);
    let f = file.as_file();
    let size = content.len() as u64;
    for number in [1u64, 2, 1000, 39_999, 40_000] {
        let (start, _) = line_start(f, number, size, later()).unwrap().unwrap();
        assert_eq!(
            start,
            LineStart::At(starts[number as usize - 1]),
            "line {number}"
        );
    }
    assert_eq!(
        line_start(f, 40_001, size, later()).unwrap().unwrap().0,
        LineStart::Past { lines: 40_000 }
    );
    for count in [1u64, 2, 3000, 39_999] {
        let offset = line_from_end(f, count, size, later()).unwrap().unwrap();
        assert_eq!(
            offset,
            (starts[(40_000 - count) as usize], false),
            "-{count}"
        );
    }
    // as many lines as the file holds, or more: its start
    assert_eq!(
        line_from_end(f, 40_000, size, later()).unwrap(),
        Some((0, true))
    );
    assert_eq!(
        line_from_end(f, 40_001, size, later()).unwrap(),
        Some((0, true))
    );
    let counted = scan_file(f, 0, end_of(size), true, later())
        .unwrap()
        .unwrap();
    assert_eq!((counted.lines(), counted.bytes), (40_000, size));
}

#[test]
fn parts_scanned_at_once_add_up_to_a_single_pass() {
    // 1 MiB of 3-byte characters and lines of varied lengths, scanned in parts from 64 KiB
    // on: parts split characters
    let block: Vec<u8> = (0..41)
        .flat_map(|i| format!("{}\n", "☕".repeat(i)).into_bytes())
        .collect();
    let mut content = block.repeat((1 << 20) / block.len() + 1);
    content.extend(b"no new line at the end");
    let len = content.len() as u64;
    let scan = move |file: &File, check| scan_in_parts(file, 0, len, check, later(), 64 << 10);
    let file = file_with(&content);
    let single = tally(&content, true, 1);
    assert_eq!(single.not_text, None);
    assert_eq!(scan(file.as_file(), true).unwrap(), Some(single));
    let counted = Tally {
        not_text: None,
        ..single
    };
    assert_eq!(scan(file.as_file(), false).unwrap(), Some(counted));
    // an offence in the last part, reported on its line of the whole
    let at = content.len() - 1000;
    let line = bytecount::count(&content[..at], b'\n') as u64 + 1;
    content[at] = 0xFF;
    let file = file_with(&content);
    let offence = NotText {
        offence: Offence::InvalidUtf8,
        line,
    };
    assert_eq!(
        scan(file.as_file(), true).unwrap().unwrap().not_text,
        Some(offence)
    );
    assert_eq!(tally(&content, true, 1).not_text, Some(offence));
}

#[test]
fn a_last_line_without_a_new_line_counts() {
    let file = file_with(b"one\ntwo");
    let f = file.as_file();
    assert_eq!(
        line_start(f, 2, 7, later()).unwrap().unwrap().0,
        LineStart::At(4)
    );
    assert_eq!(
        line_start(f, 3, 7, later()).unwrap().unwrap().0,
        LineStart::Past { lines: 2 }
    );
    assert_eq!(line_from_end(f, 1, 7, later()).unwrap(), Some((4, false)));
    assert_eq!(
        scan_file(f, 0, 7, false, later()).unwrap().unwrap().lines(),
        2
    );
}

#[test]
fn a_deadline_passed_stops_a_scan_after_its_first_chunk() {
    // 3 chunks of lines of 64 bytes
    let line = [b"y".repeat(63), b"\n".to_vec()].concat();
    let content = line.repeat(3 * CHUNK / 64);
    let size = content.len() as u64;
    let file = file_with(&content);
    let f = file.as_file();
    let past = Instant::now();
    assert_eq!(scan_file(f, 0, size, false, past).unwrap(), None);
    assert_eq!(
        line_start(f, 3 * CHUNK as u64 / 64, size, past).unwrap(),
        None
    );
    assert_eq!(
        line_from_end(f, 3 * CHUNK as u64 / 64, size, past).unwrap(),
        None
    );
    // within the first chunk, from either end
    assert_eq!(
        line_start(f, 2, size, past).unwrap().unwrap().0,
        LineStart::At(64)
    );
    assert_eq!(
        line_from_end(f, 2, size, past).unwrap(),
        Some((size - 128, false))
    );
    let small = file_with(b"one\ntwo\n");
    assert_eq!(
        scan_file(small.as_file(), 0, 8, false, past)
            .unwrap()
            .unwrap()
            .lines(),
        2
    );
}
