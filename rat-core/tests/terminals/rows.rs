//! read_window's `output_rows`: a command's rows by number, as the hint of a cut answer names
//! the rows it left out, against a real tmux and a real bash, with the exact answers.

use crate::common::*;
use rat_core::result::Outcome;

const DONE: &str = "main: the command finished Ns ago, exit status 0.";

#[tokio::test]
async fn the_hint_names_exactly_the_rows_left_out_and_reads_them() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    // Before any command: no rows known.
    let none = t.read_window(read_rows("main", 1, 10)).await;
    assert_eq!(
        none.outcome,
        Outcome::Refused {
            cause: "no command output known".into()
        }
    );
    assert_eq!(
        none.text,
        "No command's output rows are known in main: output_rows reads the rows of the window's \
         last command (or the one running) as the shell's marks frame them, and no command was \
         seen since rat began following the window, at the first input sent to it through rat. \
         Nothing was read: read_window main with scrollback_rows reads the history instead."
    );

    let r = t.send_text(run_text("main", "seq 101", 10)).await;
    assert_eq!(
        f.redact(&r.text),
        format!(
            "{DONE}\n[101 rows printed, the last 40 below; read_window main with output_rows \
             {{\"from\": 1, \"to\": 61}} shows the others]\n{}",
            numbers(62, 101)
        )
    );
    // Exactly the rows left out, none other.
    let read = t.read_window(read_rows("main", 1, 61)).await;
    assert_eq!(read.outcome, Outcome::Ok, "{}", read.text);
    assert_eq!(
        read.text,
        format!(
            "[rows 1 to 61 of the 101 the last command in main printed]\n{}",
            numbers(1, 61)
        )
    );
    // One row; to past the end reads to the last.
    assert_eq!(
        t.read_window(read_rows("main", 7, 7)).await.text,
        "[row 7 of the 101 the last command in main printed]\n7"
    );
    assert_eq!(
        t.read_window(read_rows("main", 99, 500)).await.text,
        "[rows 99 to 101 of the 101 the last command in main printed; there is none after row \
         101]\n99\n100\n101"
    );
    // From past the end: refused, with the call reading them all.
    let past = t.read_window(read_rows("main", 102, 110)).await;
    assert!(past.outcome.is_error());
    assert_eq!(
        past.text,
        "output_rows starts at row 102, past the last: the last command in main printed 101. \
         Nothing was read: read_window main with output_rows {\"from\": 1, \"to\": 101} shows \
         them."
    );
    // A command printing nothing.
    f.run("s", "main", "true").await;
    let nothing = t.read_window(read_rows("main", 1, 1)).await;
    assert_eq!(nothing.outcome, Outcome::Message);
    assert_eq!(nothing.text, "The last command in main printed nothing.");
}

#[tokio::test]
async fn a_git_log_of_101_commits_is_read_in_two_calls() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let setup = "cd $(mktemp -d) && git init -q && for i in $(seq 101); do git -c \
                 user.name=t -c user.email=t@t commit -q --allow-empty -m \"commit $i\"; done";
    let made = t.send_text(run_text("main", setup, 40)).await;
    assert!(made.text.contains("exit status 0"), "{}", made.text);
    let r = t
        .send_text(run_text("main", "git --no-pager log --format=%s", 10))
        .await;
    let subjects = |from: u32, to: u32| {
        (from..=to)
            .rev()
            .map(|i| format!("commit {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        f.redact(&r.text),
        format!(
            "{DONE}\n[101 rows printed, the last 40 below; read_window main with output_rows \
             {{\"from\": 1, \"to\": 61}} shows the others]\n{}",
            subjects(1, 40)
        )
    );
    let read = t.read_window(read_rows("main", 1, 61)).await;
    assert_eq!(
        read.text,
        format!(
            "[rows 1 to 61 of the 101 the last command in main printed]\n{}",
            subjects(41, 101)
        )
    );
}

#[tokio::test]
async fn rows_of_a_command_still_running_are_numbered_from_its_first() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = t
        .send_text(run_text("main", "seq 50; read -r; seq 51 130; sleep 30", 2))
        .await;
    assert!(
        r.text.contains("[50 rows printed, the last 40 below; read_window main with output_rows {\"from\": 1, \"to\": 10} shows the others]"),
        "{}",
        r.text
    );
    // Enter ends the read: 80 rows more, numbered from 51.
    let w = t.send_keys(rat_core::terminals::SendKeys {
        window: "main".into(),
        keys: vec!["Enter".into()],
        wait_seconds: 2,
    });
    let w = w.await;
    assert!(
        w.text.contains("[81 rows printed since the last answer, the last 40 below; read_window main with output_rows {\"from\": 51, \"to\": 91} shows the others]"),
        "{}",
        w.text
    );
    let read = t.read_window(read_rows("main", 45, 55)).await;
    assert_eq!(
        read.text,
        format!(
            "[rows 45 to 55 of the 131 printed so far by the command running in main]\n{}\n\n{}",
            numbers(45, 50),
            numbers(51, 54)
        )
    );
}

#[tokio::test]
async fn rows_past_the_history_keep_their_numbers() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = t.send_text(run_text("main", "seq 12000", 40)).await;
    let header = r.text.lines().nth(1).unwrap();
    // 10000 rows of history and 23 on the screen (the prompt on the 24th) are kept.
    assert_eq!(
        header,
        "[its first 1977 rows went past the history's 10000 rows before they could be told: \
         10023 rows left, the last 40 below; read_window main with output_rows \
         {\"from\": 1978, \"to\": 11960} shows the others]"
    );
    let gone = t.read_window(read_rows("main", 1, 100)).await;
    assert!(gone.outcome.is_error());
    assert_eq!(
        gone.text,
        "rows 1 to 1977 went past the history's 10000 rows before they could be read: the \
         command's rows kept in main are 1978 to 12000. Nothing was read: read_window main \
         with output_rows {\"from\": 1978, \"to\": 2017} shows the first of them."
    );
    let read = t.read_window(read_rows("main", 1, 1980)).await;
    assert_eq!(
        read.text,
        "[rows 1978 to 1980 of the 12000 the last command in main printed; rows 1 to 1977 went \
         past the history's 10000 rows]\n1978\n1979\n1980"
    );
}

#[tokio::test]
async fn rows_a_command_erased_are_not_its_rows() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = t
        // The erase `clear` prints under tmux-256color (screen and history); under tmux
        // 3.2a's default terminal (screen) `clear` leaves the history, which stays the
        // command's rows.
        .send_text(run_text(
            "main",
            "seq 30; printf '\\e[H\\e[2J\\e[3J'; seq 101 160",
            10,
        ))
        .await;
    assert_eq!(
        f.redact(&r.text),
        format!(
            "{DONE}\n[60 rows printed, the last 40 below; read_window main with output_rows \
             {{\"from\": 1, \"to\": 20}} shows the others]\n{}",
            numbers(121, 160)
        )
    );
    let read = t.read_window(read_rows("main", 1, 20)).await;
    assert_eq!(
        read.text,
        format!(
            "[rows 1 to 20 of the 60 the last command in main printed]\n{}",
            numbers(101, 120)
        )
    );
}

#[tokio::test]
async fn a_full_screen_program_has_a_screen_not_rows() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "seq 100; tput smcup; sleep 30", true))
        .await;
    f.wait_command("s", "main", "sleep").await;
    // The pane's bytes reach the transcript by its pipe, a moment after tmux read them.
    let mut read = t.read_window(read_rows("main", 1, 10)).await;
    for _ in 0..100 {
        if read.outcome.is_error() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        read = t.read_window(read_rows("main", 1, 10)).await;
    }
    assert!(read.outcome.is_error());
    assert_eq!(
        read.text,
        "A full-screen program holds the screen of main: what it shows is a screen, not rows. \
         Nothing was read: read_window main without output_rows shows it."
    );
    t.send_keys(keys("main", &["C-c"])).await;
}

#[tokio::test]
async fn a_row_over_the_read_budget_is_read_by_its_end() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let r = t
        .send_text(run_text("main", "printf 'x%.0s' $(seq 70000); echo", 20))
        .await;
    assert!(
        r.text.contains(
            "\n[1 row printed, the end of the last one below; read_window main with output_rows \
             {\"from\": 1, \"to\": 1} shows it in full]\n"
        ),
        "{}",
        &r.text[..200]
    );
    let read = t.read_window(read_rows("main", 1, 1)).await;
    let (header, row) = read.text.split_once('\n').unwrap();
    assert_eq!(
        header,
        "[row 1 of the 1 the last command in main printed; row 1 alone is over the read budget \
         (64 KiB): only its end is shown]"
    );
    assert!(row.chars().all(|c| c == 'x'));
    assert!(read.text.len() <= rat_core::result::ReadBudget::DEFAULT.bytes());
}
