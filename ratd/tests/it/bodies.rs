//! What a POST may carry, tested over real HTTPS with the bundle's client certificate: a batch
//! served at 2025-03-26 and before and refused from 2025-06-18 on, and bodies that are no
//! JSON-RPC message answered 400 saying what is wrong.

use crate::common::Served;
use serde_json::{Value, json};

/// POSTs `body` with `version` as MCP-Protocol-Version (none when `None`): status, content
/// type, body.
async fn post(served: &Served, version: Option<&str>, body: &str) -> (u16, String, String) {
    let mut request = served
        .http("alice")
        .post(served.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    if let Some(version) = version {
        request = request.header("mcp-protocol-version", version);
    }
    let response = request.send().await.expect("answered");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, content_type, response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_at_2025_03_26_and_before_gets_an_array_of_answers() {
    let mut served = Served::start(&["alice"]).await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "two", "method": "tools/call",
         "params": {"name": "list_windows", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such"},
        {"id": 4, "method": "ping"}
    ])
    .to_string();
    for version in [None, Some("2025-03-26"), Some("2024-11-05")] {
        let (status, content_type, body) = post(&served, version, &batch).await;
        assert_eq!(
            (status, content_type.as_str()),
            (200, "application/json"),
            "{version:?}: {body}"
        );
        let answers: Vec<Value> = serde_json::from_str(&body).expect("an array");
        assert_eq!(
            answers.len(),
            4,
            "{version:?}: notifications unanswered: {body}"
        );
        assert_eq!(answers[0]["id"], 1);
        let names: Vec<&str> = answers[0]["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, rat_core::catalog::TOOL_NAMES);
        assert_eq!(answers[1]["id"], "two");
        assert_eq!(answers[1]["result"]["isError"], false);
        let text = answers[1]["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("main"), "{text}");
        assert_eq!(
            answers[2],
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "no/such"}})
        );
        assert_eq!(
            answers[3],
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message":
                "Invalid Request: an element of the batch: a JSON-RPC message has \"jsonrpc\":\"2.0\""}})
        );
    }
    // Notifications only: 202, nothing to answer.
    let (status, _, body) = post(
        &served,
        Some("2025-03-26"),
        r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
    )
    .await;
    assert_eq!((status, body.as_str()), (202, ""));
    // An empty batch is one invalid request.
    let (status, _, body) = post(&served, None, "[]").await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: an empty batch: send at least one JSON-RPC message in it"}}"#
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_from_2025_06_18_on_is_refused_as_the_go_sdk_does() {
    let mut served = Served::start(&["alice"]).await;
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#;
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        assert_eq!(
            post(&served, Some(version), batch).await,
            (
                400,
                "text/plain; charset=utf-8".to_owned(),
                format!(
                    "JSON-RPC batching is not supported in 2025-06-18 and later (request version: {version})\n"
                )
            )
        );
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_no_json_rpc_message_is_a_bad_request_saying_why() {
    let mut served = Served::start(&["alice"]).await;
    let send = r#"POST one JSON-RPC message, such as {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"#;
    for (body, code, message) in [
        ("", -32700, "Parse error: the request body is empty".to_owned()),
        ("{1:2}", -32700, "Parse error: the request body is not JSON (key must be a string at line 1 column 2)".to_owned()),
        ("{\"jsonrpc\":\"2.0\",", -32700, "Parse error: the request body is not JSON (EOF while parsing a value at line 1 column 17)".to_owned()),
        ("42", -32600, "Invalid Request: the request body is JSON but not an object".to_owned()),
        (r#"{"id":1,"method":"ping"}"#, -32600, r#"Invalid Request: a JSON-RPC message has \"jsonrpc\":\"2.0\""#.to_owned()),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600, "Invalid Request: a JSON-RPC request or notification names its method".to_owned()),
        (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, -32600, "Invalid Request: the method of a JSON-RPC message is a string".to_owned()),
        (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, -32600, "Invalid Request: the id of a JSON-RPC message is a string or a number".to_owned()),
    ] {
        let answer = post(&served, Some("2025-11-25"), body).await;
        assert_eq!(
            answer,
            (
                400,
                "application/json".to_owned(),
                format!(r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{code},"message":"{message}: {send}"}}}}"#)
            ),
            "{body}"
        );
    }
    served.stop().await;
}
