//! `rat-tool check` against an MCP server started inside the test: rmcp's streamable HTTP
//! server (stateless, JSON) behind a tokio-rustls listener with the bundle's server
//! configuration. ratd itself is checked end to end in the workspace's tests/.

use std::convert::Infallible;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::common::{Run, rat_tool, redact};
use hyper_util::rt::TokioIo;
use rat_wire::mtls;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};

/// An MCP server shaped like ratd: server info, instructions, two tools; it records whether a
/// tool was ever called (check must call none).
#[derive(Clone)]
struct FakeRatd {
    called: Arc<AtomicBool>,
    /// The instructions it sends: ratd's own words, as its startup check found the terminals.
    instructions: Arc<String>,
    /// rat's entry in its MCP `capabilities.experimental`: what the terminals lose, by name.
    capability: Arc<serde_json::Map<String, serde_json::Value>>,
}

/// What a ratd whose terminals hold everything tells in its instructions (the start of them).
const INSTRUCTIONS: &str = "rat gives you persistent terminals on host: commands run there, not \
     where you run. It is asynchronous by design: sending a command returns at once, without \
     waiting for it to finish, unless asked.";

impl ServerHandler for FakeRatd {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        capabilities.experimental = Some(
            [(
                rat_core::catalog::CAPABILITY.to_string(),
                (*self.capability).clone(),
            )]
            .into_iter()
            .collect(),
        );
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("ratd", "0.1.0").with_title("rat prod on host"))
            .with_instructions(self.instructions.as_str())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = serde_json::json!({"type": "object", "properties": {}});
        let schema = Arc::new(schema.as_object().unwrap().clone());
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "list_windows",
                "List the windows of your terminals: for each, its foreground command, its working \
                 directory, and how its last command exited once bash is back at its prompt.",
                schema.clone(),
            ),
            Tool::new("read_window", "Read the screen of a window.", schema),
        ]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.called.store(true, Ordering::SeqCst);
        Err(ErrorData::internal_error("check must call no tool", None))
    }
}

/// Serves MCP at /mcp over TLS with `tls` on 127.0.0.1:0; returns the port.
async fn serve(tls: Arc<rustls::ServerConfig>, called: Arc<AtomicBool>) -> u16 {
    let holding = rat_core::terminals::TerminalCheck::all_holding();
    serve_telling(
        tls,
        called,
        INSTRUCTIONS,
        rat_core::catalog::capability(&holding),
    )
    .await
}

async fn serve_telling(
    tls: Arc<rustls::ServerConfig>,
    called: Arc<AtomicBool>,
    instructions: &str,
    capability: serde_json::Map<String, serde_json::Value>,
) -> u16 {
    let instructions = Arc::new(instructions.to_string());
    let capability = Arc::new(capability);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts();
    let service: StreamableHttpService<FakeRatd, NeverSessionManager> = StreamableHttpService::new(
        move || {
            Ok(FakeRatd {
                called: called.clone(),
                instructions: instructions.clone(),
                capability: capability.clone(),
            })
        },
        Default::default(),
        config,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let acceptor = tokio_rustls::TlsAcceptor::from(tls);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            let service = service.clone();
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(tcp).await else {
                    return;
                };
                let handler = hyper::service::service_fn(move |request| {
                    let service = service.clone();
                    async move { Ok::<_, Infallible>(service.handle(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    port
}

async fn check(server: &str, bundle: &Path) -> Run {
    check_with(server, bundle, &[]).await
}

/// `rat-tool check --server SERVER --bundle BUNDLE FLAGS...`.
async fn check_with(server: &str, bundle: &Path, flags: &[&str]) -> Run {
    let mut args = vec![
        "check".to_owned(),
        "--server".to_owned(),
        server.to_owned(),
        "--bundle".to_owned(),
        bundle.display().to_string(),
    ];
    args.extend(flags.iter().map(|flag| (*flag).to_owned()));
    tokio::task::spawn_blocking(move || rat_tool(args))
        .await
        .unwrap()
}

fn redact_port(text: &str, port: u16) -> String {
    text.replace(&format!("127.0.0.1:{port}"), "127.0.0.1:[PORT]")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_passes_against_a_server_of_the_bundle_and_calls_no_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("b");
    mtls::generate("prod", &["alice"], &b).unwrap();
    let server = mtls::load_server(&b.join("server")).unwrap();
    let called = Arc::new(AtomicBool::new(false));
    let port = serve(server.rustls_config(), called.clone()).await;
    let run = check(&format!("127.0.0.1:{port}"), &b.join("clients/alice")).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!called.load(Ordering::SeqCst), "check called a tool");
    insta::assert_snapshot!(redact_port(&redact(&run.text(), tmp.path()), port));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_warns_what_the_terminals_lose_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("b");
    mtls::generate("prod", &["alice"], &b).unwrap();
    let server = mtls::load_server(&b.join("server")).unwrap();
    let lost = rat_core::terminals::TerminalCheck {
        statuses: false,
        ..rat_core::terminals::TerminalCheck::all_holding()
    };
    let instructions = rat_core::catalog::instructions("host", &lost);
    // The capability names one more degradation than the instructions hold, and one this
    // rat-tool does not know: the WARN lines follow the names, not the instructions' words.
    let mut capability = rat_core::catalog::capability(&lost);
    capability["degradations"]
        .as_array_mut()
        .unwrap()
        .extend(["paste-overridden".into(), "disk-full".into()]);
    let port = serve_telling(
        server.rustls_config(),
        Arc::new(AtomicBool::new(false)),
        &instructions,
        capability,
    )
    .await;
    let run = check(&format!("127.0.0.1:{port}"), &b.join("clients/alice")).await;
    assert_eq!(run.code, 0, "{run:?}");
    let text = run.text();
    let warns: Vec<&str> = text.lines().filter(|l| l.starts_with("  WARN  ")).collect();
    assert_eq!(
        warns,
        [
            "  WARN  terminals: exit statuses lost (a hook runs before rat's in PROMPT_COMMAND at \
             every prompt): see ratd's log for PROMPT_COMMAND, and make the bash startup files of \
             ratd's user stop moving their hook first at each prompt",
            "  WARN  terminals: bracketed paste overridden (multi-line text may run line by line): \
             remove 'set enable-bracketed-paste off' from the inputrc of ratd's user",
            "  WARN  terminals: disk-full (a degradation this rat-tool does not know)",
        ],
        "{text}"
    );
    assert!(
        text.contains(&format!("ratd at 127.0.0.1:{port} serves this client.")),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_verbose_prints_the_instructions_and_descriptions_after_the_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("b");
    mtls::generate("prod", &["alice"], &b).unwrap();
    let server = mtls::load_server(&b.join("server")).unwrap();
    let port = serve(server.rustls_config(), Arc::new(AtomicBool::new(false))).await;
    let run = check_with(
        &format!("127.0.0.1:{port}"),
        &b.join("clients/alice"),
        &["--verbose"],
    )
    .await;
    assert_eq!(run.code, 0, "{run:?}");
    insta::assert_snapshot!(from_step(&run, "MCP").replace(&port.to_string(), "[PORT]"));
}

/// Serves TLS with `tls` on 127.0.0.1:0, answering every HTTP request with 404: a web server
/// that is not ratd.
async fn serve_not_mcp(tls: Arc<rustls::ServerConfig>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let acceptor = tokio_rustls::TlsAcceptor::from(tls);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(tcp).await else {
                    return;
                };
                let handler = hyper::service::service_fn(|_request| async {
                    Ok::<_, Infallible>(
                        hyper::Response::builder()
                            .status(404)
                            .body("no such page".to_owned())
                            .unwrap(),
                    )
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    port
}

/// The check's output from the TLS step on (the files step is snapshotted above).
fn from_step(run: &Run, step: &str) -> String {
    let start = run.stdout.find(&format!("\n{step}\n")).map_or(0, |i| i + 1);
    format!(
        "exit status {}\n--- stdout (from {step})\n{}--- stderr\n{}",
        run.code,
        &run.stdout[start..],
        run.stderr
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_stops_at_the_first_failing_step() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    mtls::generate("prod", &["alice"], &a).unwrap();
    mtls::generate("prod", &["alice"], &b).unwrap();
    let alice = a.join("clients/alice");
    let mut text = String::new();
    let mut record = |case: &str, port: Option<u16>, run: &Run, step: &str| {
        assert_eq!(run.code, 1, "{case}: {run:?}");
        let mut shown = redact(&from_step(run, step), tmp.path());
        if let Some(port) = port {
            shown = redact_port(&shown, port);
        }
        text += &format!("== {case}\n{shown}\n");
    };

    // network: nothing listens
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let run = check(&format!("127.0.0.1:{port}"), &alice).await;
    record("nothing listens", Some(port), &run, "Network");

    // TLS: this client refuses a server of another bundle of the tenant
    let called = Arc::new(AtomicBool::new(false));
    let other = mtls::load_server(&b.join("server")).unwrap();
    let port = serve(other.rustls_config(), called.clone()).await;
    let run = check(&format!("127.0.0.1:{port}"), &alice).await;
    record("a server of another bundle", Some(port), &run, "TLS");

    // TLS: the server refuses this client, which shows on the first read (TLS 1.3): a server
    // presenting the certificate of bundle a, but trusting the CA of bundle b
    let mixed = mtls::unchecked_server_config(
        &der(&b.join("server/ca.crt")),
        &der(&a.join("server/server.crt")),
        key(&a.join("server/server.key")),
    )
    .unwrap();
    let port = serve(mixed, called.clone()).await;
    let run = check(&format!("127.0.0.1:{port}"), &alice).await;
    record(
        "a server trusting another CA of the tenant",
        Some(port),
        &run,
        "TLS",
    );

    // TLS: servers that are not ratd: plain HTTP, one closing at once, a self-signed one
    for (case, answer) in [
        (
            "a plain HTTP server",
            &b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"[..],
        ),
        ("a server closing at once", &b""[..]),
        (
            "a server closing at once, the ClientHello unread",
            &b"unread"[..],
        ),
    ] {
        let port = not_tls(answer);
        let run = check(&format!("127.0.0.1:{port}"), &alice).await;
        record(case, Some(port), &run, "TLS");
    }
    for (case, ca) in [
        ("a self-signed HTTPS server", false),
        ("an HTTPS server presenting a CA certificate", true),
    ] {
        let port = serve(self_signed(ca), called.clone()).await;
        let run = check(&format!("127.0.0.1:{port}"), &alice).await;
        record(case, Some(port), &run, "TLS");
    }

    // MCP: a TLS server of the bundle that is not an MCP server
    let server = mtls::load_server(&a.join("server")).unwrap();
    let port = serve_not_mcp(server.rustls_config()).await;
    let run = check(&format!("127.0.0.1:{port}"), &alice).await;
    record("not an MCP server", Some(port), &run, "MCP");

    // files: the server directory given as a client's
    let run = check("127.0.0.1:1", &a.join("server")).await;
    record("the server directory", None, &run, "Files");

    // files: a key readable by others
    std::fs::set_permissions(
        alice.join("client.key"),
        std::os::unix::fs::PermissionsExt::from_mode(0o640),
    )
    .unwrap();
    let run = check("127.0.0.1:1", &alice).await;
    record("a key readable by its group", None, &run, "Files");

    assert!(!called.load(Ordering::SeqCst), "check called a tool");
    insta::assert_snapshot!(text);
}

#[test]
fn check_refuses_a_url_as_server() {
    let run = rat_tool([
        "check",
        "--server",
        "https://host:7281/mcp",
        "--bundle",
        "dir",
    ]);
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.text());
}

fn der(path: &Path) -> rustls::pki_types::CertificateDer<'static> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::from_pem_file(path).unwrap()
}

fn key(path: &Path) -> rustls::pki_types::PrivateKeyDer<'static> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::PrivateKeyDer::from_pem_file(path).unwrap()
}

/// A plain TCP server: for each connection, reads a little, writes `answer` and closes.
fn not_tls(answer: &'static [u8]) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            use std::io::{Read, Write};
            if answer == b"unread" {
                // Closed at once: an end, or a reset once the ClientHello arrived.
                drop(stream);
                continue;
            }
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(answer);
        }
    });
    port
}

/// The configuration of an HTTPS server with a self-signed certificate (no client asked): a
/// CA certificate when `ca` (as `openssl req -x509` makes by default).
fn self_signed(ca: bool) -> Arc<rustls::ServerConfig> {
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    if ca {
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    }
    let signing_key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertifiedKey {
        cert: params.self_signed(&signing_key).unwrap(),
        signing_key,
    };
    let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    Arc::new(config)
}
