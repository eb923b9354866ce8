//! wait_window: how soon it answers once bash is back at its prompt, and what rat's prompt hook
//! costs bash at each prompt. A bench binary printing figures (`harness = false`):
//!
//! ```text
//! cargo bench -p benches --bench wait
//! ```
//!
//! Prompt to answer: a command ends by writing the time (`date +%s%N`, nanoseconds) to a file,
//! then bash shows its prompt, the hook writes its record, ratd reads it (inotify) and
//! `wait_window`, already waiting, answers; the figure is the answer's time minus the
//! command's. Both clocks are the machine's.
//!
//! The hook's cost: rat's hook run in a loop in a bash that sourced rat's start-up file (it
//! reads the pane's input file and writes its record, as at each prompt), against the first
//! build's, a tmux client forked in a background subshell.

use benches::percentile;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rat_core::terminals::{Controller, ControllerConfig, SendText, WaitWindow};
use tokio_util::sync::CancellationToken;

const ROUNDS: usize = 60;

fn unix_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// Seconds taken by `script` run with bash `n` times in a loop, per iteration, in ms. bash's
/// standard input is a pipe left open and empty, as a terminal with nothing typed.
fn per_iteration_ms(script: &str, n: u32, env: &[(&str, &str)]) -> f64 {
    use std::io::Read;
    let full = format!(
        "TIMEFORMAT=%R; time (for ((i = 0; i < {n}; i++)); do {script}; done) 2>&1 >/dev/null"
    );
    let mut child = std::process::Command::new("bash")
        .args(["-c", &format!("{{ {full}; }} 2>&1")])
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("bash runs");
    let stdin = child.stdin.take();
    let mut text = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    child.wait().unwrap();
    drop(stdin);
    let seconds: f64 = text
        .trim()
        .lines()
        .last()
        .unwrap_or("0")
        .parse()
        .unwrap_or(f64::NAN);
    seconds * 1000.0 / f64::from(n)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let home = tempfile::tempdir().expect("home");
    std::fs::write(home.path().join(".bash_profile"), "PS1='$ '\n").unwrap();
    let tenant = format!("bench{}", std::process::id());
    let mut config = ControllerConfig::new(&tenant);
    config.home = home.path().to_path_buf();
    let socket = config.socket_name();
    let controller = Controller::start(config).await.expect("controller");
    let check = controller.check_terminals().await;
    assert!(check.reports_statuses(), "{check:?}");
    let t = controller.session("bench");
    let wait = |seconds| WaitWindow {
        window: "main".into(),
        max_seconds: Some(seconds),
    };
    t.wait_window(wait(20), CancellationToken::new()).await;

    // Prompt to answer.
    let stamp = home.path().join("ended");
    let mut latencies = Vec::new();
    for _ in 0..ROUNDS {
        let line = format!("sleep 0.05; date +%s%N > {}", stamp.display());
        let sent = t
            .send_text(SendText {
                window: "main".into(),
                text: line,
                enter: true,
                wait_seconds: 0,
            })
            .await;
        assert!(!sent.outcome.is_error(), "{}", sent.text);
        let done = t.wait_window(wait(10), CancellationToken::new()).await;
        let answered = unix_nanos();
        assert!(done.text.contains("exit status 0"), "{}", done.text);
        let ended: u128 = std::fs::read_to_string(&stamp)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        latencies.push((answered - ended) as f64 / 1e6);
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "wait_window, command end to answer ({ROUNDS} rounds, event-driven): p50 {:.2} ms, p99 {:.2} ms, min {:.2} ms, max {:.2} ms",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies[0],
        latencies[latencies.len() - 1]
    );

    // A list_windows, for scale.
    let started = Instant::now();
    for _ in 0..200 {
        t.list_windows().await;
    }
    println!(
        "list_windows: {:.3} ms per call (one list-windows through the control connection)",
        started.elapsed().as_secs_f64() * 1000.0 / 200.0
    );

    // The hook's cost at each prompt: rat's start-up file sourced in a bash of its own, its
    // hook run in a loop as PROMPT_COMMAND would (the pane's input file present, nothing in
    // flight), writing its record each time; against the first build's hook, a tmux client
    // forked in a background subshell.
    let n = 2000;
    let dir = tempfile::tempdir().expect("hook dir");
    for sub in ["in", "out"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::fs::write(dir.path().join("in/0"), "5 5\n").unwrap();
    let fifo = dir.path().join("sleep");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let rc = dir.path().join("rc");
    std::fs::write(&rc, rat_core::terminals::hook::rc(dir.path())).unwrap();
    let empty_home = tempfile::tempdir().expect("home");
    let home = empty_home.path().to_string_lossy().into_owned();
    let hook = per_iteration_ms(
        "__rat_s=(0 0); __rat_hook",
        n,
        &[
            ("HOME", &home),
            ("BASH_ENV", &rc.to_string_lossy()),
            ("TMUX_PANE", "%0"),
        ],
    );
    let bare = per_iteration_ms("__rat_s=(0 0); :", n, &[("HOME", &home)]);
    let record = std::fs::read_to_string(dir.path().join("out/0")).unwrap_or_default();
    assert!(record.starts_with("R 0 5 "), "{record:?}");
    let tmux_cmd = format!("tmux -L {socket} set-option -p -t =bench:=main @rat_bench $i");
    let background = per_iteration_ms(&format!("( {tmux_cmd} >/dev/null 2>&1 & )"), 200, &[]);
    println!(
        "hook, rat's (no process: reads the input file, writes its record): {:.3} ms per prompt ({:.3} ms, less the loop's own {bare:.3} ms)",
        hook - bare,
        hook
    );
    println!(
        "hook, the first build's (tmux set-option in a background subshell): {background:.2} ms per prompt"
    );

    controller.stop().await.expect("stops");
}
