//! A job's exit to its event, against polling `list_windows` every 10 ms.
//!
//! `cargo bench -p tmux-cc --bench jobs` (the `tmux` on PATH; a private server).
//!
//! Each run's command prints the time (`date +%s%N`) and exits. "event": [`Job::wait`]
//! returns (by the `pane-died` hook's `wait-for`; its status and complete output read, its
//! window removed), measured from the printed time. "poll": a window with `remain-on-exit on`
//! (its own option) polled with `list_windows` every 10 ms until `dead_status` is set (with
//! the SIGCHLD nudge that tmux 3.3a needs), measured from the time the command wrote to a file (the
//! terminal may lose it). Prints p50 and p99 of each, in milliseconds, besides criterion's mean.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use tmux_cc::test_support::SocketGuard;
use tmux_cc::{Client, ClientOptions, Command, JobSpec, NewSession, Server};

const COMMAND: &str = "sleep 0.02; date +%s%N; exit 0";

static SAMPLES: Mutex<Vec<(&'static str, Duration)>> = Mutex::new(Vec::new());

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after the epoch")
        .as_nanos()
}

/// The time the command printed, as nanoseconds since the epoch.
fn printed(text: &[u8]) -> u128 {
    String::from_utf8_lossy(text)
        .split_whitespace()
        .find_map(|w| {
            w.parse::<u128>()
                .ok()
                .filter(|n| *n > 1_000_000_000_000_000_000)
        })
        .expect("the printed time")
}

async fn by_event(client: &Client) -> Duration {
    let mut job = client
        .start_job(&JobSpec::window("=b:", COMMAND))
        .await
        .expect("start the job");
    let exit = job.wait().await.expect("the job's end");
    let done = now_nanos();
    assert_eq!(exit.status, Some(0));
    Duration::from_nanos((done - printed(&exit.output)) as u64)
}

async fn by_polling(client: &Client, server_pid: u32, file: &std::path::Path) -> Duration {
    let script = format!("sleep 0.02; date +%s%N > '{}'; exit 0", file.display());
    let line = client
        .run(
            &Command::new("new-window")
                .args(["-d", "-P", "-F", "#{window_id}", "-t", "=b:", "--"])
                .args(["sh", "-c", &script]),
        )
        .await
        .expect("new-window");
    let window = String::from_utf8_lossy(&line[0]).into_owned();
    client
        .run(&Command::new("set-option").args(["-w", "-t", &window, "remain-on-exit", "on"]))
        .await
        .expect("remain-on-exit");
    let done = loop {
        let windows = client.list_windows("=b", &[]).await.expect("list");
        let w = windows
            .iter()
            .find(|w| w.window.to_string() == window)
            .expect("the window");
        if w.dead_status.is_some() {
            break now_nanos();
        }
        if w.dead {
            let _ = nix_kill(server_pid);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    client.kill_window(&window).await.expect("kill-window");
    let time = std::fs::read(file).expect("the printed time");
    Duration::from_nanos((done - printed(&time)) as u64)
}

fn nix_kill(pid: u32) -> nix::Result<()> {
    // SIGCHLD to the server: tmux 3.3a may not have reaped a child that exited at once.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGCHLD,
    )
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let guard = SocketGuard::new("tcc-bench-jobs");
    let (server, client) = runtime.block_on(async {
        let server = Server::start(&guard.socket).await.expect("start tmux");
        let client = server
            .connect(ClientOptions::default())
            .await
            .expect("attach");
        client
            .new_session(&NewSession::new("b"))
            .await
            .expect("session");
        (server, client)
    });
    let pid = server.pid();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("time");
    let mut group = c.benchmark_group("jobs");
    group.sample_size(10);
    group.bench_function("exit to event", |b| {
        b.to_async(&runtime).iter_custom(|iters| {
            let client = client.clone();
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let d = by_event(&client).await;
                    SAMPLES.lock().unwrap().push(("event", d));
                    total += d;
                }
                total
            }
        })
    });
    group.bench_function("exit to poll (10 ms)", |b| {
        b.to_async(&runtime).iter_custom(|iters| {
            let (client, file) = (client.clone(), file.clone());
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let d = by_polling(&client, pid, &file).await;
                    SAMPLES.lock().unwrap().push(("poll", d));
                    total += d;
                }
                total
            }
        })
    });
    group.finish();
    for kind in ["event", "poll"] {
        let mut v: Vec<Duration> = SAMPLES
            .lock()
            .unwrap()
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, d)| *d)
            .collect();
        v.sort();
        if v.is_empty() {
            continue;
        }
        println!(
            "{kind}: n={} p50={:.2} ms p99={:.2} ms (tmux {})",
            v.len(),
            percentile(&v, 0.5).as_secs_f64() * 1e3,
            percentile(&v, 0.99).as_secs_f64() * 1e3,
            client.version()
        );
    }
    runtime.block_on(async {
        let _ = server.stop().await;
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
