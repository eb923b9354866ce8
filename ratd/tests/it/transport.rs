//! ratd's door, tested from outside: a real ratd on 127.0.0.1:0 with its tmux server, real TLS
//! with a bundle from rat-core's generate, rmcp's client and raw HTTP/TLS clients.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{Bundle, Served, SocketGuard, tmux_server_pid, unique_tenant};
use rmcp::model::ProtocolVersion;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn host() -> String {
    ratd::host_name()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_2025_11_25_tells_title_and_instructions() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    let server_info = info.server_info.clone().expect("server info");
    assert_eq!(server_info.name, "rat");
    assert_eq!(
        server_info.title.as_deref(),
        Some(format!("rat {} on {}", served.tenant(), host()).as_str())
    );
    let instructions = info.instructions.clone().expect("instructions");
    assert!(
        instructions.starts_with(&format!(
            "rat gives you persistent terminals on {}:",
            host()
        )),
        "{instructions}"
    );
    client.cancel().await.expect("client closes");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_version_rmcp_knows_is_served_2024_11_05_included() {
    let mut served = Served::start(&["alice"]).await;
    for (asked, agreed) in [
        (ProtocolVersion::V_2024_11_05, ProtocolVersion::V_2024_11_05),
        (ProtocolVersion::V_2025_03_26, ProtocolVersion::V_2025_03_26),
        (ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_06_18),
        (ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_11_25),
    ] {
        let mut info = rmcp::model::ClientConfig::default();
        info.protocol_version = asked.clone();
        // rmcp's client refuses a version it did not ask for: read the raw answer instead.
        let response = served
            .http("alice")
            .post(served.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(
                serde_json::json!({
                    "jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {
                        "protocolVersion": asked.as_str(),
                        "capabilities": {},
                        "clientInfo": {"name": "test", "version": "1"}
                    }
                })
                .to_string(),
            )
            .send()
            .await
            .expect("initialize answered");
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"],
            "application/json",
            "JSON responses, no event stream"
        );
        assert!(
            response.headers().get("mcp-session-id").is_none(),
            "stateless: no MCP session"
        );
        let body: serde_json::Value = response.json().await.expect("JSON body");
        assert_eq!(
            body["result"]["protocolVersion"],
            agreed.as_str(),
            "asked {asked}"
        );
        // What the terminals lose, by name (rat-tool check reads it): nothing, here.
        assert_eq!(
            body["result"]["capabilities"]["experimental"],
            serde_json::json!({"rat": {"degradations": []}}),
            "asked {asked}"
        );
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_2026_07_28_tells_versions_title_and_instructions() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp_discover("alice").await;
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(
        info.server_info.as_ref().and_then(|i| i.title.clone()),
        Some(format!("rat {} on {}", served.tenant(), host()))
    );
    assert!(info.instructions.as_deref().unwrap_or("").contains(&host()));
    let tools = client
        .list_all_tools()
        .await
        .expect("tools/list at 2026-07-28");
    assert_eq!(tools.len(), rat_core::catalog::TOOL_NAMES.len());
    client.cancel().await.expect("client closes");

    // The raw answer lists the versions served.
    let response = served
        .http("alice")
        .post(served.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "server/discover")
        .body(
            serde_json::json!({
                "jsonrpc": "2.0", "id": 1, "method": "server/discover",
                "params": {"_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}
                }}
            })
            .to_string(),
        )
        .send()
        .await
        .expect("discover answered");
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.expect("JSON body");
    assert_eq!(
        body["result"]["supportedVersions"],
        serde_json::json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]),
        "{body}"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_has_every_tool_with_every_hint_set() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, rat_core::catalog::TOOL_NAMES);
    let mut table = String::new();
    for tool in &tools {
        let a = tool.annotations.as_ref().expect("annotations");
        table.push_str(&format!(
            "{:<14} read_only={:?} destructive={:?} idempotent={:?} open_world={:?}\n",
            tool.name, a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint
        ));
        assert!(
            a.read_only_hint.is_some()
                && a.destructive_hint.is_some()
                && a.idempotent_hint.is_some()
                && a.open_world_hint.is_some(),
            "{}: every hint set",
            tool.name
        );
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
    }
    insta::assert_snapshot!(table);
    client.cancel().await.expect("client closes");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_path_is_404_and_get_delete_are_405() {
    let mut served = Served::start(&["alice"]).await;
    let http = served.http("alice");
    let other = http
        .get(format!("https://{}/other", served.addr))
        .send()
        .await
        .expect("answered");
    assert_eq!(other.status(), 404);
    assert_eq!(
        other.text().await.unwrap(),
        "404 page not found: ratd serves MCP at /mcp only\n"
    );
    let post_other = http
        .post(format!("https://{}/mcp/", served.addr))
        .body("{}")
        .send()
        .await
        .expect("answered");
    assert_eq!(post_other.status(), 404);
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = http
            .request(method.clone(), served.url())
            .header("accept", "application/json, text/event-stream")
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status(), 405, "{method}");
        assert_eq!(response.headers()["allow"], "POST");
    }
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_4_mib_is_413() {
    let mut served = Served::start(&["alice"]).await;
    let http = served.http("alice");
    let post = |size: usize| {
        // A JSON string of `size` bytes in all: a tool call as large as the body.
        let prefix = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_text","arguments":{"window":"main","enter":false,"text":""#;
        let suffix = r#""}}}"#;
        let mut body = String::with_capacity(size);
        body.push_str(prefix);
        body.push_str(&"a".repeat(size - prefix.len() - suffix.len()));
        body.push_str(suffix);
        assert_eq!(body.len(), size);
        served.post(&http, body).send()
    };
    let mut answers = Vec::new();
    for size in [4 * 1024 * 1024 + 1, 16 * 1024 * 1024] {
        let over = post(size).await.expect("answered");
        assert_eq!(over.status(), 413);
        answers.push(over.text().await.unwrap());
    }
    insta::assert_snapshot!(answers.join(""), @r"
    request over 4 MiB of JSON (4194304 bytes), the most ratd reads: send a long text in parts, a send_text call each, and a large file in parts joined in a terminal (cat part1 part2 > file)
    request over 4 MiB of JSON (4194304 bytes), the most ratd reads: send a long text in parts, a send_text call each, and a large file in parts joined in a terminal (cat part1 part2 > file)
    ");

    // 4 MiB exactly is read: a write_file of that size is done.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let prefix = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"{}","content":""#,
        path.display()
    );
    let suffix = r#""}}}"#;
    let content_len = 4 * 1024 * 1024 - prefix.len() - suffix.len();
    let body = format!("{prefix}{}{suffix}", "b".repeat(content_len));
    assert_eq!(body.len(), 4 * 1024 * 1024);
    let at_limit = served.post(&http, body).send().await.expect("answered");
    assert_eq!(at_limit.status(), 200);
    let answer: serde_json::Value = at_limit.json().await.unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), content_len as u64);
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_4_mib_is_read_to_its_end_before_the_413() {
    // A client writes its whole request before it reads: ratd reads the rest of a body it
    // refused, so the write ends and the client reads the 413, on a connection still open.
    // Closed unread instead, the connection is reset and the write fails (broken pipe).
    let mut served = Served::start(&["alice"]).await;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(served.bundle.client_tls("alice")));
    let tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let mut stream = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .unwrap();
    let body = vec![b'x'; 16 * 1024 * 1024];
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
        .write_all(&body)
        .await
        .expect("the whole body is taken");
    stream.flush().await.unwrap();
    // Then a second request on the same connection: kept alive.
    stream
        .write_all(b"GET /mcp HTTP/1.1\r\nhost: ratd\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answers = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answers))
        .await
        .expect("both answers within 30 s")
        .expect("read to the end");
    let text = String::from_utf8_lossy(&answers);
    let statuses: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("HTTP/1.1 "))
        .collect();
    assert_eq!(
        statuses,
        [
            "HTTP/1.1 413 Payload Too Large",
            "HTTP/1.1 405 Method Not Allowed"
        ],
        "{text}"
    );
    assert!(
        text.contains("\r\n\r\nrequest over 4 MiB of JSON (4194304 bytes)"),
        "{text}"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_certificate_fails_the_handshake() {
    let mut served = Served::start(&["alice"]).await;
    // rat-core's client config, with its certificate resolver taken out.
    let mut tls = served.bundle.client_tls("alice");
    tls.client_auth_cert_resolver = Arc::new(NoCertificate);
    let connector = tokio_rustls::TlsConnector::from(Arc::new(tls));
    let tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let mut stream = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .expect("TLS 1.3: the client finishes its side before the server refuses");
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-length: 2\r\n\r\n{}")
        .await
        .unwrap();
    let mut buf = Vec::new();
    let error = stream
        .read_to_end(&mut buf)
        .await
        .expect_err("the server refuses the handshake");
    assert!(
        buf.is_empty(),
        "nothing served: {:?}",
        String::from_utf8_lossy(&buf)
    );
    assert_eq!(
        error.to_string(),
        "received fatal alert: CertificateRequired"
    );
    served.stop().await;
}

#[derive(Debug)]
struct NoCertificate;

impl rustls::client::ResolvesClientCert for NoCertificate {
    fn resolve(
        &self,
        _: &[&[u8]],
        _: &[rustls::SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        None
    }
    fn has_certs(&self) -> bool {
        false
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_is_answered_in_plain_http_telling_to_use_https() {
    let mut served = Served::start(&["alice"]).await;
    for round in 0..5 {
        let mut tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
        tcp.write_all(
            b"POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 2\r\n\r\n{}",
        )
        .await
        .unwrap();
        let mut buf = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut buf))
            .await
            .expect("ratd closes the connection")
            .expect("read to the end, no reset");
        assert_eq!(
            String::from_utf8_lossy(&buf),
            ratd::serve::PLAIN_HTTP_ANSWER,
            "round {round}"
        );
    }

    // And reqwest speaking http:// reads the 400 and its text.
    let response = served
        .http("alice")
        .post(format!("http://{}/mcp", served.addr))
        .body("{}")
        .send()
        .await
        .expect("a plain HTTP answer");
    assert_eq!(response.status(), 400);
    assert_eq!(
        response.text().await.unwrap(),
        "Client sent an HTTP request to an HTTPS server: ratd serves https:// only, to clients presenting a client certificate of its bundle (run rat with the bundle's client directory, or rat-tool check to test).\n"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_ratd_for_the_tenant_exits_naming_the_first_tmux_pid() {
    let mut served = Served::start(&["alice"]).await;
    let pid = tmux_server_pid(&format!("rat-{}", served.tenant())).expect("tmux server pid");
    let Err(error) = ratd::Ratd::start(served.bundle.config()).await else {
        panic!("a second ratd started for tenant {}", served.tenant());
    };
    let message = error.to_string();
    assert!(message.contains(&pid.to_string()), "{message}");
    insta::assert_snapshot!(
        message
            .replace(&pid.to_string(), "PID")
            .replace(served.tenant(), "TENANT")
    );
    // The first one still serves.
    let client = served.mcp("alice").await;
    client.cancel().await.expect("client closes");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_that_does_not_load_is_a_clear_error() {
    let tenant = unique_tenant();
    let _guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle::generate(&tenant, &["alice"]);
    let mut config = bundle.config();
    config.bundle = bundle.client_dir("alice");
    let Err(error) = ratd::Ratd::start(config).await else {
        panic!("ratd started with a client directory");
    };
    insta::assert_snapshot!(
        error
            .to_string()
            .replace(&crate::common::path_str(bundle.dir.path()), "TMP")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_host_listens_on_ipv6_and_ipv4_together() {
    let tenant = unique_tenant();
    let _guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle::generate(&tenant, &["alice"]);
    let mut config = bundle.config();
    config.listen = ratd::Listen::AllInterfaces { port: 0 };
    let ratd = ratd::Ratd::start(config).await.expect("ratd starts");
    let addrs = ratd.local_addrs();
    assert_eq!(addrs.len(), 1, "{addrs:?}");
    let port = addrs[0].port();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let task = tokio::spawn(ratd.serve(shutdown.clone()));
    let http = crate::common::http_client(bundle.client_tls("alice"));
    let mut hosts = vec!["127.0.0.1"];
    if addrs[0].is_ipv6() {
        // [::] with IPV6_V6ONLY off; IPv4 alone (0.0.0.0) only where IPv6 is disabled.
        assert_eq!(addrs[0].ip(), std::net::Ipv6Addr::UNSPECIFIED);
        hosts.push("[::1]");
    } else {
        assert_eq!(addrs[0].ip(), std::net::Ipv4Addr::UNSPECIFIED);
    }
    for host in hosts {
        let response = http
            .get(format!("https://{host}:{port}/elsewhere"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{host}: {e}"));
        assert_eq!(response.status(), 404, "{host}");
    }
    shutdown.cancel();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshakes_get_5_seconds_headers_10_idle_connections_2_minutes() {
    let mut served = Served::start(&["alice"]).await;
    let tls = Arc::new(served.bundle.client_tls("alice"));

    // A: a TCP connection that never starts its handshake.
    let mut silent = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    // B: a handshake, then half a request header.
    let connector = tokio_rustls::TlsConnector::from(tls.clone());
    let tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let mut slow = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: ratd\r\n")
        .await
        .unwrap();
    // C: a kept-alive connection, idle for longer than the header timeout between requests.
    let tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let mut idle = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .unwrap();
    let request = b"GET /elsewhere HTTP/1.1\r\nhost: ratd\r\n\r\n";
    idle.write_all(request).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = idle.read(&mut buf).await.unwrap();
    assert!(
        buf[..n].starts_with(b"HTTP/1.1 404"),
        "{:?}",
        String::from_utf8_lossy(&buf[..n])
    );

    let closed_within = |limit: u64| Duration::from_secs(limit);
    let mut rest = Vec::new();
    let a = tokio::time::timeout(closed_within(8), silent.read_to_end(&mut rest)).await;
    assert!(
        a.is_ok(),
        "a connection without handshake is still open after 8 s"
    );
    let mut rest = Vec::new();
    let b = tokio::time::timeout(closed_within(10), slow.read_to_end(&mut rest)).await;
    assert!(b.is_ok(), "a half header is still waited for after 15 s");
    assert!(
        !rest.starts_with(b"HTTP/1.1 2"),
        "{:?}",
        String::from_utf8_lossy(&rest)
    );

    // C went idle more than 10 s ago: it still serves.
    idle.write_all(request).await.unwrap();
    let n = idle.read(&mut buf).await.unwrap();
    assert!(
        buf[..n].starts_with(b"HTTP/1.1 404"),
        "{:?}",
        String::from_utf8_lossy(&buf[..n])
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_host_name_is_served_dns_rebinding_protection_off() {
    let mut served = Served::start(&["alice"]).await;
    // rmcp's default would refuse a loopback address reached under another name (403).
    let response = served
        .http("alice")
        .post(served.url())
        .header("host", format!("build-box.example:{}", served.addr.port()))
        .header("origin", "https://somewhere.example")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body["result"]["tools"].as_array().map(Vec::len),
        Some(rat_core::catalog::TOOL_NAMES.len()),
        "{body}"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_name_listens_on_each_of_its_addresses_on_one_port() {
    let tenant = unique_tenant();
    let _guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle::generate(&tenant, &["alice"]);
    let mut config = bundle.config();
    config.listen = ratd::Listen::Host {
        host: "localhost".into(),
        port: 0,
    };
    let ratd = ratd::Ratd::start(config).await.expect("ratd starts");
    let addrs = ratd.local_addrs();
    let resolved: Vec<std::net::SocketAddr> = tokio::net::lookup_host(("localhost", 0))
        .await
        .unwrap()
        .collect();
    assert!(!addrs.is_empty());
    assert_eq!(addrs.len(), {
        let ips: std::collections::HashSet<_> = resolved.iter().map(|a| a.ip()).collect();
        ips.len()
    });
    let port = addrs[0].port();
    assert!(
        addrs
            .iter()
            .all(|a| a.port() == port && a.ip().is_loopback()),
        "{addrs:?}"
    );
    let shutdown = tokio_util::sync::CancellationToken::new();
    let task = tokio::spawn(ratd.serve(shutdown.clone()));
    let http = crate::common::http_client(bundle.client_tls("alice"));
    for addr in &addrs {
        let response = http
            .get(format!("https://{addr}/elsewhere"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{addr}: {e}"));
        assert_eq!(response.status(), 404, "{addr}");
    }
    shutdown.cancel();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn params_not_of_the_method_are_invalid_params() {
    let mut served = Served::start(&["alice"]).await;
    let http = served.http("alice");
    let mut answers = Vec::new();
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":[]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[]}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"no/such","params":{}}"#,
    ] {
        let response = served.post(&http, body).send().await.expect("answered");
        answers.push(format!(
            "{} {}",
            response.status().as_u16(),
            response.text().await.unwrap()
        ));
    }
    // The second is refused before any handler: a body that is no MCP message.
    insta::assert_snapshot!(answers.join("\n"), @r#"
    200 {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params of tools/call: invalid type: sequence, expected a map"}}
    400 {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the params of an MCP message are an object: POST one JSON-RPC message, such as {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"}}
    200 {"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no/such"}}
    "#);
    served.stop().await;
}
