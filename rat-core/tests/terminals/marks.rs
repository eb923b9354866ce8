//! The situations where answers went false before marks, as an agent meets them, with the exact answers: a command's rows are
//! the ones its marks framed (the transcript), whatever the screen shows around them.

use crate::common::*;
use rat_core::terminals::{SendKeys, SendText};

const DONE: &str = "main: the command finished Ns ago, exit status 0.";

/// send_text of `line` with Enter to `main` of session `s`, waiting `seconds`: the answer,
/// redacted.
async fn ran(f: &Fixture, line: &str, seconds: u32) -> String {
    let t = f.controller.session("s");
    f.redact(&t.send_text(run_text("main", line, seconds)).await.text)
}

#[tokio::test]
async fn a_clear_before_the_rows_leaves_all_of_them() {
    // `clear; seq 100` told all 100 rows, none "gone", the call reaching the
    // first reaching it.
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = ran(&f, "clear; seq 100", 10).await;
    assert_eq!(
        r,
        format!("{DONE}\n{}\n{}", rows_hint(100, 40), numbers(61, 100))
    );
    let shown = t.read_window(read_rows("main", 1, 60)).await;
    assert_eq!(
        shown.text,
        format!(
            "[rows 1 to 60 of the 100 the last command in main printed]\n{}",
            numbers(1, 60)
        )
    );
    // 60 wrapped lines of 450 characters after a clear: all 60, every time.
    let line: String = (0..450).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    for _ in 0..2 {
        let r = ran(
            &f,
            &format!("clear; for i in $(seq 60); do echo {line}; done"),
            10,
        )
        .await;
        // The last 18: the 8 KiB an answer holds.
        assert!(
            r.starts_with(&format!("{DONE}\n[60 rows printed, the last 18 below;")),
            "{r}"
        );
        assert_eq!(r.lines().skip(2).filter(|l| *l == line).count(), 18);
    }
}

#[tokio::test]
async fn a_full_screen_mode_left_on_is_told_once_and_hides_nothing_after() {
    // `tput smcup` leaves the alternate screen on: told once, with its way out;
    // the commands after are told with their rows.
    let f = start_ready().await;
    // What it printed on the alternate screen is a full-screen program's, not its rows.
    assert_eq!(
        ran(
            &f,
            "echo before; printf '\\e[?1049h'; echo in-alternate",
            10
        )
        .await,
        format!(
            "{DONE}\n[1 row printed]\nbefore\n[It left full-screen mode on (a program \
             killed in it, or `tput smcup`): read_window shows that screen, not the prompt's, \
             until `tput rmcup` leaves it; the rows of later commands are told all the same]"
        )
    );
    assert_eq!(
        ran(&f, "echo after", 10).await,
        format!("{DONE}\n[1 row printed]\nafter")
    );
    assert_eq!(
        ran(&f, "printf '\\e[?1049l'; echo back", 10).await,
        format!("{DONE}\n[1 row printed]\nback")
    );
}

#[tokio::test]
async fn a_full_screen_program_quit_leaves_no_stale_row() {
    // `q` to a full-screen program: nothing printed, no row of its old screen.
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 50 | less", 1)).await.text;
    assert!(
        r.ends_with("\nA full-screen program holds the screen: read_window shows it."),
        "{r}"
    );
    let r = t
        .send_keys(SendKeys {
            window: "main".into(),
            keys: vec!["q".into()],
            wait_seconds: 10,
        })
        .await;
    assert_eq!(f.redact(&r.text), format!("{DONE}\nNothing printed."));
}

#[tokio::test]
async fn a_command_taller_than_the_screen_shows_its_rows_exactly() {
    // a pasted heredoc of 30 lines then two commands; 30 `echo` lines.
    let f = start_ready().await;
    let x = f.home().join("x");
    let body: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    let text = format!(
        "cat > {} <<'EOF'\n{body}EOF\nwc -l < {}; echo second-line",
        x.display(),
        x.display()
    );
    assert_eq!(
        ran(&f, &text, 10).await,
        format!("{DONE}\n[2 rows printed]\n30\nsecond-line")
    );
    let echoes: String = (1..=30)
        .map(|i| format!("echo L{i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let rows: String = (1..=30)
        .map(|i| format!("L{i}"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        ran(&f, &echoes, 10).await,
        format!("{DONE}\n[30 rows printed]\n{rows}")
    );
}

#[tokio::test]
async fn echo_off_changes_no_row() {
    // after `stty -echo`, a command's one row is its one row.
    let f = start_ready().await;
    assert_eq!(
        ran(&f, "stty -echo", 10).await,
        format!("{DONE}\nNothing printed.")
    );
    assert_eq!(
        ran(&f, "echo only-this; (exit 2)", 10).await,
        "main: the command finished Ns ago, exit status 2.\n[1 row printed]\nonly-this"
    );
}

#[tokio::test]
async fn a_second_wait_tells_only_the_rows_since() {
    // rows are told once.
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = ran(&f, "echo start; sleep 2; echo end", 1).await;
    assert!(r.ends_with("\n[1 row printed]\nstart"), "{r}");
    let w = waited(&t, "main", 10).await;
    assert_eq!(
        f.redact(&w.text),
        format!("{DONE}\n[1 row printed since the last answer]\nend")
    );
    let w = waited(&t, "main", 10).await;
    assert_eq!(
        f.redact(&w.text),
        format!("{DONE}\nNothing printed since the last answer.")
    );
}

#[tokio::test]
async fn prompt_rows_are_never_output() {
    // a two-line PS1, and lines edited with vi-mode keys.
    let f = start_ready().await;
    let t = f.controller.session("s");
    assert_eq!(
        ran(&f, "PS1='first line of the prompt\\n$ '", 10).await,
        format!("{DONE}\nNothing printed.")
    );
    for _ in 0..2 {
        assert_eq!(
            ran(&f, "echo x", 10).await,
            format!("{DONE}\n[1 row printed]\nx")
        );
    }
    assert_eq!(
        ran(&f, "set -o vi", 10).await,
        format!("{DONE}\nNothing printed.")
    );
    // `echo vi-typed`, then Escape, `0`, `x` (deletes the `e`), `i`, `e` back: the line run is
    // the same.
    t.send_text(SendText {
        window: "main".into(),
        text: "echo vi-typed".into(),
        enter: false,
        wait_seconds: 0,
    })
    .await;
    let r = t
        .send_keys(SendKeys {
            window: "main".into(),
            keys: ["Escape", "0", "x", "i", "e", "Enter"]
                .iter()
                .map(|k| k.to_string())
                .collect(),
            wait_seconds: 10,
        })
        .await;
    assert_eq!(
        f.redact(&r.text),
        format!("{DONE}\n[1 row printed]\nvi-typed")
    );
}

#[tokio::test]
async fn two_clients_racing_on_a_window_each_hear_of_their_own_command() {
    // A's command runs 3 s; B sends its own 0.3 s after. A is told its own
    // rows and status, and that a later input ran after it; B its own.
    let f = start_ready().await;
    let a = f.controller.session("s");
    let b = f.controller.session("s");
    let first = tokio::spawn(async move {
        a.send_text(run_text("main", "sleep 3; echo alice-out; (exit 7)", 20))
            .await
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let second = b.send_text(run_text("main", "echo alice2-out", 20)).await;
    let first = first.await.unwrap();
    assert_eq!(
        f.redact(&first.text),
        "main: the command finished, exit status 7. A later input ran after it (another \
         client's, or typed ahead): wait_window main tells the last one.\n[1 row printed]\n\
         alice-out"
    );
    assert_eq!(
        f.redact(&second.text),
        format!("{DONE}\n[1 row printed]\nalice2-out")
    );
}

/// A REPL's prompt (`>>>`) is where it waits for input, not a row it printed: after a line
/// run, after Enter alone, and after C-d ends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_s_prompt_is_not_a_printed_row() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    f.ready("s", "main").await;
    let mut out = Vec::new();
    for (what, result) in [
        (
            "python3 -q",
            t.send_text(run_text("main", "python3 -q", 5)).await,
        ),
        ("1+1", t.send_text(run_text("main", "1+1", 5)).await),
        ("Enter", t.send_text(run_text("main", "", 5)).await),
    ] {
        out.push(format!("{what} -> {}", f.redact(&result.text)));
    }
    t.send_keys(keys("main", &["C-d"])).await;
    let ended = waited(&t, "main", 10).await;
    out.push(format!("C-d -> {}", f.redact(&ended.text)));
    insta::assert_snapshot!(out.join("\n"), @r"
    python3 -q -> main: still running, Ns since your last input, python3 in the foreground. Waits cannot see the prompts of what runs inside python3; read_window shows them. The line its cursor is on, likely its prompt: >>>
    Nothing printed.
    1+1 -> main: still running, Ns since your last input, python3 in the foreground. Waits cannot see the prompts of what runs inside python3; read_window shows them. The line its cursor is on, likely its prompt: >>>
    [2 rows printed since the last answer]
    >>> 1+1
    2
    Enter -> main: still running, Ns since your last input, python3 in the foreground. Waits cannot see the prompts of what runs inside python3; read_window shows them. The line its cursor is on, likely its prompt: >>>
    Nothing printed since the last answer.
    C-d -> main: the command finished Ns ago, exit status 0.
    Nothing printed since the last answer.
    ");
}
