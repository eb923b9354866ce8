//! Test support: real bundles (rat-wire's generator), a real HTTPS server of a bundle recording
//! what it receives (tokio-rustls + hyper, the bundle's mTLS configuration), and the real `rat`
//! binary run as a child with its stdin and stdout piped, as a harness runs it.
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rat_wire::mtls;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;

/// A bundle generated in a temporary directory.
pub struct Bundle {
    pub dir: tempfile::TempDir,
    pub tenant: String,
}

impl Bundle {
    /// A bundle of `tenant` with the clients `clients`.
    pub fn new(tenant: &str, clients: &[&str]) -> Self {
        Self::at(tenant, clients, SystemTime::now())
    }

    /// A bundle generated as if at `now`.
    pub fn at(tenant: &str, clients: &[&str], now: SystemTime) -> Self {
        let dir = tempfile::tempdir().unwrap();
        mtls::generate_at(tenant, clients, &dir.path().join("b"), now).unwrap();
        Self {
            dir,
            tenant: tenant.to_owned(),
        }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("b")
    }

    pub fn server_dir(&self) -> PathBuf {
        mtls::server_dir(&self.root())
    }

    pub fn client_dir(&self, name: &str) -> PathBuf {
        mtls::client_dir(&self.root(), name)
    }

    /// The server configuration of the bundle, as ratd builds it.
    pub fn server_config(&self) -> Arc<rustls::ServerConfig> {
        mtls::load_server(&self.server_dir())
            .unwrap()
            .rustls_config()
    }
}

/// What the test server received: the headers (names lower case) and the body, exactly.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// The headers rat computes (Content-Type, Accept, Mcp-*), one per line, sorted.
    pub fn mcp_headers(&self) -> String {
        let mut lines: Vec<String> = self
            .headers
            .iter()
            .filter(|(n, _)| n.starts_with("mcp-") || n == "content-type" || n == "accept")
            .map(|(n, v)| format!("{n}: {v}"))
            .collect();
        lines.sort();
        lines.join("\n")
    }
}

/// What the test server answers to a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A status, a content type and a body, after a delay.
    Body {
        status: u16,
        content_type: &'static str,
        body: Vec<u8>,
        delay: Duration,
    },
    /// Never answers; the server reports when the request is dropped (its connection closed).
    Hang,
}

impl Reply {
    pub fn json(body: impl Into<Vec<u8>>) -> Self {
        Reply::Body {
            status: 200,
            content_type: "application/json",
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    pub fn status(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Reply::Body {
            status,
            content_type,
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    pub fn accepted() -> Self {
        Reply::status(202, "application/json", Vec::new())
    }

    pub fn delayed(self, by: Duration) -> Self {
        match self {
            Reply::Body {
                status,
                content_type,
                body,
                ..
            } => Reply::Body {
                status,
                content_type,
                body,
                delay: by,
            },
            Reply::Hang => Reply::Hang,
        }
    }
}

/// How the test server answers: from what it received.
pub type Handler = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

/// A handler answering like a server of MCP: the result of initialize names the version asked
/// for; notifications get 202; any other request gets `{"jsonrpc":"2.0","id":ID,"result":{}}`.
pub fn echo_handler() -> Handler {
    Arc::new(|request: &Recorded| {
        let message = request.json();
        if message.is_array() {
            return Reply::json(b"[]".to_vec());
        }
        let Some(id) = message.get("id") else {
            return Reply::accepted();
        };
        let result = if message["method"] == "initialize" {
            serde_json::json!({"protocolVersion": message["params"]["protocolVersion"], "capabilities": {}, "serverInfo": {"name": "test", "version": "0"}})
        } else {
            serde_json::json!({})
        };
        Reply::json(
            serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}))
                .unwrap(),
        )
    })
}

/// Something the test server saw happen.
#[derive(Debug, Clone)]
pub enum Event {
    /// A request arrived (its index in the records).
    Received(usize),
    /// A hanging request was dropped: its connection closed.
    Dropped(usize, Instant),
}

/// A real HTTPS server with mutual TLS, recording requests.
pub struct TestServer {
    pub addr: SocketAddr,
    pub records: Arc<Mutex<Vec<Recorded>>>,
    pub connections: Arc<AtomicUsize>,
    events: mpsc::UnboundedReceiver<Event>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct DropReport(usize, mpsc::UnboundedSender<Event>);

impl Drop for DropReport {
    fn drop(&mut self) {
        let _ = self.1.send(Event::Dropped(self.0, Instant::now()));
    }
}

impl TestServer {
    /// Serves `config` on 127.0.0.1 (a free port), answering with `handler`.
    pub async fn start(config: Arc<rustls::ServerConfig>, handler: Handler) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let records = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let (tx, events) = mpsc::unbounded_channel();
        let acceptor = TlsAcceptor::from(config);
        let task = {
            let records = records.clone();
            let connections = connections.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        return;
                    };
                    connections.fetch_add(1, Ordering::SeqCst);
                    let acceptor = acceptor.clone();
                    let records = records.clone();
                    let handler = handler.clone();
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        let tls = match acceptor.accept(tcp).into_fallible().await {
                            Ok(tls) => tls,
                            Err((_, mut tcp)) => {
                                // Refused: the alert is written; read what the client sent
                                // until it closes, so that closing sends no reset that would
                                // destroy the alert before the client reads it.
                                let _ = tcp.shutdown().await;
                                let mut sink = [0u8; 4096];
                                let _ = tokio::time::timeout(Duration::from_secs(5), async {
                                    while let Ok(n) = tcp.read(&mut sink).await {
                                        if n == 0 {
                                            break;
                                        }
                                    }
                                })
                                .await;
                                return;
                            }
                        };
                        let service = service_fn(move |request: hyper::Request<Incoming>| {
                            let records = records.clone();
                            let handler = handler.clone();
                            let tx = tx.clone();
                            async move {
                                let (parts, body) = request.into_parts();
                                let body = body.collect().await?.to_bytes().to_vec();
                                let headers = parts
                                    .headers
                                    .iter()
                                    .map(|(n, v)| {
                                        (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned())
                                    })
                                    .collect();
                                let recorded = Recorded { headers, body };
                                let reply = handler(&recorded);
                                let index = {
                                    let mut records = records.lock().unwrap();
                                    records.push(recorded);
                                    records.len() - 1
                                };
                                let _ = tx.send(Event::Received(index));
                                match reply {
                                    Reply::Hang => {
                                        let _report = DropReport(index, tx.clone());
                                        std::future::pending::<()>().await;
                                        unreachable!()
                                    }
                                    Reply::Body {
                                        status,
                                        content_type,
                                        body,
                                        delay,
                                    } => {
                                        tokio::time::sleep(delay).await;
                                        Ok::<_, hyper::Error>(
                                            hyper::Response::builder()
                                                .status(status)
                                                .header("content-type", content_type)
                                                .body(Full::new(Bytes::from(body)))
                                                .unwrap(),
                                        )
                                    }
                                }
                            }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(tls), service)
                            .await;
                    });
                }
            })
        };
        Self {
            addr,
            records,
            connections,
            events,
            task,
        }
    }

    /// `127.0.0.1:PORT`, as given to `--server`.
    pub fn server(&self) -> String {
        self.addr.to_string()
    }

    /// The next event, within 10 s.
    pub async fn event(&mut self) -> Event {
        tokio::time::timeout(Duration::from_secs(10), self.events.recv())
            .await
            .expect("no event from the test server within 10 s")
            .expect("test server gone")
    }

    /// Waits for the next request and returns what was recorded.
    pub async fn received(&mut self) -> Recorded {
        loop {
            if let Event::Received(index) = self.event().await {
                return self.records.lock().unwrap()[index].clone();
            }
        }
    }

    pub fn recorded(&self) -> Vec<Recorded> {
        self.records.lock().unwrap().clone()
    }
}

/// A port on 127.0.0.1 where nothing listens.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The `rat` binary running as a harness runs it.
pub struct Rat {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
}

impl Rat {
    /// Starts `rat --server SERVER --bundle DIR` with extra arguments, proxies unset.
    pub fn start(server: &str, bundle: &Path, extra: &[&str]) -> Self {
        Self::start_with_env(server, bundle, extra, &[])
    }

    /// [`Rat::start`] with environment variables set after the proxies are unset.
    pub fn start_with_env(
        server: &str,
        bundle: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_rat"));
        command
            .arg("--server")
            .arg(server)
            .arg("--bundle")
            .arg(bundle)
            .args(extra)
            .env_remove("HTTPS_PROXY")
            .env_remove("https_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .env_remove("ALL_PROXY")
            .env_remove("all_proxy")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy");
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut stderr_pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stderr_reader = {
            let stderr = stderr.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr_pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    stderr.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            })
        };
        Self {
            child,
            stdin,
            stdout: Some(stdout),
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    /// Writes one line (a `\n` is added).
    pub async fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin closed");
        stdin.write_all(line).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Closes the harness's end of rat's stdout: rat's next write fails.
    pub fn close_stdout(&mut self) {
        self.stdout = None;
    }

    /// Closes stdin: the harness leaving.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line of stdout, without its `\n`, within 10 s.
    pub async fn line(&mut self) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(
            Duration::from_secs(10),
            self.stdout
                .as_mut()
                .expect("stdout closed")
                .read_line(&mut line),
        )
        .await
        .unwrap_or_else(|_| panic!("no line from rat within 10 s; stderr:\n{}", self.stderr()))
        .unwrap();
        assert!(n > 0, "rat closed stdout; stderr:\n{}", self.stderr());
        assert!(line.ends_with('\n'));
        line.pop();
        line
    }

    /// Whether stdout has a line within `wait`.
    pub async fn line_within(&mut self, wait: Duration) -> Option<String> {
        let mut line = String::new();
        match tokio::time::timeout(
            wait,
            self.stdout
                .as_mut()
                .expect("stdout closed")
                .read_line(&mut line),
        )
        .await
        {
            Ok(Ok(n)) if n > 0 => {
                line.pop();
                Some(line)
            }
            _ => None,
        }
    }

    /// What rat wrote on stderr, once it holds `needle` (within 10 s; all of it otherwise).
    pub async fn wait_stderr(&self, needle: &str) -> String {
        for _ in 0..200 {
            let stderr = self.stderr();
            if stderr.contains(needle) {
                return stderr;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.stderr()
    }

    /// What rat wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Waits for rat to exit, within 10 s; returns its status and the rest of its stdout.
    pub async fn exit(&mut self) -> (std::process::ExitStatus, String) {
        let mut rest = String::new();
        let status = tokio::time::timeout(Duration::from_secs(10), async {
            if let Some(stdout) = self.stdout.as_mut() {
                stdout.read_to_string(&mut rest).await.unwrap();
            }
            self.child.wait().await.unwrap()
        })
        .await
        .expect("rat did not exit within 10 s");
        // Everything rat wrote on stderr, up to its end.
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), reader).await;
        }
        (status, rest)
    }
}

/// A JSON-RPC request line.
pub fn request(id: serde_json::Value, method: &str, params: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(
        &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .unwrap()
}

/// A JSON-RPC notification line.
pub fn notification(method: &str, params: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params}))
        .unwrap()
}

/// Lines received in any order, sorted, for answers whose order is not part of the contract.
pub fn sorted(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines
}
