//! What a wait's answer carries of what the command printed, against a real tmux and a real
//! bash (one private socket per test): its rows without the echoed command line nor the prompt
//! after it, the last ones kept with the count of all and the read_window call reaching the
//! first, a full-screen program, a command still running, commands one after the other, and a
//! send that waits.

use crate::common::*;
use rat_core::result::Outcome;
use rat_core::terminals::{SendKeys, SendText};
use tokio_util::sync::CancellationToken;

/// A send_keys input that waits `seconds` for what follows.
fn keys_waiting(window: &str, keys: &[&str], seconds: u32) -> SendKeys {
    SendKeys {
        window: window.into(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
        wait_seconds: seconds,
    }
}

#[tokio::test]
async fn a_command_printing_three_rows_is_answered_with_them_in_one_call() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t
        .send_text(run_text("main", "printf 'a\\nb\\nc\\n'", 10))
        .await;
    assert_eq!(r.outcome, Outcome::Ok, "{}", r.text);
    assert_eq!(
        f.redact(&r.text),
        "main: the command finished Ns ago, exit status 0.\n[3 rows printed]\na\nb\nc"
    );
    // wait_window afterwards tells only the rows printed since: none.
    let w = waited(&t, "main", 5).await;
    assert_eq!(
        f.redact(&w.text),
        "main: the command finished Ns ago, exit status 0.\nNothing printed since the last answer."
    );
}

/// send_text of `line` with Enter to `main` of session `s`, waiting 10 s for it: the answer,
/// redacted.
async fn ran(f: &Fixture, line: &str) -> String {
    let t = f.controller.session("s");
    f.redact(&t.send_text(run_text("main", line, 10)).await.text)
}

/// Runs each line in `main` in turn (as `ran`), and asserts its answer is the one given.
async fn assert_answers(f: &Fixture, expected: &[(&str, &str)]) {
    for (line, answer) in expected {
        assert_eq!(ran(f, line).await, *answer, "{line:?}");
    }
}

#[tokio::test]
async fn a_command_printing_nothing_says_so_in_two_words() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    assert_answers(
        &f,
        &[
            (
                "true",
                "main: the command finished Ns ago, exit status 0.\nNothing printed.",
            ),
            (
                "false",
                "main: the command finished Ns ago, exit status 1.\nNothing printed.",
            ),
            // An empty line is a row printed.
            (
                "echo",
                "main: the command finished Ns ago, exit status 0.\n[1 row printed]\n",
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn ten_thousand_rows_are_cut_to_the_last_with_the_call_reaching_the_first() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 1 10000", 30)).await;
    let text = f.redact(&r.text);
    let (status, rest) = text.split_once('\n').unwrap();
    assert_eq!(status, "main: the command finished Ns ago, exit status 0.");
    let (header, rows) = rest.split_once('\n').unwrap();
    let expected: Vec<String> = (9961..=10000).map(|n| n.to_string()).collect();
    assert_eq!(rows, expected.join("\n"));
    assert_eq!(header, rows_hint(10000, 40));
    // The call told reads exactly the rows left out.
    let shown = t.read_window(read_rows("main", 1, 9960)).await;
    let expected: Vec<String> = (1..=9960).map(|n| n.to_string()).collect();
    assert_eq!(
        shown.text,
        format!(
            "[rows 1 to 9960 of the 10000 the last command in main printed]\n{}",
            expected.join("\n")
        )
    );
}

#[tokio::test]
async fn rows_holding_a_prompt_like_text_are_rows() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t
        .send_text(run_text(
            "main",
            "printf '$ not a prompt\\n$ \\nend $ \\n'",
            10,
        ))
        .await;
    assert_eq!(
        f.redact(&r.text),
        "main: the command finished Ns ago, exit status 0.\n[3 rows printed]\n$ not a prompt\n$\nend $"
    );
    // A row the same as the command's echo: printed, not the echo made twice.
    t.send_text(run_text("main", "echo '$ cat f' > f", 10))
        .await;
    for round in 0..5 {
        assert_eq!(
            ran(&f, "cat f").await,
            "main: the command finished Ns ago, exit status 0.\n[1 row printed]\n$ cat f",
            "round {round}"
        );
    }
}

#[tokio::test]
async fn commands_sent_one_after_the_other_each_show_their_own_rows() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    for round in 0..20 {
        let first = t
            .send_text(run_text(
                "main",
                &format!("echo first {round}; echo again"),
                10,
            ))
            .await;
        let second = t
            .send_text(run_text("main", &format!("echo second {round}"), 10))
            .await;
        assert_eq!(
            f.redact(&first.text),
            format!(
                "main: the command finished Ns ago, exit status 0.\n[2 rows printed]\nfirst {}\nagain",
                f.redact(&round.to_string())
            ),
            "round {round}"
        );
        assert_eq!(
            f.redact(&second.text),
            format!(
                "main: the command finished Ns ago, exit status 0.\n[1 row printed]\nsecond {}",
                f.redact(&round.to_string())
            ),
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_command_still_running_shows_the_rows_printed_since_the_last_answer() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    // A FIFO the test writes a line to: bash's builtin read waits on it, so bash shows in the
    // foreground.
    // Two of them: a writer still holding the first open would let a second read of the
    // same one through at once.
    let go = f.home().join("go");
    let go2 = f.home().join("go2");
    for fifo in [&go, &go2] {
        nix::unistd::mkfifo(fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    }
    let line = format!(
        "echo one; read -r _ < {}; echo two; read -r _ < {}; echo three",
        go.display(),
        go2.display()
    );
    let release = |go: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || std::fs::write(go, "\n").unwrap())
    };
    let r = t.send_text(run_text("main", &line, 1)).await;
    assert_eq!(
        f.redact(&r.text),
        "main: nothing finished since your last input, Ns ago: bash has shown no prompt since. \
         A bash script or builtin may still be running (a script shows as bash), a text may wait \
         on the command line (sent without Enter), or rat's hook was taken out of PROMPT_COMMAND \
         in this terminal (unset, it comes back after the next command; assigned anew, as \
         `source ~/.bashrc` may do, only a new window has it): read_window shows which.\n\
         [1 row printed]\none"
    );
    let w = waited(&t, "main", 1).await;
    assert!(
        w.text.ends_with("\nNothing printed since the last answer."),
        "{}",
        w.text
    );
    release(go.clone()).await.unwrap();
    f.read_until("s", "main", 0, |screen| screen.ends_with("two"))
        .await;
    let w = waited(&t, "main", 1).await;
    assert!(
        w.text
            .ends_with("\n[1 row printed since the last answer]\ntwo"),
        "{}",
        w.text
    );
    release(go2.clone()).await.unwrap();
    let w = waited(&t, "main", 10).await;
    assert_eq!(
        f.redact(&w.text),
        "main: the command finished Ns ago, exit status 0.\n[1 row printed since the last answer]\nthree"
    );
}

#[tokio::test]
async fn a_full_screen_program_is_told_in_one_sentence() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "less /etc/passwd", 1)).await;
    assert!(
        r.text
            .ends_with("\nA full-screen program holds the screen: read_window shows it."),
        "{}",
        r.text
    );
    assert!(r.text.starts_with("main: still running"), "{}", r.text);
    let r = t.send_keys(keys_waiting("main", &["q"], 10)).await;
    assert_eq!(
        f.redact(&r.text),
        "main: the command finished Ns ago, exit status 0.\nNothing printed."
    );
    // What the command prints once the program left the screen is its row: it starts where
    // the normal screen's cursor was saved.
    for round in 0..3 {
        let r = t
            .send_text(run_text("main", "seq 30 | less; echo after-less", 1))
            .await;
        assert!(r.text.starts_with("main: still running"), "{}", r.text);
        let r = t.send_keys(keys_waiting("main", &["q"], 10)).await;
        assert_eq!(
            f.redact(&r.text),
            "main: the command finished Ns ago, exit status 0.\n[1 row printed]\nafter-less",
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_send_without_a_wait_answers_as_before_and_over_fifty_is_refused() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(text("main", "echo hi", true)).await;
    assert_eq!(r.text, "Pasted 7 characters into main, then pressed Enter.");
    let r = t.send_text(run_text("main", "echo hi", 51)).await;
    assert_eq!(
        r.text,
        "Nothing was sent: wait_seconds is 51, and must be from 0 to 50 (0 by default). Call \
         send_text again with wait_seconds from 0 to 50, or without it."
    );
    assert!(r.outcome.is_error());
    // The first echo ran: an Enter pressed now is at the prompt after it.
    let w = waited(&t, "main", 10).await;
    assert_eq!(
        f.redact(&w.text),
        "main: the command finished Ns ago, exit status 0.\n[1 row printed]\nhi"
    );
    let r = t.send_keys(keys_waiting("main", &["Enter"], 10)).await;
    assert_eq!(
        f.redact(&r.text),
        "main: the command finished Ns ago, exit status 0.\nNothing printed."
    );
}

/// A command sent to a window whose bash has not shown its first prompt yet is read at that
/// prompt (the hook records none while a line waits): a wait on it tells it running, never
/// "no prompt recorded", then its end with its own rows. Repeated, as when bash is ready
/// varies.
#[tokio::test]
async fn a_command_sent_before_the_first_prompt_is_told_running_then_finished() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    for round in 0..6 {
        let name = format!("w{round}");
        let created = t
            .create_window(rat_core::terminals::CreateWindow { name: name.clone() })
            .await;
        assert!(!created.outcome.is_error(), "{}", created.text);
        let r = t.send_text(run_text(&name, "sleep 2; echo done", 1)).await;
        assert!(
            r.text.starts_with(&format!("{name}: still running, "))
                || r.text
                    .starts_with(&format!("{name}: nothing finished since your last input, ")),
            "round {round}: {}",
            r.text
        );
        let w = t
            .wait_window(wait(&name, 20), CancellationToken::new())
            .await;
        let rows = w.text.split_once('\n').map(|(_, rows)| rows);
        assert!(
            w.text
                .starts_with(&format!("{name}: the command finished "))
                && (rows == Some("[1 row printed]\ndone")
                    || rows == Some("[1 row printed since the last answer]\ndone")),
            "round {round}: {}",
            w.text
        );
    }
}

/// `clear` with no history (a new window): no count of history rows tells it, the echo's row
/// no longer holds the command; the rows left are the screen's, said so. tmux 3.2a keeps the
/// cleared screen in the history instead: every row is still there, and told so.
#[tokio::test]
async fn a_clear_with_no_history_shows_the_rows_left() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 3", 10)).await;
    assert!(
        r.text.ends_with("\n[3 rows printed]\n1\n2\n3"),
        "{}",
        r.text
    );
    let r = t
        .send_text(run_text("main", "clear; echo after-clear", 10))
        .await;
    // The rows the command erased are not its rows; those after are, whole.
    let status = "main: the command finished Ns ago, exit status 0.";
    assert_eq!(
        f.redact(&r.text),
        format!("{status}\n[1 row printed]\nafter-clear")
    );
    let r = t
        .send_text(run_text("main", "seq 2; clear; seq 3", 10))
        .await;
    assert_eq!(
        f.redact(&r.text),
        format!("{status}\n[3 rows printed]\n1\n2\n3")
    );
}

/// A text ending with a new line: bash's line editor shows its final new line as no line of
/// its own, so the rows after the echo are the command's.
#[tokio::test]
async fn a_text_ending_with_a_new_line_shows_all_its_rows() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    assert_answers(
        &f,
        &[
            (
                "echo tail\n",
                "main: the command finished Ns ago, exit status 0.\n[1 row printed]\ntail",
            ),
            (
                "seq 3\n\n",
                "main: the command finished Ns ago, exit status 0.\n[3 rows printed]\n1\n2\n3",
            ),
        ],
    )
    .await;
}

/// A full history drops its oldest tenth (1000 rows) as often as a command prints past it:
/// the command's first row is found wherever the drops moved it, and told exactly; a command
/// whose name its output repeats (`make` in `make[1]: ...`) is not taken for its echo.
#[tokio::test]
async fn a_full_history_dropping_rows_several_times_still_tells_the_first() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 12000", 40)).await;
    assert!(r.text.contains("exit status 0."), "{}", r.text);
    t.send_text(run_text(
        "main",
        "make() { for i in $(seq 2500); do echo \"make[1]: step $i\"; done; }",
        10,
    ))
    .await;
    for (line, total, first, last) in [
        ("seq 1500", 1500, "1".to_string(), "1460".to_string()),
        ("seq 2500", 2500, "1".to_string(), "2460".to_string()),
        (
            "make",
            2500,
            "make[1]: step 1".to_string(),
            "make[1]: step 2460".to_string(),
        ),
    ] {
        let r = t.send_text(run_text("main", line, 40)).await;
        let text = f.redact(&r.text);
        let (status, rest) = text.split_once('\n').unwrap();
        assert_eq!(
            status, "main: the command finished Ns ago, exit status 0.",
            "{line}"
        );
        let header = rest.lines().next().unwrap();
        assert_eq!(header, rows_hint(total, 40), "{line}");
        let shown = t.read_window(read_rows("main", 1, total - 40)).await;
        let mut rows = shown.text.lines();
        assert_eq!(
            rows.next(),
            Some(
                format!(
                    "[rows 1 to {} of the {total} the last command in main printed]",
                    total - 40
                )
                .as_str()
            ),
            "{line}"
        );
        assert_eq!(
            rows.next(),
            Some(first.as_str()),
            "{line}: the hint's first row"
        );
        assert_eq!(
            rows.last(),
            Some(last.as_str()),
            "{line}: the hint's last row"
        );
    }
}

/// The status line of an answer, its times redacted, and the rest as it is.
fn split_answer(f: &crate::common::Fixture, text: &str) -> (String, String) {
    let (status, rest) = text.split_once('\n').unwrap();
    (f.redact(status), rest.to_string())
}

#[tokio::test]
async fn every_answer_after_a_flood_ends_with_the_commands_own_last_rows() {
    // Each command prints more than a screen into a history kept full (tmux drops its oldest
    // tenth again and again, and reads the terminal behind bash): every answer, read as soon
    // as the prompt is recorded, holds the command's own last 40 rows and its count.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 11000", 40)).await;
    assert!(r.text.contains("exit status 0."), "{}", r.text);
    for round in 0..25u32 {
        let n = 1200 + 97 * round;
        let r = t.send_text(run_text("main", &format!("seq {n}"), 40)).await;
        let (status, rest) = split_answer(&f, &r.text);
        assert_eq!(
            status, "main: the command finished Ns ago, exit status 0.",
            "round {round}"
        );
        let mut lines = rest.lines();
        let header = lines.next().unwrap();
        assert_eq!(header, rows_hint(u64::from(n), 40), "round {round}");
        let shown: Vec<&str> = lines.collect();
        let wanted: Vec<String> = (n - 39..=n).map(|i| i.to_string()).collect();
        assert_eq!(shown, wanted, "round {round}");
    }
}

#[tokio::test]
async fn a_hook_after_rats_printing_a_path_of_its_own_is_not_waited_for() {
    // As VTE's vte.sh does at each prompt: the pane's path is then not rat's mark.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.send_text(run_text(
        "main",
        "osc7() { printf '\\e]7;file://%s%s\\e\\\\' \"$HOSTNAME\" \"$PWD\"; }; \
         PROMPT_COMMAND+=$'\\n'osc7",
        10,
    ))
    .await;
    for round in 0..5 {
        assert_eq!(
            ran(&f, "printf 'a\\nb\\n'").await,
            "main: the command finished Ns ago, exit status 0.\n[2 rows printed]\na\nb",
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_prompt_mark_tmux_never_shows_is_told_after_two_seconds() {
    // bash's output sent to another terminal (a pty this test holds): the hook prints the
    // prompt's mark there, so the pane's tmux never reads it, as when tmux is behind. The
    // answer waits 2 s for it, then says so.
    let pty = nix::pty::openpty(None, None).unwrap();
    let other = nix::unistd::ttyname(&pty.slave).unwrap();
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.send_text(run_text("main", &format!("exec 1>{}", other.display()), 10))
        .await;
    assert_eq!(
        ran(&f, "echo one >&2").await,
        "main: the command finished Ns ago, exit status 0.\n\
         (rows read from the screen) [tmux was still reading what the command printed Ns after it finished: its last rows \
         may be missing below; read_window shows them once tmux has read them]\n\
         [1 row printed]\none"
    );
    drop(pty);
}

#[tokio::test]
async fn a_command_typed_while_another_runs_shows_its_own_rows() {
    // The second command is sent while the first still runs (its echo drawn or not yet), and
    // in every other round answered once before either ends: the answer after both shows the
    // second's rows alone, not the first's echo or last row, nor the prompt line that shows the
    // second again.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    for round in 0..8 {
        let between = round % 2 == 0;
        let go = f.home().join(format!("go{round}"));
        nix::unistd::mkfifo(&go, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let first = format!("read -r _ < {}; echo one", go.display());
        let r = t.send_text(run_text("main", &first, 0)).await;
        assert_eq!(r.outcome, Outcome::Ok, "{}", r.text);
        let r = t
            .send_text(run_text("main", "echo two", u32::from(between)))
            .await;
        if between {
            assert!(
                r.text.ends_with("\nNothing printed."),
                "round {round}: {}",
                r.text
            );
        }
        tokio::task::spawn_blocking(move || std::fs::write(go, "\n").unwrap())
            .await
            .unwrap();
        // The answer between told the first command's rows (none): the second's are new.
        let w = waited(&t, "main", 10).await;
        assert_eq!(
            f.redact(&w.text),
            "main: the command finished Ns ago, exit status 0.\n[1 row printed]\ntwo",
            "round {round}"
        );
    }
}

#[tokio::test]
async fn output_without_a_final_new_line_is_shown_before_the_prompt() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let status = "main: the command finished Ns ago, exit status 0.";
    let r = t.send_text(run_text("main", "printf abc", 10)).await;
    assert_eq!(f.redact(&r.text), format!("{status}\n[1 row printed]\nabc"));
    let r = t
        .send_text(run_text("main", "printf 'one\\ntwo'", 10))
        .await;
    assert_eq!(
        f.redact(&r.text),
        format!("{status}\n[2 rows printed]\none\ntwo")
    );
    // Wrapped over several rows, the prompt after its end.
    let r = t
        .send_text(run_text("main", "head -c 1000 /dev/zero | tr '\\0' x", 10))
        .await;
    assert_eq!(
        f.redact(&r.text),
        format!("{status}\n[1 row printed]\n{}", "x".repeat(1000))
    );
    // A progress line, shown while the command ran, ended on the same row.
    let go = f.home().join("go");
    nix::unistd::mkfifo(&go, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let line = format!("printf 50%%; read -r _ < {}; printf ' 100%%'", go.display());
    let r = t.send_text(run_text("main", &line, 1)).await;
    assert!(r.text.ends_with("\n[1 row printed]\n50%"), "{}", r.text);
    tokio::task::spawn_blocking(move || std::fs::write(go, "\n").unwrap())
        .await
        .unwrap();
    let w = waited(&t, "main", 10).await;
    assert_eq!(
        f.redact(&w.text),
        format!("{status}\n[1 row printed since the last answer]\n50% 100%")
    );
}

#[tokio::test]
async fn rows_over_the_read_budget_are_read_in_parts() {
    // 20 KiB of read budget: the 9960 rows of seq 10000 left out of its answer (48694 bytes)
    // are more than a read_window holds: the hint names the last of them that fit, and each
    // read names the call reading the rows before, until the first.
    let f = start(Home {
        budget: Some(rat_core::result::ReadBudget::new(20 * 1024).unwrap()),
        ..Home::default()
    })
    .await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 10000", 40)).await;
    let header = r.text.lines().nth(1).unwrap();
    assert_eq!(
        header,
        "[10000 rows printed, the last 40 below; read_window main with output_rows \
         {\"from\": 6313, \"to\": 9960} shows the last 3648 of the others, which fit the read \
         budget (20 KiB)]"
    );
    let numbers = |from: u64, to: u64| (from..=to).map(|n| n.to_string()).collect::<Vec<_>>();
    let shown = t.read_window(read_rows("main", 6313, 9960)).await;
    let mut rows = shown.text.lines();
    assert_eq!(
        rows.next(),
        Some("[rows 6313 to 9960 of the 10000 the last command in main printed]")
    );
    assert_eq!(rows.collect::<Vec<_>>(), numbers(6313, 9960));
    let shown = t.read_window(read_rows("main", 1, 6312)).await;
    let mut rows = shown.text.lines();
    assert_eq!(
        rows.next(),
        Some(
            "[rows 2422 to 6312 of the 10000 the last command in main printed; rows 1 to 2421 \
             are over the read budget (20 KiB) and left out: read_window main with output_rows \
             {\"from\": 1, \"to\": 2421} shows them]"
        )
    );
    assert_eq!(rows.collect::<Vec<_>>(), numbers(2422, 6312));
    assert!(shown.text.len() <= 20 * 1024);
    let shown = t.read_window(read_rows("main", 1, 9960)).await;
    assert_eq!(
        shown.text.lines().next(),
        Some(
            "[rows 6070 to 9960 of the 10000 the last command in main printed; rows 1 to 6069 \
             are over the read budget (20 KiB) and left out: read_window main with output_rows \
             {\"from\": 2422, \"to\": 6069} shows the last 3648 of them]"
        )
    );
}

#[tokio::test]
async fn a_row_of_the_command_before_ending_with_the_text_typed_is_not_taken_for_it() {
    // The first command prints a row ending with the second's text: the second's rows start
    // after the prompt line showing it (the prompt seen by an earlier answer), not after that
    // row.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.send_text(run_text("main", "true", 10)).await;
    for round in 0..4 {
        let go = f.home().join(format!("go{round}"));
        nix::unistd::mkfifo(&go, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let first = format!("read -r _ < {}; echo 'note: echo two'", go.display());
        t.send_text(run_text("main", &first, 0)).await;
        t.send_text(run_text("main", "echo two", 0)).await;
        tokio::task::spawn_blocking(move || std::fs::write(go, "\n").unwrap())
            .await
            .unwrap();
        let w = waited(&t, "main", 10).await;
        assert_eq!(
            f.redact(&w.text),
            "main: the command finished Ns ago, exit status 0.\n[1 row printed]\ntwo",
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_text_typed_to_cat_shows_cats_answer() {
    // The terminal echoes the line, then cat prints it: the echo is left out, cat's row is
    // the command's.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.send_text(run_text("main", "cat", 0)).await;
    f.read_until("s", "main", 0, |screen| screen.ends_with("$ cat"))
        .await;
    // Both rows are cat's, its second after the answer that told its first.
    for (word, since) in [("hello", ""), ("again", " since the last answer")] {
        let r = t.send_text(run_text("main", word, 1)).await;
        assert!(
            r.text
                .ends_with(&format!("\n[1 row printed{since}]\n{word}")),
            "{word}: {}",
            r.text
        );
    }
    let r = t.send_keys(keys_waiting("main", &["C-d"], 10)).await;
    assert_eq!(
        f.redact(&r.text),
        "main: the command finished Ns ago, exit status 0.\nNothing printed since the last answer."
    );
}

#[tokio::test]
async fn output_without_a_final_new_line_is_shown_every_time() {
    // The answer may be made before bash draws its prompt after the text: it waits for it.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let status = "main: the command finished Ns ago, exit status 0.";
    for round in 0..20 {
        assert_eq!(
            ran(&f, "printf abc").await,
            format!("{status}\n[1 row printed]\nabc"),
            "round {round}"
        );
        assert_eq!(
            ran(&f, "seq 3; printf xyz").await,
            format!("{status}\n[4 rows printed]\n1\n2\n3\nxyz"),
            "round {round}"
        );
        assert_eq!(
            ran(&f, "echo x").await,
            format!("{status}\n[1 row printed]\nx"),
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_line_typed_without_enter_then_ended_by_its_own_input_shows_only_its_rows() {
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let status = "main: the command finished Ns ago, exit status 0.";
    for round in 0..3 {
        // A text without Enter, then the Enter key.
        t.send_text(SendText {
            window: "main".into(),
            text: format!("echo typed{round}"),
            enter: false,
            wait_seconds: 0,
        })
        .await;
        let r = t.send_keys(keys_waiting("main", &["Enter"], 10)).await;
        assert_eq!(
            f.redact(&r.text),
            format!(
                "{status}\n[1 row printed]\ntyped{}",
                f.redact(&round.to_string())
            ),
            "round {round}"
        );
        // Two texts without Enter, then an empty text with Enter.
        for part in ["echo ", "more"] {
            t.send_text(SendText {
                window: "main".into(),
                text: part.into(),
                enter: false,
                wait_seconds: 0,
            })
            .await;
        }
        assert_eq!(
            ran(&f, "").await,
            format!("{status}\n[1 row printed]\nmore"),
            "round {round}"
        );
        // Keys typed, then Enter in a call of its own.
        t.send_keys(keys_waiting("main", &["e", "c", "h", "o", "Space", "k"], 0))
            .await;
        let r = t.send_keys(keys_waiting("main", &["Enter"], 10)).await;
        assert_eq!(
            f.redact(&r.text),
            format!("{status}\n[1 row printed]\nk"),
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_command_after_output_without_a_new_line_in_a_full_history_shows_its_rows() {
    // bash's line editor draws the echo over the row the output without a new line left:
    // with the history full, the echo is still found where the drops moved it.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 12000", 40)).await;
    assert!(r.text.contains("exit status 0."), "{}", r.text);
    let status = "main: the command finished Ns ago, exit status 0.";
    for round in 0..6 {
        assert_eq!(
            ran(&f, "printf abc").await,
            format!("{status}\n[1 row printed]\nabc"),
            "round {round}"
        );
        let r = t
            .send_text(run_text("main", &format!("echo r{round}"), 10))
            .await;
        assert_eq!(
            r.text.split_once('\n').unwrap().1,
            format!("[1 row printed]\nr{round}"),
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_prompt_changed_is_not_taken_for_output() {
    // A new prompt ending with the old one (a venv's `(venv) $ `), then a prompt of three
    // columns with output without a new line before it: the prompt's row is never a row
    // printed.
    let f = start_ready().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let status = "main: the command finished Ns ago, exit status 0.";
    for ps1 in ["x $ ", "(venv) $ ", "~# "] {
        t.send_text(run_text("main", &format!("PS1='{ps1}'"), 10))
            .await;
        for round in 0..2 {
            for (line, rows) in [
                ("echo e1", "[1 row printed]\ne1"),
                ("true", "Nothing printed."),
                ("seq 2", "[2 rows printed]\n1\n2"),
                ("printf abc", "[1 row printed]\nabc"),
                ("echo e2", "[1 row printed]\ne2"),
            ] {
                let r = t.send_text(run_text("main", line, 10)).await;
                assert_eq!(
                    f.redact(&r.text),
                    format!("{status}\n{rows}"),
                    "{ps1:?} round {round}: {line}"
                );
            }
        }
    }
}
