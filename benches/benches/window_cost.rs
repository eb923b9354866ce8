//! What a window costs ratd now that each followed pane has a transcript (docs/design/output.md):
//! the CPU of this process (the terminals' code, as ratd runs it) and of tmux's server per MiB
//! one window prints, with the memory at its peak; and the memory 100 idle windows add, each
//! followed (one command run in it).
//!
//! `cargo bench -p benches --bench window_cost` (`RAT_BENCH_MIB`, 100 by default). CPU and
//! memory from `/proc` (`utime + stime`, 10 ms ticks; `VmRSS`, `VmHWM`), before and after.

use std::time::{Duration, Instant};

use rat_core::terminals::{Controller, ControllerConfig, CreateWindow, SendText, WaitWindow};
use tokio_util::sync::CancellationToken;

/// CPU so far and resident memory, current and peak (KiB), of process `pid`.
fn usage(pid: u32) -> (Duration, u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (
        Duration::from_millis(ticks * 10),
        field("VmRSS:"),
        field("VmHWM:"),
    )
}

fn send(window: &str, text: &str, seconds: u32) -> SendText {
    SendText {
        window: window.into(),
        text: text.into(),
        enter: true,
        wait_seconds: seconds,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mib: usize = std::env::var("RAT_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".bash_profile"), "PS1='$ '\n").unwrap();
    let mut config = ControllerConfig::new(format!("bench-{}", std::process::id()));
    config.home = home.path().to_path_buf();
    let controller = Controller::start(config).await.expect("controller");
    let t = controller.session("bench");
    let wait = |window: &str| WaitWindow {
        window: window.into(),
        max_seconds: Some(50),
    };
    t.wait_window(wait("main"), CancellationToken::new()).await;
    // Log lines of 100 bytes, as a build prints them: 1 MiB in a file, printed `mib` times.
    let file = home.path().join("one");
    let line = format!(
        "{:<99}\n",
        "compiling crate-name v1.2.3 (/src/crate) warning: unused"
    );
    let mut one = line.repeat((1 << 20) / line.len() + 1).into_bytes();
    one.truncate(1 << 20);
    std::fs::write(&file, &one).unwrap();
    drop(one);
    t.send_text(send("main", "true", 10)).await;
    let me = std::process::id();
    let server = controller.server_pid();
    // At full speed (the pane's bytes faster than ratd renders them: past the pipe's queue,
    // the command is read from the screen), then paced (1 MiB every 0.2 s).
    for (how, pause) in [
        ("at full speed", ""),
        ("paced, 1 MiB every 0.2 s", "; sleep 0.2"),
    ] {
        let (cpu0, rss0, _) = usage(me);
        let (tcpu0, _, _) = usage(server);
        let started = Instant::now();
        let command = format!(
            "for i in $(seq {mib}); do cat {}{pause}; done",
            file.display()
        );
        let mut r = t.send_text(send("main", &command, 50)).await;
        while r.text.starts_with("main: still running") {
            r = t.wait_window(wait("main"), CancellationToken::new()).await;
        }
        let took = started.elapsed();
        let (cpu1, rss1, hwm1) = usage(me);
        let (tcpu1, _, _) = usage(server);
        let per = |d: Duration| d.as_secs_f64() * 1000.0 / mib as f64;
        println!(
            "one window printing {mib} MiB {how}, in {:.1} s: this process {:.1} ms CPU per MiB, tmux server {:.1} ms per MiB; RSS {} KiB before, {} KiB after, peak so far {} KiB",
            took.as_secs_f64(),
            per(cpu1 - cpu0),
            per(tcpu1 - tcpu0),
            rss0,
            rss1,
            hwm1
        );
        println!(
            "  answer: {}",
            r.text.lines().take(2).collect::<Vec<_>>().join(" | ")
        );
    }
    // 100 idle windows, each followed.
    let (_, before, _) = usage(me);
    for i in 0..100 {
        let name = format!("w{i}");
        t.create_window(CreateWindow { name: name.clone() }).await;
        t.send_text(send(&name, "true", 10)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, after, _) = usage(me);
    println!(
        "100 idle windows, each followed: RSS {} KiB before, {} KiB after: {:.1} KiB per window",
        before,
        after,
        (after as f64 - before as f64) / 100.0
    );
    let _ = controller.stop().await;
}
