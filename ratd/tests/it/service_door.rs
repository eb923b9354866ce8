//! The door of the ratd binary as an operator sees it in its log: what a plain HTTP client, a
//! port probe and an agent's own mistakes leave there, and a second signal forcing the stop.
//! Real ratd, real TLS with the bundle's certificates, real tmux.

use std::io::{Read, Write};
use std::time::Duration;

use crate::service_common::Daemon;
use nix::sys::signal::Signal;

/// A raw TLS connection of `client` of `ratd`'s bundle (blocking, for the threads of a test).
fn tls(
    ratd: &Daemon,
    client: &str,
) -> rustls::StreamOwned<rustls::ClientConnection, std::net::TcpStream> {
    let config = std::sync::Arc::new(ratd.bundle.client_tls(client));
    let conn = rustls::ClientConnection::new(config, "ratd".try_into().unwrap()).unwrap();
    let tcp = std::net::TcpStream::connect(ratd.addr.unwrap()).unwrap();
    rustls::StreamOwned::new(conn, tcp)
}

fn post(body: &str, version: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: {version}\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Reads one HTTP/1.1 response with a content-length: its text whole.
fn read_response(stream: &mut impl Read) -> String {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        buf.push(byte[0]);
    }
    let head = String::from_utf8(buf.clone()).unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).unwrap();
    head + &String::from_utf8(body).unwrap()
}

#[test]
fn an_agents_own_mistakes_are_one_line_of_ratd_at_info_with_session_and_address() {
    let mut ratd = Daemon::spawn(&[]);
    ratd.wait_serving();
    let mut stream = tls(&ratd, "alice");
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"no/such","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_windows","arguments":[]}}"#,
    ] {
        stream
            .write_all(post(body, "2025-11-25").as_bytes())
            .unwrap();
        let response = read_response(&mut stream);
        assert!(response.contains("\"error\""), "{response}");
    }
    let tool = ratd.wait_for("call of an unknown tool");
    let method = ratd.wait_for("method=\"no/such\"");
    let params = ratd.wait_for("method=\"tools/call\"");
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
    let all = ratd.seen.join("\n");
    for (line, cause) in [
        (&tool, "unknown tool"),
        (&method, "method not found"),
        (&params, "invalid params"),
    ] {
        assert!(line.contains(" INFO "), "{line}");
        assert!(line.contains("session=alice addr=127.0.0.1:"), "{line}");
        assert!(line.contains(&format!("cause=\"{cause}\"")), "{line}");
        assert!(
            line.contains("MCP request refused") || line.contains("tool=\"no_such_tool\""),
            "{line}"
        );
    }
    // Nothing of rmcp's: no warning in Rust's debug form.
    assert!(!all.contains("ErrorData"), "{all}");
    assert!(!all.contains("response error"), "{all}");
    assert!(
        !ratd
            .seen
            .iter()
            .any(|l| l.contains("WARN") && !l.contains("running as root")),
        "{all}"
    );
}

#[test]
fn plain_http_is_logged_as_a_refusal_and_a_port_probe_is_not() {
    let mut ratd = Daemon::spawn(&["--log-level", "debug"]);
    let addr = ratd.wait_serving();
    // A probe: connect, send nothing, close.
    drop(std::net::TcpStream::connect(addr).unwrap());
    let probe = ratd.wait_for("port probe");
    assert!(probe.contains("DEBUG"), "{probe}");
    assert!(probe.contains("addr=127.0.0.1:"), "{probe}");
    // Plain HTTP: answered, and logged like a refused handshake.
    let mut tcp = std::net::TcpStream::connect(addr).unwrap();
    tcp.write_all(b"GET /mcp HTTP/1.1\r\nhost: ratd\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    assert_eq!(answer, ratd::serve::PLAIN_HTTP_ANSWER);
    let refused = ratd.wait_for("TLS handshake refused");
    assert!(refused.contains(" INFO "), "{refused}");
    assert!(
        refused.contains("error=\"a plain HTTP request to the HTTPS port\""),
        "{refused}"
    );
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
    // The probe was never a refusal.
    assert_eq!(
        ratd.seen
            .iter()
            .filter(|l| l.contains("TLS handshake refused"))
            .count(),
        1,
        "{:#?}",
        ratd.seen
    );
}

#[test]
fn at_info_a_port_probe_leaves_no_line() {
    let mut ratd = Daemon::spawn(&[]);
    let addr = ratd.wait_serving();
    for _ in 0..20 {
        drop(std::net::TcpStream::connect(addr).unwrap());
    }
    // A call after the probes, whose line tells they were all handled before it.
    let mut stream = tls(&ratd, "alice");
    stream
        .write_all(post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":{}}}"#, "2025-11-25").as_bytes())
        .unwrap();
    read_response(&mut stream);
    ratd.wait_for("call list_windows");
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
    let all = ratd.seen.join("\n");
    assert!(!all.contains("refused"), "{all}");
    assert!(!all.contains("probe"), "{all}");
}

#[test]
fn a_second_signal_forces_the_stop_still_in_order() {
    for (first, second) in [
        (Signal::SIGTERM, Signal::SIGINT),
        (Signal::SIGINT, Signal::SIGTERM),
        (Signal::SIGTERM, Signal::SIGTERM),
    ] {
        let mut ratd = Daemon::spawn(&[]);
        ratd.wait_serving();
        // A request in flight that holds the door: its body is still coming.
        let mut stream = tls(&ratd, "alice");
        stream
            .write_all(
                b"POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-type: application/json\r\n\
                  accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\":",
            )
            .unwrap();
        stream.flush().unwrap();
        // Its request line is read once the head arrived: wait for ratd to serve it.
        std::thread::sleep(Duration::from_millis(200));
        ratd.signal(first);
        ratd.wait_for("stopping: closing the door");
        ratd.signal(second);
        let status = ratd.wait_exit();
        assert!(status.success(), "{status}: {:#?}", ratd.seen);
        let all = ratd.seen.join("\n");
        let position = |needle: &str| {
            ratd.seen
                .iter()
                .position(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no {needle:?}:\n{all}"))
        };
        let order = [
            position("stopping on signal"),
            position("stopping: closing the door"),
            position("second signal: stopping at once"),
            position("stopping at once, as asked again: requests still in flight are cut"),
            position("stopping: stopping the terminals"),
            position(" INFO stopped"),
        ];
        assert!(order.is_sorted(), "{order:?}:\n{all}");
        assert!(
            ratd.seen[order[0]].contains(&format!("signal=\"{}\"", first.as_str())),
            "{all}"
        );
        assert!(
            ratd.seen[order[2]].contains(&format!("signal=\"{}\"", second.as_str())),
            "{all}"
        );
        // Not the grace: cut by the second signal, never after its 10 seconds.
        assert!(!all.contains("after 10 seconds"), "{all}");
        assert!(
            crate::service_common::tmux_server_pid(&ratd.guard.socket).is_none(),
            "tmux is left"
        );
    }
}

#[test]
fn at_the_connection_cap_new_connections_wait_until_one_closes() {
    let mut ratd = Daemon::spawn(&["--max-connections", "16"]);
    ratd.wait_serving();
    let list = post(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":{}}}"#,
        "2025-11-25",
    );
    for round in 0..3 {
        // 16 connections held, each past its handshake and served once.
        let mut held: Vec<_> = (0..16)
            .map(|_| {
                let mut stream = tls(&ratd, "alice");
                stream.write_all(list.as_bytes()).unwrap();
                assert!(read_response(&mut stream).starts_with("HTTP/1.1 200"));
                stream
            })
            .collect();
        // The 17th client waits after its handshake while the 16 are held: its request gets
        // no answer. (A connection before its handshake is nobody's and takes no place.)
        let mut waiting = tls(&ratd, "alice");
        waiting.write_all(list.as_bytes()).unwrap();
        waiting
            .sock
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut byte = [0u8; 1];
        let early = waiting.read(&mut byte);
        assert!(
            early.is_err(),
            "round {round}: served beyond the cap: {early:?}"
        );
        // One closes: the 17th is served.
        drop(held.pop());
        waiting
            .sock
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        assert!(
            read_response(&mut waiting).starts_with("HTTP/1.1 200"),
            "round {round}"
        );
        drop(held);
        drop(waiting);
    }
    let reached = ratd.wait_for("connection cap reached");
    assert!(reached.contains(" WARN "), "{reached}");
    assert!(reached.contains("max_connections=16"), "{reached}");
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
}
