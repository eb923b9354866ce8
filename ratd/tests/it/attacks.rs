//! ratd attacked from outside, as an attacker does it, against the ratd binary a test starts:
//! batches that would multiply memory, floods of connections that never finish a handshake.
//! Memory is read from the kernel (`VmHWM` in `/proc/PID/status`: the most ratd's resident set
//! ever was), so that a bound holds whatever ratd's allocator does.

use std::time::Duration;

use crate::common::http_client;
use crate::service_common::Daemon;

/// The most resident memory ratd may reach under these attacks (`docs/design/transport.md`,
/// Batches: the bound of one client).
const RSS_BOUND_KIB: u64 = 256 * 1024;

/// A field of `/proc/PID/status` of `pid`, in KiB.
pub(crate) fn status_kib(pid: i32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("ratd's status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in {status}"))
}

/// A batch of `count` messages from `message(i)`, as one JSON array.
fn batch(count: usize, message: impl Fn(usize) -> serde_json::Value) -> String {
    serde_json::Value::Array((0..count).map(message).collect()).to_string()
}

fn read_file_call(i: usize, path: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0", "id": i, "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": path}}
    })
}

/// POSTs `body` as a batch (no protocol version header: read as 2025-03-26, which has batches).
async fn post_batch(http: &reqwest::Client, url: &str, body: String) -> (u16, String) {
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body)
        .send()
        .await
        .expect("ratd answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

fn refusal(count: usize) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": format!(
        "Invalid Request: a batch of {count} messages, over what ratd serves in one batch: 64 messages, and 16 MiB of results counting each message at the read budget (64 KiB), so 64 messages at most here; no message of it was served: send fewer messages per batch, or one message per request"
    )}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_over_the_bound_are_refused_whole_and_ratd_stays_under_256_mib() {
    let mut ratd = Daemon::spawn(&[]);
    let addr = ratd.wait_serving();
    let pid = ratd.pid().as_raw();
    let url = format!("https://{addr}/mcp");
    let http = http_client(ratd.bundle.client_tls("alice"));
    // A file of 58 KB: under the read budget, so each read_file result holds it whole.
    let file = ratd.home.path().join("58k.txt");
    let line = "0123456789abcdef".repeat(4) + "\n";
    std::fs::write(&file, line.repeat(58_000 / line.len())).unwrap();
    let path = file.to_str().unwrap().to_owned();
    let before = status_kib(pid, "VmRSS");

    // 8,000 read_file calls in one batch (about 1 MB), four such requests at once.
    let body = batch(8000, |i| read_file_call(i, &path));
    let answers =
        futures::future::join_all((0..4).map(|_| post_batch(&http, &url, body.clone()))).await;
    for answer in answers {
        assert_eq!(answer, (400, refusal(8000)));
    }

    // 32,000 small calls filling the 4 MiB body limit, four at once.
    let small = |i: usize| serde_json::json!({"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"_meta": {"p": "x".repeat(50)}}});
    let body = batch(32_000, small);
    assert!(
        body.len() <= 4 * 1024 * 1024 && body.len() > 4_000_000,
        "{}",
        body.len()
    );
    let answers =
        futures::future::join_all((0..4).map(|_| post_batch(&http, &url, body.clone()))).await;
    for answer in answers {
        assert_eq!(answer, (400, refusal(32_000)));
    }

    // At the bound, served: 64 read_file calls, each result the whole file, four at once.
    let body = batch(64, |i| read_file_call(i, &path));
    let answers =
        futures::future::join_all((0..4).map(|_| post_batch(&http, &url, body.clone()))).await;
    for (status, text) in answers {
        assert_eq!(status, 200, "{text}");
        let array: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(array.len(), 64);
        for (i, answer) in array.iter().enumerate() {
            assert_eq!(answer["id"], i);
            let text = answer["result"]["content"][0]["text"].as_str().unwrap();
            assert!(text.contains(&line), "{}", &text[..200.min(text.len())]);
        }
    }

    let peak = status_kib(pid, "VmHWM");
    eprintln!("ratd RSS: {before} KiB before, {peak} KiB at peak");
    assert!(peak < RSS_BOUND_KIB, "ratd reached {peak} KiB");
    // Still serving.
    let (status, _) = post_batch(&http, &url, batch(1, |i| read_file_call(i, &path))).await;
    assert_eq!(status, 200);
    ratd.signal(nix::sys::signal::Signal::SIGTERM);
    let exit = tokio::task::spawn_blocking(move || ratd.wait_exit())
        .await
        .unwrap();
    assert!(exit.success());
}

/// The phases of one `list_windows` of alice on a connection of its own: the TCP connect, the
/// TLS handshake (as the client sees it: in TLS 1.3 the server checks the certificate after),
/// then the HTTP request and its answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Phases {
    pub(crate) connect: Duration,
    pub(crate) handshake: Duration,
    pub(crate) call: Duration,
}

impl Phases {
    pub(crate) fn total(&self) -> Duration {
        self.connect + self.handshake + self.call
    }
}

/// One `list_windows` of alice on a connection of its own (a new TLS handshake through the
/// flood): how long each phase took, or what went wrong.
pub(crate) async fn list_windows_fresh(
    tls: std::sync::Arc<rustls::ClientConfig>,
    addr: std::net::SocketAddr,
) -> Result<Phases, String> {
    use http_body_util::BodyExt;
    let started = std::time::Instant::now();
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let connect = started.elapsed();
    let stream = tokio_rustls::TlsConnector::from(tls)
        .connect(
            rustls::pki_types::ServerName::try_from("ratd").unwrap(),
            tcp,
        )
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let handshake = started.elapsed() - connect;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| format!("http: {e}"))?;
    let driver = tokio::spawn(connection);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":{}}}"#;
    let request = http::Request::post("/mcp")
        .header("host", "ratd")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(
            body.as_bytes(),
        )))
        .unwrap();
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("request: {e}"))?;
    let status = response.status();
    let text = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("body: {e}"))?
        .to_bytes();
    driver.abort();
    let call = started.elapsed() - connect - handshake;
    let text = String::from_utf8_lossy(&text);
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
    if status != 200 || value["result"]["isError"] != false {
        return Err(format!("{status}: {text}"));
    }
    Ok(Phases {
        connect,
        handshake,
        call,
    })
}

/// How many connections the kernel dropped for a full listen backlog since it started
/// (`ListenOverflows` of `/proc/net/netstat`, for the whole network namespace): a dropped SYN is
/// sent again after 1 s, then 3 s.
fn listen_overflows() -> u64 {
    let text = std::fs::read_to_string("/proc/net/netstat").expect("/proc/net/netstat");
    let mut lines = text.lines();
    while let (Some(names), Some(values)) = (lines.next(), lines.next()) {
        if let Some(at) = names.split(' ').position(|name| name == "ListenOverflows") {
            return values
                .split(' ')
                .nth(at)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
        }
    }
    0
}

/// Raises this process's soft limit of open files to its hard limit.
fn raise_file_limit() -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    setrlimit(Resource::RLIMIT_NOFILE, hard, hard).unwrap();
    hard
}

/// The connections of a flood open at the moment.
type Open = std::sync::Arc<std::sync::atomic::AtomicUsize>;

/// Counts a connection of the flood open while it lives.
struct Counted(Open);

impl Counted {
    fn new(open: &Open) -> Counted {
        open.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Counted(open.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A TCP connection to `addr` sending nothing, reopened as soon as ratd closes it, until
/// `stop`.
async fn silent(addr: std::net::SocketAddr, stop: tokio_util::sync::CancellationToken, open: Open) {
    use tokio::io::AsyncReadExt;
    while !stop.is_cancelled() {
        let Ok(Ok(mut tcp)) =
            tokio::time::timeout(Duration::from_secs(3), tokio::net::TcpStream::connect(addr))
                .await
        else {
            continue;
        };
        let _counted = Counted::new(&open);
        let mut sink = [0u8; 64];
        tokio::select! {
            _ = async { while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {} } => {}
            () = stop.cancelled() => {}
        }
    }
}

/// A TLS ClientHello sent one byte every 200 ms, started again as soon as ratd closes the
/// connection, until `stop`.
async fn slow_hello(
    addr: std::net::SocketAddr,
    hello: std::sync::Arc<Vec<u8>>,
    stop: tokio_util::sync::CancellationToken,
    open: Open,
) {
    use tokio::io::AsyncWriteExt;
    while !stop.is_cancelled() {
        let Ok(Ok(mut tcp)) =
            tokio::time::timeout(Duration::from_secs(3), tokio::net::TcpStream::connect(addr))
                .await
        else {
            continue;
        };
        let _counted = Counted::new(&open);
        for byte in hello.iter() {
            if stop.is_cancelled() || tcp.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// A flood of strangers on `addr`: `silent` connections sending nothing and `slow` sending a
/// ClientHello (`hello`) one byte every 200 ms, each reopened as soon as ratd closes it. It runs
/// on a thread and a runtime of its own, as an attacker runs in a process of its own, so that
/// its thousands of tasks do not delay the calls measured. Ends when its `stop` fires (and its
/// `thread` joins).
pub(crate) struct Flood {
    pub(crate) stop: tokio_util::sync::CancellationToken,
    pub(crate) thread: std::thread::JoinHandle<()>,
    /// Its connections open at the moment.
    pub(crate) open: Open,
}

pub(crate) fn flood(
    addr: std::net::SocketAddr,
    silent_count: usize,
    slow_count: usize,
    hello: Vec<u8>,
) -> Flood {
    let stop = tokio_util::sync::CancellationToken::new();
    let open = Open::default();
    let thread = std::thread::spawn({
        let stop = stop.clone();
        let open = open.clone();
        move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let hello = std::sync::Arc::new(hello);
                let mut flood = tokio::task::JoinSet::new();
                for _ in 0..silent_count {
                    flood.spawn(silent(addr, stop.clone(), open.clone()));
                }
                for _ in 0..slow_count {
                    flood.spawn(slow_hello(addr, hello.clone(), stop.clone(), open.clone()));
                }
                while flood.join_next().await.is_some() {}
            });
        }
    });
    Flood { stop, thread, open }
}

/// The first bytes a client sends: its ClientHello.
pub(crate) fn client_hello(tls: &std::sync::Arc<rustls::ClientConfig>) -> Vec<u8> {
    let mut hello = Vec::new();
    let mut connection = rustls::ClientConnection::new(
        tls.clone(),
        rustls::pki_types::ServerName::try_from("ratd").unwrap(),
    )
    .unwrap();
    connection.write_tls(&mut hello).unwrap();
    hello
}

/// 6,000 connections sending nothing and 300 sending a ClientHello slowly, each reopened as soon
/// as ratd closes it, while alice calls list_windows on a fresh connection 30 times over 9 s:
/// every call within 2 s. A slow call prints its phases, and the connections the kernel dropped
/// for a full listen backlog (which ratd's accept thread is there to prevent) are counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificate_holders_are_served_through_a_flood_of_strangers() {
    const SILENT: usize = 6000;
    const SLOW: usize = 300;
    const CALLS: usize = 30;
    let hard = raise_file_limit();
    assert!(
        hard >= 8192,
        "the hard limit of open files ({hard}) is too low for this test"
    );
    let mut ratd = Daemon::spawn(&[]);
    let addr = ratd.wait_serving();
    let tls = std::sync::Arc::new(ratd.bundle.client_tls("alice"));
    // Before the flood: the latency of a call on a fresh connection.
    let mut quiet = Vec::new();
    for _ in 0..10 {
        quiet.push(
            list_windows_fresh(tls.clone(), addr)
                .await
                .expect("served")
                .total(),
        );
    }

    let overflows = listen_overflows();
    let flood = flood(addr, SILENT, SLOW, client_hello(&tls));
    let open = || flood.open.load(std::sync::atomic::Ordering::Relaxed);
    // Let the flood fill ratd's places: all of its connections open at once.
    let began = std::time::Instant::now();
    while open() < SILENT + SLOW {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the flood opened {} connections in 20 s",
            open()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "the flood is open in {:.1} s",
        began.elapsed().as_secs_f64()
    );
    // Calls over 9 s and more: the flood's connections are closed and reopened twice meanwhile
    // (ratd closes each between 2.5 and 5 s).
    let mut phases = Vec::new();
    for call in 0..CALLS {
        let flooding = open();
        match list_windows_fresh(tls.clone(), addr).await {
            Ok(took) => phases.push((flooding, took)),
            Err(error) => panic!("call {call} under the flood failed: {error}"),
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let overflows = listen_overflows() - overflows;
    flood.stop.cancel();
    tokio::task::spawn_blocking(move || flood.thread.join().unwrap())
        .await
        .unwrap();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!("connections dropped by the kernel for a full listen backlog: {overflows}");
    for (call, (flooding, phase)) in phases.iter().enumerate() {
        eprintln!(
            "call {call}, {flooding} connections of the flood open: connect {:.1} ms, handshake {:.1} ms, request {:.1} ms",
            ms(phase.connect),
            ms(phase.handshake),
            ms(phase.call)
        );
    }
    let phases: Vec<Phases> = phases.into_iter().map(|(_, phase)| phase).collect();
    let mut latencies: Vec<Duration> = phases.iter().map(Phases::total).collect();
    let slow: Vec<(usize, Duration)> = latencies
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, took)| *took >= Duration::from_secs(2))
        .collect();
    quiet.sort();
    latencies.sort();
    eprintln!(
        "list_windows on a fresh connection: quiet p50 {:.1} ms; under {SILENT} silent connections and {SLOW} slow hellos: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(quiet[quiet.len() / 2]),
        ms(latencies[latencies.len() / 2]),
        ms(latencies[latencies.len() * 99 / 100]),
        ms(*latencies.last().unwrap()),
    );
    assert!(slow.is_empty(), "calls over 2 s: {slow:?}");
    ratd.signal(nix::sys::signal::Signal::SIGTERM);
    let ratd = tokio::task::spawn_blocking(move || {
        let exit = ratd.wait_exit();
        (exit, ratd)
    })
    .await
    .unwrap();
    let (exit, ratd) = ratd;
    assert!(exit.success());
    let floods = ratd
        .seen
        .iter()
        .filter(|line| {
            line.contains("a flood of connections that do not finish their TLS handshake")
        })
        .count();
    assert_eq!(floods, 1, "{:#?}", &ratd.seen[..ratd.seen.len().min(40)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_cut_by_a_kill_of_ratd_is_told_by_the_next_read() {
    use crate::common::Bundle;
    use crate::service_common::call;
    // The same HOME for both ratds: the journal of writes in progress is kept under it.
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("big.txt");
    std::fs::write(&file, "x".repeat(1 << 20)).unwrap();
    let path = file.to_str().unwrap().to_owned();
    let bundle = Bundle::generate(&crate::common::unique_tenant(), &["alice"]);
    let tenant = bundle.tenant.clone();
    let copy = Bundle {
        dir: tempfile::tempdir().unwrap(),
        tenant: tenant.clone(),
    };
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(bundle.root())
        .arg(copy.root())
        .status()
        .unwrap();
    assert!(copied.success());
    let spawn = |bundle: Bundle, hold: bool| {
        let home = home.path().to_owned();
        Daemon::spawn_on(bundle, &[], move |command| {
            command
                .env("HOME", &home)
                .stderr(std::process::Stdio::piped());
            if hold {
                // The test hook of rat-core (feature test-support): the write of big.txt waits
                // 60 s after its truncate.
                command
                    .env("RAT_TEST_HOLD_NAME", "big.txt")
                    .env("RAT_TEST_HOLD_AFTER_TRUNCATE", "60");
            }
            Box::new(std::io::empty())
        })
        .with_piped_stderr()
    };

    let mut first = spawn(bundle, true);
    first.wait_serving();
    let client = first.mcp("alice").await;
    let began = std::time::SystemTime::now();
    let content = "y".repeat(1 << 20);
    let write = tokio::spawn({
        let path = path.clone();
        async move {
            // Never answered: ratd is killed during it.
            let arguments = serde_json::json!({"path": path, "content": content});
            let serde_json::Value::Object(arguments) = arguments else {
                unreachable!()
            };
            let _ = client
                .call_tool(
                    rmcp::model::CallToolRequestParams::new("write_file").with_arguments(arguments),
                )
                .await;
        }
    });
    // Truncated, then held: ratd is killed there, as the OOM killer would.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(&file).unwrap().len() != 0 {
        assert!(std::time::Instant::now() < deadline, "never truncated");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.signal(nix::sys::signal::Signal::SIGKILL);
    let _ = tokio::task::spawn_blocking(move || {
        let _ = first.wait_exit();
    })
    .await;
    write.abort();

    let mut second = spawn(copy, false);
    second.wait_serving();
    let client = second.mcp("alice").await;
    let (text, is_error) = call(&client, "read_file", serde_json::json!({"path": path})).await;
    assert!(!is_error, "{text}");
    let (first_line, rest) = text.split_once('\n').expect("two lines");
    let told = |at: std::time::SystemTime| {
        format!(
            "A write_file of 1 MiB to this file was cut short at {}: ratd ended during it. The file may be partial or empty: check it, and write it again if needed.",
            rat_wire::mtls::format_time(at)
        )
    };
    assert!(
        [began, began + Duration::from_secs(1)]
            .into_iter()
            .any(|at| told(at) == first_line),
        "{text}"
    );
    assert!(
        rest.starts_with(&format!("[{path}: empty, modified ")),
        "{text}"
    );
    // Told once.
    let (again, _) = call(&client, "read_file", serde_json::json!({"path": path})).await;
    assert!(again.starts_with(&format!("[{path}: empty")), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extra_field_in_tool_arguments_is_refused_by_its_name() {
    let mut served = crate::common::Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let schema = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .find(|tool| tool.name == "read_file")
        .unwrap()
        .input_schema;
    assert_eq!(schema["additionalProperties"], false);
    let (text, is_error) = crate::service_common::call(
        &client,
        "read_file",
        serde_json::json!({"path": "/etc/hostname", "recursive": true}),
    )
    .await;
    assert!(is_error);
    assert_eq!(
        text,
        "The arguments of read_file are not valid: \"recursive\" is not one of its arguments, which are path, start_line, max_lines, line_numbers. Nothing was done: call read_file again without \"recursive\" as its input schema tells."
    );
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_clients_of_two_certificates_make_200_mixed_calls_each_without_an_error() {
    const CLIENTS: usize = 50;
    const CALLS: usize = 200;
    let mut ratd = Daemon::spawn(&[]);
    ratd.wait_serving();
    let pid = ratd.pid().as_raw();
    let files = tempfile::tempdir().unwrap();
    let mut clients = Vec::new();
    for i in 0..CLIENTS {
        let name = if i % 2 == 0 { "alice" } else { "bob" };
        clients.push(ratd.mcp(name).await);
    }
    let before = status_kib(pid, "VmRSS");
    let started = std::time::Instant::now();
    let runs = clients.iter().enumerate().map(|(i, client)| {
        let path = files.path().join(format!("f{i}.txt"));
        let path = path.to_str().unwrap().to_owned();
        async move {
            let mut errors = Vec::new();
            for call in 0..CALLS {
                // A quarter through tmux (list_windows, read_window), the rest files.
                let (tool, arguments) = match call % 8 {
                    0 => ("list_windows", serde_json::json!({})),
                    1 => ("read_window", serde_json::json!({"window": "main"})),
                    2 | 4 | 6 => (
                        "write_file",
                        serde_json::json!({"path": path, "content": format!("call {call}\n").repeat(100)}),
                    ),
                    _ => ("read_file", serde_json::json!({"path": path})),
                };
                let (text, is_error) =
                    crate::service_common::call(client, tool, arguments).await;
                if is_error {
                    errors.push(format!("client {i}, call {call} ({tool}): {text}"));
                }
            }
            errors
        }
    });
    let errors: Vec<String> = futures::future::join_all(runs)
        .await
        .into_iter()
        .flatten()
        .collect();
    let took = started.elapsed();
    let peak = status_kib(pid, "VmHWM");
    for client in clients {
        let _ = client.cancel().await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = status_kib(pid, "VmRSS");
    eprintln!(
        "{CLIENTS} clients x {CALLS} calls in {:.1} s: ratd RSS {before} KiB before, {peak} KiB at peak, {after} KiB after",
        took.as_secs_f64()
    );
    assert_eq!(errors, Vec::<String>::new());
    assert!(peak < RSS_BOUND_KIB, "ratd reached {peak} KiB");
}

/// What one connection can make ratd hold: 32 connections each posting a write_file of 4 MB (a
/// body just under the 4 MiB limit) at once. Prints ratd's peak over its resident memory
/// before, per connection: the figure of `docs/design/transport.md` (ratd's memory with many
/// connections).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_two_connections_posting_4_mb_at_once_keep_ratd_under_512_mib() {
    const CONNECTIONS: usize = 32;
    let mut ratd = Daemon::spawn(&[]);
    let addr = ratd.wait_serving();
    let pid = ratd.pid().as_raw();
    let url = format!("https://{addr}/mcp");
    let files = tempfile::tempdir().unwrap();
    let content = "0123456789abcdef".repeat(4_000_000 / 16);
    let bodies: Vec<String> = (0..CONNECTIONS)
        .map(|i| {
            serde_json::json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "write_file",
                "arguments": {"path": files.path().join(format!("f{i}")), "content": content}}})
            .to_string()
        })
        .collect();
    let before = status_kib(pid, "VmRSS");
    let clients: Vec<reqwest::Client> = (0..CONNECTIONS)
        .map(|_| http_client(ratd.bundle.client_tls("alice")))
        .collect();
    let answers =
        futures::future::join_all(clients.iter().zip(&bodies).map(|(http, body)| async {
            let response = http
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .body(body.clone())
                .send()
                .await
                .expect("answered");
            (response.status().as_u16(), response.text().await.unwrap())
        }))
        .await;
    for (i, (status, text)) in answers.iter().enumerate() {
        assert_eq!(*status, 200, "{text}");
        assert!(text.contains(&format!("f{i} (")), "{text}");
    }
    let peak = status_kib(pid, "VmHWM");
    let per_connection = (peak.saturating_sub(before)) as f64 / CONNECTIONS as f64 / 1024.0;
    eprintln!(
        "{CONNECTIONS} connections x a 4 MB write_file at once: ratd RSS {before} KiB before, {peak} KiB at peak, {per_connection:.1} MiB per connection"
    );
    assert!(peak < RSS_BOUND_KIB * 2, "ratd reached {peak} KiB");
}
