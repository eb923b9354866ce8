//! A request gets its time (30 s in rat, shortened here through the library's [`Config`]), a
//! wait_window call its wait on top; past it, the harness is told ratd did not answer.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{Bundle, Recorded, Reply, TestServer, request};
use rat::headers::ToolHeaders;
use rat::relay::{Config, Relay, Stop};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_not_answered_in_time_is_told_so() {
    let bundle = Bundle::new("prod", &["alice"]);
    let server =
        TestServer::start(bundle.server_config(), Arc::new(|_: &Recorded| Reply::Hang)).await;
    let client = rat_wire::mtls::load_client(&bundle.client_dir("alice")).unwrap();
    let schemas = rat_wire::tool::input_schemas();
    let relay = Relay::new(Config {
        server: server.server(),
        tls: (*client.rustls_config()).clone(),
        tools: ToolHeaders::from_schemas(schemas.iter().map(|(n, s)| (*n, s))),
        request_timeout: Duration::from_secs(1),
    })
    .unwrap();
    let (mut harness_in, rat_in) = tokio::io::duplex(1 << 20);
    let (rat_out, harness_out) = tokio::io::duplex(1 << 20);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(relay.run(BufReader::new(rat_in), rat_out, async move {
        let _ = stop_rx.await;
        "test".to_owned()
    }));
    let mut out = BufReader::new(harness_out).lines();

    harness_in
        .write_all(&request(json!(1), "tools/list", json!({})))
        .await
        .unwrap();
    harness_in.write_all(b"\n").await.unwrap();
    let wait = request(
        json!(2),
        "tools/call",
        json!({"name": "wait_window", "arguments": {"window": "w", "max_seconds": 1}}),
    );
    harness_in.write_all(&wait).await.unwrap();
    harness_in.write_all(b"\n").await.unwrap();

    let at = server.server();
    assert_eq!(
        out.next_line().await.unwrap().unwrap(),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32050,"message":"ratd at {at} did not answer within 1s"}}}}"#
        )
    );
    assert_eq!(
        out.next_line().await.unwrap().unwrap(),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"error":{{"code":-32050,"message":"ratd at {at} did not answer within 2s"}}}}"#
        )
    );
    stop_tx.send(()).unwrap();
    assert!(matches!(running.await.unwrap(), Stop::Signal(name) if name == "test"));
}
