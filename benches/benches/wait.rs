//! wait_window: how soon it answers once bash is back at its prompt, and what rat's prompt hook
//! costs bash at each prompt. A bench binary printing figures (`harness = false`):
//!
//! ```text
//! cargo bench -p benches --bench wait
//! ```
//!
//! Prompt to answer: a command ends by writing the time (`date +%s%N`, nanoseconds) to a file,
//! then bash shows its prompt, the hook records it in tmux, and `wait_window`, already waiting,
//! answers; the figure is the answer's time minus the command's. Both clocks are the machine's.
//!
//! The hook's cost: the tmux client the hook runs at each prompt, forked and waited for
//! (foreground), forked in a background subshell (what the hook does: bash only pays the fork),
//! against an OSC 2 title written to the terminal (no process, but programs overwrite titles).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rat_core::terminals::{Controller, ControllerConfig, SendText, WaitWindow};
use tokio_util::sync::CancellationToken;

const ROUNDS: usize = 60;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn unix_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// Seconds taken by `script` run with bash `n` times in a loop, per iteration, in ms.
fn per_iteration_ms(script: &str, n: u32, env: &[(&str, &str)]) -> f64 {
    let full = format!(
        "TIMEFORMAT=%R; time (for ((i = 0; i < {n}; i++)); do {script}; done) 2>&1 >/dev/null"
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &format!("{{ {full}; }} 2>&1")])
        .envs(env.iter().copied())
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
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
    assert!(check.tells_statuses(), "{check:?}");
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
        "wait_window, command end to answer ({ROUNDS} rounds, tick {:?}, confirmed 5 ms later): p50 {:.1} ms, p99 {:.1} ms, min {:.1} ms, max {:.1} ms",
        Duration::from_millis(10),
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

    // The hook's cost at each prompt.
    let tmux_cmd = format!("tmux -L {socket} set-option -p -t =bench:=main @rat_bench $i");
    let n = 200;
    let foreground = per_iteration_ms(&tmux_cmd, n, &[]);
    let background = per_iteration_ms(&format!("( {tmux_cmd} >/dev/null 2>&1 & )"), n, &[]);
    let title = per_iteration_ms("printf '\\033]2;%s\\007' $i", n, &[]);
    println!("hook, tmux set-option forked and waited for: {foreground:.2} ms per prompt");
    println!(
        "hook, tmux set-option in a background subshell (rat's choice): {background:.2} ms per prompt"
    );
    println!(
        "hook, an OSC 2 title instead (no process; programs overwrite it): {title:.3} ms per prompt"
    );

    controller.stop().await.expect("stops");
}
