//! `rat-tool check`: a running ratd, step by step, as a harness reaches it
//! (`docs/design/bundles.md`, `rat-tool check`).
//!
//! Files (the checks of `bundle inspect` on the client directory), network (the address
//! answers), TLS (why a handshake fails: in TLS 1.3 a refusal shows only on the first read, so
//! it reads before concluding), MCP (initialize with rmcp's client over reqwest, as a harness
//! author would write it), tools (names and descriptions). It calls no tool: listing windows
//! would create the session.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rat_wire::connect::{ENDPOINT_PATH, ServerArgs};
use rat_wire::mtls::{self, ClientSide, LoadedSide};
use rmcp::ServiceExt;
use rmcp::model::{ClientConfig, Implementation};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rustls::pki_types::ServerName;
use rustls::{CertificateError, Error as TlsError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::bundle::{Failure, inspect_side};

/// Bounds reaching the address of ratd, and the TLS step.
const DIAL_TIMEOUT: Duration = Duration::from_secs(10);
/// Bounds each MCP step, as rat bounds a request.
const MCP_TIMEOUT: Duration = Duration::from_secs(30);
/// The width instructions and descriptions are wrapped to.
const TEXT_WIDTH: usize = 100;

/// Writes `text` now: each step shows as it runs.
fn emit(out: &mut impl Write, text: &str) {
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn ok(out: &mut impl Write, line: &str) {
    emit(out, &format!("  ok    {line}\n"));
}

fn fail(out: &mut impl Write, step: &str, line: &str) -> Failure {
    emit(out, &format!("  FAIL  {line}\n"));
    format!("check failed at step {step}")
}

/// What ratd told through MCP, kept for the verdict and for `--verbose`.
pub(crate) struct Served {
    /// The MCP instructions, if any.
    instructions: Option<String>,
    /// rat's entry in the MCP `capabilities.experimental` (what the terminals lose, by name).
    capability: serde_json::Map<String, serde_json::Value>,
    /// Each tool: its name and description.
    tools: Vec<(String, String)>,
}

/// Runs the steps, stopping at the first failure; then the verdict, then (with `verbose`) the
/// instructions and the tool descriptions, as agents read them.
pub(crate) async fn check(
    out: &mut impl Write,
    args: &ServerArgs,
    verbose: bool,
) -> Result<(), Failure> {
    let client = files(out, args)?;
    let tcp = network(out, args).await?;
    tls(out, args, &client, tcp).await?;
    let served = mcp(out, args, &client).await?;
    verdict(out, args, &served);
    if verbose {
        details(out, &served);
    } else {
        emit(
            out,
            "(rat-tool check --verbose also prints the instructions and each tool's description)\n",
        );
    }
    Ok(())
}

/// The verdict, once every step passed: each line of it is here. What the terminals lose (read
/// back by name from the capabilities ratd sent, as a harness gets them) is a WARN line each,
/// naming what is lost and the fix: ratd serves, but not everything an agent relies on holds.
fn verdict(out: &mut impl Write, args: &ServerArgs, served: &Served) {
    let lost = rat_core::catalog::degradations(&served.capability);
    for line in &lost {
        emit(out, &format!("  WARN  {line}\n"));
    }
    emit(
        out,
        &format!("ratd at {} serves this client.\n", args.server),
    );
}

/// The instructions and the tool descriptions, as agents read them.
fn details(out: &mut impl Write, served: &Served) {
    match served.instructions.as_deref() {
        Some(instructions) if !instructions.trim().is_empty() => {
            emit(out, "Instructions\n");
            emit(out, &wrap(instructions, "    ", "    "));
        }
        _ => emit(out, "No instructions\n"),
    }
    emit(out, "Tool descriptions\n");
    for (name, description) in &served.tools {
        emit(
            out,
            &wrap(&format!("{name}: {description}"), "    ", "      "),
        );
    }
}

/// The client directory, checked as rat checks it at startup.
fn files(out: &mut impl Write, args: &ServerArgs) -> Result<ClientSide, Failure> {
    emit(out, &format!("Files: {}\n", args.bundle.display()));
    let mut text = String::new();
    let side = inspect_side(&mut text, &args.bundle);
    emit(out, &text);
    match side {
        None => Err("check failed at step Files".to_owned()),
        Some(LoadedSide::Client(client)) => Ok(client),
        Some(LoadedSide::Server(_)) => Err(fail(
            out,
            "Files",
            "role: this is the server directory of the bundle, give a client directory (DIR/clients/NAME)",
        )),
    }
}

/// The address answers (TCP). The connection is kept for the TLS step, so that ratd sees one
/// connection, not an extra one closed before any handshake (which it would log).
async fn network(
    out: &mut impl Write,
    args: &ServerArgs,
) -> Result<tokio::net::TcpStream, Failure> {
    emit(out, "Network\n");
    match connect_tcp(args).await {
        Ok(stream) => {
            ok(out, &format!("{} answers (TCP)", args.server));
            Ok(stream)
        }
        Err(reason) => Err(fail(
            out,
            "Network",
            &format!("{} does not answer: {reason}", args.server),
        )),
    }
}

async fn connect_tcp(args: &ServerArgs) -> Result<tokio::net::TcpStream, String> {
    let address = (args.server.host(), args.server.port());
    match tokio::time::timeout(DIAL_TIMEOUT, tokio::net::TcpStream::connect(address)).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {} s", DIAL_TIMEOUT.as_secs())),
    }
}

/// ratd and this client accept each other. In TLS 1.3 a client completes its handshake before
/// the server checked its certificate: a refusal only shows on the first read, so a request is
/// sent and its answer read before concluding.
async fn tls(
    out: &mut impl Write,
    args: &ServerArgs,
    client: &ClientSide,
    tcp: tokio::net::TcpStream,
) -> Result<(), Failure> {
    emit(out, "TLS\n");
    // Any name: the host name is not checked (the server certificate carries none).
    let name = ServerName::try_from(args.server.host().to_owned())
        .unwrap_or_else(|_| ServerName::try_from("ratd").expect("a valid DNS name"));
    let connector = tokio_rustls::TlsConnector::from(client.rustls_config());
    let attempt = async {
        let mut stream = connector
            .connect(name, tcp)
            .await
            .map_err(Refusal::Handshake)?;
        let tenant = mtls::peer_name(stream.get_ref().1);
        let request = format!(
            "GET {ENDPOINT_PATH} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            args.server
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(Refusal::Read)?;
        let mut first = [0u8; 64];
        let n = stream.read(&mut first).await.map_err(Refusal::Read)?;
        if n == 0 {
            return Err(Refusal::Closed);
        }
        Ok(tenant)
    };
    match tokio::time::timeout(DIAL_TIMEOUT, attempt).await {
        Err(_) => Err(fail(
            out,
            "TLS",
            &format!("ratd did not answer within {} s", DIAL_TIMEOUT.as_secs()),
        )),
        Ok(Err(refusal)) => Err(fail(out, "TLS", &refusal.explain())),
        Ok(Ok(tenant)) => {
            ok(
                out,
                &format!(
                    "ratd serves tenant {}, and accepts this client as session {}",
                    tenant.as_deref().unwrap_or("(unnamed)"),
                    client.client_name()
                ),
            );
            Ok(())
        }
    }
}

/// Why the TLS step failed.
enum Refusal {
    /// The handshake failed: this client refused the server, or the handshake itself failed.
    Handshake(std::io::Error),
    /// The first read (or the write before it) failed: ratd refused this client.
    Read(std::io::Error),
    /// ratd closed the connection without answering.
    Closed,
}

fn tls_error(e: &std::io::Error) -> Option<&TlsError> {
    e.get_ref()?.downcast_ref::<TlsError>()
}

impl Refusal {
    fn explain(&self) -> String {
        match self {
            Refusal::Handshake(e) => match tls_error(e) {
                Some(TlsError::InvalidCertificate(cert)) => {
                    format!("this client refused the server: {}", server_refusal(cert))
                }
                Some(TlsError::AlertReceived(alert)) => explain_alert(*alert),
                // Records that are not TLS: a plain HTTP server, or another protocol.
                Some(TlsError::InvalidMessage(_)) => {
                    "TLS handshake failed: the server's answer is not TLS (a server other than ratd at this address?)".to_owned()
                }
                Some(other) => format!("TLS handshake failed: {other}"),
                None if matches!(
                    e.kind(),
                    std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset
                ) =>
                {
                    "TLS handshake failed: the server closed the connection before the handshake ended (a server other than ratd at this address?)".to_owned()
                }
                None => format!("TLS handshake failed: {e}"),
            },
            Refusal::Read(e) => match tls_error(e) {
                Some(TlsError::AlertReceived(alert)) => explain_alert(*alert),
                Some(other) => format!("ratd closed the connection: {other}"),
                None => format!("ratd closed the connection: {e}"),
            },
            Refusal::Closed => {
                "ratd closed the connection without answering (is it ratd at this address?)"
                    .to_owned()
            }
        }
    }
}

fn explain_alert(alert: rustls::AlertDescription) -> String {
    match mtls::refusal_reason(alert) {
        Some(reason) => format!("ratd refused this client: {reason}"),
        None => format!("ratd refused the handshake (alert {alert:?})"),
    }
}

fn server_refusal(e: &CertificateError) -> String {
    match e {
        CertificateError::UnknownIssuer => {
            "its certificate is not from this bundle (a server of another bundle or another tenant)"
                .to_owned()
        }
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            "its certificate is not a server certificate (serverAuth)".to_owned()
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("its certificate expired ({e})")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            format!("its certificate is not valid yet ({e})")
        }
        // webpki's own reasons (a CA certificate presented as the server's, as a self-signed
        // test server does) print as Rust debug output: told in words, the reason kept after.
        CertificateError::Other(reason) => format!(
            "its certificate is not a server certificate of this bundle (a server other than ratd at this address?): {reason:?}"
        ),
        other => format!("its certificate is refused: {other}"),
    }
}

/// Initialize with rmcp's client, as a harness author would write it, then list the tools.
async fn mcp(
    out: &mut impl Write,
    args: &ServerArgs,
    client: &ClientSide,
) -> Result<Served, Failure> {
    emit(out, "MCP\n");
    let http = reqwest::Client::builder()
        .use_preconfigured_tls(Arc::unwrap_or_clone(client.rustls_config()))
        .timeout(MCP_TIMEOUT)
        .build()
        .map_err(|e| fail(out, "MCP", &format!("cannot build the HTTP client: {e}")))?;
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(args.url()),
    );
    let mut info = ClientConfig::default();
    info.client_info = Implementation::new("rat-tool", env!("CARGO_PKG_VERSION"));
    let service = match tokio::time::timeout(MCP_TIMEOUT, info.serve(transport)).await {
        Err(_) => {
            return Err(fail(
                out,
                "MCP",
                &format!(
                    "ratd did not answer initialize within {} s",
                    MCP_TIMEOUT.as_secs()
                ),
            ));
        }
        Ok(Err(e)) => {
            return Err(fail(
                out,
                "MCP",
                &format!("initialize failed: {}", initialize_error(&e)),
            ));
        }
        Ok(Ok(service)) => service,
    };
    let Some(peer) = service.peer_info() else {
        let _ = service.cancel().await;
        return Err(fail(out, "MCP", "ratd sent no server information"));
    };
    let (name, version, title) = match &peer.server_info {
        Some(i) => (
            i.name.clone(),
            i.version.clone(),
            i.title.clone().unwrap_or_default(),
        ),
        None => ("(no name)".to_owned(), String::new(), String::new()),
    };
    ok(
        out,
        &format!(
            "{name} {version}, {title:?}, protocol {}",
            peer.protocol_version
        ),
    );
    let instructions = peer.instructions.clone();
    let capability = peer
        .capabilities
        .experimental
        .as_ref()
        .and_then(|entries| entries.get(rat_core::catalog::CAPABILITY))
        .cloned()
        .unwrap_or_default();

    emit(out, "Tools\n");
    let tools = tokio::time::timeout(MCP_TIMEOUT, service.list_all_tools()).await;
    let result = match tools {
        Err(_) => Err(fail(
            out,
            "Tools",
            &format!(
                "ratd did not list its tools within {} s",
                MCP_TIMEOUT.as_secs()
            ),
        )),
        Ok(Err(e)) => Err(fail(
            out,
            "Tools",
            &format!("tools/list failed: {}", innermost(&e)),
        )),
        Ok(Ok(tools)) => {
            ok(
                out,
                &if tools.len() == 1 {
                    "1 tool".to_owned()
                } else {
                    format!("{} tools", tools.len())
                },
            );
            Ok(Served {
                instructions,
                capability,
                tools: tools
                    .iter()
                    .map(|tool| {
                        let description = tool.description.as_deref().unwrap_or("");
                        (tool.name.to_string(), description.to_owned())
                    })
                    .collect(),
            })
        }
    };
    let _ = service.cancel().await;
    result
}

/// Why initialize failed: for a transport failure, its innermost reason (rmcp's message names
/// the Rust types of its transport).
fn initialize_error(e: &rmcp::service::ClientInitializeError) -> String {
    match e {
        rmcp::service::ClientInitializeError::TransportError { error, .. } => {
            innermost(error.error.as_ref())
        }
        other => other.to_string(),
    }
}

/// The message of the innermost source of `e`: the reason, without the layers of the client's
/// transport (whose messages name Rust types).
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut e = e;
    while let Some(source) = e.source() {
        e = source;
    }
    e.to_string()
}

/// `text` wrapped to [`TEXT_WIDTH`], its first line indented by `first`, the others by `rest`.
fn wrap(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_owned();
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > TEXT_WIDTH && !line.trim().is_empty() {
            out += &line;
            out.push('\n');
            line = rest.to_owned();
        }
        if !line.trim().is_empty() {
            line.push(' ');
        }
        line += word;
    }
    out + &line + "\n"
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wraps_at_100_columns() {
        let text = "word ".repeat(30);
        let wrapped = wrap(&text, "    ", "      ");
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| l.len() <= 100));
        assert!(lines[0].starts_with("    word") && lines[1].starts_with("      word"));
    }
}
