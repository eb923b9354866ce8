//! The bridge's added latency per message: the same JSON-RPC request posted directly over HTTPS
//! (mutual TLS, a kept-alive connection, the way a harness able to present the certificate
//! would reach ratd) and through rat's relay (a line written on a pipe, relayed, the answer read
//! back from a pipe), against:
//!
//! 1. a local HTTPS test server of a generated bundle answering a fixed body (the bridge alone);
//! 2. a real ratd (in-process, its own tmux server on a private socket), `tools/call
//!    list_windows`.
//!
//! The relay runs in-process on real OS pipes, as `rat` runs between the harness's pipes.
//! Prints p50 and p99 of each and the difference.
//!
//! `cargo bench -p benches --bench bridge` (`BRIDGE_ITERATIONS` sets the count, 2000 by default).

use benches::percentile;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tmux_cc::test_support::SocketGuard;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rat::headers::ToolHeaders;
use rat::relay::{Config, REQUEST_TIMEOUT, Relay};
use rat_core::result::ReadBudget;
use rat_wire::mtls;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

const ANSWER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"main: bash in ~, last activity 3s ago"}],"isError":false}}"#;

fn iterations() -> usize {
    std::env::var("BRIDGE_ITERATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

/// A minimal HTTPS server of the bundle answering every POST with [`ANSWER`].
async fn test_server(config: Arc<rustls::ServerConfig>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let _ = tcp.set_nodelay(true);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper::service::service_fn(
                    |request: hyper::Request<hyper::body::Incoming>| async move {
                        let _ = request.into_body().collect().await?;
                        Ok::<_, hyper::Error>(
                            hyper::Response::builder()
                                .header("content-type", "application/json")
                                .body(Full::new(Bytes::from_static(ANSWER)))
                                .unwrap(),
                        )
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    addr
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Figures {
    p50: Duration,
    p99: Duration,
}

fn figures(mut samples: Vec<Duration>) -> Figures {
    samples.sort();
    Figures {
        p50: percentile(&samples, 0.50),
        p99: percentile(&samples, 0.99),
    }
}

/// Posts `line` `n` times (after a warm-up) directly over one kept-alive connection and
/// through rat's relay on OS pipes, alternately, so that both see the same load of the machine.
/// Returns the figures of the direct calls and of the bridged ones.
async fn measure(
    client: &reqwest::Client,
    url: &str,
    config: Config,
    line: &[u8],
    n: usize,
) -> (Figures, Figures) {
    let post = || {
        client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(line.to_vec())
    };

    let (input_reader, input_writer) = std::io::pipe().unwrap();
    let (output_reader, output_writer) = std::io::pipe().unwrap();
    let rat_in = tokio::net::unix::pipe::Receiver::from_owned_fd(input_reader.into()).unwrap();
    let rat_out = tokio::net::unix::pipe::Sender::from_owned_fd(output_writer.into()).unwrap();
    let mut harness_in =
        tokio::net::unix::pipe::Sender::from_owned_fd(input_writer.into()).unwrap();
    let harness_out =
        tokio::net::unix::pipe::Receiver::from_owned_fd(output_reader.into()).unwrap();
    let relay = Relay::new(config).unwrap();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let running = tokio::spawn(relay.run(
        BufReader::with_capacity(64 * 1024, rat_in),
        rat_out,
        async move {
            stopped.cancelled().await;
            "bench over".to_owned()
        },
    ));
    let mut out = BufReader::new(harness_out);
    let mut message = line.to_vec();
    message.push(b'\n');
    let mut answer = String::new();

    let mut direct = Vec::with_capacity(n);
    let mut bridged = Vec::with_capacity(n);
    for i in 0..n + n / 10 {
        let started = Instant::now();
        let body = post().send().await.unwrap().bytes().await.unwrap();
        let direct_took = started.elapsed();
        assert!(body.starts_with(b"{"));

        let started = Instant::now();
        harness_in.write_all(&message).await.unwrap();
        answer.clear();
        out.read_line(&mut answer).await.unwrap();
        let bridged_took = started.elapsed();
        assert!(answer.contains("\"result\""), "{answer}");

        if i >= n / 10 {
            direct.push(direct_took);
            bridged.push(bridged_took);
        }
    }
    stop.cancel();
    running.await.unwrap();
    (figures(direct), figures(bridged))
}

fn report(what: &str, direct: &Figures, bridged: &Figures) {
    println!("{what}");
    println!(
        "  direct HTTPS   p50 {:8.1} µs   p99 {:8.1} µs",
        micros(direct.p50),
        micros(direct.p99)
    );
    println!(
        "  through rat    p50 {:8.1} µs   p99 {:8.1} µs",
        micros(bridged.p50),
        micros(bridged.p99)
    );
    println!(
        "  added by rat   p50 {:8.1} µs   p99 {:8.1} µs",
        micros(bridged.p50.saturating_sub(direct.p50)),
        micros(bridged.p99.saturating_sub(direct.p99))
    );
}

fn relay_config(server: String, tls: rustls::ClientConfig) -> Config {
    let schemas = rat_core::catalog::input_schemas();
    Config {
        server,
        tls,
        tools: ToolHeaders::from_schemas(schemas.iter().map(|(n, s)| (*n, s))),
        request_timeout: REQUEST_TIMEOUT,
    }
}

fn http_client(tls: rustls::ClientConfig) -> reqwest::Client {
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .http1_only()
        .build()
        .unwrap()
}

fn main() {
    // `cargo bench` passes `--bench`; filters are not supported: this bench is one measurement.
    let n = iterations();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let tenant = format!("bb{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let _guard = SocketGuard::named(format!("rat-{tenant}"));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("b");
        mtls::generate(&tenant, &["agent"], &root).unwrap();
        let client = mtls::load_client(&mtls::client_dir(&root, "agent")).unwrap();
        let tls = (*client.rustls_config()).clone();
        let server = mtls::load_server(&mtls::server_dir(&root)).unwrap();

        // 1. The bridge alone, against a local HTTPS server.
        let addr = test_server(server.rustls_config()).await;
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_windows","arguments":{}}}"#;
        let (direct_figures, bridged_figures) = measure(
            &http_client(tls.clone()),
            &format!("https://{addr}/mcp"),
            relay_config(addr.to_string(), tls.clone()),
            line,
            n,
        )
        .await;
        println!("{n} sequential messages each way, alternating, after {} to warm up", n / 10);
        report("local HTTPS test server (fixed 140-byte answer)", &direct_figures, &bridged_figures);

        // 2. A real ratd: tools/call list_windows (protocol 2025-03-26 headers: no initialize
        //    needed by a stateless ratd, and the same request both ways).
        let ratd = ratd::Ratd::start(ratd::Config {
            bundle: mtls::server_dir(&root),
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
        .expect("ratd starts");
        let addr = ratd.local_addrs()[0];
        let shutdown = CancellationToken::new();
        let serving = tokio::spawn(ratd.serve(shutdown.clone()));
        let n_ratd = (n / 4).max(100);
        let (direct_figures, bridged_figures) = measure(
            &http_client(tls.clone()),
            &format!("https://{addr}/mcp"),
            relay_config(addr.to_string(), tls),
            line,
            n_ratd,
        )
        .await;
        report(
            &format!("ratd, tools/call list_windows ({n_ratd} messages each)"),
            &direct_figures,
            &bridged_figures,
        );
        shutdown.cancel();
        let _ = serving.await;
    });
}
