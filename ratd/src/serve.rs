//! The door: TCP listeners, the TLS accept loop, HTTP/1.1 connections with their timeouts, and
//! the routing of each request to an rmcp service built for it (`docs/design/transport.md`).
//!
//! Shape of a connection: TCP accept, then the TLS handshake with the bundle's rustls
//! configuration (TLS 1.3, a client certificate of the bundle's CA required, ALPN http/1.1),
//! bounded by [`HANDSHAKE_TIMEOUT`] and counted apart from clients (`strangers`); the client
//! name is read from the verified certificate; then hyper serves HTTP/1.1 on the connection, each request going to `route`. A client
//! without a certificate of the bundle never gets past the handshake: no handler runs for it.
//! Its connection gets the alert, a FIN, and is read until the client closes it (at most
//! [`REFUSAL_LINGER`]), so that no TCP reset destroys the alert before the client reads it.
//!
//! Timeouts, as Go's net/http has them and hyper does not: the TLS handshake takes
//! [`HANDSHAKE_TIMEOUT`] at most, the header of each request [`READ_HEADER_TIMEOUT`] (for a
//! request after the first, counted from its first byte), a connection waiting for its next request is closed after
//! [`IDLE_TIMEOUT`], and nothing bounds reading a body or writing a response (a 4 MiB request
//! on a slow link must not be cut). hyper's own header timeout starts as soon as a kept-alive
//! connection goes idle, which would cut kept-alive connections after 10 s: it is off, and
//! `Activity` keeps the deadlines instead.

mod accept;
mod activity;
mod listeners;
mod strangers;

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use crate::bodies::Body;
use crate::mcp::McpState;
use crate::peer::Peer;
pub(crate) use accept::accept_loop;
use activity::{Activity, ActivityIo};
pub(crate) use listeners::bind;
pub use strangers::MAX_HANDSHAKING;
use strangers::Place;

/// How long the header of each request may take: Go's ReadHeaderTimeout
/// (`docs/design/transport.md`, Timeouts).
pub const READ_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection may take from its accept to the end of its TLS handshake: a
/// handshake is two round trips, a second on the slowest links, and a lost packet adds the
/// first TCP retransmission timeout, one second (`docs/design/transport.md`, Timeouts).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a connection may wait for its next request before ratd closes it: Go's
/// IdleTimeout (`docs/design/transport.md`, Timeouts).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// The one path ratd serves (`docs/design/transport.md`, Serving), shared with its clients.
pub use rat_wire::connect::ENDPOINT_PATH;

/// The cap on connections of clients held at once (`--max-connections`), shared by every
/// listener: a permit per connection whose certificate was verified, given back when it
/// closes. Reaching it is logged at most once every 10 seconds, with how many times it was met
/// since the last line.
pub(crate) struct ConnectionCap {
    permits: Arc<tokio::sync::Semaphore>,
    most: usize,
    logged: Mutex<(Option<Instant>, u64)>,
    /// The most connections held in their handshake, by each listener: [`MAX_HANDSHAKING`],
    /// or what the open file limit leaves them.
    pub(crate) max_handshaking: usize,
}

impl ConnectionCap {
    pub(crate) fn new(most: usize, max_handshaking: usize) -> Self {
        Self {
            permits: Arc::new(tokio::sync::Semaphore::new(most.max(1))),
            most: most.max(1),
            logged: Mutex::new((None, 0)),
            max_handshaking,
        }
    }

    /// A place for the next connection, waited for at the cap.
    async fn acquire(&self) -> tokio::sync::OwnedSemaphorePermit {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return permit;
        }
        self.reached();
        self.permits
            .clone()
            .acquire_owned()
            .await
            .expect("the cap's semaphore is never closed")
    }

    fn reached(&self) {
        let mut logged = self.logged.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        logged.1 += 1;
        if logged
            .0
            .is_some_and(|last| now.duration_since(last) < RefusalLog::EVERY)
        {
            return;
        }
        let times = std::mem::take(&mut logged.1);
        logged.0 = Some(now);
        drop(logged);
        tracing::warn!(
            max_connections = self.most,
            times,
            "connection cap reached: new connections of clients wait after their handshake until one closes (--max-connections)"
        );
    }
}

/// One connection: the handshake, then HTTP/1.1 until the client closes it, a timeout, or a
/// stop (graceful first: requests in flight finish; then `hard_stop` drops it).
#[allow(clippy::too_many_arguments)]
async fn serve_connection(
    place: Place,
    cap: Arc<ConnectionCap>,
    tcp: TcpStream,
    addr: SocketAddr,
    acceptor: TlsAcceptor,
    shared: Arc<McpState>,
    refusals: Arc<RefusalLog>,
    stop: CancellationToken,
    hard_stop: CancellationToken,
) {
    // What the client sends first tells a TLS client from a plain HTTP one or a port probe.
    let deadline = place.deadline(tokio::time::Instant::now());
    let mut first = [0u8; 1];
    let peeked = tokio::select! {
        peeked = tokio::time::timeout_at(deadline, tcp.peek(&mut first)) => peeked,
        () = place.evicted.cancelled() => return,
        () = hard_stop.cancelled() => return,
    };
    match peeked {
        Ok(Ok(0)) | Ok(Err(_)) => {
            // Connected and closed with nothing sent (a port probe, a health check): not a
            // refusal, counted apart.
            return refusals.probe(addr);
        }
        Ok(Ok(_)) if first[0].is_ascii_uppercase() => {
            // GET, POST...: a TLS record starts with its type (22 for a handshake), never a
            // letter.
            refusals.note(addr, "a plain HTTP request to the HTTPS port");
            return answer_plain_http(tcp, &stop, &hard_stop).await;
        }
        Ok(Ok(_)) => {}
        Err(_) => {
            return refusals.note(addr, "nothing was sent within the handshake's 5 seconds");
        }
    }
    let handshake = acceptor.accept(tcp).into_fallible();
    let tls = tokio::select! {
        handshake = tokio::time::timeout_at(deadline, handshake) => {
            match handshake {
                Ok(Ok(tls)) => tls,
                Ok(Err((error, tcp))) => {
                    refusals.note(addr, &handshake_error(&error));
                    return linger_after_refusal(tcp, &stop, &hard_stop).await;
                }
                Err(_) => {
                    return refusals.note(addr, "the TLS handshake took more than its 5 seconds");
                }
            }
        }
        () = place.evicted.cancelled() => return,
        () = hard_stop.cancelled() => return,
    };
    let Some(client) = rat_wire::mtls::peer_client_name(tls.get_ref().1) else {
        // The verifier requires a client certificate of the bundle, whose names the bundle
        // checks: this is a bundle ratd's loader should not have accepted.
        return refusals.note(addr, "the client certificate names no valid client");
    };
    // A client now: it waits for a place under --max-connections, still counted among the
    // strangers meanwhile (so that clients waiting are bounded too), then leaves them.
    let _permit = tokio::select! {
        permit = cap.acquire() => permit,
        () = place.evicted.cancelled() => return,
        () = stop.cancelled() => return,
        () = hard_stop.cancelled() => return,
    };
    drop(place);
    let peer = Peer {
        client: client.into(),
        addr,
    };
    let activity = Arc::new(Activity::new());
    // A connection that sent nothing yet holds no HTTP buffers: hyper's (8 KiB to read, its
    // write buffer) are made once the first request's bytes arrive, so that thousands of idle
    // connections cost their TLS state only (docs/benchmarks.md, the door). Bytes rustls read
    // with the handshake are already there: no waiting then.
    let mut tls = tls;
    let buffered = tls
        .get_mut()
        .1
        .process_new_packets()
        .map_or(true, |state| state.plaintext_bytes_to_read() > 0);
    if !buffered {
        tokio::select! {
            ready = tls.get_ref().0.readable() => {
                if ready.is_err() {
                    return;
                }
            }
            () = activity.expired() => {
                tracing::debug!(%addr, "connection closed: nothing sent after the handshake");
                return;
            }
            () = stop.cancelled() => return,
            () = hard_stop.cancelled() => return,
        }
    }
    let io = TokioIo::new(ActivityIo {
        inner: tls,
        activity: activity.clone(),
    });
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |request: Request<Incoming>| {
            let shared = shared.clone();
            let peer = peer.clone();
            let busy = activity.begin_request();
            async move {
                let response = route(&shared, peer, request).await;
                drop(busy);
                Ok::<_, Infallible>(response)
            }
        })
    };
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(true)
        .serve_connection(io, service);
    tokio::pin!(connection);
    let mut graceful = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%addr, %error, "connection ended");
                }
                return;
            }
            () = stop.cancelled(), if !graceful => {
                graceful = true;
                connection.as_mut().graceful_shutdown();
            }
            () = activity.expired() => {
                tracing::debug!(%addr, "connection closed: idle or header timeout");
                return;
            }
            () = hard_stop.cancelled() => return,
        }
    }
}

/// The answer to a plain HTTP request on ratd's port, in plain HTTP, as Go's server gives it
/// ("Client sent an HTTP request to an HTTPS server."), with what to use instead.
pub const PLAIN_HTTP_ANSWER: &str = "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nClient sent an HTTP request to an HTTPS server: ratd serves https:// only, to clients presenting a client certificate of its bundle (run rat with the bundle's client directory, or rat-tool check to test).\n";

/// Answers a plain HTTP request with [`PLAIN_HTTP_ANSWER`], then lingers as after a refused
/// handshake, so that the client reads the answer rather than a reset.
async fn answer_plain_http(
    mut tcp: TcpStream,
    stop: &CancellationToken,
    hard_stop: &CancellationToken,
) {
    use tokio::io::AsyncWriteExt;
    let written =
        tokio::time::timeout(REFUSAL_LINGER, tcp.write_all(PLAIN_HTTP_ANSWER.as_bytes())).await;
    if matches!(written, Ok(Ok(()))) {
        linger_after_refusal(tcp, stop, hard_stop).await;
    }
}

/// A refused handshake's reason for the log: rustls' words, with the reason of a refusal of
/// ratd's own verifier (a client certificate naming no valid session) told whole rather than
/// in rustls' debug form.
fn handshake_error(error: &io::Error) -> String {
    use rustls::{CertificateError, Error};
    match error.get_ref().and_then(|e| e.downcast_ref::<Error>()) {
        Some(Error::InvalidCertificate(CertificateError::Other(other))) => {
            format!("invalid peer certificate: {other}")
        }
        _ => error.to_string(),
    }
}

/// How long a refused connection is kept open after its alert, for the client to read it
/// (see `linger_after_refusal`).
pub const REFUSAL_LINGER: Duration = Duration::from_secs(5);

/// After a refused handshake, whose alert rustls has written: closes the writing side (the
/// alert, then a FIN), then reads and discards what the client sends until it closes,
/// [`REFUSAL_LINGER`] at most, or until ratd stops.
///
/// Why: in TLS 1.3 a client finishes its side of the handshake before the server checked its
/// certificate, so a refused client may already have sent its request, and learns of the
/// refusal (unknown CA, certificate required, bad or expired certificate: the alerts of
/// rat-core's mtls) only on its first read. Closing a socket with unread data sends a TCP reset
/// instead of a FIN, and a reset can destroy the alert before the client reads it: the client
/// would then see "connection reset" instead of the reason. Memory per refused connection: one
/// 1 KiB buffer; time: [`REFUSAL_LINGER`].
async fn linger_after_refusal(
    mut tcp: TcpStream,
    stop: &CancellationToken,
    hard_stop: &CancellationToken,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let drain = async {
        // shutdown(SHUT_WR): the alert already written goes first, then the FIN.
        if tcp.shutdown().await.is_err() {
            return;
        }
        let mut sink = [0u8; 1024];
        while let Ok(read) = tcp.read(&mut sink).await {
            if read == 0 {
                break;
            }
        }
    };
    tokio::select! {
        _ = tokio::time::timeout(REFUSAL_LINGER, drain) => {}
        // A stop does not wait for refused clients.
        () = stop.cancelled() => {}
        () = hard_stop.cancelled() => {}
    }
}

/// Routes one request: `/mcp` to an rmcp service built for this request and bound to the
/// session of its client, anything else 404. rmcp answers GET and DELETE with 405 (stateless,
/// no event store), a missing Accept with 406. A JSON body is read here first
/// ([`crate::bodies`]): over 4 MiB, 413 (read to its end first, with [`TOO_LARGE`]); a batch
/// served message by message up to protocol 2025-03-26; a body that is no JSON-RPC message,
/// 400 saying why.
pub(crate) async fn route(
    shared: &Arc<McpState>,
    peer: Peer,
    mut request: Request<Incoming>,
) -> Response<Body> {
    if request.uri().path() != ENDPOINT_PATH {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(
                Full::new(Bytes::from_static(
                    b"404 page not found: ratd serves MCP at /mcp only\n",
                ))
                .boxed(),
            )
            .expect("a static response is valid");
    }
    let started = Instant::now();
    // Last seen, whatever the method (`docs/design/status-and-logs.md`, The status line).
    shared.status.seen(&peer.client);
    request.extensions_mut().insert(peer.clone());
    let (parts, body) = request.into_parts();
    let (tapped, method) = crate::service::requests::Tap::new(body);
    let service = shared.service_for(peer.clone());
    let mut batch = false;
    let response = if parts.method == http::Method::POST && is_json(&parts.headers) {
        // Read whole here, rather than by rmcp: a batch is served message by message, and a
        // body that is no JSON-RPC message is told as such (rmcp would answer 415).
        match crate::bodies::read_whole(tapped, crate::mcp::MAX_REQUEST_BODY_BYTES).await {
            crate::bodies::Read::Whole(body) if crate::bodies::is_batch(&body) => {
                batch = true;
                crate::bodies::serve_batch(
                    &parts,
                    &body,
                    shared.read_budget,
                    &shared.batches,
                    |request| service.handle(request),
                )
                .await
            }
            crate::bodies::Read::Whole(body) => {
                let response = service
                    .handle(Request::from_parts(parts, Full::new(body.clone())))
                    .await;
                if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
                    // The media type is right (checked above): rmcp did not read the body.
                    crate::bodies::not_a_message(&body)
                } else {
                    response
                }
            }
            crate::bodies::Read::TooLarge => {
                // The client is still sending: read it to the end so that it reads this
                // answer, not a connection reset (see MethodSeen::drain), then tell what to
                // do instead.
                method.drain(DRAIN_AFTER_413, DRAIN_IDLE).await;
                too_large()
            }
            crate::bodies::Read::Broken => {
                tracing::debug!(session = %peer.client, addr = %peer.addr, "request body cut: the client went away");
                return Response::builder()
                    .status(StatusCode::BAD_REQUEST)
                    .body(Full::new(Bytes::new()).boxed())
                    .expect("an empty response is valid");
            }
        }
    } else {
        // rmcp answers without reading the body: 405 for GET and DELETE, 415 for another
        // media type.
        service.handle(Request::from_parts(parts, tapped)).await
    };
    // One line per MCP request at debug level: never its parameters.
    tracing::debug!(
        session = %peer.client,
        addr = %peer.addr,
        method = if batch { "(batch)".to_owned() } else { method.method() },
        status = response.status().as_u16(),
        duration_ms = (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0,
        "MCP request"
    );
    response
}

/// Whether a request says its body is JSON (`Content-Type: application/json`, parameters
/// aside), the only media type MCP posts.
fn is_json(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// How much of a body over the limit is read and thrown away after a 413, in all: 64 MiB,
/// four times what rat relays in one message. Beyond, the connection is closed unread.
const DRAIN_AFTER_413: u64 = 64 * 1024 * 1024;

/// How long each piece of a body over the limit is waited for after a 413 (the header
/// timeout: `docs/design/transport.md`, Body limits).
const DRAIN_IDLE: Duration = READ_HEADER_TIMEOUT;

/// The text of a 413, replacing rmcp's: what the limit is, and how to do without it
/// (`docs/design/transport.md`, Body limits: 4 MiB of JSON per request).
pub(crate) const TOO_LARGE: &str = "request over 4 MiB of JSON (4194304 bytes), the most ratd reads: send a long text in parts, a send_text call each, and a large file in parts joined in a terminal (cat part1 part2 > file)\n";

fn too_large() -> Response<Body> {
    Response::builder()
        .status(StatusCode::PAYLOAD_TOO_LARGE)
        .header(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from_static(TOO_LARGE.as_bytes())).boxed())
        .expect("a static response is valid")
}

/// Handshakes refused, logged at most once every 10 seconds with the count of the others
/// (a public port gets scanned: `docs/design/transport.md`, Serving).
#[derive(Default)]
struct RefusalLog {
    state: Mutex<(Option<Instant>, u64)>,
}

impl RefusalLog {
    const EVERY: Duration = Duration::from_secs(10);

    /// A connection closed before sending anything: a port probe or a health check, not a
    /// refusal. At debug level only.
    fn probe(&self, addr: SocketAddr) {
        tracing::debug!(%addr, "connection closed with nothing sent (a port probe)");
    }

    fn note(&self, addr: SocketAddr, error: &str) {
        let mut state = self.state.lock().expect("refusal log lock");
        let now = Instant::now();
        match state.0 {
            Some(last) if now.duration_since(last) < Self::EVERY => state.1 += 1,
            _ => {
                let others = std::mem::take(&mut state.1);
                state.0 = Some(now);
                drop(state);
                if others == 0 {
                    tracing::info!(%addr, error, "TLS handshake refused");
                } else {
                    let others_text = if others == 1 {
                        "1 other".to_owned()
                    } else {
                        format!("{others} others")
                    };
                    tracing::info!(%addr, error, others, "TLS handshake refused ({others_text} since the last one logged)");
                }
            }
        }
    }
}
