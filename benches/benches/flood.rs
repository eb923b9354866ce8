//! A certificate holder's calls through a flood of strangers: connections that never finish a
//! TLS handshake (`docs/design/transport.md`, Connections before the handshake). Loopback only,
//! bounded in count and time.
//!
//! Runs the release ratd binary (`target/release/ratd`: `cargo build --release -p ratd` first)
//! on a bundle of its own, with its tmux server on a private socket killed at the end, and
//! prints the latency of alice's list_windows, each on a new connection (TCP connect, TLS
//! handshake, the call; p50, p99, max):
//!
//! 1. quiet: nothing else connected;
//! 2. under the flood: 6000 TCP connections sending nothing and 300 sending a ClientHello one
//!    byte every 200 ms, each reopened as soon as ratd closes it (an attack without a certificate), run
//!    on a thread and a runtime of their own as an attacker's process would. The goal: p50
//!    under 100 ms, every call within 2 s.
//!
//! Also printed: the connections the kernel dropped for a full listen backlog during the flood
//! (`ListenOverflows`, for the whole machine), each a SYN sent again after 1 s.
//!
//! `cargo bench -p benches --bench flood` (`FLOOD_SILENT`, 6000 by default; `FLOOD_SLOW`, 300;
//! `FLOOD_CALLS`, 200 calls per phase, one every 50 ms).

use benches::percentile;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use rat_wire::mtls;
use rustls::pki_types::ServerName;
use tokio_util::sync::CancellationToken;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":{}}}"#;

/// One list_windows on a new connection: how long from the connect to the end of the answer.
async fn fresh_call(tls: Arc<rustls::ClientConfig>, addr: SocketAddr) -> Duration {
    let started = Instant::now();
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connected");
    let _ = tcp.set_nodelay(true);
    let stream = tokio_rustls::TlsConnector::from(tls)
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .expect("handshake");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .expect("http");
    let driver = tokio::spawn(connection);
    let request = hyper::Request::post("/mcp")
        .header("host", "ratd")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(
            LIST.as_bytes(),
        )))
        .unwrap();
    let response = sender.send_request(request).await.expect("answered");
    assert_eq!(response.status(), 200);
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    driver.abort();
    assert!(
        body.starts_with(br#"{"jsonrpc":"2.0","id":1,"result""#),
        "{}",
        String::from_utf8_lossy(&body)
    );
    started.elapsed()
}

/// `calls` calls one after the other, 50 ms apart (200 take over 10 s: ratd closes and the flood
/// reopens each of its connections twice or more meanwhile): sorted latencies.
async fn phase(tls: &Arc<rustls::ClientConfig>, addr: SocketAddr, calls: usize) -> Vec<Duration> {
    let mut all = Vec::with_capacity(calls);
    for _ in 0..calls {
        all.push(fresh_call(tls.clone(), addr).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    all.sort();
    all
}

/// The kernel's count of connections dropped for a full listen backlog.
fn listen_overflows() -> u64 {
    let text = std::fs::read_to_string("/proc/net/netstat").unwrap_or_default();
    let mut lines = text.lines();
    while let (Some(names), Some(values)) = (lines.next(), lines.next()) {
        if let Some(at) = names.split(' ').position(|n| n == "ListenOverflows") {
            return values
                .split(' ')
                .nth(at)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
        }
    }
    0
}

/// A connection of the flood: sends nothing (`hello` empty) or `hello` one byte every 200 ms,
/// reopened as soon as ratd closes it, until `stop`.
async fn stranger(
    addr: SocketAddr,
    hello: Arc<Vec<u8>>,
    stop: CancellationToken,
    open: Arc<AtomicUsize>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    while !stop.is_cancelled() {
        let Ok(Ok(mut tcp)) =
            tokio::time::timeout(Duration::from_secs(3), tokio::net::TcpStream::connect(addr))
                .await
        else {
            continue;
        };
        open.fetch_add(1, Ordering::Relaxed);
        if hello.is_empty() {
            let mut sink = [0u8; 64];
            tokio::select! {
                _ = async { while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {} } => {}
                () = stop.cancelled() => {}
            }
        } else {
            for byte in hello.iter() {
                if stop.is_cancelled() || tcp.write_all(&[*byte]).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        open.fetch_sub(1, Ordering::Relaxed);
    }
}

fn print(name: &str, sorted: &[Duration]) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  {name:<12} p50 {:>8.1} ms  p99 {:>8.1} ms  max {:>8.1} ms  ({} calls, {} under 100 ms, {} over 2 s)",
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.99)),
        ms(*sorted.last().unwrap()),
        sorted.len(),
        sorted
            .iter()
            .filter(|d| **d < Duration::from_millis(100))
            .count(),
        sorted
            .iter()
            .filter(|d| **d >= Duration::from_secs(2))
            .count(),
    );
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
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
    let silent = env_or("FLOOD_SILENT", 6000);
    let slow = env_or("FLOOD_SLOW", 300);
    let calls = env_or("FLOOD_CALLS", 200);

    let dir = tempfile::tempdir().unwrap();
    let tenant = format!("flood{}", std::process::id());
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
    let addr: SocketAddr = loop {
        let line = lines.next().expect("ratd logs").unwrap();
        if let Some(at) = line.find("address=\"") {
            let rest = &line[at + 9..];
            break rest[..rest.find('"').unwrap()].parse().unwrap();
        }
    };
    // The rest of its log, kept out of the way (its warnings printed: the flood's line).
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if line.contains("WARN") && !line.contains("running as root") {
                eprintln!("ratd: {line}");
            }
        }
    });
    let side = mtls::load_client(&mtls::client_dir(&root, "alice")).expect("client side");
    let tls: Arc<rustls::ClientConfig> = side.rustls_config();
    let mut hello = Vec::new();
    rustls::ClientConnection::new(tls.clone(), ServerName::try_from("ratd").unwrap())
        .unwrap()
        .write_tls(&mut hello)
        .unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let quiet = runtime.block_on(async {
        // Warm: the session and its main window.
        fresh_call(tls.clone(), addr).await;
        phase(&tls, addr, calls).await
    });

    // The flood, on a runtime of its own.
    let stop = CancellationToken::new();
    let open = Arc::new(AtomicUsize::new(0));
    let flood = std::thread::spawn({
        let stop = stop.clone();
        let open = open.clone();
        let hello = Arc::new(hello);
        move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let mut tasks = tokio::task::JoinSet::new();
                let none = Arc::new(Vec::new());
                for i in 0..silent + slow {
                    let hello = if i < silent {
                        none.clone()
                    } else {
                        hello.clone()
                    };
                    tasks.spawn(stranger(addr, hello, stop.clone(), open.clone()));
                }
                while tasks.join_next().await.is_some() {}
            });
        }
    });
    let overflows = listen_overflows();
    let (under, open_at_start, open_at_end, overflows) = runtime.block_on(async {
        let began = Instant::now();
        while open.load(Ordering::Relaxed) < silent + slow && began.elapsed().as_secs() < 30 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let open_at_start = open.load(Ordering::Relaxed);
        let under = phase(&tls, addr, calls).await;
        (
            under,
            open_at_start,
            open.load(Ordering::Relaxed),
            listen_overflows() - overflows,
        )
    });
    stop.cancel();
    let _ = flood.join();

    println!(
        "flood: list_windows of a certificate holder, each on a new connection (connect, TLS handshake, call), {calls} calls per phase"
    );
    print("quiet", &quiet);
    print("under flood", &under);
    println!(
        "  the flood: {silent} silent connections and {slow} slow ClientHellos, each reopened as ratd closes it; {open_at_start} open when the calls began, {open_at_end} at the end; connections the kernel dropped for a full listen backlog meanwhile: {overflows}"
    );
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
