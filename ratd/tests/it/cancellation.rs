//! A call whose HTTP request ends while it acts runs to its end (before 2026-07-28, ratd lets
//! the call finish, within its 10 seconds; rmcp never drops a running call): a text is pasted
//! whole. Real ratd, real TLS with the bundle's certificate, real tmux
//! and bash, the request cut by closing its connection as a killed rat or a proxy would.

use std::time::{Duration, Instant};

use crate::common::Served;
use rustls::pki_types::ServerName;
use tokio::io::AsyncWriteExt;

fn request(id: u64, tool: &str, arguments: serde_json::Value, version: &str) -> Vec<u8> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}
    })
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: {version}\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body.as_bytes());
    request
}

/// Sends `request` on a connection of its own, waits for its call to run, then closes the
/// connection before the answer.
async fn cut_while_running(served: &Served, request: &[u8]) {
    let tls = std::sync::Arc::new(served.bundle.client_tls("alice"));
    let connector = tokio_rustls::TlsConnector::from(tls);
    let tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let mut stream = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .unwrap();
    let before = served.in_flight.calls();
    stream.write_all(request).await.unwrap();
    stream.flush().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while served.in_flight.calls() == before {
        assert!(Instant::now() < deadline, "the call never ran");
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    drop(stream);
}

async fn wait_idle(served: &Served) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while served.in_flight.calls() > 0 {
        assert!(Instant::now() < deadline, "calls still running");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_whose_request_is_cut_while_pasting_is_pasted_whole_before_2026_07_28() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let dir = tempfile::tempdir().unwrap();
    // Lines a terminal passes as they are (under its 4096 bytes a line), 512 KiB in all.
    let line = format!("{}\n", "0123456789abcdef".repeat(6));
    let text = line.repeat(512 * 1024 / line.len());
    // The session, and the first prompt of its main.
    for (tool, arguments) in [
        ("list_windows", serde_json::json!({})),
        (
            "wait_window",
            serde_json::json!({"window": "main", "max_seconds": 20}),
        ),
    ] {
        client
            .call_tool(
                rmcp::model::CallToolRequestParams::new(tool)
                    .with_arguments(arguments.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
    }
    for (round, version) in ["2025-03-26", "2025-06-18", "2025-11-25"]
        .iter()
        .enumerate()
    {
        let out = dir.path().join(format!("out{round}"));
        // cat writes what the terminal gets to a file, until C-d.
        let started = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("send_text").with_arguments(
                    serde_json::json!({"window": "main", "text": format!("stty -echo; cat > {}", out.display()), "enter": true})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            )
            .await
            .unwrap();
        assert_eq!(started.is_error, Some(false), "{started:?}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !out.exists() {
            assert!(Instant::now() < deadline, "cat never started");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let arguments = serde_json::json!({"window": "main", "text": text, "enter": false});
        cut_while_running(
            &served,
            &request(round as u64 + 10, "send_text", arguments, version),
        )
        .await;
        wait_idle(&served).await;
        // The terminal passes the whole paste to cat, however long bash's terminal takes.
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0) < text.len() as u64 {
            assert!(
                Instant::now() < deadline,
                "{version}: {} of {} bytes",
                std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0),
                text.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let ended = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("send_keys").with_arguments(
                    serde_json::json!({"window": "main", "keys": ["C-d"]})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            )
            .await
            .unwrap();
        assert_eq!(ended.is_error, Some(false), "{ended:?}");
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(
            written == text,
            "{version}: the text was not pasted whole ({} of {} bytes)",
            written.len(),
            text.len()
        );
    }
    client.cancel().await.unwrap();
    served.stop().await;
}
