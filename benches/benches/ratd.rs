//! ratd's cost per call, and under load. Loopback only. Prints:
//!
//! 1. the per-request build: the rmcp service and its handler built for each request, bound to
//!    the session (time, and bytes allocated per build, counted by this binary's allocator);
//!    the Go build rat started from took 0.1 ms and 335 KB (`docs/design/transport.md`);
//! 2. read_window and list_windows through ratd over mTLS with one kept-alive client (p50,
//!    p99), against the same call through rat-core alone (`Terminals::read_window`,
//!    `list_windows`): the difference is ratd's cost per call (TLS, HTTP, JSON-RPC, rmcp);
//!    send_text of one character without Enter (what recording where an input's rows start
//!    must not slow), likewise through ratd and rat-core alone;
//! 3. 64 concurrent clients (64 connections) calling read_window, then list_windows, for 10 s
//!    each: calls per second, p50, p99, and ratd's peak RSS (VmHWM of its process).
//!
//! ratd runs in a process of its own (this binary started again with `RATD_BENCH_SERVE`), its
//! tmux server on a private socket killed at the end. The clients post raw JSON-RPC over
//! reqwest with the bundle's client certificate (protocol 2025-11-25, stateless).
//!
//! `cargo bench -p benches --bench ratd` (`RATD_BENCH_ITERATIONS`, 2000 by default;
//! `RATD_BENCH_SECONDS`, 10 by default, 0 skipping part 3; `RATD_BENCH_CLIENTS`, 64 by default).

use benches::percentile;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tmux_cc::test_support::SocketGuard;

use rat_core::result::ReadBudget;
use rat_core::terminals::{
    Controller, ControllerConfig, ReadWindow, SendKeys, SendText, WaitWindow,
};
use rat_wire::mtls;
use tokio_util::sync::CancellationToken;

/// Counts the bytes allocated while [`COUNTING`] is set: the memory a per-request build costs.
struct CountingAlloc;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATED: AtomicU64 = AtomicU64::new(0);

// The one unsafe block of this bench: a global allocator must be an `unsafe impl`, and counting the
// bytes a build allocates is what the Go build's figure (335 KB per build) measures. It forwards
// every call to the system allocator unchanged.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        }
        // SAFETY: forwarded as is to the system allocator, with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is to the system allocator, with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATED.fetch_add(new_size as u64, Ordering::Relaxed);
        }
        // SAFETY: forwarded as is to the system allocator, with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const SERVE_ENV: &str = "RATD_BENCH_SERVE";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    if let Ok(server_dir) = std::env::var(SERVE_ENV) {
        serve(&server_dir);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(bench());
}

/// The ratd process: serves the bundle until its stdin closes.
fn serve(server_dir: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config = ratd::Config {
            bundle: server_dir.into(),
            listen: ratd::Listen::Host {
                host: "127.0.0.1".into(),
                port: 0,
            },
            read_budget: ReadBudget::DEFAULT,
            home: None,
            max_connections: ratd::DEFAULT_MAX_CONNECTIONS,
            secrets: Default::default(),
        };
        let ratd = ratd::Ratd::start(config).await.expect("ratd starts");
        println!("LISTENING {}", ratd.local_addrs()[0]);
        let shutdown = CancellationToken::new();
        let stop = shutdown.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            while std::io::stdin().read_line(&mut line).unwrap_or(0) > 0 {}
            stop.cancel();
        });
        ratd.serve(shutdown).await;
    });
}

fn tenant(suffix: &str) -> String {
    format!("rb{}{suffix}", std::process::id())
}

fn body(id: u64, tool: &str, arguments: serde_json::Value) -> String {
    serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}
    })
    .to_string()
}

async fn post(client: &reqwest::Client, url: &str, body: String) -> Duration {
    let started = Instant::now();
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body)
        .send()
        .await
        .expect("ratd answers");
    assert_eq!(response.status(), 200);
    let bytes = response.bytes().await.expect("a body");
    let elapsed = started.elapsed();
    assert!(
        !bytes.windows(14).any(|w| w == br#""isError":true"#),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    elapsed
}

fn http_client(tls: &rustls::ClientConfig) -> reqwest::Client {
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls.clone())
        .http1_only()
        .pool_max_idle_per_host(1)
        .build()
        .unwrap()
}

fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

async fn bench() {
    let iterations = env_number("RATD_BENCH_ITERATIONS", 2000);
    let seconds = env_number("RATD_BENCH_SECONDS", 10) as u64;
    let clients = env_number("RATD_BENCH_CLIENTS", 64);
    let dir = tempfile::tempdir().unwrap();

    // 1. The per-request build, in this process.
    {
        let tenant = tenant("b");
        let _guard = SocketGuard::named(format!("rat-{tenant}"));
        let bundle = dir.path().join("build");
        mtls::generate(&tenant, &["bench"], &bundle).unwrap();
        let ratd = ratd::Ratd::start(ratd::Config {
            bundle: mtls::server_dir(&bundle),
            listen: ratd::Listen::Host {
                host: "127.0.0.1".into(),
                port: 0,
            },
            read_budget: ReadBudget::DEFAULT,
            home: None,
            max_connections: ratd::DEFAULT_MAX_CONNECTIONS,
            secrets: Default::default(),
        })
        .await
        .unwrap();
        let peer = ratd::Peer {
            client: "bench".into(),
            addr: "127.0.0.1:40000".parse().unwrap(),
        };
        for _ in 0..1000 {
            drop(ratd.build_request_service(peer.clone()));
        }
        let builds = 100_000;
        let started = Instant::now();
        for _ in 0..builds {
            drop(std::hint::black_box(
                ratd.build_request_service(peer.clone()),
            ));
        }
        let per_build = started.elapsed() / builds;
        ALLOCATED.store(0, Ordering::SeqCst);
        COUNTING.store(true, Ordering::SeqCst);
        drop(std::hint::black_box(
            ratd.build_request_service(peer.clone()),
        ));
        COUNTING.store(false, Ordering::SeqCst);
        let bytes = ALLOCATED.load(Ordering::SeqCst);
        println!("per-request build (rmcp service + handler asked twice), {builds} builds:");
        println!(
            "  {:.2} µs per build, {bytes} bytes allocated per build (Go build: 100 µs, 335 KB)",
            per_build.as_secs_f64() * 1e6
        );
        let shutdown = CancellationToken::new();
        shutdown.cancel();
        ratd.serve(shutdown).await;
    }

    // 2. rat-core alone.
    let core_tenant = tenant("c");
    let _core_guard = SocketGuard::named(format!("rat-{core_tenant}"));
    let controller = Controller::start(ControllerConfig::new(core_tenant.clone()))
        .await
        .unwrap();
    let session = controller.session("bench");
    prepare(&session).await;
    let mut core_read = Vec::with_capacity(iterations);
    let mut core_list = Vec::with_capacity(iterations);
    let mut core_send = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let started = Instant::now();
        let result = session
            .read_window(ReadWindow {
                window: "main".into(),
                scrollback_rows: None,
                output_rows: None,
            })
            .await;
        core_read.push(started.elapsed());
        assert!(!result.outcome.is_error(), "{}", result.text);
        let started = Instant::now();
        let result = session.list_windows().await;
        core_list.push(started.elapsed());
        assert!(!result.outcome.is_error(), "{}", result.text);
        let started = Instant::now();
        let result = session.send_text(one_character()).await;
        core_send.push(started.elapsed());
        assert!(!result.outcome.is_error(), "{}", result.text);
        if i % 100 == 99 {
            session.send_keys(clear_line()).await;
        }
    }
    let _ = controller.stop().await;

    // 3. Through ratd, in a process of its own.
    let ratd_tenant = tenant("r");
    let _ratd_guard = SocketGuard::named(format!("rat-{ratd_tenant}"));
    let bundle = dir.path().join("serve");
    mtls::generate(&ratd_tenant, &["bench"], &bundle).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(SERVE_ENV, mtls::server_dir(&bundle))
        .env("RUST_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("LISTENING ")
        .expect("ratd listens");
    let url = format!("https://{addr}/mcp");
    let tls = (*mtls::load_client(&mtls::client_dir(&bundle, "bench"))
        .unwrap()
        .rustls_config())
    .clone();
    let client = http_client(&tls);
    // The window as rat-core alone had it: a prompt after some output.
    post(
        &client,
        &url,
        body(
            0,
            "wait_window",
            serde_json::json!({"window": "main", "max_seconds": 10}),
        ),
    )
    .await;
    post(
        &client,
        &url,
        body(
            0,
            "send_text",
            serde_json::json!({"window": "main", "text": "seq 1 20", "enter": true}),
        ),
    )
    .await;
    post(
        &client,
        &url,
        body(
            0,
            "wait_window",
            serde_json::json!({"window": "main", "max_seconds": 10}),
        ),
    )
    .await;
    let read_body = body(1, "read_window", serde_json::json!({"window": "main"}));
    let list_body = body(2, "list_windows", serde_json::json!({}));
    let send_body = body(
        3,
        "send_text",
        serde_json::json!({"window": "main", "text": "x", "enter": false}),
    );
    let clear_body = body(
        4,
        "send_keys",
        serde_json::json!({"window": "main", "keys": ["C-u"]}),
    );
    for _ in 0..100 {
        post(&client, &url, read_body.clone()).await;
    }
    let mut ratd_read = Vec::with_capacity(iterations);
    let mut ratd_list = Vec::with_capacity(iterations);
    let mut ratd_send = Vec::with_capacity(iterations);
    for i in 0..iterations {
        ratd_read.push(post(&client, &url, read_body.clone()).await);
        ratd_list.push(post(&client, &url, list_body.clone()).await);
        ratd_send.push(post(&client, &url, send_body.clone()).await);
        if i % 100 == 99 {
            post(&client, &url, clear_body.clone()).await;
        }
    }
    for samples in [
        &mut core_read,
        &mut core_list,
        &mut core_send,
        &mut ratd_read,
        &mut ratd_list,
        &mut ratd_send,
    ] {
        samples.sort();
    }
    println!("one kept-alive client, {iterations} calls each (p50 / p99):");
    for (tool, core, through) in [
        ("read_window", &core_read, &ratd_read),
        ("list_windows", &core_list, &ratd_list),
        ("send_text", &core_send, &ratd_send),
    ] {
        let (c50, c99) = (percentile(core, 0.5), percentile(core, 0.99));
        let (r50, r99) = (percentile(through, 0.5), percentile(through, 0.99));
        println!(
            "  {tool:<13} rat-core alone {} / {}   through ratd {} / {}   ratd's cost {} / {}",
            ms(c50),
            ms(c99),
            ms(r50),
            ms(r99),
            ms(r50.saturating_sub(c50)),
            ms(r99.saturating_sub(c99)),
        );
    }

    if seconds == 0 {
        drop(child.stdin.take());
        let _ = child.wait();
        return;
    }
    println!("{clients} concurrent clients (one connection each), {seconds} s per tool:");
    for (tool, request) in [("read_window", &read_body), ("list_windows", &list_body)] {
        let stop = Instant::now() + Duration::from_secs(seconds);
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..clients {
            let client = http_client(&tls);
            let url = url.clone();
            let request = request.clone();
            tasks.spawn(async move {
                let mut samples = Vec::new();
                while Instant::now() < stop {
                    samples.push(post(&client, &url, request.clone()).await);
                }
                samples
            });
        }
        let started = Instant::now();
        let mut samples = Vec::new();
        while let Some(result) = tasks.join_next().await {
            samples.extend(result.unwrap());
        }
        let elapsed = started.elapsed();
        samples.sort();
        println!(
            "  {tool:<13} {:.0} calls/s, p50 {}, p99 {}, ratd peak RSS {} MiB",
            samples.len() as f64 / elapsed.as_secs_f64(),
            ms(percentile(&samples, 0.5)),
            ms(percentile(&samples, 0.99)),
            peak_rss_kib(pid).map_or("?".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
        );
    }
    drop(child.stdin.take());
    let _ = child.wait();
}

/// The input send_text is timed with: one character, no Enter, at bash's prompt.
fn one_character() -> SendText {
    SendText {
        window: "main".into(),
        text: "x".into(),
        enter: false,
        wait_seconds: 0,
    }
}

/// C-u: the characters sent so far taken off the command line.
fn clear_line() -> SendKeys {
    SendKeys {
        window: "main".into(),
        keys: vec!["C-u".into()],
        wait_seconds: 0,
    }
}

/// The window main of `session`: its prompt, after 20 lines of output.
async fn prepare(session: &rat_core::terminals::Terminals) {
    let wait = || WaitWindow {
        window: "main".into(),
        max_seconds: Some(10),
    };
    session.wait_window(wait(), CancellationToken::new()).await;
    session
        .send_text(SendText {
            window: "main".into(),
            text: "seq 1 20".into(),
            enter: true,
            wait_seconds: 0,
        })
        .await;
    session.wait_window(wait(), CancellationToken::new()).await;
}
