//! Transport failures: what failed between rat and ratd, in the words `docs/design/bridge.md`
//! lists (Errors), and answered to the harness as a JSON-RPC error of code [`TRANSPORT_ERROR`].
//!
//! TLS 1.3 note: a server refusing the client certificate does so after the client considers the
//! handshake done, so the refusal (an alert) shows on the first read of the response. The alert
//! is found by walking the error chain, looking inside `io::Error`s too (their `source()` skips
//! the error they wrap).

use std::error::Error as StdError;
use std::io;
use std::time::Duration;

use rat_wire::words::{lower_first, os_reason};
use rustls::{AlertDescription, CertificateError};
use serde_json::{Value, json};

/// The JSON-RPC error code of rat's own answers: transport failures and messages over 16 MiB
/// (in the range JSON-RPC leaves to implementations, apart from the codes of MCP and its SDKs).
pub const TRANSPORT_ERROR: i64 = -32050;

/// The time a TCP connection gets to establish (Go's default dialer: 30 s; the handshake is
/// bounded by the request's time). Kept here, with the failures that name it, so that the
/// relay imports the failures and not the other way round.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The JSON-RPC error code of a line that is not a JSON-RPC message (JSON-RPC's parse error).
pub const PARSE_ERROR: i64 = -32700;

/// What failed on the way to ratd and back. `server` is `HOST:PORT` as given to `--server`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// No connection: `reason` is the system's (`connection refused`).
    #[error("ratd unreachable at {server}: {reason}")]
    Unreachable {
        /// `HOST:PORT`.
        server: String,
        /// The reason of the system, as `strerror` words it, lower case.
        reason: String,
    },
    /// ratd refused the handshake, with the alert it sent (Go's wording:
    /// `remote error: tls: unknown certificate authority`).
    #[error(
        "ratd at {server} refused the TLS handshake: {reason}. Check the bundle with rat-tool check."
    )]
    TlsRefused {
        /// `HOST:PORT`.
        server: String,
        /// `remote error: tls: ALERT`, the TLS error, or the connection closed during the
        /// handshake (a server that is not ratd, answering not in TLS).
        reason: String,
    },
    /// rat refused the certificate ratd presented: a server not of the bundle.
    #[error("rat refused the certificate of ratd at {server}: {reason}")]
    CertificateRefused {
        /// `HOST:PORT`.
        server: String,
        /// Why the certificate was refused.
        reason: String,
    },
    /// No answer within the time of the request (30 s, plus the wait of a `wait_window` call).
    #[error("ratd at {server} did not answer within {}s", .after.as_secs())]
    Timeout {
        /// `HOST:PORT`.
        server: String,
        /// The time given to the request.
        after: Duration,
    },
    /// An HTTP error status with a body that is not a JSON-RPC answer.
    #[error("ratd at {server} answered HTTP {status}: {first_line}")]
    Status {
        /// `HOST:PORT`.
        server: String,
        /// The HTTP status code.
        status: u16,
        /// The first line of the body (the reason phrase of the status when the body is empty).
        first_line: String,
    },
    /// Anything else: a connection cut, a body that is not JSON, a 202 for a request.
    #[error("ratd at {server} sent an invalid response: {reason}")]
    Invalid {
        /// `HOST:PORT`.
        server: String,
        /// What was wrong.
        reason: String,
    },
}

impl Failure {
    /// Classifies an error of the HTTP client. `after` is the time the request was given (its
    /// timeout, for reqwest's own timeouts).
    pub fn from_reqwest(server: &str, err: &reqwest::Error, after: Duration) -> Self {
        let server = server.to_owned();
        if let Some(tls) = find_rustls(err) {
            return match tls {
                rustls::Error::AlertReceived(alert) => Failure::TlsRefused {
                    server,
                    reason: format!("remote error: tls: {}", alert_text(*alert)),
                },
                rustls::Error::InvalidCertificate(cert) => Failure::CertificateRefused {
                    server,
                    reason: certificate_text(cert),
                },
                // Records that are not TLS: a plain HTTP server, or another protocol.
                rustls::Error::InvalidMessage(_) => Failure::TlsRefused {
                    server,
                    reason: format!("tls: the server's answer is not TLS ({NOT_RATD})"),
                },
                other => Failure::TlsRefused {
                    server,
                    reason: format!("tls: {other}"),
                },
            };
        }
        if err.is_timeout() && !err.is_connect() {
            return Failure::Timeout { server, after };
        }
        if err.is_connect() && closed_in_handshake(err) {
            return Failure::TlsRefused {
                server,
                reason: format!("the connection closed before the handshake ended ({NOT_RATD})"),
            };
        }
        if err.is_connect() && err.is_timeout() {
            // The TCP connection and the TLS handshake share the connect time: either may be
            // the one that did not answer (a port filtered, or a server accepting and silent).
            return Failure::Unreachable {
                server,
                reason: format!(
                    "no connection within {}s: nothing answered the connection, or the TLS handshake",
                    CONNECT_TIMEOUT.as_secs()
                ),
            };
        }
        if err.is_connect() {
            return Failure::Unreachable {
                server,
                reason: innermost_reason(err),
            };
        }
        Failure::Invalid {
            server,
            reason: innermost_reason(err),
        }
    }

    /// The JSON-RPC error answering a request of identifier `id` with this failure.
    pub fn to_response(&self, id: &Value) -> Vec<u8> {
        error_response(id, TRANSPORT_ERROR, &self.to_string())
    }
}

/// A JSON-RPC error response: `{"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE}}`.
pub fn error_response(id: &Value, code: i64, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .expect("a JSON value serializes")
}

fn chain<'a>(
    err: &'a (dyn StdError + 'static),
) -> impl Iterator<Item = &'a (dyn StdError + 'static)> {
    std::iter::successors(Some(err), |&e: &&'a (dyn StdError + 'static)| {
        // io::Error::source() skips the error it wraps: step into it instead.
        if let Some(io) = e.downcast_ref::<io::Error>()
            && let Some(inner) = io.get_ref()
        {
            return Some(inner as &(dyn StdError + 'static));
        }
        e.source()
    })
}

/// What a handshake failing on something other than an alert suggests.
const NOT_RATD: &str = "a server other than ratd at this port?";

/// The connection was closed in the TLS handshake (tokio-rustls: `tls handshake eof`), or
/// reset (closed with the ClientHello unread), as a server that is not TLS does.
fn closed_in_handshake(err: &reqwest::Error) -> bool {
    chain(err).any(|e| {
        e.downcast_ref::<io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset
            )
        })
    })
}

fn find_rustls(err: &reqwest::Error) -> Option<&rustls::Error> {
    chain(err).find_map(|e| e.downcast_ref::<rustls::Error>())
}

/// The reason at the bottom of the chain, as the system words it: `connection refused`, not
/// `Connection refused (os error 111)`.
fn innermost_reason(err: &reqwest::Error) -> String {
    let mut last: &(dyn StdError + 'static) = err;
    for e in chain(err) {
        if let Some(io) = e.downcast_ref::<io::Error>()
            && let Some(code) = io.raw_os_error()
        {
            return os_reason(code);
        }
        last = e;
    }
    if let Some(io) = last.downcast_ref::<io::Error>() {
        return lower_first(&io.to_string());
    }
    lower_first(&last.to_string())
}

/// A TLS alert in the words most TLS stacks print (`bad certificate`, `unknown certificate
/// authority`: Go's crypto/tls names), which rat's messages use.
pub fn alert_text(alert: AlertDescription) -> String {
    let text = match alert {
        AlertDescription::CloseNotify => "close notify",
        AlertDescription::UnexpectedMessage => "unexpected message",
        AlertDescription::BadRecordMac => "bad record MAC",
        AlertDescription::DecryptionFailed => "decryption failed",
        AlertDescription::RecordOverflow => "record overflow",
        AlertDescription::DecompressionFailure => "decompression failure",
        AlertDescription::HandshakeFailure => "handshake failure",
        AlertDescription::BadCertificate => "bad certificate",
        AlertDescription::UnsupportedCertificate => "unsupported certificate",
        AlertDescription::CertificateRevoked => "revoked certificate",
        AlertDescription::CertificateExpired => "expired certificate",
        AlertDescription::CertificateUnknown => "unknown certificate",
        AlertDescription::IllegalParameter => "illegal parameter",
        AlertDescription::UnknownCA => "unknown certificate authority",
        AlertDescription::AccessDenied => "access denied",
        AlertDescription::DecodeError => "error decoding message",
        AlertDescription::DecryptError => "error decrypting message",
        AlertDescription::ExportRestriction => "export restriction",
        AlertDescription::ProtocolVersion => "protocol version not supported",
        AlertDescription::InsufficientSecurity => "insufficient security level",
        AlertDescription::InternalError => "internal error",
        AlertDescription::InappropriateFallback => "inappropriate fallback",
        AlertDescription::UserCanceled => "user canceled",
        AlertDescription::NoRenegotiation => "no renegotiation",
        AlertDescription::MissingExtension => "missing extension",
        AlertDescription::UnsupportedExtension => "unsupported extension",
        AlertDescription::CertificateUnobtainable => "certificate unobtainable",
        AlertDescription::UnrecognisedName => "unrecognized name",
        AlertDescription::BadCertificateStatusResponse => "bad certificate status response",
        AlertDescription::BadCertificateHashValue => "bad certificate hash value",
        AlertDescription::UnknownPSKIdentity => "unknown PSK identity",
        AlertDescription::CertificateRequired => "certificate required",
        AlertDescription::NoApplicationProtocol => "no application protocol",
        AlertDescription::EncryptedClientHelloRequired => "encrypted client hello required",
        other => return format!("alert({})", u8::from(other)),
    };
    text.to_owned()
}

/// Why rat refused the certificate of a server.
fn certificate_text(err: &CertificateError) -> String {
    match err {
        CertificateError::UnknownIssuer => {
            "certificate signed by unknown authority: ratd is not of this bundle. Check the bundle with rat-tool check.".to_owned()
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            "certificate has expired".to_owned()
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "certificate is not valid yet".to_owned()
        }
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            "certificate is not a server certificate (no serverAuth)".to_owned()
        }
        CertificateError::BadSignature => "certificate has a bad signature".to_owned(),
        CertificateError::Other(other) => other.to_string(),
        other => format!("{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_reasons_read_as_go_writes_them() {
        assert_eq!(os_reason(111), "connection refused");
        assert_eq!(os_reason(113), "no route to host");
    }

    #[test]
    fn messages_are_the_specs() {
        let server = "ratd.example:8443".to_owned();
        assert_eq!(
            Failure::Unreachable {
                server: server.clone(),
                reason: "connection refused".into()
            }
            .to_string(),
            "ratd unreachable at ratd.example:8443: connection refused"
        );
        assert_eq!(
            Failure::TlsRefused {
                server: server.clone(),
                reason: format!(
                    "remote error: tls: {}",
                    alert_text(AlertDescription::UnknownCA)
                )
            }
            .to_string(),
            "ratd at ratd.example:8443 refused the TLS handshake: remote error: tls: unknown certificate authority. Check the bundle with rat-tool check."
        );
        assert_eq!(
            Failure::Timeout {
                server: server.clone(),
                after: Duration::from_secs(30)
            }
            .to_string(),
            "ratd at ratd.example:8443 did not answer within 30s"
        );
        assert_eq!(
            Failure::Status {
                server,
                status: 502,
                first_line: "Bad Gateway".into()
            }
            .to_string(),
            "ratd at ratd.example:8443 answered HTTP 502: Bad Gateway"
        );
    }
}
