//! The headers rat computes for each protocol version, as a test HTTPS server records them
//! (`docs/design/bridge.md`, Headers): the fixed Content-Type and Accept, the
//! version from `_meta` or negotiated by initialize, and from 2026-07-28 on the standard headers
//! of SEP-2243 with `Mcp-Param-Window` from rat-wire's schemas.

use crate::common::{Bundle, Rat, TestServer, echo_handler, notification, request};
use serde_json::{Value, json};

/// Sends each message, waits for what the server records (and rat's answer to requests), and
/// renders the headers of each, one block per message.
async fn headers_of(messages: &[Value]) -> String {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    let mut out = Vec::new();
    for message in messages {
        rat.send(&serde_json::to_vec(message).unwrap()).await;
        let recorded = server.received().await;
        if message.get("id").is_some() {
            rat.line().await;
        }
        out.push(format!(
            "{}\n{}",
            message["method"].as_str().unwrap(),
            recorded.mcp_headers()
        ));
    }
    out.join("\n\n")
}

fn legacy(version: &str) -> Vec<Value> {
    let parse = |line: Vec<u8>| serde_json::from_slice::<Value>(&line).unwrap();
    vec![
        parse(request(
            json!(0),
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        )),
        parse(notification("notifications/initialized", json!({}))),
        parse(request(json!(1), "tools/list", json!({}))),
        parse(request(
            json!(2),
            "tools/call",
            json!({"name": "wait_window", "arguments": {"window": "build", "max_seconds": 5}}),
        )),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_2025_03_26() {
    insta::assert_snapshot!("2025-03-26", headers_of(&legacy("2025-03-26")).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_2025_06_18() {
    insta::assert_snapshot!("2025-06-18", headers_of(&legacy("2025-06-18")).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_2025_11_25() {
    insta::assert_snapshot!("2025-11-25", headers_of(&legacy("2025-11-25")).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_2026_07_28() {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let call = |id: i64, name: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments, "_meta": meta}});
    let messages = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
        call(2, "wait_window", json!({"window": "build"})),
        call(
            3,
            "send_text",
            json!({"window": "bûild", "text": "make\n", "enter": true}),
        ),
        call(
            4,
            "read_window",
            json!({"window": " main", "scrollback_rows": 10}),
        ),
        call(5, "list_windows", json!({})),
        call(6, "read_file", json!({"path": "/etc/hosts"})),
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "file:///tmp/a b", "_meta": meta}}),
        // A notification without _meta, nothing negotiated: no version to tell.
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
    ];
    insta::assert_snapshot!("2026-07-28", headers_of(&messages).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_version_in_meta_wins_over_the_negotiated_one() {
    let mut messages = legacy("2025-11-25");
    messages.push(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "close_window", "arguments": {"name": "w"}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    insta::assert_snapshot!("meta_wins", headers_of(&messages).await);
}
