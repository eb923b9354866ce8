//! The transcript's rules, on bytes as bash and rat's hook print them, without tmux.

use super::*;

const SHELL: u32 = 4242;

fn id(prompt: u64) -> MarkId {
    MarkId {
        shell: SHELL,
        prompt,
    }
}

fn a(k: u64) -> String {
    format!("\x1b]133;A;rat={SHELL}:{k}\x1b\\")
}

fn c(k: u64) -> String {
    format!("\x1b]133;C;rat={SHELL}:{k}\x1b\\")
}

fn d(k: u64, status: i32) -> String {
    format!("\x1b]133;D;{status};rat={SHELL}:{k}\x1b\\")
}

/// A command typed at prompt 1 printing `output` and exiting with `status`, as bash shows it:
/// prompt, echo, output mark, output, end mark, next prompt.
fn command(output: &str, status: i32) -> String {
    format!(
        "{}$ cmd\r\n{}{}{}{}$ ",
        a(1),
        c(1),
        output,
        d(1, status),
        a(2)
    )
}

/// The lines reported of the command typed at prompt `k`, and its end.
fn lines(t: &mut Transcript, k: u64) -> (Vec<String>, Option<Option<i32>>) {
    match t.report(id(k)) {
        Some(Report::Framed { lines, ended, .. }) => (lines.lines, ended),
        other => panic!("not framed: {other:?}"),
    }
}

fn run(output: &str) -> Vec<String> {
    let mut t = Transcript::new(80, 24);
    t.feed(command(output, 0).as_bytes());
    lines(&mut t, 1).0
}

fn strings(l: &[&str]) -> Vec<String> {
    l.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_command_s_rows_are_between_its_output_and_end_marks() {
    let mut t = Transcript::new(80, 24);
    t.feed(command("hi\r\nthere\r\n", 3).as_bytes());
    assert_eq!(lines(&mut t, 1), (strings(&["hi", "there"]), Some(Some(3))));
    assert_eq!(t.prompt(), Some(id(2)));
    // Reported once: an ended command reported in full is forgotten.
    assert_eq!(t.report(id(1)), None);
}

#[test]
fn marks_cut_anywhere_between_two_reads_are_found() {
    let bytes = command("one\r\ntwo", 0);
    for cut in 0..bytes.len() {
        let mut t = Transcript::new(80, 24);
        t.feed(&bytes.as_bytes()[..cut]);
        t.feed(&bytes.as_bytes()[cut..]);
        assert_eq!(
            lines(&mut t, 1),
            (strings(&["one", "two"]), Some(Some(0))),
            "{cut}"
        );
    }
    let mut t = Transcript::new(80, 24);
    for b in bytes.as_bytes() {
        t.feed(std::slice::from_ref(b));
    }
    assert_eq!(lines(&mut t, 1).0, strings(&["one", "two"]));
}

#[test]
fn output_without_a_final_new_line_is_its_last_row() {
    assert_eq!(run("abc"), strings(&["abc"]));
    assert_eq!(run("a\r\n\r\nb\r\n\r\n"), strings(&["a", "", "b", ""]));
    assert_eq!(run(""), Vec::<String>::new());
}

#[test]
fn progress_lines_and_redraws_show_as_they_ended() {
    assert_eq!(run("10%\r50%\r100%\r\n"), strings(&["100%"]));
    // pip and docker: rows drawn again after moving the cursor up.
    assert_eq!(
        run("a 1/2\r\nb 1/2\r\n\x1b[2A\x1b[2Ka 2/2\r\n\x1b[2Kb 2/2\r\n"),
        strings(&["a 2/2", "b 2/2"])
    );
    assert_eq!(run("long line\r\x1b[Kshort\r\n"), strings(&["short"]));
}

#[test]
fn clear_leaves_only_what_was_printed_after_it() {
    assert_eq!(
        run("one\r\ntwo\r\n\x1b[H\x1b[2J\x1b[3Jthree\r\n"),
        strings(&["three"])
    );
    // Past the screen: the rows in the history are erased too.
    let many: String = (1..=100).map(|i| format!("{i}\r\n")).collect();
    let output = format!("{many}\x1b[H\x1b[2J\x1b[3J{many}");
    let expected: Vec<String> = (1..=100).map(|i| i.to_string()).collect();
    assert_eq!(run(&output), expected);
}

#[test]
fn lines_longer_than_the_width_are_one_line_of_several_rows() {
    let mut t = Transcript::new(200, 24);
    let long = "x".repeat(450);
    t.feed(command(&format!("{long}\r\nend\r\n"), 0).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed { lines, .. }) => {
            assert_eq!(lines.lines, vec![long, "end".to_string()]);
            assert_eq!(lines.rows, 4);
        }
        other => panic!("{other:?}"),
    }
    // Wrapped in the history as well as on the screen.
    let mut t = Transcript::new(200, 5);
    let lines_in: Vec<String> = (0..30)
        .map(|i| format!("{i}:{}", "y".repeat(250)))
        .collect();
    let output: String = lines_in.iter().map(|l| format!("{l}\r\n")).collect();
    t.feed(command(&output, 0).as_bytes());
    assert_eq!(lines(&mut t, 1).0, lines_in);
}

#[test]
fn colours_are_left_out_and_wide_and_combining_characters_kept() {
    assert_eq!(
        run("\x1b[31mred\x1b[0m \x1b[1;32mok\x1b[m\r\n"),
        strings(&["red ok"])
    );
    assert_eq!(run("日本語 e\u{301}\r\n"), strings(&["日本語 e\u{301}"]));
    // A wide character that does not fit goes whole to the next row, which tmux does not
    // take for a continuation either (no wrap flag): two lines.
    let mut t = Transcript::new(5, 24);
    t.feed(command("abcd日\r\n", 0).as_bytes());
    assert_eq!(lines(&mut t, 1).0, strings(&["abcd", "日"]));
}

#[test]
fn a_full_screen_program_s_screen_is_not_the_command_s_rows() {
    assert_eq!(
        run("before\r\n\x1b[?1049h\x1b[Hfull screen\x1b[?1049lafter\r\n"),
        strings(&["before", "after"])
    );
    // Left on when the command ended (vim killed with -9, `tput smcup`): reported once, and
    // the next command's rows are its own.
    let mut t = Transcript::new(80, 24);
    t.feed(command("before\r\n\x1b[?1049h\x1b[Hvim's screen", 137).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed {
            lines,
            ended,
            alternate_left_on,
            full_screen,
        }) => {
            assert_eq!(lines.lines, strings(&["before"]));
            assert_eq!(ended, Some(Some(137)));
            assert!(alternate_left_on);
            assert!(!full_screen);
        }
        other => panic!("{other:?}"),
    }
    t.feed(format!("echo next\r\n{}next\r\n{}{}", c(2), d(2, 0), a(3)).as_bytes());
    assert_eq!(lines(&mut t, 2), (strings(&["next"]), Some(Some(0))));
}

#[test]
fn a_running_full_screen_program_is_said() {
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ top\r\n{}\x1b[?1049htop's screen", a(1), c(1)).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed {
            full_screen, ended, ..
        }) => assert!(full_screen && ended.is_none()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ten_thousand_rows_are_all_kept_and_more_are_said_gone() {
    let mut t = Transcript::new(80, 24);
    let output: String = (1..=10_000).map(|i| format!("{i}\r\n")).collect();
    t.feed(command(&output, 0).as_bytes());
    let expected: Vec<String> = (1..=10_000).map(|i| i.to_string()).collect();
    assert_eq!(lines(&mut t, 1).0, expected);

    let mut t = Transcript::new(80, 24);
    let output: String = (1..=12_000).map(|i| format!("{i}\r\n")).collect();
    t.feed(command(&output, 0).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed { lines, .. }) => {
            // 23 rows on the screen (the cursor on the 24th), 10000 in the history.
            assert_eq!(lines.gone, 12_000 - 23 - 10_000);
            assert_eq!(lines.lines.len(), 10_023);
            assert_eq!(lines.lines[0], "1978");
            assert_eq!(lines.lines.last().map(String::as_str), Some("12000"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_running_command_s_rows_are_reported_once_its_cursor_line_again() {
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ build\r\n{}step 1\r\nstep 2\r\n50%", a(1), c(1)).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed { lines, ended, .. }) => {
            assert_eq!(lines.lines, strings(&["step 1", "step 2", "50%"]));
            assert_eq!(lines.whole, 2);
            assert_eq!(ended, None);
        }
        other => panic!("{other:?}"),
    }
    t.feed(b"\r100%\r\nstep 3\r\n");
    assert_eq!(lines(&mut t, 1), (strings(&["100%", "step 3"]), None));
    t.feed(format!("{}{}$ ", d(1, 0), a(2)).as_bytes());
    assert_eq!(lines(&mut t, 1), (vec![], Some(Some(0))));
    // Rows scrolled into the history after an answer are reported once too.
    let mut t = Transcript::new(80, 3);
    t.feed(format!("{}{}a\r\nb\r\n", a(1), c(1)).as_bytes());
    assert_eq!(lines(&mut t, 1).0, strings(&["a", "b"]));
    t.feed(b"c\r\nd\r\ne\r\n");
    assert_eq!(lines(&mut t, 1).0, strings(&["c", "d", "e"]));
    // After a clear, the rows printed are new even where reported rows stood.
    t.feed(b"\x1b[H\x1b[2J\x1b[3Jf\r\n");
    assert_eq!(lines(&mut t, 1).0, strings(&["f"]));
}

#[test]
fn an_empty_line_runs_no_command() {
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ \r\n\x1b]133;D;rat={SHELL}:1\x1b\\{}$ ", a(1), a(2)).as_bytes());
    assert_eq!(t.report(id(1)), None);
    assert_eq!(t.prompt(), Some(id(2)));
}

#[test]
fn missing_marks_leave_the_rows_to_the_screen() {
    // `exec 2>file`: no output mark.
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ ls\r\nfile\r\n{}{}$ ", a(1), d(1, 2), a(2)).as_bytes());
    assert_eq!(
        t.report(id(1)),
        Some(Report::Unframed {
            ended: Some(Some(2))
        })
    );
    // `exec >file`: no end mark; the next command's output mark ends it.
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}x{}y", c(1), c(2)).as_bytes());
    assert_eq!(t.report(id(1)), Some(Report::Unframed { ended: None }));
    // Bytes lost while it ran.
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}{}a\r\n", a(1), c(1)).as_bytes());
    t.lost();
    t.feed(format!("b\r\n{}{}", d(1, 0), a(2)).as_bytes());
    assert_eq!(
        t.report(id(1)),
        Some(Report::Unframed {
            ended: Some(Some(0))
        })
    );
}

#[test]
fn a_nested_shell_s_commands_are_its_own() {
    let mut t = Transcript::new(80, 24);
    let inner = |kind: &str, k: u64| format!("\x1b]133;{kind};rat=77:{k}\x1b\\");
    t.feed(
        format!(
            "{}$ bash\r\n{}{}$ false\r\n{}oops\r\n\x1b]133;D;1;rat=77:1\x1b\\{}$ ",
            a(1),
            c(1),
            inner("A", 1),
            inner("C", 1),
            inner("A", 2)
        )
        .as_bytes(),
    );
    let inner_id = MarkId {
        shell: 77,
        prompt: 1,
    };
    assert_eq!(
        t.prompt(),
        Some(MarkId {
            prompt: 2,
            ..inner_id
        })
    );
    assert_eq!(t.last_command(77), Some(inner_id));
    match t.report(inner_id) {
        Some(Report::Framed { lines, ended, .. }) => {
            assert_eq!(lines.lines, strings(&["oops"]));
            assert_eq!(ended, Some(Some(1)));
        }
        other => panic!("{other:?}"),
    }
    // The outer command (`bash`) still runs; the inner shell's prompts and its commands' rows
    // are not its rows.
    assert_eq!(lines(&mut t, 1), (Vec::new(), None));
}

#[test]
fn a_nested_shell_that_exits_leaves_the_outer_command_only_its_own_rows() {
    // `bash`, a command in it, then `exit`: the outer command's rows are bash's `exit`, not
    // the inner shell's prompts and rows again (reported by the answers about them).
    let mut t = Transcript::new(80, 24);
    let inner = |kind: &str, k: u64| format!("\x1b]133;{kind};rat=77:{k}\x1b\\");
    t.feed(
        format!(
            "{}$ bash\r\n{}welcome\r\n{}$ echo in\r\n{}in\r\n\x1b]133;D;0;rat=77:1\x1b\\{}$ exit\r\n{}exit\r\n{}{}$ ",
            a(1),
            c(1),
            inner("A", 1),
            inner("C", 1),
            inner("A", 2),
            inner("C", 2),
            d(1, 0),
            a(2)
        )
        .as_bytes(),
    );
    assert_eq!(lines(&mut t, 1), (strings(&["exit"]), Some(Some(0))));
}

#[test]
fn marks_of_others_are_left_in_the_bytes() {
    // A shell integration of the user's own (no `rat=`): invisible, and no mark of rat's.
    assert_eq!(
        run("\x1b]133;A\x1b\\x\x1b]133;C\x07y\r\n"),
        strings(&["xy"])
    );
    assert_eq!(
        marks::parse(b"D;0;rat=1:2"),
        Some(Mark::End(
            MarkId {
                shell: 1,
                prompt: 2
            },
            Some(0)
        ))
    );
    assert_eq!(
        marks::parse(b"D;rat=1:2"),
        Some(Mark::End(
            MarkId {
                shell: 1,
                prompt: 2
            },
            None
        ))
    );
    assert_eq!(marks::parse(b"A;rat=1:x"), None);
    assert_eq!(marks::parse(b"B;rat=1:2"), None);
    assert_eq!(marks::parse(b"D;0"), None);
}

#[test]
fn a_line_of_several_commands_is_one_command() {
    // bash prints PS0 before each command of a pasted script's line: one frame, every row.
    let mut t = Transcript::new(80, 24);
    let out: String = (1..=30).map(|i| format!("{}L{i}\r\n", c(1))).collect();
    t.feed(format!("{}$ cmd\r\n{out}{}{}$ ", a(1), d(1, 0), a(2)).as_bytes());
    let expected: Vec<String> = (1..=30).map(|i| format!("L{i}")).collect();
    assert_eq!(lines(&mut t, 1), (expected, Some(Some(0))));
}

#[test]
fn the_echo_of_a_text_typed_while_a_command_runs_is_not_its_rows() {
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ cat\r\n{}", a(1), c(1)).as_bytes());
    t.typed(b"hello\r\n".to_vec(), true);
    t.feed(b"hello\r\nhello\r\n");
    assert_eq!(lines(&mut t, 1).0, strings(&["hello"]));
    // After a question on the row, the answer's new line stays: the question is a line.
    t.feed(b"Continue? ");
    assert_eq!(lines(&mut t, 1).0, strings(&["Continue?"]));
    t.typed(b"y\r\n".to_vec(), true);
    t.feed(format!("y\r\n{}{}$ ", d(1, 0), a(2)).as_bytes());
    // Reported before as the cursor's line, unchanged: not reported again.
    assert_eq!(lines(&mut t, 1), (Vec::new(), Some(Some(0))));
}

#[test]
fn an_output_mark_again_after_a_line_was_read_starts_another_command() {
    // PROMPT_COMMAND unset: bash draws its prompt without the hook, reads a line (readline
    // leaves bracketed paste), and PS0 prints the same output mark: the rows before are not
    // this command's.
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ unset PROMPT_COMMAND\r\n{}", a(1), c(1)).as_bytes());
    t.feed(format!("$ (exit 6)\x1b[?2004l\r\r\n{}{}{}$ ", c(1), d(1, 6), a(2)).as_bytes());
    assert_eq!(lines(&mut t, 1), (Vec::new(), Some(Some(6))));
}

#[test]
fn a_line_a_repl_shows_after_its_prompt_is_its_output() {
    // `ECHO` off (the REPL's line editor shows the line itself): kept after its prompt.
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ python3\r\n{}>>> ", a(1), c(1)).as_bytes());
    t.typed(b"1+1\r\n".to_vec(), false);
    t.feed(b"1+1\r\n2\r\n>>> ");
    assert_eq!(lines(&mut t, 1).0, strings(&[">>> 1+1", "2", ">>>"]));
}

#[test]
fn rows_are_numbered_from_the_command_s_first_reported_or_not() {
    // Answers while it runs number their rows from the command's first; read_window's
    // output_rows reads them all, the line the cursor is on included.
    let mut t = Transcript::new(80, 24);
    t.feed(format!("{}$ build\r\n{}step 1\r\nstep 2\r\n50%", a(1), c(1)).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed { lines, .. }) => assert_eq!(lines.first, 1),
        other => panic!("{other:?}"),
    }
    t.feed(b"\r100%\r\nstep 3\r\n");
    match t.report(id(1)) {
        Some(Report::Framed { lines, .. }) => {
            assert_eq!(lines.lines, strings(&["100%", "step 3"]));
            assert_eq!(lines.first, 3);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(t.current(), Some(id(1)));
    assert_eq!(
        t.numbered(),
        Some(Numbered::Rows {
            first: 1,
            lines: strings(&["step 1", "step 2", "100%", "step 3"]),
            ended: false,
        })
    );
    // Report in full, it is still read by number, until another command starts.
    t.feed(format!("{}{}$ ", d(1, 0), a(2)).as_bytes());
    assert_eq!(lines(&mut t, 1), (vec![], Some(Some(0))));
    assert!(matches!(
        t.numbered(),
        Some(Numbered::Rows { ended: true, .. })
    ));
    t.feed(format!("ls\r\n{}a\r\n", c(2)).as_bytes());
    assert_eq!(t.current(), Some(id(2)));
    assert_eq!(
        t.numbered(),
        Some(Numbered::Rows {
            first: 1,
            lines: strings(&["a"]),
            ended: false,
        })
    );

    // Past the history's limit, the first rows kept keep their numbers.
    let mut t = Transcript::new(80, 24);
    let output: String = (1..=12_000).map(|i| format!("{i}\r\n")).collect();
    t.feed(command(&output, 0).as_bytes());
    match t.report(id(1)) {
        Some(Report::Framed { lines, .. }) => assert_eq!(lines.first, 1978),
        other => panic!("{other:?}"),
    }
    match t.numbered() {
        Some(Numbered::Rows {
            first,
            lines,
            ended,
        }) => {
            assert_eq!((first, lines.len(), ended), (1978, 10_023, true));
            assert_eq!(lines[0], "1978");
        }
        other => panic!("{other:?}"),
    }
}
