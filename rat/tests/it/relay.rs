//! The real `rat` binary between piped stdio and a real HTTPS server of a bundle (mutual TLS,
//! certificates from rat-wire's generator): what a harness sees, byte for byte.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::common::{
    Bundle, Event, Rat, Recorded, Reply, TestServer, closed_port, echo_handler, notification,
    request,
};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_go_both_ways_byte_for_byte() {
    let bundle = Bundle::new("prod", &["alice"]);
    // Odd spacing and key order, a non-ASCII character and an escaped one: untouched.
    let answer =
        r#"{ "result" :{"z":1,  "a" : [ 1,2.50 ], "t":"caf\u00e9 é"} ,"id" :  1,"jsonrpc":"2.0" }"#
            .as_bytes();
    let mut server = TestServer::start(
        bundle.server_config(),
        Arc::new(|_: &Recorded| Reply::json(answer.to_vec())),
    )
    .await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    let line = br#"{"params":{"name" : "list_windows","arguments":{ }},  "method":"tools/call","id":1,"jsonrpc":"2.0"}"#;
    rat.send(line).await;
    assert_eq!(rat.line().await.as_bytes(), answer);
    let posted = server.received().await;
    assert_eq!(posted.body, line);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_over_16_mib_is_answered_and_the_next_one_relayed() {
    let bundle = Bundle::new("prod", &["alice"]);
    let server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    // 16 MiB + 1 bytes, starting as a valid request would.
    let mut big = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_text","arguments":{"window":"main","enter":false,"text":""#.to_vec();
    big.resize(16 * 1024 * 1024 + 1 - 4, b'x');
    big.extend_from_slice(br#""}}}"#);
    assert_eq!(big.len(), 16 * 1024 * 1024 + 1);
    rat.send(&big).await;
    rat.send(&request(json!(2), "tools/list", json!({}))).await;
    insta::assert_snapshot!(rat.line().await, @r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32050,"message":"message over 16 MiB, not relayed"}}"#);
    assert_eq!(rat.line().await, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    let recorded = server.recorded();
    assert_eq!(recorded.len(), 1, "only the second line reached the server");
    assert_eq!(recorded[0].json()["id"], json!(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_of_16_mib_exactly_is_relayed() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    let mut big = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_text","arguments":{"window":"main","enter":false,"text":""#.to_vec();
    big.resize(16 * 1024 * 1024 - 4, b'y');
    big.extend_from_slice(br#""}}}"#);
    rat.send(&big).await;
    assert_eq!(rat.line().await, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!(server.received().await.body, big);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_that_are_not_json_rpc_are_answered_with_a_null_id() {
    let bundle = Bundle::new("prod", &["alice"]);
    let server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    rat.send(b"hello").await;
    insta::assert_snapshot!(rat.line().await, @r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON-RPC message: expected value at line 1 column 1"}}"#);
    rat.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#)
        .await;
    insta::assert_snapshot!(rat.line().await, @r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON-RPC message: EOF while parsing an object at line 1 column 45"}}"#);
    rat.send(b"42").await;
    insta::assert_snapshot!(rat.line().await, @r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON-RPC message: expected an object or an array, found a number"}}"#);
    // Blank lines are skipped; rat reads on.
    rat.send(b"").await;
    rat.send(&request(json!("a"), "ping", json!({}))).await;
    assert_eq!(
        rat.line().await,
        r#"{"jsonrpc":"2.0","id":"a","result":{}}"#
    );
    assert_eq!(server.recorded().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratd_down_is_told_with_the_reason_of_the_system() {
    let bundle = Bundle::new("prod", &["alice"]);
    let port = closed_port();
    let server = format!("127.0.0.1:{port}");
    let mut rat = Rat::start(&server, &bundle.client_dir("alice"), &[]);
    rat.send(&request(json!(7), "tools/list", json!({}))).await;
    assert_eq!(
        rat.line().await,
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"error":{{"code":-32050,"message":"ratd unreachable at 127.0.0.1:{port}: connection refused"}}}}"#
        )
    );
    // A batch's failure answers each of its requests.
    rat.send(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"2","method":"ping"}]"#).await;
    assert_eq!(
        rat.line().await,
        format!(
            r#"[{{"jsonrpc":"2.0","id":1,"error":{{"code":-32050,"message":"ratd unreachable at 127.0.0.1:{port}: connection refused"}}}},{{"jsonrpc":"2.0","id":"2","error":{{"code":-32050,"message":"ratd unreachable at 127.0.0.1:{port}: connection refused"}}}}]"#
        )
    );
    // A notification's failure is only logged; rat reads on.
    rat.send(&notification("notifications/initialized", json!({})))
        .await;
    rat.send(&request(json!("7"), "tools/list", json!({})))
        .await;
    assert!(rat.line().await.contains(r#""id":"7""#));
    // The notification is relayed concurrently: its failure may be logged a little later.
    let logged = format!(
        "relay failed method=\"notifications/initialized\" error=ratd unreachable at 127.0.0.1:{port}: connection refused"
    );
    let stderr = rat.wait_stderr(&logged).await;
    assert!(stderr.contains(&logged), "{stderr}");
    assert!(
        stderr.contains("relay failed method=\"tools/list\" id=\"7\""),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_another_bundle_is_refused() {
    let ours = Bundle::new("prod", &["alice"]);
    let theirs = Bundle::new("prod", &["alice"]);
    let server = TestServer::start(theirs.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &ours.client_dir("alice"), &[]);
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    assert_eq!(
        rat.line().await,
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32050,"message":"rat refused the certificate of ratd at {}: certificate signed by unknown authority: ratd is not of this bundle. Check the bundle with rat-tool check."}}}}"#,
            server.server()
        )
    );
    assert!(server.recorded().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_refused_by_ratd_reads_the_alert() {
    // ratd of bundle A, trusting the clients of bundle B of the same tenant: a client of A
    // accepts the server, whose CA it holds, and is refused with unknown_ca.
    let a = Bundle::new("prod", &["alice"]);
    let b = Bundle::new("prod", &["alice"]);
    let read = |path: std::path::PathBuf| {
        use rustls_pki_types::pem::PemObject;
        rustls_pki_types::CertificateDer::from_pem_file(path).unwrap()
    };
    let key = {
        use rustls_pki_types::pem::PemObject;
        rustls_pki_types::PrivateKeyDer::from_pem_file(a.server_dir().join("server.key")).unwrap()
    };
    let config = rat_wire::mtls::unchecked_server_config(
        &read(b.server_dir().join("ca.crt")),
        &read(a.server_dir().join("server.crt")),
        key,
    )
    .unwrap();
    let server = TestServer::start(config, echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &a.client_dir("alice"), &[]);
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    assert_eq!(
        rat.line().await,
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32050,"message":"ratd at {} refused the TLS handshake: remote error: tls: unknown certificate authority. Check the bundle with rat-tool check."}}}}"#,
            server.server()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_of_ratd_are_relayed_whatever_the_status_and_other_bodies_are_failures() {
    let bundle = Bundle::new("prod", &["alice"]);
    let handler = Arc::new(|request: &Recorded| match request.json()["id"].as_i64() {
        Some(1) => Reply::status(
            400,
            "application/json",
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}"#
                .to_vec(),
        ),
        Some(2) => Reply::status(
            502,
            "text/html",
            b"<html>upstream down</html>\n<p>more</p>".to_vec(),
        ),
        Some(3) => Reply::json(b"not json".to_vec()),
        Some(4) => Reply::status(200, "text/event-stream", b"data: {}\n\n".to_vec()),
        Some(5) => Reply::accepted(),
        _ => Reply::status(503, "text/plain", Vec::new()),
    });
    let server = TestServer::start(bundle.server_config(), handler).await;
    let at = server.server();
    let mut rat = Rat::start(&at, &bundle.client_dir("alice"), &[]);
    let mut answers = Vec::new();
    for id in 1..=6 {
        rat.send(&request(json!(id), "tools/list", json!({}))).await;
        answers.push(rat.line().await.replace(&at, "HOST:PORT"));
    }
    insta::assert_snapshot!(answers.join("\n"), @r#"
    {"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}
    {"jsonrpc":"2.0","id":2,"error":{"code":-32050,"message":"ratd at HOST:PORT answered HTTP 502: <html>upstream down</html>"}}
    {"jsonrpc":"2.0","id":3,"error":{"code":-32050,"message":"ratd at HOST:PORT sent an invalid response: the body is not JSON: expected ident at line 1 column 2"}}
    {"jsonrpc":"2.0","id":4,"error":{"code":-32050,"message":"ratd at HOST:PORT sent an invalid response: an event stream (text/event-stream), where rat expects a JSON body"}}
    {"jsonrpc":"2.0","id":5,"error":{"code":-32050,"message":"ratd at HOST:PORT sent an invalid response: HTTP 202 with no body, where a JSON-RPC response was expected"}}
    {"jsonrpc":"2.0","id":6,"error":{"code":-32050,"message":"ratd at HOST:PORT answered HTTP 503: Service Unavailable"}}
    "#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_write_nothing_and_requests_are_answered_as_they_come() {
    let bundle = Bundle::new("prod", &["alice"]);
    let handler = Arc::new(|request: &Recorded| {
        let message = request.json();
        match message.get("id") {
            None => Reply::accepted(),
            // Slow by 3 s: the fast request, sent after it, may need a handshake of its own,
            // which a loaded machine can slow down to most of a second.
            Some(id) if id == &json!("slow") => {
                Reply::json(br#"{"jsonrpc":"2.0","id":"slow","result":{}}"#.to_vec())
                    .delayed(Duration::from_secs(3))
            }
            Some(_) => Reply::json(br#"{"jsonrpc":"2.0","id":"fast","result":{}}"#.to_vec()),
        }
    });
    let mut server = TestServer::start(bundle.server_config(), handler).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    rat.send(&request(json!("slow"), "tools/list", json!({})))
        .await;
    server.received().await;
    rat.send(&notification("notifications/initialized", json!({})))
        .await;
    rat.send(&request(json!("fast"), "tools/list", json!({})))
        .await;
    assert_eq!(
        rat.line().await,
        r#"{"jsonrpc":"2.0","id":"fast","result":{}}"#
    );
    assert_eq!(
        rat.line().await,
        r#"{"jsonrpc":"2.0","id":"slow","result":{}}"#
    );
    assert_eq!(server.recorded().len(), 3, "the notification was relayed");
    assert_eq!(rat.line_within(Duration::from_millis(200)).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_relayed_as_they_are() {
    let bundle = Bundle::new("prod", &["alice"]);
    let answer = br#"[{"jsonrpc":"2.0","id":1,"result":{}} ,{"jsonrpc":"2.0","id":2,"result":{}}]"#;
    let mut server = TestServer::start(
        bundle.server_config(),
        Arc::new(|_: &Recorded| Reply::json(answer.to_vec())),
    )
    .await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}, {"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    rat.send(batch).await;
    assert_eq!(rat.line().await.as_bytes(), answer);
    assert_eq!(server.received().await.body, batch);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_wait_ends_its_request_and_writes_nothing() {
    let bundle = Bundle::new("prod", &["alice"]);
    let handler = Arc::new(|request: &Recorded| {
        let message = request.json();
        match message.get("id") {
            None => Reply::accepted(),
            Some(id) if id == &json!(1) => Reply::Hang,
            Some(id) => Reply::json(
                serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": {}})).unwrap(),
            ),
        }
    });
    let mut server = TestServer::start(bundle.server_config(), handler).await;
    let mut rat = Rat::start(
        &server.server(),
        &bundle.client_dir("alice"),
        &["--log-level", "debug"],
    );
    let wait = request(
        json!(1),
        "tools/call",
        json!({"name": "wait_window", "arguments": {"window": "build", "max_seconds": 50}}),
    );
    rat.send(&wait).await;
    assert!(matches!(server.event().await, Event::Received(0)));
    // "1" is another call: cancelling it ends nothing.
    rat.send(&notification(
        "notifications/cancelled",
        json!({"requestId": "1"}),
    ))
    .await;
    assert!(matches!(server.event().await, Event::Received(1)));
    assert_eq!(
        rat.line_within(Duration::from_millis(200)).await,
        None,
        "the wait still runs"
    );
    let sent = Instant::now();
    rat.send(&notification(
        "notifications/cancelled",
        json!({"requestId": 1, "reason": "user"}),
    ))
    .await;
    let mut dropped = None;
    let mut relayed = false;
    while dropped.is_none() || !relayed {
        match server.event().await {
            Event::Dropped(0, at) => dropped = Some(at),
            Event::Received(2) => relayed = true,
            other => panic!("unexpected {other:?}"),
        }
    }
    // At once, not after the 50 s asked: a bound a loaded machine can not reach (the
    // latency is a figure for benches, not an assertion).
    let took = dropped.unwrap().duration_since(sent);
    assert!(
        took < Duration::from_secs(10),
        "the request ended {took:?} after the cancellation"
    );
    assert_eq!(
        server.recorded()[2].json()["method"],
        "notifications/cancelled"
    );
    // Nothing is written for the cancelled call: the next line is the answer to the next call.
    rat.send(&request(json!(2), "tools/list", json!({}))).await;
    assert_eq!(rat.line().await, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    let stderr = rat
        .wait_stderr("call cancelled method=\"tools/call\" id=1")
        .await;
    assert!(
        stderr.contains("call cancelled method=\"tools/call\" id=1"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("build"),
        "no content in the logs: {stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_stdin_ends_the_calls_in_flight() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut server =
        TestServer::start(bundle.server_config(), Arc::new(|_: &Recorded| Reply::Hang)).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    assert!(matches!(server.event().await, Event::Received(0)));
    rat.close_stdin();
    assert!(matches!(server.event().await, Event::Dropped(0, _)));
    let (status, rest) = rat.exit().await;
    assert!(status.success(), "{status}");
    assert_eq!(rest, "");
    assert!(
        rat.stderr().contains("rat stopped reason=end of stdin"),
        "{}",
        rat.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_the_calls_in_flight() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut server =
        TestServer::start(bundle.server_config(), Arc::new(|_: &Recorded| Reply::Hang)).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    assert!(matches!(server.event().await, Event::Received(0)));
    let pid = rat.child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(matches!(server.event().await, Event::Dropped(0, _)));
    let (status, _) = rat.exit().await;
    assert!(status.success(), "{status}");
    assert!(
        rat.stderr().contains("rat stopped reason=SIGTERM"),
        "{}",
        rat.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_loads_the_bundle_and_contacts_nobody() {
    let bundle = Bundle::new("prod", &["alice"]);
    let server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    let stderr = rat.wait_stderr("rat started").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        server.connections.load(Ordering::SeqCst),
        0,
        "no connection before the first message"
    );
    assert!(
        stderr.contains(&format!(
            "rat started version=\"{}\" server=\"{}\" tenant=\"prod\" session=\"alice\" bundle_expires=",
            env!("CARGO_PKG_VERSION"),
            server.server()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("WARN"), "{stderr}");
    rat.close_stdin();
    assert!(rat.exit().await.0.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_client_directory_fails_the_startup() {
    let bundle = Bundle::new("prod", &["alice"]);
    // The server directory is not a client directory.
    let mut rat = Rat::start("127.0.0.1:1", &bundle.server_dir(), &[]);
    let (status, _) = rat.exit().await;
    assert_eq!(status.code(), Some(1));
    let stderr = rat.stderr();
    assert!(stderr.contains("ERROR"), "{stderr}");
    assert!(
        stderr.contains("the client directory of the bundle does not load"),
        "{stderr}"
    );
    // A missing one too.
    let mut rat = Rat::start("127.0.0.1:1", &bundle.root().join("nowhere"), &[]);
    assert_eq!(rat.exit().await.0.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_flags_are_refused_by_clap() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut rat = Rat::start("https://host:7281/mcp", &bundle.client_dir("alice"), &[]);
    let (status, _) = rat.exit().await;
    assert_eq!(status.code(), Some(2));
    assert!(rat.stderr().contains("--server"), "{}", rat.stderr());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn less_than_a_year_of_validity_is_warned_about() {
    // Generated nine years and a half ago: valid for six more months.
    let then = std::time::SystemTime::now() - Duration::from_secs(9 * 365 * 86_400 + 180 * 86_400);
    let bundle = Bundle::at("prod", &["alice"], then);
    let mut rat = Rat::start("127.0.0.1:1", &bundle.client_dir("alice"), &[]);
    rat.close_stdin();
    assert!(rat.exit().await.0.success());
    let stderr = rat.stderr();
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(stderr.contains("less than a year left"), "{stderr}");
}

/// An HTTP CONNECT proxy on 127.0.0.1 recording the request line of each tunnel.
async fn connect_proxy() -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let recorded = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let line = head.lines().next().unwrap_or("").to_owned();
                seen.lock().unwrap().push(line.clone());
                let target = line.split(' ').nth(1).unwrap_or("").to_owned();
                let Ok(mut upstream) = tokio::net::TcpStream::connect(target).await else {
                    return;
                };
                client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    (format!("http://{addr}"), recorded)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxies_from_the_environment_are_honoured() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let (proxy, seen) = connect_proxy().await;
    let mut rat = Rat::start_with_env(
        &server.server(),
        &bundle.client_dir("alice"),
        &[],
        &[("HTTPS_PROXY", &proxy)],
    );
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    assert_eq!(rat.line().await, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    server.received().await;
    assert_eq!(
        *seen.lock().unwrap(),
        vec![format!("CONNECT {} HTTP/1.1", server.server())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_closed_stops_rat_with_an_error() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut server = TestServer::start(bundle.server_config(), echo_handler()).await;
    let mut rat = Rat::start(&server.server(), &bundle.client_dir("alice"), &[]);
    rat.close_stdout();
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    server.received().await;
    let (status, _) = rat.exit().await;
    assert_eq!(status.code(), Some(1));
    let stderr = rat.stderr();
    assert!(
        stderr.contains("rat stopped reason=writing stdout failed: Broken pipe (os error 32)"),
        "{stderr}"
    );
}

/// A plain TCP server at a port of its own: for each connection, reads a little, writes
/// `answer` and closes. Stands for a server that is not ratd.
fn not_ratd(answer: &'static [u8]) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            use std::io::{Read, Write};
            if answer == b"unread" {
                // Closed at once, the ClientHello unread: an end, or a reset once it arrived.
                drop(stream);
                continue;
            }
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(answer);
        }
    });
    addr.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_not_ratd_is_told_so() {
    let bundle = Bundle::new("prod", &["alice"]);
    let mut answers = Vec::new();
    for answer in [
        &b""[..],
        b"unread",
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    ] {
        let at = not_ratd(answer);
        let mut rat = Rat::start(&at, &bundle.client_dir("alice"), &[]);
        rat.send(&request(json!(1), "tools/list", json!({}))).await;
        answers.push(rat.line().await.replace(&at, "HOST:PORT"));
    }
    insta::assert_snapshot!(answers.join("\n"), @r#"
    {"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"ratd at HOST:PORT refused the TLS handshake: the connection closed before the handshake ended (a server other than ratd at this port?). Check the bundle with rat-tool check."}}
    {"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"ratd at HOST:PORT refused the TLS handshake: the connection closed before the handshake ended (a server other than ratd at this port?). Check the bundle with rat-tool check."}}
    {"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"ratd at HOST:PORT refused the TLS handshake: tls: the server's answer is not TLS (a server other than ratd at this port?). Check the bundle with rat-tool check."}}
    "#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_accepting_and_silent_is_told_after_the_connect_time() {
    let bundle = Bundle::new("prod", &["alice"]);
    // Accepts, reads the ClientHello, never answers, keeps the connection open.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            held.push(stream);
        }
    });
    let mut rat = Rat::start(&at, &bundle.client_dir("alice"), &[]);
    rat.send(&request(json!(1), "tools/list", json!({}))).await;
    // The connect time (10 s), then the answer: read with a margin.
    let line = rat
        .line_within(Duration::from_secs(30))
        .await
        .expect("an answer after the connect time");
    insta::assert_snapshot!(line.replace(&at, "HOST:PORT"), @r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"ratd unreachable at HOST:PORT: no connection within 10s: nothing answered the connection, or the TLS handshake"}}"#);
}
