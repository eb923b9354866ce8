//! What a transcript costs ratd (docs/design/output.md): the CPU to render a command's output
//! into rows, per MiB printed, and the CPU of taking a pane's bytes by each transport of
//! tmux-cc's streams (ratd's own, tmux's server, and the helper process of each: the stream's
//! `tmux -C` client in control mode, the pipe's `cat`), per MiB, with the memory each adds.
//!
//! `cargo bench -p benches --bench transcript`. CPU is read from `/proc` (`utime + stime` of
//! each process, all its threads), before and after; a private tmux server on its own socket.

use std::time::{Duration, Instant};

use rat_core::terminals::transcript::render;
use tmux_cc::test_support::SocketGuard;
use tmux_cc::{
    ClientOptions, Command, NewSession, Server, ServerOptions, StreamItem, StreamOptions, Transport,
};

/// The CPU a process used so far, and its resident memory (KiB), from `/proc/PID/stat` and
/// `/proc/PID/status`.
fn usage(pid: u32) -> (Duration, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    // 100 ticks a second on Linux.
    (Duration::from_millis(ticks * 10), rss)
}

/// The processes whose parent is `parent`.
fn children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if ppid == Some(parent) {
            out.push(pid);
        }
    }
    out
}

fn lines(kind: &str, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 256);
    let mut i = 0u64;
    while out.len() < size {
        let line = match kind {
            "progress" => format!("\r[{:>3}%] {}", i % 100, "#".repeat((i % 60) as usize)),
            "coloured" => format!(
                "\x1b[32m2026-11-30T12:00:{:02}\x1b[0m worker {i}: \x1b[1mrequest\x1b[0m served in {} ms\r\n",
                i % 60,
                i % 977
            ),
            _ => format!(
                "2026-11-30T12:00:{:02} worker {i}: request served in {} ms, status 200\r\n",
                i % 60,
                i % 977
            ),
        };
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

fn bench_render() {
    println!("| output (at 200x50) | ratd CPU per MiB | rows kept |");
    println!("|---|---|---|");
    for kind in ["log lines", "coloured", "progress"] {
        let bytes = lines(kind, 16 << 20);
        let (before, _) = usage(std::process::id());
        let start = Instant::now();
        let told = render(200, 50, &bytes);
        let wall = start.elapsed();
        let (after, _) = usage(std::process::id());
        let mib = bytes.len() as f64 / (1 << 20) as f64;
        println!(
            "| {kind} | {:.1} ms ({:.1} ms wall) | {} |",
            (after - before).as_secs_f64() * 1000.0 / mib,
            wall.as_secs_f64() * 1000.0 / mib,
            told.lines.len()
        );
    }
}

async fn bench_streams() {
    const SIZE: usize = 32 << 20;
    let guard = SocketGuard::new("bench-transcript");
    let server = Server::start_with(ServerOptions::new(&guard.socket))
        .await
        .expect("tmux starts");
    let client = server
        .connect(ClientOptions::default())
        .await
        .expect("a control client");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out");
    std::fs::write(&file, lines("log lines", SIZE)).unwrap();
    println!();
    println!(
        "| transport, {} MiB | ratd CPU per MiB | tmux server | helper process | helper's memory | MiB/s |",
        SIZE >> 20
    );
    println!("|---|---|---|---|---|---|");
    for (name, transport) in [
        ("pipe", Transport::Pipe),
        ("control mode", Transport::ControlMode),
    ] {
        let session = format!("s{}", name.len());
        let mut new = NewSession::new(&session);
        new.command = vec![
            b"sh".to_vec(),
            b"-c".to_vec(),
            format!(
                "stty raw -echo; tmux -L {} wait-for go-{session} && cat '{}'; exec sleep 100000",
                guard.socket,
                file.display()
            )
            .into_bytes(),
        ];
        let pane = client.new_session(&new).await.unwrap().pane;
        let ours = children(std::process::id());
        let mut stream = client
            .stream(
                pane,
                StreamOptions {
                    transport,
                    pause_after: 60,
                    capacity: 256,
                    ..StreamOptions::default()
                },
            )
            .await
            .unwrap();
        // The stream's helper: a `tmux -C` child of ours, or the pipe's `cat` under the server.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let helper = match transport {
            Transport::Pipe => children(server.pid())
                .into_iter()
                .flat_map(|p| {
                    let mut all = vec![p];
                    all.extend(children(p));
                    all
                })
                .find(|p| {
                    std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                        .is_ok_and(|c| c.starts_with("cat\0") && c.contains("fifo"))
                        || std::fs::read_to_string(format!("/proc/{p}/comm"))
                            .is_ok_and(|c| c.trim() == "cat")
                            && !std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                                .is_ok_and(|c| c.contains(&*file.to_string_lossy()))
                }),
            _ => children(std::process::id())
                .into_iter()
                .find(|p| !ours.contains(p)),
        };
        let me = std::process::id();
        let (me0, _) = usage(me);
        let (server0, _) = usage(server.pid());
        let (helper0, _) = helper.map_or_else(Default::default, usage);
        let start = Instant::now();
        client
            .run(&Command::new("wait-for").args(["-S", &format!("go-{session}")]))
            .await
            .unwrap();
        let mut got = 0usize;
        while got < SIZE {
            match stream.next().await {
                Some(StreamItem::Data(bytes)) => got += bytes.len(),
                other => panic!("after {got} bytes: {other:?}"),
            }
        }
        let wall = start.elapsed();
        let (me1, _) = usage(me);
        let (server1, _) = usage(server.pid());
        let (helper1, helper_rss) = helper.map_or_else(Default::default, usage);
        let mib = SIZE as f64 / (1 << 20) as f64;
        let per =
            |a: Duration, b: Duration| format!("{:.1} ms", (b - a).as_secs_f64() * 1000.0 / mib);
        println!(
            "| {name} | {} | {} | {} | {} KiB | {:.1} |",
            per(me0, me1),
            per(server0, server1),
            if helper.is_some() {
                per(helper0, helper1)
            } else {
                "not found".into()
            },
            helper_rss,
            mib / wall.as_secs_f64()
        );
        drop(stream);
        client
            .run(&Command::new("kill-session").args(["-t", &session]))
            .await
            .unwrap();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing of ours: run once.
    bench_render();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench_streams());
}
