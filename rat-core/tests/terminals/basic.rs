//! The terminal tools against a real tmux and a real bash: one private socket per test (killed
//! by a Drop guard), one home directory per test (so startup files are the test's own).
//! Result texts are snapshot-tested, with relative times and the home directory redacted.

use std::time::{Duration, Instant};

use crate::common::*;
use rat_core::result::{Outcome, ReadBudget};
use rat_core::terminals::{CloseWindow, CreateWindow};
use tokio_util::sync::CancellationToken;

/// The outcome as a word, for snapshots.
fn outcome(o: &Outcome) -> &'static str {
    match o {
        Outcome::Ok => "ok",
        Outcome::Message => "message",
        Outcome::Refused { .. } => "refused",
        Outcome::Failed { .. } => "failed",
    }
}

fn shown(f: &Fixture, r: &rat_core::result::ToolResult) -> String {
    format!("({}) {}", outcome(&r.outcome), f.redact(&r.text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_finds_everything_holding() {
    let f = start(Home::default()).await;
    let check = f.controller.check_terminals().await;
    assert!(all_hold(&check), "{check:?}");
    assert!(check.warnings().is_empty());
    // The check's terminal is gone, and its history was not saved.
    assert_eq!(
        f.tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .filter(|s| s.starts_with("rat-"))
            .count(),
        0
    );
    assert!(!f.home().join(".bash_history").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_failures_come_first() {
    let f = start_ready().await;
    let done = f.run("s", "main", "false | true").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 1. The pipeline exits with the status of its last command, 0, as bash reports it (statuses, left to right: 1 0).
        Nothing printed.
        ");
    let list = f.controller.session("s").list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: bash in ~, active Ns ago, last command exited with status 0, command 1 of its pipeline of 2 with 1 (statuses: 1 0) (Ns ago)");
    let single = f.run("s", "main", "false").await;
    insta::assert_snapshot!(shown(&f, &single), @r"
        (ok) main: the command finished Ns ago, exit status 1.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigpipe_is_told_as_usually_normal() {
    let f = start_ready().await;
    let done = f.run("s", "main", "yes | head -1").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 141. The pipeline exits with the status of its last command, 0, as bash reports it (statuses, left to right: 141 0). Status 141 is usually normal: SIGPIPE, its reader stopped early (as in yes | head).
        [1 row printed]
        y
        ");
    // Nothing added for a single command, nor for a pipeline whose last command alone failed.
    let single = f.run("s", "main", "(exit 141)").await;
    insta::assert_snapshot!(shown(&f, &single), @r"
        (ok) main: the command finished Ns ago, exit status 141.
        Nothing printed.
        ");
    let last = f.run("s", "main", "true | (exit 141)").await;
    insta::assert_snapshot!(shown(&f, &last), @r"
        (ok) main: the command finished Ns ago, exit status 141.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_job_is_seen_finished_at_once() {
    let f = start_ready().await;
    let started = Instant::now();
    // The wait (20 s at most) must end at the prompt, long before the job would: a bound far
    // from both, as a loaded machine may take seconds to show the prompt.
    let done = f.run("s", "main", "sleep 60 &").await;
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    // bash tells the job's number and process: the sleep running (once the subshell bash
    // forked for it has executed sleep).
    let shown = shown(&f, &done);
    let pid = shown.rsplit_once("[1] ").map_or("", |(_, pid)| pid);
    eventually("the job's process runs sleep", || {
        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == b"sleep\x0060\x00")
    })
    .await;
    insta::assert_snapshot!(shown.replace(pid, "PID"), @r"
        (ok) main: the command finished Ns ago, exit status 0.
        [1 row printed]
        [1] PID
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_assigning_prompt_command_keeps_waits_and_statuses() {
    // The commonest line of all: a startup file assigning PROMPT_COMMAND. rat's hook is
    // installed after the startup files, first, and the profile's own command still runs.
    let f = start(Home {
        profile: "PROMPT_COMMAND='history -a; __mine=$((${__mine:-0}+1))'",
        ..Home::default()
    })
    .await;
    let check = f.controller.check_terminals().await;
    assert!(all_hold(&check), "{check:?}");
    assert!(check.warnings().is_empty(), "{check:?}");
    f.ready("s", "main").await;
    let done = f.run("s", "main", "(exit 3)").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago, exit status 3.
        Nothing printed.
        ");
    let done = f.run("s", "main", "false | true").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 1. The pipeline exits with the status of its last command, 0, as bash reports it (statuses, left to right: 1 0).
        Nothing printed.
        ");
    let list = f.controller.session("s").list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: bash in ~, active Ns ago, last command exited with status 0, command 1 of its pipeline of 2 with 1 (statuses: 1 0) (Ns ago)");
    // The profile's hook ran at each prompt too.
    let done = f.run("s", "main", "echo mine=$__mine").await;
    let (told, mine) = done
        .text
        .rsplit_once("mine=")
        .unwrap_or_else(|| panic!("{}", done.text));
    assert!(
        told.ends_with("exit status 0.\n[1 row printed]\n"),
        "{}",
        done.text
    );
    let mine: u32 = mine.parse().unwrap_or_else(|_| panic!("{}", done.text));
    assert!(mine >= 3, "{}", done.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_prepending_a_command_keeps_the_statuses() {
    let f = start(Home {
        profile: "PROMPT_COMMAND=\"false; $PROMPT_COMMAND\"",
        ..Home::default()
    })
    .await;
    let check = f.controller.check_terminals().await;
    assert!(all_hold(&check), "{check:?}");
    assert!(check.warnings().is_empty());
    f.ready("s", "main").await;
    let done = f.run("s", "main", "false | true").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 1. The pipeline exits with the status of its last command, 0, as bash reports it (statuses, left to right: 1 0).
        Nothing printed.
        ");
    let done = f.run("s", "main", "true").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago, exit status 0.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bracketed_paste_holds_against_an_inputrc_and_a_paste_waits_for_enter() {
    let f = start(Home {
        inputrc: "set enable-bracketed-paste off\n",
        ..Home::default()
    })
    .await;
    let check = f.controller.check_terminals().await;
    assert!(all_hold(&check), "{check:?}");
    let t = f.controller.session("s");
    f.ready("s", "main").await;
    f.read_until("s", "main", 0, |s| s == "$").await;
    let sent = t.send_text(text("main", "echo one\necho two", false)).await;
    insta::assert_snapshot!(shown(&f, &sent), @"(ok) Pasted 17 characters into main, without Enter.");
    let screen = f
        .read_until("s", "main", 0, |s| s.ends_with("echo two"))
        .await;
    // Both lines wait on the command line: nothing ran.
    insta::assert_snapshot!(shown(&f, &screen), @r"
    (ok) $ echo one
    echo two
    ");
    let still = waited(&t, "main", 1).await;
    insta::assert_snapshot!(shown(&f, &still), @r"(message) main: nothing runs: the line you typed waits on bash's command line, not run (sent without Enter). send_keys Enter runs it; C-c drops it.");
    let enter = t.send_text(text("main", "", true)).await;
    insta::assert_snapshot!(shown(&f, &enter), @"(ok) Pressed Enter in main.");
    f.ready("s", "main").await;
    let screen = t.read_window(read("main", 0)).await;
    insta::assert_snapshot!(shown(&f, &screen), @r"
    (ok) $ echo one
    echo two
    one
    two
    $
    ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mebibyte_paste_arrives_whole() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "stty -echo; cat > big.txt", true))
        .await;
    f.wait_command("s", "main", "cat").await;
    // 1 MiB of lines of 128 bytes (a terminal's line discipline takes 4095 at most per line).
    let line = format!(
        "{}\n",
        "0123456789abcdef"
            .repeat(8)
            .chars()
            .take(127)
            .collect::<String>()
    );
    let payload = line.repeat(1024 * 1024 / 128);
    assert_eq!(payload.len(), 1024 * 1024);
    let sent = t.send_text(text("main", &payload, false)).await;
    assert_eq!(sent.outcome, Outcome::Ok, "{}", sent.text);
    t.send_keys(keys("main", &["C-d"])).await;
    let done = waited(&t, "main", 50).await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    let got = std::fs::read_to_string(f.home().join("big.txt")).unwrap();
    assert_eq!(got.len(), payload.len());
    assert!(got == payload, "the paste arrived changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_sent_at_once_never_interleave() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "stty -echo; cat > mixed.txt", true))
        .await;
    f.wait_command("s", "main", "cat").await;
    let mut tasks = Vec::new();
    for letter in 'a'..='h' {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            t.send_text(text(
                "main",
                &format!("{}\n", letter.to_string().repeat(3000)),
                false,
            ))
            .await
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap().outcome, Outcome::Ok);
    }
    t.send_keys(keys("main", &["C-d"])).await;
    let done = waited(&t, "main", 50).await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    let got = std::fs::read_to_string(f.home().join("mixed.txt")).unwrap();
    let mut lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 8, "{got:?}");
    lines.sort();
    for (line, letter) in lines.iter().zip('a'..='h') {
        assert_eq!(*line, letter.to_string().repeat(3000));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_leaves_copy_mode_first() {
    let f = start_ready().await;
    f.tmux(&["copy-mode", "-t", "=s:=main"]);
    assert_eq!(
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{pane_in_mode}"])
            .trim(),
        "1"
    );
    let done = f.run("s", "main", "echo left").await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    assert_eq!(
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{pane_in_mode}"])
            .trim(),
        "0"
    );
    f.tmux(&["copy-mode", "-t", "=s:=main"]);
    let pressed = f
        .controller
        .session("s")
        .send_keys(keys("main", &["e", "c", "h", "o", "Space", "k", "Enter"]))
        .await;
    insta::assert_snapshot!(shown(&f, &pressed), @"(ok) Pressed in main: e c h o Space k Enter.");
    f.ready("s", "main").await;
    let screen = f.controller.session("s").read_window(read("main", 0)).await;
    insta::assert_snapshot!(shown(&f, &screen), @r"
    (ok) $ echo left
    left
    $ echo k
    k
    $
    ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn less_is_read_full_screen_with_its_cursor() {
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    std::fs::write(f.home().join("three.txt"), "first\nsecond\nthird\n").unwrap();
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.send_text(text("main", "less three.txt", true)).await;
    eventually("less shows", || {
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{alternate_on}"])
            .trim()
            == "1"
    })
    .await;
    let screen = f
        .read_until("s", "main", 100, |s| s.ends_with("(END)"))
        .await;
    insta::assert_snapshot!(shown(&f, &screen));
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: less in ~, active Ns ago, full-screen program");
    t.send_keys(keys("main", &["q"])).await;
    // A program ending without leaving the alternate screen (as when killed): bash is back in
    // the foreground of a screen still full-screen, which list_windows tells how to leave.
    f.ready("s", "main").await;
    f.run("s", "main", "printf '\\033[?1049h'").await;
    eventually("the alternate screen stays on", || {
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{alternate_on}"])
            .trim()
            == "1"
    })
    .await;
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: bash in ~, active Ns ago, last command exited with status 0 (Ns ago), full-screen mode left on by a program that ended: `tput rmcup` leaves it");
    f.run("s", "main", "tput rmcup").await;
    eventually("the alternate screen is left", || {
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{alternate_on}"])
            .trim()
            == "0"
    })
    .await;
    let list = t.list_windows().await;
    assert!(!shown(&f, &list).contains("full-screen"), "{}", list.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vim_is_read_full_screen_with_its_cursor() {
    assert!(
        std::path::Path::new("/usr/bin/vim").exists()
            || std::path::Path::new("/usr/bin/vi").exists(),
        "vim is needed (apt-get install -y vim-tiny)"
    );
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    std::fs::write(f.home().join("v.txt"), "alpha\nbeta\n").unwrap();
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.send_text(text("main", "vi -u NONE -N v.txt", true)).await;
    eventually("vim shows", || {
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{alternate_on}"])
            .trim()
            == "1"
    })
    .await;
    f.read_until("s", "main", 0, |s| s.contains("v.txt")).await;
    t.send_keys(keys("main", &["j", "l"])).await;
    let screen = f
        .read_until("s", "main", 0, |s| {
            s.starts_with("[full-screen program, cursor at row 2, column 2]")
        })
        .await;
    let first = screen.text.lines().next().unwrap();
    assert_eq!(
        first, "[full-screen program, cursor at row 2, column 2]",
        "{}",
        screen.text
    );
    let body: Vec<&str> = screen.text.lines().skip(1).collect();
    assert_eq!(&body[..3], ["alpha", "beta", "~"], "{}", screen.text);
    t.send_keys(keys("main", &["Escape", ":", "q", "!", "Enter"]))
        .await;
}

/// What send_text's and send_keys' descriptions say of a full-screen program, as an agent meets
/// it in vim: a command sent as one line by send_text is typed, and runs (`:wq` written and
/// exited, though vim asked for bracketed paste, under which a paste is inserted as text in
/// any mode); text for its input goes by send_text (inserted in insert mode); or `:` pressed
/// and the rest of the command line sent. More in `paste`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_screen_programs_commands_are_keys() {
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    let file = f.home().join("v.txt");
    std::fs::write(&file, "hello\n").unwrap();
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let vim = async || {
        t.send_text(text("main", "vim v.txt", true)).await;
        f.read_until("s", "main", 0, |s| {
            s.starts_with("[full-screen program") && s.contains("\"v.txt\"")
        })
        .await;
    };
    vim().await;
    t.send_text(text("main", ":wq", true)).await;
    f.ready("s", "main").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello\n");
    // text into insert mode by send_text, the command by keys
    vim().await;
    t.send_keys(keys("main", &["A"])).await;
    t.send_text(text("main", " world", false)).await;
    t.send_keys(keys("main", &["Escape", ":", "w", "q", "Enter"]))
        .await;
    f.ready("s", "main").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello world\n");
    // ":" pressed, the rest of the command line pasted, with Enter
    vim().await;
    t.send_keys(keys("main", &[":"])).await;
    t.send_text(text("main", "s/hello/bye/ | wq", true)).await;
    f.ready("s", "main").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "bye world\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_is_cut_at_a_character_boundary() {
    let f = start_ready().await;
    // One line of 100000 two-byte characters, spanning history and screen once joined.
    let done = f
        .run("s", "main", "clear; printf 'é%.0s' $(seq 100000); echo")
        .await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    let screen = f
        .read_until("s", "main", 10_000, |s| s.ends_with("\n$"))
        .await;
    assert_eq!(screen.outcome, Outcome::Ok);
    assert!(
        screen.text.len() <= ReadBudget::DEFAULT.bytes(),
        "{}",
        screen.text.len()
    );
    assert!(ReadBudget::DEFAULT.bytes() - screen.text.len() <= 1);
    let (header, body) = screen.text.split_once('\n').unwrap();
    assert_eq!(
        header,
        "[history cut at its start to fit the read budget (64 KiB)]"
    );
    let (line, prompt) = body.rsplit_once('\n').unwrap();
    assert!(
        line.chars().all(|c| c == 'é'),
        "the cut is not at a character boundary"
    );
    assert_eq!(prompt, "$");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screen_over_the_budget_is_refused_with_its_size() {
    let f = start(Home {
        budget: Some(ReadBudget::new(20 * 1024).unwrap()),
        ..Home::default()
    })
    .await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    // Each cell: a letter and four combining accents (9 bytes), a full screen of them.
    f.run(
        "s",
        "main",
        "clear; for i in $(seq 23); do printf 'a\\u0301\\u0302\\u0303\\u0304%.0s' $(seq 200); done",
    )
    .await;
    eventually("the prompt shows", || {
        f.tmux(&["capture-pane", "-p", "-t", "=s:=main"])
            .trim_end()
            .ends_with('$')
    })
    .await;
    let screen = f.controller.session("s").read_window(read("main", 0)).await;
    insta::assert_snapshot!(shown(&f, &screen), @"(refused) The screen of main takes 41424 bytes, over the read budget of 20 KiB: it can not be read. Close the window (close_window) and start over in a new one.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_server_typed_in_a_terminal_is_a_death() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let waiting = tokio::spawn({
        let c = f.controller.clone();
        async move { c.wait_server().await }
    });
    let kill = format!("{} kill-server", tmux_on_path().display());
    t.send_text(text("main", &kill, true)).await;
    let exit = tokio::time::timeout(Duration::from_secs(30), waiting)
        .await
        .expect("the death is seen")
        .unwrap();
    assert!(!exit.requested, "{exit:?}");
    let meanwhile = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &meanwhile), @"(failed) The terminals are restarting after a failure, and every window was lost: retry in a few seconds to find a fresh main.");
    f.controller.restart().await.expect("restarts");
    let fresh = t.list_windows().await;
    // bash may have run its hook already, or not: "no prompt recorded yet" comes and goes.
    let (header, main) = fresh.text.split_once('\n').unwrap();
    assert_eq!(
        header,
        "[your terminals were restarted, every window and what ran in it gone: a fresh main was just created]"
    );
    assert!(
        f.redact(main).starts_with("main: bash in ~, active Ns ago"),
        "{main}"
    );
    let report = f.controller.stop().await.unwrap();
    assert!(report.exit.requested, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_are_created_listed_and_closed() {
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    let t = f.controller.session("s");
    let main = t
        .create_window(CreateWindow {
            name: "main".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &main), @"(ok) Window main created: bash is starting in ~.");
    f.ready("s", "main").await;
    let again = t
        .create_window(CreateWindow {
            name: "main".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &again), @"(message) Window main already exists, not created: it runs bash in ~.");
    let build = t
        .create_window(CreateWindow {
            name: "build".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &build), @"(ok) Window build created: bash is starting in ~.");
    let bad = t
        .create_window(CreateWindow {
            name: "my build".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &bad), @r#"(refused) Invalid window name "my build": only letters, digits, '_' and '-', up to 32 characters, not digits only (tmux reads those as a window index)."#);
    // tmux reads a window part of digits only as an index, even after '=': "1" is build here.
    let digits = t.create_window(CreateWindow { name: "1".into() }).await;
    insta::assert_snapshot!(shown(&f, &digits), @r#"(refused) Invalid window name "1": only letters, digits, '_' and '-', up to 32 characters, not digits only (tmux reads those as a window index)."#);
    let close_digits = t.close_window(CloseWindow { name: "1".into() }).await;
    insta::assert_snapshot!(shown(&f, &close_digits), @r#"(refused) Invalid window name "1": only letters, digits, '_' and '-', up to 32 characters, not digits only (tmux reads those as a window index)."#);
    f.ready("s", "build").await;
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"
    (ok) main: bash in ~, active Ns ago
    build: bash in ~, active Ns ago
    ");
    // The global window-size stays at its default: tmux 3.3a crashes on the next session otherwise.
    assert_eq!(
        f.tmux(&["show-options", "-g", "-w", "window-size"]).trim(),
        "window-size latest"
    );
    assert_eq!(
        f.tmux(&[
            "display-message",
            "-p",
            "-t",
            "=s:=build",
            "#{window_width}x#{window_height} #{window-size}"
        ])
        .trim(),
        "200x24 manual"
    );
    let closed = t
        .close_window(CloseWindow {
            name: "build".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &closed), @"(ok) Window build closed.");
    let nothing = t
        .close_window(CloseWindow {
            name: "build".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &nothing), @"(message) No window build: nothing to close.");
    let last = t
        .close_window(CloseWindow {
            name: "main".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &last), @"(ok) Window main closed. It was your last window: a fresh main will be there on your next call.");
    let none = t
        .close_window(CloseWindow {
            name: "main".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &none), @"(message) No window main: nothing to close.");
    // close_window never creates the session.
    assert!(
        !f.tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .any(|s| s == "s")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_to_a_missing_session_create_it_and_send_nothing() {
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    let t = f.controller.session("s");
    let sent = t.send_text(text("main", "echo hi", true)).await;
    insta::assert_snapshot!(shown(&f, &sent), @"(refused) Nothing was sent: your terminals did not exist, and a fresh main was just created, where bash is still starting. Wait for its prompt (wait_window), then send again.");
    assert!(
        f.tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .any(|s| s == "s")
    );
    let u = f.controller.session("u");
    let other = u.send_keys(keys("build", &["Enter"])).await;
    insta::assert_snapshot!(shown(&f, &other), @"(refused) Nothing was sent: your terminals did not exist, and a fresh main was just created, with no window build: create_window creates it.");
    let v = f.controller.session("v");
    let read_other = v.read_window(read("build", 0)).await;
    insta::assert_snapshot!(shown(&f, &read_other), @"(refused) No window build: your terminals did not exist, and a fresh main was just created. create_window creates build.");
    let w = f.controller.session("w");
    let read_main = w.read_window(read("main", 0)).await;
    assert!(
        read_main
            .text
            .starts_with("[your terminals did not exist: a fresh main was just created]"),
        "{}",
        read_main.text
    );
    let missing = t.send_text(text("nope", "x", false)).await;
    insta::assert_snapshot!(shown(&f, &missing), @"(refused) No window nope: list_windows shows your windows, create_window creates one.");
    let x = f.controller.session("x");
    let waited = waited(&x, "main", 20).await;
    insta::assert_snapshot!(shown(&f, &waited), @"(ok) [your terminals did not exist: a fresh main was just created] main: bash is at its prompt (Ns ago), ready for input.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_are_refused_and_nothing_is_sent() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let control = t
        .send_text(text("main", "echo ok\nprintf 'a\x1b[201~'\r", true))
        .await;
    insta::assert_snapshot!(shown(&f, &control), @"(refused) Nothing was sent: the text holds a control character, U+001B (escape), on line 2. To press keys such as Escape, C-c or C-d, use send_keys; to put content with control characters in a file, use write_file.");
    let empty = t.send_text(text("main", "", false)).await;
    insta::assert_snapshot!(shown(&f, &empty), @"(message) Nothing was sent: the text is empty and enter is false.");
    let no_keys = t.send_keys(keys("main", &[])).await;
    insta::assert_snapshot!(shown(&f, &no_keys), @r"(refused) Nothing was sent: keys is empty. Give key names, one per key: a printable character, Space, Enter, Tab, BTab, BSpace, Escape, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1 to F12, with the modifiers M- (any key), C- (a letter, Space, @ [ \ ] ^ _ ?, - / 2 6 without M-, and Up to Delete, F1 to F12) and S- (only Up to Delete, F1 to F12), combinable (C-c, M-x, S-Up, C-M-Left).");
    let unknown = t.send_keys(keys("main", &["e", "Ctrl-C", "Enter"])).await;
    insta::assert_snapshot!(shown(&f, &unknown), @r#"(refused) Nothing was sent: unknown key "Ctrl-C" (key 2 of 3). Key names, one per key: a printable character, Space, Enter, Tab, BTab, BSpace, Escape, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1 to F12, with the modifiers M- (any key), C- (a letter, Space, @ [ \ ] ^ _ ?, - / 2 6 without M-, and Up to Delete, F1 to F12) and S- (only Up to Delete, F1 to F12), combinable (C-c, M-x, S-Up, C-M-Left). To type text, use send_text."#);
    // tmux 3.3a types S-Tab as the text "S-Tab" and sends nothing for C-1: both refused.
    let typed = t.send_keys(keys("main", &["S-Tab", "Enter"])).await;
    insta::assert_snapshot!(shown(&f, &typed), @r#"(refused) Nothing was sent: unknown key "S-Tab" (key 1 of 2). Key names, one per key: a printable character, Space, Enter, Tab, BTab, BSpace, Escape, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1 to F12, with the modifiers M- (any key), C- (a letter, Space, @ [ \ ] ^ _ ?, - / 2 6 without M-, and Up to Delete, F1 to F12) and S- (only Up to Delete, F1 to F12), combinable (C-c, M-x, S-Up, C-M-Left). To type text, use send_text."#);
    let dropped = t.send_keys(keys("main", &["C-c", "C-1"])).await;
    insta::assert_snapshot!(shown(&f, &dropped), @r#"(refused) Nothing was sent: unknown key "C-1" (key 2 of 2). Key names, one per key: a printable character, Space, Enter, Tab, BTab, BSpace, Escape, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1 to F12, with the modifiers M- (any key), C- (a letter, Space, @ [ \ ] ^ _ ?, - / 2 6 without M-, and Up to Delete, F1 to F12) and S- (only Up to Delete, F1 to F12), combinable (C-c, M-x, S-Up, C-M-Left). To type text, use send_text."#);
    let aliases = t
        .send_keys(keys("main", &["PgUp", "DC", "C-a", "C-k"]))
        .await;
    assert_eq!(aliases.outcome, Outcome::Ok, "{}", aliases.text);
    let screen = f.read_until("s", "main", 0, |s| s == "$").await;
    insta::assert_snapshot!(shown(&f, &screen), @"(ok) $");
    // max_seconds out of 1 to 50 is refused at once, not brought within it.
    let none = waited(&t, "main", 0).await;
    insta::assert_snapshot!(shown(&f, &none), @"(refused) Nothing was waited for: max_seconds is 0, and must be from 1 to 50 (20 by default). Call wait_window again with max_seconds from 1 to 50, or without it.");
    let started = Instant::now();
    let long = waited(&t, "main", 51).await;
    // At once, not after 50 s: a bound a loaded machine can not reach.
    assert!(started.elapsed() < Duration::from_secs(10));
    insta::assert_snapshot!(shown(&f, &long), @"(refused) Nothing was waited for: max_seconds is 51, and must be from 1 to 50 (20 by default). Call wait_window again with max_seconds from 1 to 50, or without it.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_tells_what_still_runs_and_returns_when_cancelled_or_stopping() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "sleep 30", true)).await;
    // Once sleep is in the foreground: before, bash still reads the line (or has forked and
    // not exec'd yet), and the wait would rightly tell bash.
    f.wait_command("s", "main", "sleep").await;
    let running = waited(&t, "main", 1).await;
    insta::assert_snapshot!(shown(&f, &running), @r"
        (ok) main: still running, Ns since your last input, sleep in the foreground.
        Nothing printed.
        ");
    let cancel = CancellationToken::new();
    let waiting = tokio::spawn({
        let t = t.clone();
        let cancel = cancel.clone();
        async move { t.wait_window(wait("main", 50), cancel).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    cancel.cancel();
    let cancelled = waiting.await.unwrap();
    // At once, not after 50 s: a bound a loaded machine can not reach.
    assert!(started.elapsed() < Duration::from_secs(10));
    insta::assert_snapshot!(shown(&f, &cancelled), @"(message) The wait was cancelled.");
    assert_eq!(
        cancelled.log,
        [
            ("window", "main".to_owned()),
            ("max_seconds", "50".to_owned()),
            ("cancelled", "true".to_owned())
        ]
    );
    let waiting = tokio::spawn({
        let t = t.clone();
        async move { waited(&t, "main", 50).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    f.controller.announce_stop();
    let stopped = waiting.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    insta::assert_snapshot!(shown(&f, &stopped), @"(message) main: rat is stopping, so the wait ended early; what runs in the window stops with it.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_answers_soon_after_the_prompt() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "sleep 1", true)).await;
    let started = Instant::now();
    let done = waited(&t, "main", 50).await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    // Not a timing test (see benches/benches/wait.rs): only that it did not wait for its end
    // (50 s), with room for a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_controller_on_the_tenant_is_refused_with_the_pid() {
    let f = start(Home::default()).await;
    let tenant = f.socket().trim_start_matches("rat-").to_string();
    let mut config = rat_core::terminals::ControllerConfig::new(&tenant);
    config.home = f.home().to_path_buf();
    let err = rat_core::terminals::Controller::start(config)
        .await
        .unwrap_err();
    let pid = f.controller.server_pid();
    assert_eq!(
        err.to_string(),
        format!(
            "another tmux server (pid {pid}) already serves socket {}: another ratd serves this tenant on this machine",
            f.socket()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twelve_thousand_keys_are_pressed_in_order() {
    // tmux's parser fails a command of some 9990 arguments or more: the keys go in several
    // send-keys, in order. cat writes 120 lines of 99 letters, each letter its line's number.
    let f = start_ready().await;
    let t = f.controller.session("s");
    // Not before cat has the terminal (see cat_into).
    let out = f.cat_into("keys.txt").await;
    let (mut pressed, expected) = letter_lines();
    pressed.push("C-d".to_string());
    assert_eq!(pressed.len(), 12001);
    let pressed: Vec<&str> = pressed.iter().map(String::as_str).collect();
    let result = t.send_keys(keys("main", &pressed)).await;
    assert_eq!(
        result.outcome,
        rat_core::result::Outcome::Ok,
        "{}",
        result.text
    );
    let done = f.ready("s", "main").await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_home_is_told_as_such_at_start() {
    // A service user whose home does not exist (HOME=/nonexistent): not "tmux was not found",
    // which the ENOENT of starting tmux in a missing directory would read as.
    let dir = tempfile::tempdir().unwrap();
    let mut config = rat_core::terminals::ControllerConfig::new(tenant());
    config.home = dir.path().join("nonexistent");
    let started = rat_core::terminals::Controller::start(config.clone()).await;
    if let Ok(controller) = &started {
        let _ = controller.stop().await;
    }
    assert_eq!(
        started.err().map(|e| e.to_string()),
        Some(format!(
            "the terminals' home directory {} is missing or not a directory: create it, or give ratd's user an existing home (its HOME)",
            config.home.display()
        ))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_missing_or_older_than_4_4_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = rat_core::terminals::ControllerConfig::new(tenant());
    config.bash = dir.path().join("bash");
    let err = rat_core::terminals::Controller::start(config.clone())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "bash was not found (looked for {}): install bash 4.4 or later",
            config.bash.display()
        )
    );
    // A bash 4.3 (as `bash --version` states it); never started as a shell.
    let old = dir.path().join("bash");
    std::fs::write(
        &old,
        "#!/bin/sh\necho 'GNU bash, version 4.3.48(1)-release (x86_64-pc-linux-gnu)'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = rat_core::terminals::Controller::start(config.clone())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "bash 4.3.48(1)-release is too old: rat needs bash 4.4 or later, for bracketed paste ({})",
            old.display()
        )
    );
    let mut bad = config;
    bad.tenant = "a.b".into();
    let err = rat_core::terminals::Controller::start(bad)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid tenant name \"a.b\": only letters, digits, '_' and '-', up to 32 characters"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_started_after_a_startup_file_changed_records_its_prompts() {
    let f = start(Home::default()).await;
    let check = f.controller.check_terminals().await;
    assert!(check.prompts, "{check:?}");
    // The agent (or an installer) replaces PROMPT_COMMAND after ratd checked the terminals:
    // rat's hook is still installed after the startup files.
    std::fs::write(
        f.home().join(".bash_profile"),
        "PS1='$ '\nPROMPT_COMMAND='echo -n'\n",
    )
    .unwrap();
    let t = f.controller.session("s");
    t.create_window(CreateWindow {
        name: "late".into(),
    })
    .await;
    f.ready("s", "late").await;
    let done = f.run("s", "late", "(exit 4)").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) late: the command finished Ns ago, exit status 4.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unset_prompt_command_typed_in_a_terminal_is_healed_at_the_next_command() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "unset PROMPT_COMMAND", true))
        .await;
    // No prompt of rat's after it: bash in the foreground, nothing seen finished.
    let waited = waited(&t, "main", 1).await;
    insta::assert_snapshot!(shown(&f, &waited), @r"
    (ok) main: no prompt recorded since your last input, Ns ago: it assigned or unset PROMPT_COMMAND, which took rat's hook out of this shell. The next command puts it back if PROMPT_COMMAND is now empty or unset; assigned something else, only a new window has it (add to PROMPT_COMMAND rather than replace it).
    [1 row printed]
    $
    ");
    // The next command puts rat's entry back (PS0), and its prompt is recorded.
    let done = f.run("s", "main", "(exit 6)").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago, exit status 6.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_control_connection_is_replaced() {
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    let t = f.controller.session("s");
    assert_eq!(t.list_windows().await.outcome, Outcome::Ok);
    let pid = f.tmux(&["list-clients", "-F", "#{client_pid} #{client_control_mode}"]);
    let pid = pid
        .lines()
        .find_map(|l| l.strip_suffix(" 1"))
        .expect("the control client")
        .to_string();
    std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .unwrap();
    eventually("tmux drops the control client", || {
        !f.tmux(&["list-clients", "-F", "#{client_pid}"])
            .lines()
            .any(|l| l == pid)
    })
    .await;
    let server = f.controller.server_pid();
    let mut answered = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let r = t.list_windows().await;
        if r.outcome == Outcome::Ok {
            answered = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let r = answered.expect("list_windows answers again");
    assert!(r.text.starts_with("main: "), "{}", r.text);
    assert_eq!(f.controller.server_pid(), server);
    let now = f.tmux(&["list-clients", "-F", "#{client_pid} #{client_control_mode}"]);
    let controls: Vec<&str> = now.lines().filter_map(|l| l.strip_suffix(" 1")).collect();
    assert_eq!(controls.len(), 1, "{now}");
    assert_ne!(controls[0], pid, "a new control client");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_tmux_would_interpret_are_pressed_as_given() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    // `;` ends a tmux command, `#` starts a comment, `~` and `$` expand, `-` looks like a flag.
    let pressed = t
        .send_keys(keys(
            "main",
            &[
                "e", "c", "h", "o", "Space", "'", "-", "~", "$", "#", ";", "'", "Enter",
            ],
        ))
        .await;
    insta::assert_snapshot!(shown(&f, &pressed), @"(ok) Pressed in main: e c h o Space ' - ~ $ # ; ' Enter.");
    let screen = f.read_until("s", "main", 0, |s| s.ends_with("\n$")).await;
    insta::assert_snapshot!(shown(&f, &screen), @r"
    (ok) $ echo '-~$#;'
    -~$#;
    $
    ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_sent_while_a_command_runs_is_waited_for() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    // Long enough that the poll below can not miss it on a loaded machine.
    t.send_text(text("main", "sleep 3", true)).await;
    f.wait_command("s", "main", "sleep").await;
    t.send_text(text("main", "sleep 1; echo second", true))
        .await;
    let done = waited(&t, "main", 20).await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago, exit status 0.
        [1 row printed]
        second
        ");
    // The wait ended after the second text ran, not at the prompt of the first command. The
    // hook records the prompt before bash prints it: read until the screen shows it.
    let screen = f.read_until("s", "main", 0, |s| s.ends_with("\n$")).await;
    assert!(screen.text.contains("\nsecond\n"), "{}", screen.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hook_leaves_the_shell_as_it_was() {
    let f = start_ready().await;
    // A job outliving the test: finished, bash would announce it and forget its pid.
    f.run("s", "main", "sleep 60 & false").await;
    // $? and $! are the agent's, job control stays on, and bash announces no job of rat's.
    let line = "echo \"status=$? same=$([ \"$!\" = \"$(jobs -p)\" ] && echo yes || echo no) m=${-//[^m]/}\"";
    f.run("s", "main", line).await;
    let screen = f.read_until("s", "main", 0, |s| s.ends_with("\n$")).await;
    let lines: Vec<&str> = screen.text.lines().collect();
    assert_eq!(
        lines[lines.len() - 2],
        "status=1 same=yes m=m",
        "{}",
        screen.text
    );
    assert!(!screen.text.contains("Done"), "{}", screen.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_script_typed_ahead_is_waited_for_with_its_status() {
    // bash runs PROMPT_COMMAND while the typed-ahead line waits, and the script then shows as
    // bash in the foreground: the wait must end with the script, not at the prompt before it.
    let f = start_ready().await;
    let t = f.controller.session("s");
    // Long enough that the poll below can not miss it on a loaded machine.
    t.send_text(text("main", "sleep 3", true)).await;
    f.wait_command("s", "main", "sleep").await;
    t.send_text(text("main", "bash -c 'sleep 3; exit 7'", true))
        .await;
    let done = waited(&t, "main", 20).await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago, exit status 7.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_could_not_run_is_told_as_such() {
    // A profile slower than the check (10 seconds) keeps bash from its first prompt: the check
    // gives up, and wait_window tells why it can not wait without blaming PROMPT_COMMAND.
    let f = start(Home {
        profile: "sleep 12",
        ..Home::default()
    })
    .await;
    let check = f.controller.check_terminals().await;
    assert!(!check.ran && !check.prompts, "{check:?}");
    let description = rat_core::terminals::texts::wait_window_description(&check);
    insta::assert_snapshot!(description, @"Wait until the command sent last to a window finished. In these terminals it can not: rat could not check them at its start (bash startup files blocking or too slow), so it does not rely on recorded prompts, and it answers so at once. Use list_windows instead (bash in the foreground means the terminal waits for input, unless it runs a bash script or builtin), and read_window.");
    let t = f.controller.session("s");
    let answer = waited(&t, "main", 5).await;
    insta::assert_snapshot!(shown(&f, &answer), @"(refused) main: rat can not wait in these terminals, as it can not tell when a command finishes: rat could not check them at its start (bash startup files blocking or too slow), so it does not rely on recorded prompts. Check with list_windows instead (bash in the foreground means the terminal waits for input, unless it runs a bash script or builtin), and read_window.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_tmux_never_does_what_it_was_told_not_done_nor_enter_without_its_text() {
    let f = start(Home {
        command_timeout: Some(Duration::from_millis(1500)),
        ..Home::default()
    })
    .await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    t.create_window(CreateWindow { name: "w2".into() }).await;
    f.ready("s", "w2").await;
    // A line typed, not run: an Enter arriving without its own text would run it.
    t.send_text(text("main", "echo TYPED-BEFORE", false)).await;
    f.read_until("s", "main", 0, |s| s.ends_with("echo TYPED-BEFORE"))
        .await;
    let pid = nix::unistd::Pid::from_raw(f.controller.server_pid() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    let sent = t.send_text(text("main", "; echo PASTED-LATE", true)).await;
    let pressed = t.send_keys(keys("w2", &["C-c"])).await;
    let closed = t.close_window(CloseWindow { name: "w2".into() }).await;
    let listed = t.list_windows().await;
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    let may = |look: &str| {
        format!(
            "(failed) The terminals did not answer in time (tmux stopped or overloaded): this call did not complete, but what it sent may still take effect once tmux answers. Before retrying, {look}."
        )
    };
    // An input first asks tmux which pane the window shows: unanswered, nothing was written.
    let nothing_sent = "(failed) The terminals did not answer in time: retrying may work.";
    assert_eq!(shown(&f, &sent), nothing_sent);
    assert_eq!(shown(&f, &pressed), nothing_sent);
    assert_eq!(
        shown(&f, &closed),
        may("list_windows shows whether it is still there")
    );
    assert_eq!(
        shown(&f, &listed),
        "(failed) The terminals did not answer in time: retrying may work."
    );
    // Once tmux answers again, the connection is aligned: replies match their commands.
    let list = t.list_windows().await;
    assert!(!list.outcome.is_error(), "{}", list.text);
    // The kill-window written meanwhile may or may not have run by now (told as "may").
    // Neither the text nor an Enter arrived: the line typed before stays unrun.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let screen = t.read_window(read("main", 0)).await;
    let ran: Vec<&str> = screen
        .text
        .lines()
        .filter(|l| *l == "TYPED-BEFORE" || l.contains("PASTED-LATE") && !l.starts_with('$'))
        .collect();
    assert!(ran.is_empty(), "{}", screen.text);
    assert!(
        screen.text.lines().last() == Some("$ echo TYPED-BEFORE"),
        "{}",
        screen.text
    );
    // Nothing in flight any more: the pane waits for input, and a new command runs and ends.
    t.send_keys(keys("main", &["C-u"])).await;
    let done = f.run("s", "main", "(exit 9)").await;
    insta::assert_snapshot!(shown(&f, &done), @r"
        (ok) main: the command finished Ns ago, exit status 9.
        Nothing printed.
        ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_created_again_tells_why() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    // exit in the last window: the window stays, dead, until told; then the session ends.
    t.send_text(text("main", "exit", true)).await;
    eventually("the shell ended", || {
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{pane_dead}"])
            .trim()
            == "1"
    })
    .await;
    let listed = t.list_windows().await;
    assert_eq!(
        redact_times(&listed.text),
        "main: ended Ns ago, exit status 0; wait_window main shows the rows it printed since the \
         last answer and closes the window"
    );
    let waited = waited(&t, "main", 5).await;
    assert_eq!(
        redact_times(&waited.text),
        "main: its bash ended Ns ago, exit status 0: the window is closed now (create_window \
         makes a new one).\n[1 row printed]\nexit"
    );
    eventually("the session ended", || {
        !f.tmux(&["list-sessions", "-F", "#{session_name}"])
            .lines()
            .any(|s| s == "s")
    })
    .await;
    let list = t.list_windows().await;
    let header = list.text.lines().next().unwrap();
    assert_eq!(
        header,
        "[your last window had closed, its directory and environment gone: a fresh main was just created]"
    );
    let screen = f.read_until("s", "main", 0, |s| s.ends_with('$')).await;
    assert!(!screen.text.starts_with('['), "{}", screen.text);
    // A ratd started again on the same tenant (the same home): its clients' terminals were
    // restarted, told apart from a client that never had any.
    let config = f.controller.config().clone();
    f.controller.stop().await.unwrap();
    let again = rat_core::terminals::Controller::start(config)
        .await
        .expect("starts again");
    let back = again.session("s").list_windows().await;
    assert_eq!(
        back.text.lines().next().unwrap(),
        "[your terminals were restarted, every window and what ran in it gone: a fresh main was just created]"
    );
    let newcomer = again.session("n").read_window(read("main", 0)).await;
    assert!(
        newcomer
            .text
            .starts_with("[your terminals did not exist: a fresh main was just created]"),
        "{}",
        newcomer.text
    );
    again.stop().await.unwrap();
}

/// A paste sent as soon as a wait says bash is at its prompt reaches bash's line editor, not
/// the terminal's line discipline (which keeps 4095 bytes of a line and echoes the paste's
/// marks): a line of 5000 characters runs whole, in a new window and right after a command,
/// every time (repeated: what it depends on is a race with bash). The startup file adds a
/// PROMPT_COMMAND entry that forks, as direnv's and pyenv's do: it runs after rat's hook and
/// before bash reads, which makes the gap tens of milliseconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_pasted_right_after_the_prompt_runs_whole() {
    let f = start(Home {
        profile: "PROMPT_COMMAND='/bin/sleep 0.05'",
        ..Home::default()
    })
    .await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    let t = f.controller.session("s");
    let line = format!("echo {} | wc -c", "z".repeat(5000));
    for round in 0..10 {
        let name = format!("w{round}");
        let created = t.create_window(CreateWindow { name: name.clone() }).await;
        assert_eq!(created.outcome, Outcome::Ok, "{}", created.text);
        let ready = t
            .wait_window(wait(&name, 20), CancellationToken::new())
            .await;
        assert_eq!(
            f.redact(&ready.text),
            format!("{name}: bash is at its prompt (Ns ago), ready for input.")
        );
        for _ in 0..2 {
            let sent = t.send_text(text(&name, &line, true)).await;
            assert_eq!(
                sent.text,
                format!("Pasted 5013 characters into {name}, then pressed Enter.")
            );
            let done = t
                .wait_window(wait(&name, 20), CancellationToken::new())
                .await;
            assert_eq!(
                f.redact(&done.text),
                // The line's echo wraps over 26 rows: the one row printed is still told apart.
                format!(
                    "{name}: the command finished Ns ago, exit status 0.\n[1 row printed]\n5001"
                ),
                "round {round}"
            );
        }
        let screen = t.read_window(read(&name, 100)).await;
        let rows: Vec<&str> = screen.text.lines().filter(|l| *l == "5001").collect();
        assert_eq!(rows, ["5001", "5001"], "round {round}: {}", screen.text);
        assert!(
            !screen.text.contains("[200~"),
            "round {round}: {}",
            screen.text
        );
        let closed = t.close_window(CloseWindow { name: name.clone() }).await;
        assert_eq!(closed.outcome, Outcome::Ok, "{}", closed.text);
    }
}

/// A pipeline whose first process ended while its last runs: tmux names the foreground by the
/// group's leader and, finding it gone, names bash; rat names the program still running, so a
/// pager behind a pipe is a full-screen program (not one that ended), and a wait names what
/// runs (not "a bash script or builtin").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipeline_whose_first_process_ended_is_named_by_what_still_runs() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "seq 1 1000 | less", true)).await;
    let screen = f
        .read_until("s", "main", 0, |s| s.lines().nth(1) == Some("1"))
        .await;
    assert_eq!(
        screen.text.lines().next(),
        Some("[full-screen program, cursor at row 24, column 2]")
    );
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: less in ~, active Ns ago, full-screen program");
    t.send_keys(keys("main", &["q"])).await;
    f.ready("s", "main").await;
    t.send_text(text("main", "true | sleep 30", true)).await;
    let waited = waited(&t, "main", 1).await;
    insta::assert_snapshot!(shown(&f, &waited), @r"
        (ok) main: still running, Ns since your last input, sleep in the foreground.
        Nothing printed.
        ");
    t.send_keys(keys("main", &["C-c"])).await;
}
