//! ratd's door under a flood of idle connections. Loopback only, bounded in count and time.
//!
//! Runs the release ratd binary (`target/release/ratd`: `cargo build --release -p ratd` first)
//! on a bundle of its own, with its tmux server on a private socket killed at the end, and
//! prints:
//!
//! 1. 8 clients (one kept-alive connection each) calling list_windows on an idle ratd: p50, p99;
//! 2. 3000 idle TLS connections opened (handshake done, nothing sent after): ratd's RSS
//!    before and with them held, and the memory per idle connection;
//! 3. the same 8 clients calling while the 3000 are held: p50, p99 (the goal: the p50 within 2x
//!    of the idle server's);
//! 4. the 3000 closed: ratd's RSS right after, then a minute after (the goal: under 32 MiB),
//!    and its peak (VmHWM, the goal: under 64 MiB).
//!
//! `cargo bench -p benches --bench door` (`DOOR_IDLE`, 3000 by default; `DOOR_CLIENTS`, 8;
//! `DOOR_CALLS`, 300 calls per client per phase; `DOOR_AFTER_SECONDS`, 60).

use benches::percentile;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rat_wire::mtls;
use rustls::pki_types::ServerName;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A field of `/proc/PID/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        // cargo bench --list: nothing to list, this bench is one run.
        return;
    }
    let ratd_binary = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/ratd");
    if !ratd_binary.exists() {
        eprintln!(
            "{} is missing: run cargo build --release -p ratd first",
            ratd_binary.display()
        );
        std::process::exit(1);
    }
    // The 3000 connections of this process need as many files.
    if let Ok((_, hard)) =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
    {
        let _ =
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, hard, hard);
    }
    let idle = env_or("DOOR_IDLE", 3000) as usize;
    let clients = env_or("DOOR_CLIENTS", 8) as usize;
    let calls = env_or("DOOR_CALLS", 300) as usize;
    let after = Duration::from_secs(env_or("DOOR_AFTER_SECONDS", 60));

    let dir = tempfile::tempdir().unwrap();
    let tenant = format!("door{}", std::process::id());
    let root = dir.path().join("b");
    mtls::generate(&tenant, &["alice"], &root).expect("bundle");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut ratd = Command::new(&ratd_binary)
        .arg("--bundle")
        .arg(mtls::server_dir(&root))
        .args(["--listen", "127.0.0.1:0"])
        .env("HOME", &home)
        .env_remove("NOTIFY_SOCKET")
        .env_remove("JOURNAL_STREAM")
        .stderr(Stdio::piped())
        .spawn()
        .expect("ratd starts");
    let pid = ratd.id();
    let mut lines = BufReader::new(ratd.stderr.take().unwrap()).lines();
    let addr: std::net::SocketAddr = loop {
        let line = lines.next().expect("ratd logs").unwrap();
        if let Some(at) = line.find("address=\"") {
            let rest = &line[at + 9..];
            break rest[..rest.find('"').unwrap()].parse().unwrap();
        }
    };
    // The rest of its log, kept out of the way (and printed if it warns).
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if line.contains("WARN") && !line.contains("running as root") {
                eprintln!("ratd: {line}");
            }
        }
    });
    let side = mtls::load_client(&mtls::client_dir(&root, "alice")).expect("client side");
    let tls: Arc<rustls::ClientConfig> = side.rustls_config();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let url = format!("https://{addr}/mcp");
        let http: Vec<reqwest::Client> = (0..clients)
            .map(|_| {
                reqwest::Client::builder()
                    .tls_backend_preconfigured((*tls).clone())
                    .http1_only()
                    .build()
                    .unwrap()
            })
            .collect();
        // Warm: each client's connection, the session and its main window.
        for client in &http {
            call(client, &url).await;
        }
        let started_kib = status_kib(pid, "VmRSS:");
        let idle_server = phase(&http, &url, calls).await;

        let connector = tokio_rustls::TlsConnector::from(tls.clone());
        let opening = Instant::now();
        let mut held = Vec::with_capacity(idle);
        for _ in 0..idle {
            let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            let stream = connector
                .connect(ServerName::try_from("ratd").unwrap(), tcp)
                .await
                .expect("handshake");
            held.push(stream);
        }
        let opened_in = opening.elapsed();
        // The server side of the last handshakes may still be finishing.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let held_kib = status_kib(pid, "VmRSS:");
        let under_flood = phase(&http, &url, calls).await;
        let held_after_calls_kib = status_kib(pid, "VmRSS:");
        drop(held);
        tokio::time::sleep(Duration::from_secs(1)).await;
        let closed_kib = status_kib(pid, "VmRSS:");
        tokio::time::sleep(after).await;
        let after_kib = status_kib(pid, "VmRSS:");
        let peak_kib = status_kib(pid, "VmHWM:");

        println!("door: {idle} idle TLS connections, {clients} clients x {calls} list_windows calls per phase");
        println!(
            "  idle server:        p50 {:>8.3} ms  p99 {:>8.3} ms",
            ms(idle_server.0),
            ms(idle_server.1)
        );
        println!(
            "  {idle} held:         p50 {:>8.3} ms  p99 {:>8.3} ms  (p50 x{:.2})",
            ms(under_flood.0),
            ms(under_flood.1),
            under_flood.0.as_secs_f64() / idle_server.0.as_secs_f64()
        );
        println!("  opened in {:.1} s", opened_in.as_secs_f64());
        println!("  ratd RSS: started {}, {idle} held {}, after the calls {}, closed {}, {} s after {}, peak (VmHWM) {}",
            mib(started_kib), mib(held_kib), mib(held_after_calls_kib), mib(closed_kib), after.as_secs(), mib(after_kib), mib(peak_kib));
        println!(
            "  per idle connection: {:.1} KiB",
            (held_kib.saturating_sub(started_kib)) as f64 / idle as f64
        );
    });
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = ratd.wait();
    let _ = Command::new("tmux")
        .args(["-L", &format!("rat-{tenant}"), "kill-server"])
        .stderr(Stdio::null())
        .status();
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":{}}}"#;

async fn call(client: &reqwest::Client, url: &str) -> Duration {
    let started = Instant::now();
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(LIST)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    let body = response.bytes().await.expect("body");
    assert!(body.starts_with(br#"{"jsonrpc":"2.0","id":1,"result""#));
    started.elapsed()
}

/// Every client making `calls` calls at once: (p50, p99).
async fn phase(http: &[reqwest::Client], url: &str, calls: usize) -> (Duration, Duration) {
    let mut tasks = Vec::new();
    for client in http {
        let client = client.clone();
        let url = url.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut samples = Vec::with_capacity(calls);
            for _ in 0..calls {
                samples.push(call(&client, &url).await);
            }
            samples
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    all.sort();
    (percentile(&all, 0.5), percentile(&all, 0.99))
}
