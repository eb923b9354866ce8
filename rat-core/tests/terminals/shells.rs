//! The shell's own state, as an agent meets it: options typed in a terminal (errexit), jobs
//! stopped, shells that end, shells started inside shells. Exact texts asserted.

use crate::common::*;
use rat_core::result::Outcome;

fn shown(f: &Fixture, r: &rat_core::result::ToolResult) -> String {
    let outcome = match r.outcome {
        Outcome::Ok => "ok",
        Outcome::Message => "message",
        Outcome::Refused { .. } => "refused",
        Outcome::Failed { .. } => "failed",
    };
    format!("({outcome}) {}", f.redact(&r.text))
}

/// `set -e` (and its other spellings) typed alone must never end the shell: rat's hook waits
/// on a FIFO with a timeout while an input is in flight (a status of 142 under errexit), and
/// returns the user's `$?`. 50 times in a row, each answered as the command it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errexit_typed_alone_never_ends_the_shell() {
    let f = start_ready().await;
    let options = ["set -e", "set -euo pipefail", "set -o errexit"];
    for i in 0..50 {
        let line = options[i % options.len()];
        let done = f.run("s", "main", line).await;
        assert_eq!(
            shown(&f, &done),
            "(ok) main: the command finished Ns ago, exit status 0.\nNothing printed.",
            "{line}, try {i}"
        );
        let undone = f.run("s", "main", "set +euo pipefail").await;
        assert_eq!(
            shown(&f, &undone),
            "(ok) main: the command finished Ns ago, exit status 0.\nNothing printed.",
            "after {line}, try {i}"
        );
    }
    // Under errexit, a status bash does not exit for (`! true`) is told, and the shell stays;
    // under nounset, the hook still records its prompts.
    f.run("s", "main", "set -euo pipefail").await;
    let not = f.run("s", "main", "! true").await;
    insta::assert_snapshot!(shown(&f, &not), @r"
    (ok) main: the command finished Ns ago, exit status 1.
    Nothing printed.
    ");
    let after = f.run("s", "main", "echo still-here").await;
    insta::assert_snapshot!(shown(&f, &after), @r"
    (ok) main: the command finished Ns ago, exit status 0.
    [1 row printed]
    still-here
    ");
    // The user's options stay theirs.
    let options = f.run("s", "main", "echo $-; shopt -o pipefail").await;
    insta::assert_snapshot!(shown(&f, &options), @r"
    (ok) main: the command finished Ns ago, exit status 0.
    [2 rows printed]
    ehimuBHs
    pipefail        on
    ");
}

/// C-z on a command: told stopped (the job's process is in state `T`), with the ways on, in
/// the wait and in list_windows; a status of 148 alone is a status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_job_is_told_stopped_with_the_ways_on() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "sleep 60", true)).await;
    f.wait_command("s", "main", "sleep").await;
    // C-z later than bash's prompt by more than the hundredth of a second process starts
    // are told in, as an agent's is.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    t.send_keys(keys("main", &["C-z"])).await;
    let stopped = waited(&t, "main", 10).await;
    insta::assert_snapshot!(shown(&f, &stopped), @r"
    (ok) main: the command was stopped Ns ago, not finished: it is job 1 (sleep), stopped. `fg` resumes it in the foreground; `kill %1` ends it.
    [2 rows printed]
    ^Z
    [1]+  Stopped                 sleep 60
    ");
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"(ok) main: bash in ~, active Ns ago, last command stopped: job 1 (sleep), `fg` resumes it, `kill %1` ends it (Ns ago)");
    // A status of 148 with that job still stopped: the status, and the job, both true.
    let exited = f.run("s", "main", "(exit 148)").await;
    insta::assert_snapshot!(shown(&f, &exited), @r"
    (ok) main: the command finished Ns ago, exit status 148. Job 1 (sleep) is stopped, not finished: `fg` resumes it in the foreground; `kill %1` ends it.
    Nothing printed.
    ");
    // fg, then C-z again: the job was there before the command.
    t.send_text(text("main", "fg", true)).await;
    f.wait_command("s", "main", "sleep").await;
    // C-z later than bash's prompt by more than the hundredth of a second process starts
    // are told in, as an agent's is.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    t.send_keys(keys("main", &["C-z"])).await;
    let again = waited(&t, "main", 10).await;
    insta::assert_snapshot!(shown(&f, &again), @r"
    (ok) main: the command finished Ns ago, exit status 148. Job 1 (sleep) is stopped, not finished: `fg` resumes it in the foreground; `kill %1` ends it.
    [3 rows printed]
    sleep 60
    ^Z
    [1]+  Stopped                 sleep 60
    ");
    // bash tells the job's end when it reaps it, before this prompt or the next one: its
    // rows vary, the status not.
    let ended = f.run("s", "main", "kill %1").await;
    assert_eq!(
        shown(&f, &ended).lines().next(),
        Some("(ok) main: the command finished Ns ago, exit status 0.")
    );
    // No job left: a status of 148 is a status.
    let after = f.run("s", "main", "(exit 148)").await;
    assert_eq!(
        shown(&f, &after).lines().next(),
        Some("(ok) main: the command finished Ns ago, exit status 148.")
    );
}

/// Waits until the shell of `window` (session `s`) ended: tmux keeps its pane, dead.
async fn ended(f: &Fixture, window: &str) {
    let target = format!("=s:={window}");
    eventually(&format!("the shell of {window} ends"), || {
        f.tmux(&["display-message", "-p", "-t", &target, "#{pane_dead}"])
            .trim()
            == "1"
    })
    .await;
}

async fn create(f: &Fixture, name: &str) -> rat_core::result::ToolResult {
    let created = f
        .controller
        .session("s")
        .create_window(rat_core::terminals::CreateWindow { name: name.into() })
        .await;
    f.ready("s", name).await;
    created
}

/// A shell that ends keeps its end, told once: to the wait on it (an answer, not an error),
/// with its status and the rows it printed since the last answer; or to list_windows, or to
/// an input (nothing sent), or to create_window of that name (made anew). Then it goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_that_ends_keeps_its_end_until_told() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    create(&f, "build").await;
    // exit N with a wait: the wait tells it, with the rows.
    let exited = t
        .send_text(run_text(
            "build",
            "for i in 1 2 3; do echo step$i; done; exit 3",
            10,
        ))
        .await;
    insta::assert_snapshot!(shown(&f, &exited), @r"
    (ok) build: its bash ended Ns ago, exit status 3: the window is closed now (create_window makes a new one).
    [4 rows printed]
    step1
    step2
    step3
    exit
    ");
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"(ok) main: bash in ~, active Ns ago");
    // set -e, then a failing command: list_windows reports the end and keeps the window, a
    // later wait reports it with the rows, then the window goes.
    create(&f, "build").await;
    f.run("s", "build", "set -e").await;
    t.send_text(text("build", "ls /nonexistent-rat", true))
        .await;
    ended(&f, "build").await;
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"
    (ok) main: bash in ~, active Ns ago
    build: ended Ns ago, exit status 2; wait_window build shows the rows it printed since the last answer and closes the window
    ");
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"
    (ok) main: bash in ~, active Ns ago
    build: ended Ns ago, exit status 2; wait_window build shows the rows it printed since the last answer and closes the window
    ");
    let later = waited(&t, "build", 5).await;
    insta::assert_snapshot!(shown(&f, &later), @r"
    (ok) build: its bash ended Ns ago, exit status 2: the window is closed now (create_window makes a new one).
    [1 row printed]
    ls: cannot access '/nonexistent-rat': No such file or directory
    ");
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"(ok) main: bash in ~, active Ns ago");
    let later = waited(&t, "build", 5).await;
    insta::assert_snapshot!(shown(&f, &later), @r"(refused) No window build: list_windows shows your windows, create_window creates one.");
    // Ctrl-D: a later wait on the name tells it.
    create(&f, "build").await;
    t.send_keys(keys("build", &["C-d"])).await;
    ended(&f, "build").await;
    let later = waited(&t, "build", 5).await;
    insta::assert_snapshot!(shown(&f, &later), @r"
    (ok) build: its bash ended Ns ago, exit status 0: the window is closed now (create_window makes a new one).
    [1 row printed]
    exit
    ");
    // Killed: the signal, where tmux tells it; an input to it sends nothing.
    create(&f, "build").await;
    t.send_text(text("build", "echo before; kill -9 $$", true))
        .await;
    ended(&f, "build").await;
    let sent = t.send_text(text("build", "echo lost", true)).await;
    let out = std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .expect("tmux -V");
    let version = tmux_cc::TmuxVersion::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    if (version.major, version.minor) >= (3, 3) {
        insta::assert_snapshot!(shown(&f, &sent), @r"
        (refused) Nothing was sent: the bash of build ended Ns ago, killed by signal 9. The window is closed now; create_window makes a new one.
        [1 row printed]
        before
        ");
    } else {
        // tmux 3.2a has no #{pane_dead_signal}: the signal is not known, and not guessed.
        insta::assert_snapshot!(shown(&f, &sent), @r"
        (refused) Nothing was sent: the bash of build ended Ns ago, killed by a signal (this tmux does not tell which). The window is closed now; create_window makes a new one.
        [1 row printed]
        before
        ");
    }
    // create_window of a name whose shell ended: told, and made anew.
    create(&f, "build").await;
    t.send_text(text("build", "exit 5", true)).await;
    ended(&f, "build").await;
    let again = t
        .create_window(rat_core::terminals::CreateWindow {
            name: "build".into(),
        })
        .await;
    insta::assert_snapshot!(shown(&f, &again), @r"(ok) The bash of the old build ended Ns ago, exit status 5. Window build created: bash is starting in ~.");
    f.ready("s", "build").await;
    let fresh = f.run("s", "build", "echo fresh").await;
    insta::assert_snapshot!(shown(&f, &fresh), @r"
    (ok) build: the command finished Ns ago, exit status 0.
    [1 row printed]
    fresh
    ");
}

/// A wait on a window whose bash shows no prompt since the last input says why, where rat
/// knows: a line typed without Enter (at once), bash's read builtin, its continuation prompt,
/// PROMPT_COMMAND assigned by the input; list_windows says nothing of a missing prompt while
/// a command sent before the first prompt runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn known_causes_of_no_prompt_are_said_plainly() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let typed = t
        .send_text(run_text_without_enter("main", "echo typed", 10))
        .await;
    insta::assert_snapshot!(shown(&f, &typed), @r"(message) main: nothing runs: the line you typed waits on bash's command line, not run (sent without Enter). send_keys Enter runs it; C-c drops it.");
    t.send_keys(keys("main", &["C-c"])).await;
    waited(&t, "main", 10).await;
    // A line completed by Tab, waiting for Enter.
    t.send_text(text("main", "ech", false)).await;
    let tab = t.send_keys(keys_waiting("main", &["Tab"], 10)).await;
    insta::assert_snapshot!(shown(&f, &tab), @r"(message) main: nothing runs: the line you typed waits on bash's command line, not run (sent without Enter). send_keys Enter runs it; C-c drops it.");
    let ran = t.send_keys(keys_waiting("main", &["Enter"], 10)).await;
    insta::assert_snapshot!(shown(&f, &ran), @r"
    (ok) main: the command finished Ns ago, exit status 0.
    [1 row printed]
    ");
    // bash's read builtin.
    let read = t
        .send_text(run_text("main", "read -p 'Continue? ' answer", 1))
        .await;
    insta::assert_snapshot!(shown(&f, &read), @r"
    (ok) main: waiting for input, Ns since your last input: bash's read builtin waits for a line (as read -p does). read_window shows its question; send_text answers it.
    [1 row printed]
    Continue?
    ");
    let answered = t.send_text(run_text("main", "y", 10)).await;
    insta::assert_snapshot!(shown(&f, &answered), @r"
    (ok) main: the command finished Ns ago, exit status 0.
    Nothing printed since the last answer.
    ");
    // The continuation prompt.
    let open = t.send_text(run_text("main", "echo trailing \\", 1)).await;
    insta::assert_snapshot!(shown(&f, &open), @r"
    (ok) main: nothing finished since your last input, Ns ago: bash waits for the rest of the command at its continuation prompt (PS2: an open quote, a trailing \, an unfinished if or loop). Send the rest, or C-c to drop it.
    Nothing printed.
    ");
    let closed = t.send_text(run_text("main", "end", 10)).await;
    insta::assert_snapshot!(shown(&f, &closed), @r"
    (ok) main: the command finished Ns ago, exit status 0.
    [1 row printed]
    trailing end
    ");
    // PROMPT_COMMAND emptied by the agent: said, and healed at the next command.
    let emptied = t.send_text(run_text("main", "PROMPT_COMMAND=", 1)).await;
    insta::assert_snapshot!(shown(&f, &emptied), @r"
    (ok) main: no prompt recorded since your last input, Ns ago: it assigned or unset PROMPT_COMMAND, which took rat's hook out of this shell. The next command puts it back if PROMPT_COMMAND is now empty or unset; assigned something else, only a new window has it (add to PROMPT_COMMAND rather than replace it).
    [1 row printed]
    $
    ");
    let healed = f.run("s", "main", "(exit 4)").await;
    insta::assert_snapshot!(shown(&f, &healed), @r"
    (ok) main: the command finished Ns ago, exit status 4.
    Nothing printed.
    ");
    // A command sent before the first prompt, running: no word of a missing prompt.
    t.create_window(rat_core::terminals::CreateWindow {
        name: "early".into(),
    })
    .await;
    t.send_text(text("early", "sleep 30", true)).await;
    f.wait_command("s", "early", "sleep").await;
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"
    (ok) main: bash in ~, active Ns ago, last command exited with status 4 (Ns ago)
    early: sleep in ~, active Ns ago
    ");
}

fn run_text_without_enter(window: &str, text: &str, seconds: u32) -> rat_core::terminals::SendText {
    rat_core::terminals::SendText {
        window: window.into(),
        text: text.into(),
        enter: false,
        wait_seconds: seconds,
    }
}

fn keys_waiting(window: &str, pressed: &[&str], seconds: u32) -> rat_core::terminals::SendKeys {
    rat_core::terminals::SendKeys {
        window: window.into(),
        keys: pressed.iter().map(|k| k.to_string()).collect(),
        wait_seconds: seconds,
    }
}

/// `bash`, `bash -l` and `exec bash -l` in a window, under Debian's skeleton files: the inner
/// bash gets rat's hook (exported with PS0), its commands' statuses are told, and the outer
/// shell's status of the inner one once it exits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_shells_get_the_hook() {
    let bashrc = std::fs::read_to_string("/etc/skel/.bashrc").expect("Debian's /etc/skel/.bashrc");
    let profile = std::fs::read_to_string("/etc/skel/.profile").expect("/etc/skel/.profile");
    let f = start(Home {
        files: &[(".profile", &profile), (".bashrc", &bashrc)],
        ..Home::default()
    })
    .await;
    f.controller.check_terminals().await;
    let t = f.controller.session("s");
    waited(&t, "main", 30).await;
    let answers = nested_answers(&f, &t).await;
    insta::assert_snapshot!(answers, @r"
    bash -> (ok) main: a bash started inside this one (process PID) is at its prompt, ready for input; waits tell its commands as the outer shell's.
    (exit 3) -> (ok) main: the command finished Ns ago, exit status 3.
    false | true -> (ok) main: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 1. The pipeline exits with the status of its last command, 0, as bash reports it (statuses, left to right: 1 0).
    echo inner -> (ok) main: the command finished Ns ago, exit status 0.
    exit 4 -> (ok) main: the command finished Ns ago, exit status 4.
    bash -l -> (ok) main: a bash started inside this one (process PID) is at its prompt, ready for input; waits tell its commands as the outer shell's.
    (exit 5) -> (ok) main: the command finished Ns ago, exit status 5.
    exit -> (ok) main: the command finished Ns ago, exit status 5.
    exec bash -l -> (ok) main: the shell was replaced Ns ago (exec) and waits at its prompt: its first prompt is not recorded, its commands' are.
    (exit 6) -> (ok) main: the command finished Ns ago, exit status 6.
    echo last -> (ok) main: the command finished Ns ago, exit status 0.
    ");
}

/// Runs a nested bash of each kind in `main` and returns the answers, processes redacted.
async fn nested_answers(f: &Fixture, t: &rat_core::terminals::Terminals) -> String {
    let mut out = Vec::new();
    for line in [
        "bash",
        "(exit 3)",
        "false | true",
        "echo inner",
        "exit 4",
        "bash -l",
        "(exit 5)",
        "exit",
        "exec bash -l",
        "(exit 6)",
        "echo last",
    ] {
        // The replaced shell's first prompt is not recorded: its wait runs out.
        let seconds = if line.starts_with("exec") { 2 } else { 20 };
        let sent = t.send_text(run_text("main", line, seconds)).await;
        let shown = shown(f, &sent);
        // Processes and the prompt rows vary: the first line alone, pids redacted.
        let first = shown.lines().next().unwrap_or("").to_string();
        let first = match first.split_once("(process ") {
            Some((a, b)) => format!("{a}(process PID{}", &b[b.find(')').unwrap_or(0)..]),
            None => first,
        };
        out.push(format!("{line} -> {first}"));
    }
    out.join("\n")
}

/// Where rat's hook cannot reach (su, ssh, a REPL), the wait and list_windows say so, naming
/// what runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_beyond_the_hook_are_said() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let inner = t.send_text(run_text("main", "PS1='sh> ' sh", 1)).await;
    insta::assert_snapshot!(shown(&f, &inner), @r"
    (ok) main: still running, Ns since your last input, sh in the foreground. Waits cannot see the prompts of what runs inside sh; read_window shows them. The line its cursor is on, likely its prompt: sh>
    Nothing printed.
    ");
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @r"(ok) main: sh in ~, active Ns ago, waits cannot see the prompts inside it (read_window shows them)");
}

/// The first command sent to a new window, before bash's first prompt, is shown once: sent
/// once bash's line editor reads, the terminal does not echo it before the editor does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_command_of_a_new_window() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.create_window(rat_core::terminals::CreateWindow {
        name: "early".into(),
    })
    .await;
    let first = t.send_text(run_text("early", "echo first", 20)).await;
    insta::assert_snapshot!(shown(&f, &first), @r"
    (ok) early: the command finished Ns ago, exit status 0.
    [1 row printed]
    first
    ");
    let screen = f.read_until("s", "early", 0, |s| s.ends_with('$')).await;
    insta::assert_snapshot!(screen.text, @r"
    $ echo first
    first
    $
    ");
}

/// A nested bash that exits: the answer about the outer command (`bash`) shows what it printed
/// after the inner shell's last command (bash's `exit`), not the inner shell's prompts and
/// rows again, which the answers about its commands showed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nested_shell_that_exits_shows_no_row_twice() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let mut out = Vec::new();
    for line in ["bash", "echo inner-one", "ls /nonexistent-rat", "exit 4"] {
        let sent = t.send_text(run_text("main", line, 20)).await;
        let shown = shown(&f, &sent);
        let shown = match shown.split_once("(process ") {
            Some((a, b)) => format!("{a}(process PID{}", &b[b.find(')').unwrap_or(0)..]),
            None => shown,
        };
        out.push(format!("{line} -> {shown}"));
    }
    insta::assert_snapshot!(out.join("\n"), @r"
    bash -> (ok) main: a bash started inside this one (process PID) is at its prompt, ready for input; waits tell its commands as the outer shell's.
    Nothing printed.
    echo inner-one -> (ok) main: the command finished Ns ago, exit status 0.
    [1 row printed]
    inner-one
    ls /nonexistent-rat -> (ok) main: the command finished Ns ago, exit status 2.
    [1 row printed]
    ls: cannot access '/nonexistent-rat': No such file or directory
    exit 4 -> (ok) main: the command finished Ns ago, exit status 4.
    [1 row printed since the last answer]
    exit
    ");
}

/// list_windows tells a bash running a command of its own (a loop, a pipeline's subshells:
/// bash in the foreground all the same) from an idle one: no prompt since the last input; and
/// a line typed without Enter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_windows_tells_a_running_loop_from_an_idle_shell() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    f.ready("s", "main").await;
    t.send_text(run_text(
        "main",
        "for i in 1 2 3 4 5 6; do sleep 1; done | cat",
        0,
    ))
    .await;
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: bash in ~, active Ns ago, no prompt since the last input (Ns ago)");
    let done = waited(&t, "main", 20).await;
    assert!(
        done.text.starts_with("main: the command finished"),
        "{}",
        done.text
    );
    t.send_text(text("main", "echo typed", false)).await;
    let list = t.list_windows().await;
    insta::assert_snapshot!(shown(&f, &list), @"(ok) main: bash in ~, active Ns ago, a line typed without Enter waits on its command line (send_keys Enter runs it)");
}
