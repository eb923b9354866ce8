//! Pane output streams: throughput from a pane to the stream's reader against tmux's own
//! `pipe-pane` of the same output (the floor: tmux writes the pane's bytes to a pipe, no
//! control protocol), and the latency from a pane's print to the stream's item.
//!
//! ```sh
//! cargo bench -p tmux-cc --bench stream
//! ```
//! One private tmux server (the tmux first on PATH). Throughput: a pane, its terminal raw,
//! `cat`s a 64 MiB file of every byte value once the benchmark signals (`wait-for`); one
//! iteration is the time until every byte arrived: through a [`tmux_cc::PaneStream`] (either
//! transport) read at full speed, through a bare `tmux -C` (counted only), or written by
//! `pipe-pane 'cat > FILE'` (the file's size polled every ms).
//! Latency: a pane prints the time (`date +%s%N`) every 10 ms; each line's arrival in the
//! stream minus the time printed, 500 lines, p50 and p99 printed at the end.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, Throughput};
use tmux_cc::test_support::SocketGuard;
use tmux_cc::{
    Client, ClientOptions, Command, NewSession, PaneId, Server, ServerOptions, StreamItem,
    StreamOptions, Transport,
};

const SIZE: usize = 64 << 20;

fn tmux_on_path() -> String {
    let path = std::env::var_os("PATH").expect("PATH");
    std::env::split_paths(&path)
        .map(|dir| dir.join("tmux"))
        .find(|p| p.is_file())
        .expect("tmux on PATH")
        .display()
        .to_string()
}

/// A session whose pane runs `script` once `go-NAME` is signalled, then stays.
async fn pane(client: &Client, name: &str, script: &str) -> PaneId {
    let mut new = NewSession::new(name);
    new.command = vec![
        b"sh".to_vec(),
        b"-c".to_vec(),
        format!("stty raw -echo; \"$0\" wait-for go-{name} && {script}; exec sleep 100000")
            .into_bytes(),
        tmux_on_path().into_bytes(),
    ];
    client.new_session(&new).await.unwrap().pane
}

async fn go(client: &Client, name: &str) {
    client
        .run(&Command::new("wait-for").args(["-S", &format!("go-{name}")]))
        .await
        .unwrap();
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn next_name(what: &str) -> String {
    format!(
        "{what}{}",
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

async fn through_stream(client: &Client, file: &Path, transport: Transport) -> Duration {
    let name = next_name("s");
    let pane = pane(client, &name, &format!("cat '{}'", file.display())).await;
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
    let start = Instant::now();
    go(client, &name).await;
    let mut got = 0;
    while got < SIZE {
        match stream.next().await {
            Some(StreamItem::Data(bytes)) => got += bytes.len(),
            other => panic!("after {got} bytes: {other:?}"),
        }
    }
    let took = start.elapsed();
    assert_eq!(got, SIZE);
    drop(stream);
    client
        .run(&Command::new("kill-session").args(["-t", &format!("={name}")]))
        .await
        .unwrap();
    took
}

async fn through_pipe_pane(client: &Client, file: &Path, out: &Path) -> Duration {
    let name = next_name("p");
    let _ = std::fs::remove_file(out);
    let pane = pane(client, &name, &format!("cat '{}'", file.display())).await;
    client
        .run(&Command::new("pipe-pane").args([
            "-t",
            &pane.to_string(),
            &format!("cat > '{}'", out.display()),
        ]))
        .await
        .unwrap();
    // The pipe's program has started once its file exists.
    while !out.exists() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let start = Instant::now();
    go(client, &name).await;
    while std::fs::metadata(out)
        .map(|m| m.len() as usize)
        .unwrap_or(0)
        < SIZE
    {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let took = start.elapsed();
    client
        .run(&Command::new("kill-session").args(["-t", &format!("={name}")]))
        .await
        .unwrap();
    took
}

/// The ceiling of any control-mode reader: a bare `tmux -C attach-session` of the pane's
/// session (output on, `pause-after` 60 s, as a stream's connection attaches), its output read
/// in 64 KiB chunks and only counted: the payload of each `%extended-output` line, less 3
/// bytes for each `\ooo` escape (tmux escapes every `\` too, so each one starts an escape).
/// No event, no channel, no copy of the data.
async fn through_bare_control(client: &Client, socket: &str, file: &Path) -> Duration {
    use tokio::io::AsyncReadExt;
    let name = next_name("c");
    pane(client, &name, &format!("cat '{}'", file.display())).await;
    let mut child = tokio::process::Command::new(tmux_on_path())
        .args(["-u", "-L", socket, "-C", "attach-session", "-t"])
        .arg(format!("={name}"))
        .args(["-f", "ignore-size,pause-after=60"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    // Bytes of a line not yet ended.
    let mut line: Vec<u8> = Vec::new();
    let mut attached = false;
    let mut got = 0usize;
    let mut start = Instant::now();
    while got < SIZE {
        let n = stdout.read(&mut buf).await.unwrap();
        assert!(n > 0, "the bare control client ended after {got} bytes");
        let mut rest = &buf[..n];
        while let Some(lf) = memchr::memchr(b'\n', rest) {
            line.extend_from_slice(&rest[..lf]);
            rest = &rest[lf + 1..];
            if line.starts_with(b"%extended-output ") {
                if let Some(colon) = memchr::memmem::find(&line, b" : ") {
                    let payload = &line[colon + 3..];
                    got += payload.len() - 3 * memchr::memchr_iter(b'\\', payload).count();
                }
            } else if !attached && line.starts_with(b"%session-changed") {
                // Attached: the clock starts, and the pane may print.
                attached = true;
                start = Instant::now();
                go(client, &name).await;
            }
            line.clear();
        }
        line.extend_from_slice(rest);
    }
    let took = start.elapsed();
    assert_eq!(got, SIZE);
    let _ = child.start_kill();
    let _ = child.wait().await;
    client
        .run(&Command::new("kill-session").args(["-t", &format!("={name}")]))
        .await
        .unwrap();
    took
}

async fn latencies(client: &Client, n: usize, transport: Transport) -> Vec<Duration> {
    let name = next_name("l");
    let pane = pane(client, &name, "while :; do date +%s%N; sleep 0.01; done").await;
    let options = StreamOptions {
        transport,
        ..StreamOptions::default()
    };
    let mut stream = client.stream(pane, options).await.unwrap();
    go(client, &name).await;
    let mut line = Vec::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let Some(StreamItem::Data(bytes)) = stream.next().await else {
            panic!("the latency pane's stream stopped");
        };
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        for &b in bytes.iter() {
            if b == b'\n' || b == b'\r' {
                if let Some(ns) = std::str::from_utf8(&line)
                    .ok()
                    .and_then(|s| s.parse::<u128>().ok())
                {
                    let printed = Duration::from_nanos(ns as u64);
                    out.push(now.saturating_sub(printed));
                }
                line.clear();
            } else {
                line.push(b);
            }
        }
    }
    drop(stream);
    client
        .run(&Command::new("kill-session").args(["-t", &format!("={name}")]))
        .await
        .unwrap();
    out
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let guard = SocketGuard::new("tcc-bench-stream");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("piped");
    // Text: log-like lines of printable ASCII, LF-ended (tmux escapes only the LF).
    let text_file = dir.path().join("text");
    let mut text = Vec::with_capacity(SIZE + 100);
    let mut n = 0u64;
    while text.len() < SIZE {
        text.extend_from_slice(
            format!("{n:012} the quick brown fox jumps over the lazy dog\n").as_bytes(),
        );
        n += 1;
    }
    text.truncate(SIZE);
    std::fs::write(&text_file, &text).unwrap();
    // Binary: every byte value in turn (tmux escapes the 33 below 0x20 and `\\` as `\\ooo`).
    let binary_file = dir.path().join("binary");
    let blob: Vec<u8> = (0..SIZE).map(|i| (i % 251) as u8).collect();
    std::fs::write(&binary_file, &blob).unwrap();
    let (server, client) = rt.block_on(async {
        let server = Server::start_with(ServerOptions::new(&guard.socket))
            .await
            .unwrap();
        let client = server
            .connect(ClientOptions {
                command_timeout: Duration::from_secs(120),
                ..ClientOptions::default()
            })
            .await
            .unwrap();
        (server, client)
    });

    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    for (kind, file) in [("text", &text_file), ("binary", &binary_file)] {
        let mut group = criterion.benchmark_group(format!("pane output, 64 MiB of {kind}"));
        group.throughput(Throughput::Bytes(SIZE as u64));
        for (label, transport) in [
            ("PaneStream, control mode", Transport::ControlMode),
            ("PaneStream, pipe", Transport::Pipe),
        ] {
            group.bench_function(label, |b| {
                b.to_async(&rt).iter_custom(|iters| {
                    let (client, file) = (client.clone(), file.clone());
                    async move {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            total += through_stream(&client, &file, transport).await;
                        }
                        total
                    }
                })
            });
        }
        group.bench_function("bare tmux -C (ceiling of control mode)", |b| {
            b.to_async(&rt).iter_custom(|iters| {
                let (client, file, socket) = (client.clone(), file.clone(), guard.socket.clone());
                async move {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += through_bare_control(&client, &socket, &file).await;
                    }
                    total
                }
            })
        });
        group.bench_function("pipe-pane (floor)", |b| {
            b.to_async(&rt).iter_custom(|iters| {
                let (client, file, out) = (client.clone(), file.clone(), out.clone());
                async move {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += through_pipe_pane(&client, &file, &out).await;
                    }
                    total
                }
            })
        });
        group.finish();
    }

    for (label, transport) in [
        ("control mode", Transport::ControlMode),
        ("pipe", Transport::Pipe),
    ] {
        let mut lat = rt.block_on(latencies(&client, 500, transport));
        lat.sort();
        let at = |q: f64| lat[((lat.len() - 1) as f64 * q) as usize];
        println!(
            "latency, print to stream item ({label}), {} lines: p50 {:?}, p99 {:?}, max {:?}",
            lat.len(),
            at(0.5),
            at(0.99),
            lat.last().unwrap()
        );
    }
    criterion.final_summary();
    rt.block_on(async {
        drop(client);
        let _ = server.stop().await;
    });
}
