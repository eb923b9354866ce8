//! End to end: the official Python MCP SDK's stdio client (`mcp` 2.3.0 on PyPI) starts the
//! real `rat`, which relays to a real ratd (in-process, its real tmux server on a private
//! socket, real bash, a real bundle), and calls every tool: once with the initialize handshake
//! (protocol 2025-11-25), once with server/discover (protocol 2026-07-28, the SEP-2243 headers
//! checked by ratd's rmcp).
//!
//! Needs the Python SDK `mcp==2.3.0` in the tests' virtual environment `tests/python/.venv`,
//! which `.ci/run` installs (`python3 -m venv tests/python/.venv && tests/python/.venv/bin/pip install mcp==2.3.0`).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tmux_cc::test_support::SocketGuard;

use crate::common::Bundle;
use rat_core::result::ReadBudget;
use ratd::{Config, Listen, Ratd};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

fn unique_tenant() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "re{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// A real ratd serving in-process on 127.0.0.1, its tmux server killed when dropped.
struct Served {
    bundle: Bundle,
    addr: std::net::SocketAddr,
    in_flight: std::sync::Arc<ratd::InFlight>,
    shutdown: CancellationToken,
    serving: Option<tokio::task::JoinHandle<()>>,
    _guard: SocketGuard,
}

impl Served {
    async fn start() -> Self {
        let tenant = unique_tenant();
        let guard = SocketGuard::named(format!("rat-{tenant}"));
        let bundle = Bundle::new(&tenant, &["agent"]);
        // The terminals' HOME: of this test alone, not the user's, whose shell startup files
        // may be slow or stall (root's `pyenv init` here waits 60 s on a lock that a bash
        // killed mid-startup by another test left behind).
        let home = bundle.dir.path().join("home");
        std::fs::create_dir(&home).expect("the terminals' home");
        let ratd = Ratd::start(Config {
            bundle: bundle.server_dir(),
            listen: Listen::Host {
                host: "127.0.0.1".into(),
                port: 0,
            },
            read_budget: ReadBudget::DEFAULT,
            home: Some(home),
            max_connections: ratd::DEFAULT_MAX_CONNECTIONS,
            secrets: Default::default(),
        })
        .await
        .expect("ratd starts");
        let addr = ratd.local_addrs()[0];
        let in_flight = ratd.in_flight();
        let shutdown = CancellationToken::new();
        let serving = Some(tokio::spawn(ratd.serve(shutdown.clone())));
        Self {
            bundle,
            addr,
            in_flight,
            shutdown,
            serving,
            _guard: guard,
        }
    }

    async fn stop(&mut self) {
        self.shutdown.cancel();
        if let Some(serving) = self.serving.take() {
            let _ = serving.await;
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Runs the Python client against a fresh ratd; returns what it printed.
async fn python_client(mode: &str) -> Value {
    let mut served = Served::start().await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/python_client.py");
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/python/.venv/bin/python");
    let output = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(&python)
            .arg(&script)
            .arg(env!("CARGO_BIN_EXE_rat"))
            .arg(served.addr.to_string())
            .arg(served.bundle.client_dir("agent"))
            .arg(mode)
            .env_remove("HTTPS_PROXY")
            .env_remove("https_proxy")
            .env_remove("ALL_PROXY")
            .env_remove("all_proxy")
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the Python client finishes within 120 s")
    .unwrap_or_else(|e| {
        panic!(
            "{} can not run ({e}): run scripts/test, which installs it (the Python MCP SDK \
             in tests/python/.venv), then runs every test",
            python.display()
        )
    });
    served.stop().await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed: {}\n{stderr}",
        output.status
    );
    // rat logged one debug line per message, never their content.
    assert!(stderr.contains("rat started"), "{stderr}");
    assert!(stderr.contains("relayed method=\"tools/call\""), "{stderr}");
    assert!(
        !stderr.contains("rat-e2e"),
        "no content in rat's logs: {stderr}"
    );
    serde_json::from_slice(&output.stdout).expect("the client prints JSON")
}

fn check_calls(out: &Value) {
    let tools: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "close_window",
            "create_window",
            "list_windows",
            "read_file",
            "read_window",
            "send_keys",
            "send_text",
            "wait_window",
            "write_file"
        ]
    );
    let calls = &out["calls"];
    for name in [
        "list_windows",
        "create_window",
        "send_text",
        "wait_window",
        "read_window",
        "send_keys",
        "write_file",
        "read_file",
        "close_window",
    ] {
        assert_eq!(calls[name]["is_error"], false, "{name}: {}", calls[name]);
    }
    let text = |name: &str| calls[name]["text"].as_str().unwrap().to_owned();
    assert!(
        text("list_windows").contains("main"),
        "{}",
        text("list_windows")
    );
    assert!(
        text("read_window").contains("rat-e2e-42 é"),
        "{}",
        text("read_window")
    );
    assert!(
        text("wait_window").starts_with("build: the command finished"),
        "{}",
        text("wait_window")
    );
    assert!(
        text("read_file").ends_with("one\ntwo é\n"),
        "{}",
        text("read_file")
    );
    assert_eq!(
        calls["unknown_window"]["is_error"], true,
        "{}",
        calls["unknown_window"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_calls_every_tool_through_rat_with_initialize() {
    let out = python_client("legacy").await;
    assert_eq!(out["protocol_version"], "2025-11-25");
    check_calls(&out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_calls_every_tool_through_rat_with_discover() {
    let out = python_client("auto").await;
    assert_eq!(out["protocol_version"], "2026-07-28");
    check_calls(&out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_cancelled_through_rat_ends_in_ratd() {
    use crate::common::{Rat, notification, request};
    use serde_json::json;
    let mut served = Served::start().await;
    let mut rat = Rat::start(
        &served.addr.to_string(),
        &served.bundle.client_dir("agent"),
        &[],
    );
    let call = |id: i64, name: &str, arguments: Value| {
        request(
            json!(id),
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
    };
    rat.send(&request(json!(0), "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}))).await;
    assert!(
        rat.line()
            .await
            .contains(r#""protocolVersion":"2025-11-25""#)
    );
    rat.send(&notification("notifications/initialized", json!({})))
        .await;
    rat.send(&call(1, "create_window", json!({"name": "long"})))
        .await;
    rat.line().await;
    rat.send(&call(
        2,
        "wait_window",
        json!({"window": "long", "max_seconds": 10}),
    ))
    .await;
    rat.line().await;
    rat.send(&call(
        3,
        "send_text",
        json!({"window": "long", "text": "sleep 40", "enter": true}),
    ))
    .await;
    assert!(rat.line().await.contains(r#""id":3"#));
    rat.send(&call(
        4,
        "wait_window",
        json!({"window": "long", "max_seconds": 50}),
    ))
    .await;
    let waiting = tokio::time::timeout(Duration::from_secs(10), async {
        while served.in_flight.waits() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(waiting.is_ok(), "ratd never started waiting");
    rat.send(&notification(
        "notifications/cancelled",
        json!({"requestId": 4}),
    ))
    .await;
    // At once, not after the 50 s asked: a bound a loaded machine can not reach.
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while served.in_flight.waits() != 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(
        ended.is_ok(),
        "ratd still waits 10 s after the cancellation"
    );
    // Nothing was written for the cancelled call: the next line answers the next call.
    rat.send(&call(
        5,
        "send_keys",
        json!({"window": "long", "keys": ["C-c"]}),
    ))
    .await;
    let line = rat.line().await;
    assert!(line.contains(r#""id":5"#), "{line}");
    rat.close_stdin();
    assert!(rat.exit().await.0.success());
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_over_4_mib_through_rat_tells_what_to_do_and_the_next_one_is_served() {
    use crate::common::{Rat, request};
    use serde_json::json;
    let mut served = Served::start().await;
    let at = served.addr.to_string();
    let mut rat = Rat::start(&at, &served.bundle.client_dir("agent"), &[]);
    // 5 MiB and 15 MiB of text: over ratd's 4 MiB, under rat's 16 MiB. rat writes the whole
    // request before it reads: ratd reads what it refuses to its end, so rat reads the 413.
    for (id, size) in [(1, 5 * 1024 * 1024), (2, 15 * 1024 * 1024)] {
        let text = "x".repeat(size);
        rat.send(&request(
            json!(id),
            "tools/call",
            json!({"name": "send_text", "arguments": {"window": "main", "text": text, "enter": false}}),
        ))
        .await;
        assert_eq!(
            rat.line().await,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32050,"message":"ratd at {at} answered HTTP 413: request over 4 MiB of JSON (4194304 bytes), the most ratd reads: send a long text in parts, a send_text call each, and a large file in parts joined in a terminal (cat part1 part2 > file)"}}}}"#
            )
        );
    }
    rat.send(&request(
        json!(3),
        "tools/call",
        json!({"name": "list_windows", "arguments": {}}),
    ))
    .await;
    let line = rat.line().await;
    assert!(
        line.starts_with(r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"#),
        "{line}"
    );
    rat.close_stdin();
    assert!(rat.exit().await.0.success());
    served.stop().await;
}
