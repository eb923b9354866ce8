//! Unit tests of [`super`]: regions, echoes, prompts and blocks on made-up rows.

use super::*;

fn reach(window: &str) -> AnswerContext<'_> {
    AnswerContext {
        window,
        budget: crate::result::ReadBudget::DEFAULT,
        secrets: None,
    }
}

fn probe(history: u64, y: u64, x: u64) -> Probe {
    Probe {
        history,
        y,
        x,
        alternate: false,
        limit: 10_000,
        saved_y: 4_294_967_295,
        path: PathMark::Unset,
    }
}

#[test]
fn probes_parse() {
    assert_eq!(
        Probe::parse("12 3 10 0 10000 4294967295"),
        Some(probe(12, 3, 10))
    );
    assert_eq!(Probe::parse("12 3 10 0 10000"), None);
    let marked = |line: &str| Probe::parse(line).map(|p| p.path);
    assert_eq!(
        marked("12 3 10 0 10000 4294967295 rat:prompt:7"),
        Some(PathMark::Prompt(7))
    );
    assert_eq!(
        marked("12 3 10 0 10000 4294967295 file://host/a b"),
        Some(PathMark::Other)
    );
    assert_eq!(
        marked("12 3 10 0 10000 4294967295 rat:prompt:x"),
        Some(PathMark::Other)
    );
    assert_eq!(marked("12 3 10 0 10000 4294967295 "), Some(PathMark::Unset));
    assert!(PathMark::Unset.behind(1));
    assert!(PathMark::Prompt(6).behind(7));
    assert!(!PathMark::Prompt(7).behind(7));
    assert!(!PathMark::Prompt(8).behind(7));
    assert!(!PathMark::Other.behind(7));
    assert_eq!(Probe::parse("a 3 10 0 1"), None);
}

#[test]
fn history_dropped_or_cleared() {
    assert_eq!(rebase(500, 400, &probe(900, 0, 0)), Some(500));
    // Full: its oldest tenth dropped.
    assert_eq!(rebase(9_990, 9_980, &probe(9_100, 0, 0)), Some(8_990));
    // Cleared.
    assert_eq!(rebase(500, 400, &probe(30, 0, 0)), None);
}

#[test]
fn echo_rows_are_counted_whole() {
    let long = "x".repeat(250);
    let joined = [long.as_str(), "out"];
    let rows = ["x".repeat(200), "x".repeat(50), "out".into()];
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    assert_eq!(rows_of(&joined, &rows, 1), 2);
    assert_eq!(rows_of(&["", "a"], &["", "a"], 1), 1);
}

fn region(start: u64, end: u64) -> Region {
    Region {
        start: Some(start),
        end,
        echo: Some((1, "seq 3".into())),
        typed: None,
        before: None,
        twice: true,
        ps1_len: None,
        noted: None,
        since_last: false,
        prompt: None,
        after_tail: None,
        last_prompt: None,
    }
}

#[test]
fn an_echo_is_looked_for_where_the_history_drops_moved_it() {
    assert_eq!(echo_rows(500, &probe(400, 10, 2)), [500]);
    let full = probe(9_500, 20, 2);
    assert_eq!(
        echo_rows(9_400, &full),
        [
            9_400, 8_400, 7_400, 6_400, 5_400, 4_400, 3_400, 2_400, 1_400, 400
        ]
    );
    assert!(echo_at("$ make", "make", 2));
    assert!(!echo_at("make[1]: step 2001", "make", 2));
    assert!(echo_at("e2e$   ls -l", "ls -l", 5));
    assert!(echo_at("漢 $ seq 3", "seq 3", 4));
    assert!(echo_at("seq 3", "seq 3", 0));
}

#[test]
fn an_echo_made_twice_is_left_out_twice() {
    let r = region(0, 3);
    assert_eq!(
        block(
            reach("w"),
            &r,
            "$ seq 3\n$ seq 3\n1",
            "$ seq 3\n$ seq 3\n1",
            0,
            false,
            None
        ),
        "[1 row printed]\n1"
    );
}

#[test]
fn a_typed_ahead_echo_with_the_paste_marks_is_the_terminals_echo() {
    // tmux bracketed the paste (bash's line editor had not yet told tmux that it stopped
    // reading): the terminal echoed the marks with the text while the command ran.
    let typed = "echo two";
    let echoed = "^[[200~echo two^[[201~";
    assert_eq!(typed_line(&[echoed], typed, None), Some(0));
    assert_eq!(
        typed_line(&[echoed, "$ echo two", "two"], typed, Some("$ ")),
        Some(1)
    );
    assert_eq!(
        typed_line(&[echoed, "$ echo two", "two"], typed, None),
        Some(1)
    );
    assert_eq!(unmarked("^[[200~echo two^[[201~  "), "echo two");
    assert_eq!(unmarked("^[[200~first line"), "first line");
    assert_eq!(unmarked("echo ^[[200~x"), "echo ^[[200~x");
}

#[test]
fn a_text_typed_ahead_starts_after_the_prompt_that_read_it() {
    let typed = "sleep 1; echo second";
    // The terminal's echo while sleep ran, then the prompt showing it again.
    let joined = [typed, "$ sleep 1; echo second", "second"];
    assert_eq!(typed_line(&joined, typed, None), Some(1));
    // A prompt showing nothing before it: the terminal echoed nothing (no echo while the
    // command ran), the only line is the prompt's.
    assert_eq!(typed_line(&[typed, "second"], typed, None), Some(0));
    assert_eq!(typed_line(&["$ (exit 9)"], "(exit 9)", None), Some(0));
    // A row of the command before ending with the text: the prompt seen last shows.
    let joined_out = [
        "building: sleep 1; echo second",
        "$ sleep 1; echo second",
        "second",
    ];
    assert_eq!(typed_line(&joined_out, typed, None), Some(0));
    assert_eq!(typed_line(&joined_out, typed, Some("$ ")), Some(1));
    // The command before it read the text: no line shows it again.
    assert_eq!(typed_line(&["other"], typed, None), None);
    // Typed to cat: the terminal's echo, then cat's answer, the same text alone.
    assert_eq!(typed_line(&["hello", "hello"], "hello", None), Some(0));
    assert_eq!(
        typed_line(&["hello", "hello", "$ hello"], "hello", None),
        Some(2)
    );
    let r = Region {
        start: Some(0),
        end: 3,
        echo: None,
        typed: Some(typed.into()),
        before: None,
        twice: true,
        ps1_len: None,
        noted: None,
        since_last: false,
        prompt: None,
        after_tail: None,
        last_prompt: None,
    };
    let joined = joined.join("\n");
    assert_eq!(
        block(reach("w"), &r, &joined, &joined, 0, false, None),
        "[1 row printed]\nsecond"
    );
    // Sent before the echo of the command before it was drawn: that echo starts the rows.
    let r = Region {
        before: Some((1, "sleep 1; echo first".into())),
        ..r
    };
    let joined = "$ sleep 1; echo first\nfirst\n$ sleep 1; echo second\nsecond";
    assert_eq!(
        block(reach("w"), &r, joined, joined, 0, false, None),
        "[1 row printed]\nsecond"
    );
    assert_eq!(typed_left(&r, joined), None);
    // Only the terminal's echo so far: the text's prompt line is still to be seen.
    assert_eq!(
        typed_left(&r, "$ sleep 1; echo first\nsleep 1; echo second"),
        Some(typed.to_string())
    );
}

#[test]
fn output_before_the_prompt_on_its_row() {
    assert_eq!(tail("abc$ ", "$ "), Some("abc".into()));
    assert_eq!(tail("abc $", "$ "), Some("abc".into()));
    assert_eq!(tail("$ ", "$ "), None);
    assert_eq!(tail("$", "$ "), None);
    // Another prompt now (another directory in it, say): left out.
    assert_eq!(tail("abc ~/src$ ", "~$ "), None);
    assert_eq!(tail("abc", ""), Some("abc".into()));
    let r = Region {
        noted: Some((0, 2)),
        ..region(0, 2)
    };
    assert_eq!(prompt_of(&r, "$ seq 3\n1"), Some("$ ".into()));
    // After a command whose output had no final new line.
    let r = Region {
        noted: Some((0, 5)),
        after_tail: Some("abc".into()),
        ..region(0, 2)
    };
    assert_eq!(prompt_of(&r, "abc$ seq 3\n1"), Some("$ ".into()));
    // The echo's row drawn over by bash's line editor: the prompt found before.
    let r = Region {
        noted: Some((0, 5)),
        last_prompt: Some("$ ".into()),
        ..region(0, 2)
    };
    assert_eq!(prompt_of(&r, "abseq 3\n1"), Some("$ ".into()));
    let text = block(
        reach("w"),
        &region(0, 2),
        "$ seq 3\n1\n2",
        "$ seq 3",
        0,
        false,
        Some(("3".into(), false)),
    );
    assert_eq!(text, "[3 rows printed]\n1\n2\n3");
    let text = block(
        reach("w"),
        &region(0, 2),
        "$ seq 3\nxx",
        "$ seq 3",
        0,
        false,
        Some(("yy".into(), true)),
    );
    assert_eq!(text, "[1 row printed]\nxxyy");
}

#[test]
fn blocks() {
    let r = region(10, 14);
    assert_eq!(
        block(
            reach("w"),
            &r,
            "$ seq 3\n1\n2\n3",
            "$ seq 3\n",
            0,
            false,
            None
        ),
        "[3 rows printed]\n1\n2\n3"
    );
    assert_eq!(
        block(
            reach("w"),
            &Region {
                echo: Some((1, "true".into())),
                ..region(10, 11)
            },
            "$ true",
            "$ true",
            0,
            false,
            None
        ),
        "Nothing printed."
    );
    assert_eq!(
        block(reach("w"), &r, "$ seq 3\n1", "", 0, true, None),
        "A full-screen program holds the screen: read_window shows it."
    );
    // The echo gone from its row: cleared.
    assert_eq!(
        block(reach("w"), &r, "1\n2", "1\n2", 0, false, None),
        "[its first rows are gone (scrolled out of the history, or cleared): 2 rows left]\n1\n2"
    );
    let many: Vec<String> = (1..=100).map(|n| n.to_string()).collect();
    let joined = format!("$ seq 3\n{}", many.join("\n"));
    let text = block(
        reach("w"),
        &region(0, 101),
        &joined,
        "$ seq 3\n1",
        90,
        false,
        None,
    );
    let (header, rows) = text.split_once('\n').unwrap();
    assert_eq!(
        header,
        "[100 rows printed, the last 40 below; read_window w with scrollback_rows 89 shows them from the first]"
    );
    assert_eq!(rows, many[60..].join("\n"));
    let long = "é".repeat(10_000);
    let text = block(
        reach("w"),
        &region(0, 2),
        &format!("$ seq 3\n{long}"),
        "$ seq 3\n",
        0,
        false,
        None,
    );
    assert!(text.len() < KEPT_BYTES + 200, "{}", text.len());
    assert!(text.starts_with(
        "[1 row printed, the end of the last one below; read_window w shows them from the first]\n"
    ));
}

#[test]
fn a_cut_block_from_marks_names_the_rows_left_out_by_number() {
    let lines =
        |all: Vec<String>, first: u64, reported_before: bool| crate::terminals::transcript::Lines {
            whole: all.len(),
            rows: all.len() as u64,
            lines: all,
            gone: 0,
            first,
            reported_before,
        };
    let many: Vec<String> = (1..=101).map(|n| n.to_string()).collect();
    let text = marked::block(reach("w"), &lines(many.clone(), 1, false), None, true);
    let (header, rows) = text.split_once('\n').unwrap();
    assert_eq!(
        header,
        "[101 rows printed, the last 40 below; read_window w with output_rows {\"from\": 1, \"to\": 61} shows the others]"
    );
    assert_eq!(rows, many[61..].join("\n"));
    // Rows since the last answer, numbered from the command's first.
    let text = marked::block(
        reach("w"),
        &lines(many[50..].to_vec(), 51, true),
        None,
        true,
    );
    assert!(
        text.starts_with(
            "[51 rows printed since the last answer, the last 40 below; read_window w with \
             output_rows {\"from\": 51, \"to\": 61} shows the others]\n"
        ),
        "{text}"
    );
    // One line longer than an answer holds: shown by its end, and read whole by number.
    let text = marked::block(
        reach("w"),
        &lines(vec!["é".repeat(10_000)], 7, false),
        None,
        true,
    );
    assert!(
        text.starts_with(
            "[1 row printed, the end of the last one below; read_window w with output_rows \
             {\"from\": 7, \"to\": 7} shows it in full]\n"
        ),
        "{text}"
    );
    // Not numbered (several commands, or not the window's current one): the scrollback.
    let text = marked::block(reach("w"), &lines(many.clone(), 1, false), None, false);
    assert!(
        text.starts_with(
            "[101 rows printed, the last 40 below; read_window w shows them from the first]\n"
        ),
        "{text}"
    );
}
