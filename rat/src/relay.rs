//! The relay: lines in, one HTTPS POST each to `https://HOST:PORT/mcp`, response bodies out
//! (`docs/design/bridge.md`: Relay, Cancellation, Errors).
//!
//! - Each line is posted exactly as read; each body is written exactly as received, on a line of
//!   its own, as it comes. Requests are relayed concurrently; a single writer task writes one
//!   message at a time, so messages never interleave.
//! - State: the version negotiated by `initialize` (older protocols) and the calls in flight, by
//!   identifier, registered before they are relayed and dropped once done. Nothing else.
//! - `notifications/cancelled` ends the HTTP request of the call it names (dropping the request
//!   closes its connection, which ratd propagates to the call); nothing is written for that call;
//!   the notification is relayed all the same.
//! - Stopping (end of input, a signal, stdout closed) ends the calls in flight rather than
//!   waiting for them.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, warn};

use rat_wire::tool::call_wait;

mod answers;
mod exchange;

use crate::failure::{PARSE_ERROR, TRANSPORT_ERROR, error_response};
use crate::headers::ToolHeaders;
use crate::lines::{Line, LineReader};
use crate::message::{Kind, Message, Unrelayable, id_key};

/// The time a request gets: 30 seconds, above the 10 ratd gives a tool call, so that a
/// connection hanging is cut rather than waited for (`docs/design/bridge.md`, Errors).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

pub use crate::failure::CONNECT_TIMEOUT;

/// What the relay needs: where ratd is, how to reach it, and the tool schemas.
#[derive(Debug, Clone)]
pub struct Config {
    /// `HOST:PORT` as given to `--server` (an IPv6 address in brackets), used in the URL and in
    /// every message.
    pub server: String,
    /// The client TLS configuration of the bundle (rat-wire's mtls); its ALPN is set to
    /// `http/1.1` here.
    pub tls: rustls::ClientConfig,
    /// The `x-mcp-header` annotations of the tools, from rat-wire's schemas.
    pub tools: ToolHeaders,
    /// The time a request gets ([`REQUEST_TIMEOUT`]; tests shorten it).
    pub request_timeout: Duration,
}

/// Why the relay stopped.
#[derive(Debug)]
pub enum Stop {
    /// The end of stdin: the harness left.
    EndOfInput,
    /// A signal (`SIGTERM`, `SIGINT`), named.
    Signal(String),
    /// stdin failed.
    InputError(io::Error),
    /// stdout failed (the harness closed it).
    OutputError(io::Error),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::EndOfInput => f.write_str("end of stdin"),
            Stop::Signal(name) => write!(f, "{name}"),
            Stop::InputError(e) => write!(f, "reading stdin failed: {e}"),
            Stop::OutputError(e) => write!(f, "writing stdout failed: {e}"),
        }
    }
}

/// The HTTP client could not be built from the TLS configuration.
#[derive(Debug, thiserror::Error)]
#[error("building the HTTPS client: {0}")]
pub struct BuildError(#[source] reqwest::Error);

/// The relay between a harness and ratd. Build with [`Relay::new`], run with [`Relay::run`].
#[derive(Debug)]
pub struct Relay {
    shared: Arc<RelayState>,
}

/// What the tasks of one relay share: ratd's address and the HTTP client reaching it, the tool
/// headers, the version negotiated and the calls in flight.
#[derive(Debug)]
struct RelayState {
    server: String,
    url: String,
    client: reqwest::Client,
    tools: ToolHeaders,
    request_timeout: Duration,
    /// The version the result of `initialize` negotiated (protocols before 2026-07-28).
    negotiated: Mutex<Option<String>>,
    /// The calls in flight: identifier key -> (registration number, its cancellation).
    in_flight: Mutex<HashMap<String, (u64, CancellationToken)>>,
    registrations: AtomicU64,
}

impl Relay {
    /// Builds the relay and its own HTTP client (never a process-wide default): the bundle's TLS
    /// configuration with ALPN `http/1.1`, HTTP/1.1 only, no redirects, proxies from the
    /// environment honoured (`HTTPS_PROXY`, `NO_PROXY`, as reqwest reads them). Contacts nobody.
    ///
    /// # Errors
    /// [`BuildError`] when reqwest refuses the configuration.
    pub fn new(config: Config) -> Result<Self, BuildError> {
        let mut tls = config.tls;
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .http1_only()
            .connect_timeout(CONNECT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("rat/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(BuildError)?;
        Ok(Self {
            shared: Arc::new(RelayState {
                url: format!("https://{}{}", config.server, crate::ENDPOINT_PATH),
                server: config.server,
                client,
                tools: config.tools,
                request_timeout: config.request_timeout,
                negotiated: Mutex::new(None),
                in_flight: Mutex::new(HashMap::new()),
                registrations: AtomicU64::new(0),
            }),
        })
    }

    /// Relays `input` (newline-delimited JSON-RPC) to ratd and ratd's answers to `output`, until
    /// the end of `input`, an error of either, or `shutdown` resolving (to the name of what
    /// stopped it). The calls in flight are then ended, not waited for.
    pub async fn run<R, W, S>(self, input: R, output: W, shutdown: S) -> Stop
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
        S: Future<Output = String>,
    {
        let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
        let output_failed = CancellationToken::new();
        let writer = tokio::spawn(write_messages(rx, output, output_failed.clone()));
        let calls = TaskTracker::new();
        let stopping = CancellationToken::new();
        let mut lines = LineReader::new(input);
        tokio::pin!(shutdown);

        let stop = loop {
            let line = tokio::select! {
                biased;
                name = &mut shutdown => break Stop::Signal(name),
                () = output_failed.cancelled() => break Stop::OutputError(io::Error::other("stdout closed")),
                line = lines.next_line() => line,
            };
            match line {
                Ok(None) => break Stop::EndOfInput,
                Err(e) => break Stop::InputError(e),
                Ok(Some(Line::TooLong { len })) => {
                    warn!(bytes = len, "message over 16 MiB, not relayed");
                    answer(
                        &tx,
                        &Value::Null,
                        TRANSPORT_ERROR,
                        &Unrelayable::TooLong.to_string(),
                    );
                }
                Ok(Some(Line::Message(bytes))) => {
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    self.dispatch(bytes, &tx, &calls, &stopping);
                }
            }
        };

        stopping.cancel();
        calls.close();
        calls.wait().await;
        drop(tx);
        // What was answered before the stop is still written, unless stdout does not take it.
        let written = tokio::time::timeout(Duration::from_secs(2), writer).await;
        match (stop, written) {
            (Stop::OutputError(_), Ok(Ok(Err(error)))) => Stop::OutputError(error),
            (stop, _) => stop,
        }
    }

    /// Reads one line as a message and starts relaying it.
    fn dispatch(
        &self,
        bytes: Vec<u8>,
        tx: &mpsc::UnboundedSender<Bytes>,
        calls: &TaskTracker,
        stopping: &CancellationToken,
    ) {
        let message = match Message::parse(&bytes) {
            Ok(message) => message,
            Err(e) => {
                warn!(error = %e, "line not relayed");
                answer(tx, &Value::Null, PARSE_ERROR, &e.to_string());
                return;
            }
        };
        let shared = &self.shared;
        let headers = shared.headers_for(&message);
        let timeout = shared.request_timeout + wait_of(&message.value);
        let body = Bytes::from(bytes);

        match message.kind {
            Kind::Request { id, method } => {
                let key = id_key(&id);
                let registration = shared.registrations.fetch_add(1, Ordering::Relaxed);
                let token = stopping.child_token();
                shared
                    .in_flight
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(key.clone(), (registration, token.clone()));
                let shared = Arc::clone(shared);
                let tx = tx.clone();
                let stopping = stopping.clone();
                calls.spawn(async move {
                    tokio::select! {
                        () = token.cancelled() => {
                            if !stopping.is_cancelled() {
                                debug!(method, id = %key, "call cancelled");
                            }
                        }
                        () = shared.request(&id, &key, &method, body, headers, timeout, &tx) => {}
                    }
                    shared.unregister(&key, registration);
                });
            }
            Kind::Batch { requests } => {
                let shared = Arc::clone(shared);
                let tx = tx.clone();
                let stopping = stopping.clone();
                calls.spawn(async move {
                    tokio::select! {
                        () = stopping.cancelled() => {}
                        () = shared.batch(requests, body, headers, timeout, &tx) => {}
                    }
                });
            }
            Kind::Notification { method } => {
                if method == "notifications/cancelled"
                    && let Some(target) =
                        message.value.get("params").and_then(|p| p.get("requestId"))
                {
                    shared.cancel(&id_key(target));
                }
                let shared = Arc::clone(shared);
                let stopping = stopping.clone();
                calls.spawn(async move {
                    tokio::select! {
                        () = stopping.cancelled() => {}
                        () = shared.notification(&method, body, headers, timeout) => {}
                    }
                });
            }
            Kind::Other => {
                let shared = Arc::clone(shared);
                let stopping = stopping.clone();
                calls.spawn(async move {
                    tokio::select! {
                        () = stopping.cancelled() => {}
                        () = shared.notification("(response)", body, headers, timeout) => {}
                    }
                });
            }
        }
    }
}

/// The wait a `tools/call` adds to its time, read from its arguments as ratd reads them, by
/// the table of tools ([`call_wait`]: a wait_window call's `max_seconds`, 20 when absent, 1 to
/// 50; a send_text or send_keys call's `wait_seconds`, 0 when absent, 50 at most), so that rat
/// names no tool. Arguments ratd does not accept are refused by it at once: they get the
/// longest wait. A batch (protocol 2025-03-26), whose calls ratd runs together, gets the longest
/// wait of its calls.
fn wait_of(message: &Value) -> Duration {
    if let Value::Array(messages) = message {
        return messages.iter().map(wait_of).max().unwrap_or_default();
    }
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return Duration::ZERO;
    }
    let Some(params) = message.get("params") else {
        return Duration::ZERO;
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Duration::ZERO;
    };
    let none = serde_json::Map::new();
    let arguments = params
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&none);
    call_wait(name, arguments)
}

/// Queues rat's own answer (an error) for the writer.
fn answer(tx: &mpsc::UnboundedSender<Bytes>, id: &Value, code: i64, message: &str) {
    let _ = tx.send(Bytes::from(error_response(id, code, message)));
}

/// The writer: one message at a time, each followed by `\n` and flushed.
async fn write_messages<W: AsyncWrite + Unpin>(
    mut rx: mpsc::UnboundedReceiver<Bytes>,
    mut output: W,
    failed: CancellationToken,
) -> io::Result<()> {
    while let Some(message) = rx.recv().await {
        let written = async {
            output.write_all(&message).await?;
            output.write_all(b"\n").await?;
            output.flush().await
        }
        .await;
        if let Err(e) = written {
            failed.cancel();
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wait_window_gets_its_wait_on_top() {
        let call = |arguments: Value| {
            wait_of(
                &json!({"method": "tools/call", "params": {"name": "wait_window", "arguments": arguments}}),
            )
        };
        assert_eq!(call(json!({"window": "w"})), Duration::from_secs(20));
        assert_eq!(
            call(json!({"window": "w", "max_seconds": 5})),
            Duration::from_secs(5)
        );
        assert_eq!(
            call(json!({"window": "w", "max_seconds": 500})),
            Duration::from_secs(50)
        );
        assert_eq!(
            call(json!({"window": "w", "max_seconds": "x"})),
            Duration::from_secs(50)
        );
        assert_eq!(
            wait_of(
                &json!({"method": "tools/call", "params": {"name": "read_window", "arguments": {}}})
            ),
            Duration::ZERO
        );
        let batch = json!([
            {"method": "tools/call", "params": {"name": "read_window", "arguments": {}}},
            {"method": "tools/call", "params": {"name": "wait_window", "arguments": {"window": "w", "max_seconds": 40}}},
            {"method": "tools/call", "params": {"name": "wait_window", "arguments": {"window": "w", "max_seconds": 5}}},
            {"method": "notifications/initialized"}
        ]);
        assert_eq!(wait_of(&batch), Duration::from_secs(40));
        let send = |tool: &str, arguments: Value| {
            wait_of(
                &json!({"method": "tools/call", "params": {"name": tool, "arguments": arguments}}),
            )
        };
        assert_eq!(send("send_text", json!({"window": "w"})), Duration::ZERO);
        assert_eq!(
            send("send_text", json!({"window": "w", "wait_seconds": 7})),
            Duration::from_secs(7)
        );
        assert_eq!(
            send("send_keys", json!({"wait_seconds": 500})),
            Duration::from_secs(50)
        );
        assert_eq!(
            send("send_keys", json!({"wait_seconds": "x"})),
            Duration::from_secs(50)
        );
        assert_eq!(wait_of(&json!([])), Duration::ZERO);
    }
}
