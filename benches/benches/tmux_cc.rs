//! tmux-cc against forked tmux, side by side, on one private tmux server.
//!
//! ```sh
//! cargo bench -p benches --bench tmux_cc
//! ```
//! Each group holds the same operation done through the control connection (`tmux-cc`) and by
//! forking a `tmux` client per call (`forked`): a 200x24 screen capture, a capture with 10000
//! history rows, `list-windows` with a dozen format fields, `send-keys` of a short line, and
//! pastes of 1 MiB and 4 MiB until tmux holds (and has pasted) the buffer (forked:
//! `load-buffer -` then `paste-buffer` with tmux-cc's flags for that version). Run it with each
//! tmux first on PATH to compare versions. Results: docs/benchmarks.md.

use std::io::Write;
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tmux_cc::{Capture, Client, ClientOptions, NewSession, OptionScope, Server, send_literal};

/// The fields `Client::list_windows` asks for, for the forked twin.
const LIST_FORMAT: &str = "#{session_id} #{window_id} #{window_index} #{pane_id} #{window_activity} #{alternate_on} #{cursor_x} #{cursor_y} #{cursor_flag} #{history_size} #{pane_in_mode} #{pane_dead} #{pane_dead_status} #{pane_pid} #{pane_width} #{pane_height} #{q:window_name} #{q:pane_current_command} #{q:@mark} #{pane_current_path}";

struct Setup {
    rt: tokio::runtime::Runtime,
    server: Server,
    client: Client,
}

fn tmux(socket: &str, args: &[&str]) -> Vec<u8> {
    let out = Process::new("tmux")
        .arg("-L")
        .arg(socket)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run tmux");
    assert!(
        out.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn sh(script: &str) -> Vec<Vec<u8>> {
    vec![b"sh".to_vec(), b"-c".to_vec(), script.as_bytes().to_vec()]
}

fn setup() -> Setup {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let socket = format!("tmux-cc-bench-{}", std::process::id());
    let (server, client) = rt.block_on(async {
        let server = Server::start(&socket).await.expect("start tmux");
        let client = server
            .connect(ClientOptions {
                command_timeout: Duration::from_secs(60),
                ..ClientOptions::default()
            })
            .await
            .expect("attach");
        client
            .set_option(OptionScope::GlobalSession, "history-limit", b"20000")
            .await
            .unwrap();
        // A full screen of text.
        let mut screen = NewSession::new("screen");
        screen.command =
            sh("while :; do seq 1 40 | paste -sd' ' -; done | head -24; exec sleep 100000");
        client.new_session(&screen).await.unwrap();
        // 12000 rows, 10000 of them kept as history.
        let mut history = NewSession::new("history");
        history.command = sh("seq 1 12000; exec sleep 100000");
        client.new_session(&history).await.unwrap();
        // A program swallowing whatever is typed or pasted.
        let mut sink = NewSession::new("sink");
        sink.command = sh("stty raw -echo; exec cat > /dev/null");
        client.new_session(&sink).await.unwrap();
        for i in 0..4 {
            let mut w = tmux_cc::NewWindow::new("=screen:");
            w.name = Some(format!("w{i}"));
            client.new_window(&w).await.unwrap();
        }
        client
            .set_pane_option("=screen:", "@mark", b"1")
            .await
            .unwrap();
        // Wait until the history is there.
        loop {
            let w = client.list_windows("=history", &[]).await.unwrap();
            if w[0].history_size >= 10000 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        (server, client)
    });
    Setup { rt, server, client }
}

fn payload(size: usize) -> Vec<u8> {
    let line =
        "pasted text with unicode é 中文 and punctuation !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\n";
    line.as_bytes().iter().copied().cycle().take(size).collect()
}

fn benches(c: &mut Criterion) {
    let s = setup();
    let socket = s.server.socket_name().to_string();
    let client = &s.client;

    let mut g = c.benchmark_group("capture 200x24 screen");
    g.bench_function("tmux-cc", |b| {
        b.to_async(&s.rt).iter(|| async {
            client
                .capture("=screen:", &Capture::default())
                .await
                .unwrap()
        })
    });
    g.bench_function("forked", |b| {
        b.iter(|| tmux(&socket, &["capture-pane", "-p", "-t", "=screen:"]))
    });
    g.finish();

    let mut g = c.benchmark_group("capture 10000 history rows");
    let history = Capture {
        history: Some(10000),
        ..Capture::default()
    };
    g.bench_function("tmux-cc", |b| {
        b.to_async(&s.rt)
            .iter(|| async { client.capture("=history:", &history).await.unwrap() })
    });
    g.bench_function("forked", |b| {
        b.iter(|| {
            tmux(
                &socket,
                &["capture-pane", "-p", "-S", "-10000", "-t", "=history:"],
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("list-windows 20 fields");
    g.bench_function("tmux-cc", |b| {
        b.to_async(&s.rt)
            .iter(|| async { client.list_windows("=screen", &["@mark"]).await.unwrap() })
    });
    g.bench_function("forked", |b| {
        b.iter(|| {
            tmux(
                &socket,
                &["list-windows", "-t", "=screen", "-F", LIST_FORMAT],
            )
        })
    });
    g.finish();

    let mut g = c.benchmark_group("send-keys short line");
    g.bench_function("tmux-cc", |b| {
        b.to_async(&s.rt).iter(|| async {
            client
                .run(&send_literal("=sink:", b"echo hello"))
                .await
                .unwrap()
        })
    });
    g.bench_function("forked", |b| {
        b.iter(|| {
            tmux(
                &socket,
                &["send-keys", "-l", "-t", "=sink:", "--", "echo hello"],
            )
        })
    });
    g.finish();

    let paste_flags = client.features().paste_flags();
    for (label, size) in [("1 MiB", 1usize << 20), ("4 MiB", 4 << 20)] {
        let data = payload(size);
        let mut g = c.benchmark_group(format!("paste {label}"));
        g.sample_size(10);
        g.bench_function("tmux-cc", |b| {
            b.to_async(&s.rt).iter(|| async {
                client.paste("=sink:", &data, &[], &[]).await.unwrap();
            })
        });
        g.bench_function("forked", |b| {
            b.iter(|| {
                let mut load = Process::new("tmux")
                    .args(["-L", &socket, "load-buffer", "-b", "forked", "-"])
                    .stdin(Stdio::piped())
                    .spawn()
                    .unwrap();
                load.stdin.take().unwrap().write_all(&data).unwrap();
                assert!(load.wait().unwrap().success());
                // The same flags as tmux-cc's paste on this version (`-S` from 3.7).
                let mut args = vec!["paste-buffer"];
                args.extend(paste_flags);
                args.extend(["-d", "-b", "forked", "-t", "=sink:"]);
                tmux(&socket, &args);
            })
        });
        g.finish();
    }

    s.rt.block_on(async {
        s.client.close().await;
        s.server.stop().await.unwrap();
    });
}

criterion_group! {
    name = group;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = benches
}
criterion_main!(group);
