//! Waits and exit statuses checked against ground truth, over seeded random sequences of what
//! agents send: quick and slow commands, bash scripts, pipelines with failures, jobs started in
//! the background, Enter alone, text typed while a command runs, C-c, commands sent back to
//! back with no wait, two clients on one window, shells that end (`exit k`, `set -e` then a
//! failure), jobs stopped with C-z, a bash started inside the window's, `clear`. Every `wait_window` and
//! `list_windows` answer is checked.
//!
//! Ground truth comes from the shell: the test's `~/.bash_profile` puts a recorder of its own
//! in `PROMPT_COMMAND` (an element of an array: bash 5.1+ gives each element the statuses of
//! the command line), which appends `\# $? PIPESTATUS` at each prompt to `~/truth`; the status
//! an answer must tell is derived from the last line there by the rules agents are told (a job
//! started in the background exits 0; an empty line runs nothing). The test also knows what
//! each command exits with, and checks the shell agrees, so that a wrong expectation can not
//! hide a wrong answer.
//!
//! `RAT_MODEL_SEQUENCES` (300 by default) and `RAT_MODEL_SEED` (a fixed one by default) set the
//! run; the long run of the docs is `RAT_MODEL_SEQUENCES=5000 cargo test --release -p rat-core
//! --test terminals -- model::`.

use crate::common::*;
use rat_core::terminals::{SendKeys, SendText, Terminals};

/// A small, seeded generator (xorshift64*): the same seed gives the same sequences.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One thing an agent sends, with the statuses it leaves (`None`: the statuses before stay).
#[derive(Debug, Clone)]
enum Step {
    /// `(exit k)`.
    Quick(i32),
    /// `false | (exit k)`: statuses 1 k.
    Pipeline(i32),
    /// A bash script sleeping a little, then exiting k: bash in the foreground meanwhile.
    Script(i32),
    /// A job started in the background, after whatever failed before: status 0.
    Background,
    /// Enter alone: nothing runs, the last status keeps its time.
    Enter,
    /// A quick command, then a slow script sent right after it, no wait between.
    BackToBack(i32),
    /// A slow script, then a quick command typed while it runs.
    TypedAhead(i32, i32),
    /// A long sleep interrupted with C-c: 130.
    Interrupted,
    /// C-c, then a job started in the background: 0.
    InterruptedThenBackground,
    /// Two clients of the session send a command each, at once.
    TwoClients(i32, i32),
    /// The shell ends with status k: `exit k`, or (`true`) `set -e` then `(exit k)`, k not 0.
    /// Told to the wait; main is then created again.
    Exits(i32, bool),
    /// A long sleep stopped with C-z (told stopped, not finished), then `kill %1`: 0.
    Stopped,
    /// `bash`, then `(exit k)` in it, then `exit`: the outer shell tells k.
    Nested(i32),
    /// `clear`, a row, then `(exit k)`: the screen cleared changes no status.
    Cleared(i32),
}

impl Step {
    fn pick(rng: &mut Rng) -> Step {
        let status = |rng: &mut Rng| [0, 1, 2, 3, 5, 7, 42, 127][rng.below(8) as usize];
        match rng.below(24) {
            23 => Step::Cleared(status(rng)),
            20 => {
                let k = status(rng);
                let errexit = rng.below(2) == 0;
                Step::Exits(if errexit && k == 0 { 1 } else { k }, errexit)
            }
            21 => Step::Stopped,
            22 => Step::Nested(status(rng)),
            0..=3 => Step::Quick(status(rng)),
            4..=5 => Step::Pipeline(status(rng)),
            6..=7 => Step::Script(status(rng)),
            8..=9 => Step::Background,
            10..=11 => Step::Enter,
            12..=14 => Step::BackToBack(status(rng)),
            15..=16 => Step::TypedAhead(status(rng), status(rng)),
            17 => Step::Interrupted,
            18 => Step::InterruptedThenBackground,
            _ => Step::TwoClients(status(rng), status(rng)),
        }
    }
}

fn send(window: &str, line: &str) -> SendText {
    text(window, line, true)
}

async fn wait(t: &Terminals, window: &str) -> String {
    waited(t, window, 20).await.text
}

/// Sends `line` to main with Enter and waits for it: the answer, its times redacted.
async fn run_and_wait(t: &Terminals, line: &str) -> String {
    t.send_text(send("main", line)).await;
    redact_times(&wait(t, "main").await)
}

/// The statuses a finished wait tells, read back from its first line (the inverse of the
/// wording; the rows the command printed follow it).
fn statuses_in(text: &str) -> Option<Vec<i32>> {
    let text = text.lines().next()?;
    if let Some(rest) = text.split("statuses, left to right: ").nth(1) {
        let list = rest.split(')').next()?;
        return list.split(' ').map(|s| s.parse().ok()).collect();
    }
    let rest = text.split(", exit status ").nth(1)?;
    Some(vec![rest.trim_end_matches('.').parse().ok()?])
}

/// The shell's own record: how many prompts it recorded, and the last one, `\# $?
/// PIPESTATUS...`.
fn truth(f: &Fixture) -> (usize, u64, Vec<i32>) {
    let text = std::fs::read_to_string(f.home().join("truth")).unwrap_or_default();
    let count = text.lines().count();
    let last = text.lines().last().unwrap_or("0 0 0");
    let mut numbers = last.split(' ').map(|n| n.parse::<i64>().unwrap());
    let number = numbers.next().unwrap() as u64;
    (count, number, numbers.map(|n| n as i32).collect())
}

/// The shell's record once it shows the prompt after `commands` more commands than `before`
/// (its recorder runs right after rat's hook, so it may come a moment after the answer).
async fn truth_after(f: &Fixture, before: (usize, u64), commands: u64) -> (u64, Vec<i32>) {
    for _ in 0..500 {
        let (count, number, statuses) = truth(f);
        if count > before.0 && number == before.1 + commands {
            return (number, statuses);
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let (count, number, statuses) = truth(f);
    panic!(
        "the shell never recorded {commands} more commands after {before:?}: {count} {number} {statuses:?}"
    );
}

/// The shell's record of a fresh shell's first prompt (a line numbered as its `\#` then),
/// once written after `before` lines: what the next command's line follows.
async fn eventually_first_truth(f: &Fixture, before: usize) -> (usize, u64) {
    for _ in 0..500 {
        let (count, number, _) = truth(f);
        if count > before {
            return (count, number);
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the fresh shell never recorded its first prompt");
}

/// A number from the environment, or `default`.
fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Terminals whose `~/.bash_profile` records each prompt's `\# $? PIPESTATUS` in `~/truth`
/// (see the module's doc), checked, with `main` of session `m` at its prompt.
async fn start_recording() -> Fixture {
    let f = start(Home {
        profile: "__tn='\\#'\n\
                  __truth() { printf '%s %s\\n' \"${__tn@P}\" \"$*\" >> ~/truth; }\n\
                  PROMPT_COMMAND=('__truth \"$?\" \"${PIPESTATUS[@]}\"')",
        ..Home::default()
    })
    .await;
    let check = f.controller.check_terminals().await;
    assert!(check.prompts && check.statuses, "{check:?}");
    f.ready("m", "main").await;
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wait_and_list_tells_the_truth_over_random_sequences() {
    let sequences = env_or("RAT_MODEL_SEQUENCES", 300);
    let seed = env_or("RAT_MODEL_SEED", 0x0005_eed0_f7a7);
    let f = start_recording().await;
    std::fs::write(
        f.home().join("s.sh"),
        "sleep 0.0$((RANDOM % 8)); echo $1 >> ~/ran; exit $1\n",
    )
    .unwrap();
    let t = f.controller.session("m");
    let other = f.controller.session("m");
    let mut rng = Rng(seed | 1);
    // What the last command line left: the statuses to tell.
    let mut expected: Vec<i32> = Vec::new();
    let mut wrong = Vec::new();
    let mut checked = 0u64;
    // Scripts started so far: each appends a line to ~/ran as it ends.
    let mut scripts = 0usize;
    for sequence in 0..sequences {
        let steps = 2 + rng.below(4);
        for _ in 0..steps {
            let step = Step::pick(&mut rng);
            let (count, number, _) = truth(&f);
            let before = (count, number);
            let commands = match &step {
                Step::Enter | Step::Exits(..) => 0,
                Step::Nested(_) => 1,
                Step::Stopped => 2,
                Step::Quick(_)
                | Step::Cleared(_)
                | Step::Pipeline(_)
                | Step::Script(_)
                | Step::Background
                | Step::Interrupted => 1,
                Step::BackToBack(_)
                | Step::TypedAhead(..)
                | Step::InterruptedThenBackground
                | Step::TwoClients(..) => 2,
            };
            let leaves: Option<Vec<i32>> = match &step {
                Step::Quick(k) => {
                    t.send_text(send("main", &format!("(exit {k})"))).await;
                    Some(vec![*k])
                }
                Step::Pipeline(k) => {
                    t.send_text(send("main", &format!("false | (exit {k})")))
                        .await;
                    Some(vec![1, *k])
                }
                Step::Cleared(k) => {
                    t.send_text(send("main", &format!("clear; echo cleared; (exit {k})")))
                        .await;
                    Some(vec![*k])
                }
                Step::Script(k) => {
                    t.send_text(send("main", &format!("bash ~/s.sh {k}"))).await;
                    Some(vec![*k])
                }
                Step::Background => {
                    t.send_text(send("main", "sleep 0.05 &")).await;
                    Some(vec![0])
                }
                Step::Enter => {
                    t.send_text(send("main", "")).await;
                    None
                }
                Step::BackToBack(k) => {
                    t.send_text(send("main", "true")).await;
                    t.send_text(send("main", &format!("bash ~/s.sh {k}"))).await;
                    Some(vec![*k])
                }
                Step::TypedAhead(k, m) => {
                    t.send_text(send("main", &format!("bash ~/s.sh {k}"))).await;
                    t.send_text(send("main", &format!("(exit {m})"))).await;
                    Some(vec![*m])
                }
                Step::Interrupted | Step::InterruptedThenBackground => {
                    t.send_text(send("main", "sleep 30")).await;
                    f.wait_command("m", "main", "sleep").await;
                    t.send_keys(SendKeys {
                        window: "main".into(),
                        keys: vec!["C-c".into()],
                        wait_seconds: 0,
                    })
                    .await;
                    if matches!(step, Step::InterruptedThenBackground) {
                        t.send_text(send("main", "sleep 0.05 &")).await;
                        Some(vec![0])
                    } else {
                        Some(vec![130])
                    }
                }
                Step::Exits(k, errexit) => {
                    if *errexit {
                        let set = run_and_wait(&t, "set -e").await;
                        if set.lines().next()
                            != Some("main: the command finished Ns ago, exit status 0.")
                        {
                            wrong.push(format!(
                                "sequence {sequence}, {step:?}: set -e told {set:?}"
                            ));
                        }
                        t.send_text(send("main", &format!("(exit {k})"))).await;
                    } else {
                        t.send_text(send("main", &format!("exit {k}"))).await;
                    }
                    let ended = f.redact(&wait(&t, "main").await);
                    let want = format!(
                        "main: its bash ended Ns ago, exit status {k}: the window is closed now (create_window makes a new one)."
                    );
                    if ended.lines().next() != Some(want.as_str()) {
                        wrong.push(format!("sequence {sequence}, {step:?}: told {ended:?}"));
                    }
                    checked += 1;
                    // A fresh main, and a first command in it: the statuses start again.
                    let lines = truth(&f).0;
                    t.create_window(rat_core::terminals::CreateWindow {
                        name: "main".into(),
                    })
                    .await;
                    f.ready("m", "main").await;
                    let fresh = eventually_first_truth(&f, lines).await;
                    run_and_wait(&t, "true").await;
                    truth_after(&f, fresh, 1).await;
                    expected = vec![0];
                    continue;
                }
                Step::Stopped => {
                    t.send_text(send("main", "sleep 30")).await;
                    f.wait_command("m", "main", "sleep").await;
                    t.send_keys(SendKeys {
                        window: "main".into(),
                        keys: vec!["C-z".into()],
                        wait_seconds: 0,
                    })
                    .await;
                    let stopped = f.redact(&wait(&t, "main").await);
                    checked += 1;
                    // Told stopped; or, where rat could not tell the command added the job, its
                    // status and the job stopped: both true.
                    let first = stopped.lines().next().unwrap_or("");
                    let told_stopped = first.starts_with(
                        "main: the command was stopped Ns ago, not finished: it is job ",
                    ) || (first
                        .starts_with("main: the command finished Ns ago, exit status 148. Job ")
                        && first.contains(") is stopped, not finished: `fg` resumes it"));
                    if !told_stopped {
                        wrong.push(format!("sequence {sequence}, {step:?}: told {stopped:?}"));
                    }
                    // Ended by the way the answer gave: `kill %N`.
                    let kill = stopped
                        .split_once("`kill %")
                        .and_then(|(_, rest)| rest.split_once('`'))
                        .map_or("kill %%".to_string(), |(n, _)| format!("kill %{n}"));
                    t.send_text(send("main", &kill)).await;
                    Some(vec![0])
                }
                Step::Nested(k) => {
                    let inner = run_and_wait(&t, "bash").await;
                    if !inner.starts_with("main: a bash started inside this one (process ") {
                        wrong.push(format!(
                            "sequence {sequence}, {step:?}: bash told {inner:?}"
                        ));
                    }
                    let exited = run_and_wait(&t, &format!("(exit {k})")).await;
                    if statuses_in(&exited).as_deref() != Some(&[*k][..]) {
                        wrong.push(format!(
                            "sequence {sequence}, {step:?}: inside, told {exited:?}"
                        ));
                    }
                    checked += 2;
                    t.send_text(send("main", "exit")).await;
                    Some(vec![*k])
                }
                Step::TwoClients(a, b) => {
                    let (x, y) = tokio::join!(
                        t.send_text(send("main", &format!("(exit {a})"))),
                        other.send_text(send("main", &format!("(exit {b})")))
                    );
                    assert!(!x.outcome.is_error() && !y.outcome.is_error());
                    // Which one bash read last: the shell's own record tells, once both ran.
                    None
                }
            };
            scripts += match &step {
                Step::Script(_) | Step::BackToBack(_) | Step::TypedAhead(..) => 1,
                _ => 0,
            };
            let answer = wait(&t, "main").await;
            checked += 1;
            // Told finished: every script sent had ended by then (a script keeps bash in the
            // foreground, so only the prompt can tell).
            let ran = std::fs::read_to_string(f.home().join("ran"))
                .unwrap_or_default()
                .lines()
                .count();
            let told_finished = answer
                .lines()
                .next()
                .is_some_and(|l| l.contains("finished"));
            if told_finished && ran != scripts {
                wrong.push(format!(
                    "sequence {sequence}, {step:?}: told finished with {ran} of {scripts} scripts ended: {answer}"
                ));
            }
            // The answer came once every command sent ran: the shell's record then shows them.
            let (_, shell) = truth_after(&f, before, commands).await;
            if let Step::TwoClients(a, b) = step {
                let last = shell[0];
                if last != a && last != b {
                    wrong.push(format!(
                        "sequence {sequence}, {step:?}: shell says {shell:?}"
                    ));
                }
                expected = vec![last];
            } else if let Some(leaves) = leaves {
                // The shell agrees with what the step leaves (PIPESTATUS, or $? for a job).
                let shell_says =
                    if matches!(step, Step::Background | Step::InterruptedThenBackground) {
                        vec![shell[0]]
                    } else {
                        shell[1..].to_vec()
                    };
                if shell_says != leaves {
                    let screen = t
                        .read_window(rat_core::terminals::ReadWindow {
                            window: "main".into(),
                            scrollback_rows: Some(20),
                            output_rows: None,
                        })
                        .await
                        .text;
                    panic!(
                        "the test's expectation for {step:?} is {leaves:?}, bash reports \
                         {shell_says:?}; the wait said {answer:?}; the screen:\n{screen}"
                    );
                }
                expected = leaves;
            }
            let text = f.redact(&answer);
            let told_statuses = statuses_in(&text);
            if told_statuses.as_deref() != Some(expected.as_slice()) {
                wrong.push(format!(
                    "sequence {sequence}, {step:?}: expected {expected:?}, told {text:?}"
                ));
            }
            // list_windows tells the same status.
            let list = t.list_windows().await.text;
            let line = list.lines().find(|l| l.starts_with("main:")).unwrap_or("");
            let want = format!(
                "last command exited with status {}",
                expected[expected.len() - 1]
            );
            if !line.contains(&want) {
                wrong.push(format!(
                    "sequence {sequence}, {step:?}: list_windows {line:?}, expected {want:?}"
                ));
            }
            if wrong.len() > 10 {
                break;
            }
        }
        if wrong.len() > 10 {
            break;
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers of {checked} (seed {seed}):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    eprintln!("{checked} answers checked over {sequences} sequences (seed {seed}): 0 wrong");
}

/// Two inputs back to back, the second answered by tmux just as the first's command ends: the
/// prompt after the first never counts for the second. tmux answers a paste before it writes
/// the paste's bytes to the terminal (a later pass of its event loop), so a prompt hook that
/// trusted the answer alone could find nothing waiting on the terminal and count an input bash
/// had not read. Repeated with a second window flooding tmux with output, which lengthens its
/// loop passes, and with the second input sent after a sweep of short delays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_never_answers_an_input_tmux_had_not_yet_written() {
    let rounds = env_or("RAT_MODEL_ROUNDS", 150);
    let f = start_recording().await;
    let t = f.controller.session("m");
    let flood = t
        .create_window(rat_core::terminals::CreateWindow {
            name: "flood".into(),
        })
        .await;
    assert!(!flood.outcome.is_error(), "{}", flood.text);
    f.ready("m", "flood").await;
    t.send_text(send("flood", "while :; do seq 1 20000; done"))
        .await;
    // A second client listing the windows all the while: tmux's answers to the inputs then
    // often leave in the same pass of its loop as other answers, before the inputs' bytes.
    let lister = f.controller.session("m");
    let listing = tokio::spawn(async move {
        loop {
            lister.list_windows().await;
        }
    });
    let mut wrong = Vec::new();
    let mut rng = Rng(0x0005_eed0_f2b2 | 1);
    for round in 0..rounds {
        let (count, number, _) = truth(&f);
        let (a, b) = (1 + (round % 7) as i32, 11 + (round % 5) as i32);
        t.send_text(send("main", &format!("(exit {a})"))).await;
        // 0 to 3 ms: around the time bash takes to run `(exit A)` and reach its prompt.
        let delay = rng.below(3000);
        tokio::time::sleep(std::time::Duration::from_micros(delay)).await;
        t.send_text(send("main", &format!("(exit {b})"))).await;
        let answer = f.redact(&wait(&t, "main").await);
        let (_, shell) = truth_after(&f, (count, number), 2).await;
        assert_eq!(shell[1..], [b], "bash's record of round {round}");
        if statuses_in(&answer).as_deref() != Some(&[b][..]) {
            wrong.push(format!(
                "round {round} (second input after {delay} us): {answer:?}"
            ));
        }
    }
    listing.abort();
    assert!(
        wrong.is_empty(),
        "{} wrong answers of {rounds}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
