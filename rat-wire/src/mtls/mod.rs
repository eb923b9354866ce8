//! Bundles: generating, loading and checking the mTLS certificate bundles of rat, and the
//! rustls configurations built from them (`docs/design/bundles.md`).
//!
//! A bundle is closed: a CA whose key only lives in memory while generating, a server
//! certificate naming the tenant, and one client certificate per client, naming it (= its tmux
//! session). Written one directory per side, each side copying only its own:
//!
//! ```text
//! DIR/server/         ca.crt  server.crt  server.key
//! DIR/clients/NAME/   ca.crt  client.crt  client.key
//! ```
//!
//! Same layout, file names and certificate profile as the Go rat-tool's bundles: ECDSA P-256;
//! CA `O=rat CA, CN=TENANT`, path length 0, keyCertSign; leaves CN = name, digital signature,
//! serverAuth only (server, no subject alternative name) or clientAuth only (client); valid 10
//! years from a day before generation; keys PKCS#8 `PRIVATE KEY`, 0600, in 0700 directories.
//!
//! # API (what ratd, rat and rat-tool use)
//!
//! ```text
//! load_server(dir: &Path) -> Result<ServerSide, LoadError>       // ratd
//! load_client(dir: &Path) -> Result<ClientSide, LoadError>       // rat, rat-tool check
//! load(dir: &Path) -> Result<LoadedSide, LoadError>              // either (rat-tool inspect)
//! ServerSide::from_pem(ca, cert, key) / ClientSide::from_pem(..)  // from contents, no files
//! ServerSide: tenant() -> &str, not_after() -> SystemTime, ca_fingerprint() -> String,
//!             rustls_config() -> Arc<rustls::ServerConfig>
//! ClientSide: tenant(), client_name() -> &str, not_after(), ca_fingerprint(),
//!             rustls_config() -> Arc<rustls::ClientConfig>
//! peer_client_name(conn: &rustls::CommonState) -> Option<String> // CN of the client = session
//! validity_left(not_after, now) -> Option<Duration>              // None once expired
//! expiry_warning(not_after, now) -> Option<String>               // the one-year warning text
//! generate(tenant: &str, clients: &[&str], output: &Path) -> Result<GenerateReport, GenerateError>
//! Check::ALL, Check::title(), LoadError::check()                 // the seven checks, in order
//! ```
//!
//! Every configuration gets the ring crypto provider explicitly ([`provider`]); none installs a
//! process-wide default.
//!
//! # Loading a side: seven checks, in order
//!
//! Each side loads its directory at startup and checks it, to fail while the admin is still
//! there rather than with an opaque handshake error. The checks run in this order, each with
//! its own [`LoadError`] variant ([`Check`] lists them for `rat-tool bundle inspect`): files (one
//! PEM block each), key readable by its owner only, key matching the certificate, certificate
//! signed by the CA, role (serverAuth only / clientAuth only), valid now, plain names. From
//! contents ([`ServerSide::from_pem`]), the same checks but the key permissions.
//!
//! # TLS
//!
//! TLS 1.3 only, ALPN `http/1.1`. ratd requires a client certificate of its CA with clientAuth;
//! clients verify the chain to the bundle CA, the validity and serverAuth, and skip only the
//! host-name check. In TLS 1.3 a client completes its handshake before the server checked its
//! certificate: a refused client learns it on its first read, from the alert of ratd:
//!
//! | client certificate                   | alert (rustls `AlertDescription`)              |
//! |--------------------------------------|------------------------------------------------|
//! | none                                 | certificate required (`CertificateRequired`)   |
//! | of another bundle of the same tenant | unknown certificate authority (`UnknownCA`)    |
//! | of another tenant                    | certificate required (no certificate is sent: the server asks for its CA by name) |
//! | of the wrong role                    | bad certificate (`BadCertificate`)             |
//! | expired                              | certificate expired (`CertificateExpired`)     |
//!
//! [`refusal_reason`] turns such an alert into the words `rat-tool check` and rat print.

mod cert;
mod checks;
mod config;
mod expiry;
mod generate;
mod load;
mod names;
mod side;

pub use cert::{fingerprint, format_time, provider};
pub use config::{ALPN_HTTP11, peer_client_name, peer_name, peer_name_from_certs};
/// Test support: rustls configurations built WITHOUT the checks of loading.
#[cfg(feature = "test-support")]
pub use config::{unchecked_client_config, unchecked_server_config};
pub use expiry::{
    EXPIRY_WARNING, describe_validity, expiry_warning, needs_expiry_warning, validity_left,
};
pub use generate::{
    CA_ORGANIZATION, GenerateError, GenerateReport, VALIDITY_YEARS, client_dir, generate,
    generate_at, server_dir,
};
pub use load::{ClientSide, LoadedSide, ServerSide, load, load_at, load_client, load_server};
pub use names::{InvalidName, MAX_NAME_LEN, RESERVED_CLIENT_PREFIX, check_client_name, check_name};
pub use side::{CA_FILE, Check, LoadError, Role};

/// What an alert received from ratd on a client's first read means, in the words of
/// `docs/design/bundles.md` (What a refused client reads), or `None` for an alert that is not
/// one of ratd's refusals of a client certificate.
pub fn refusal_reason(alert: rustls::AlertDescription) -> Option<&'static str> {
    use rustls::AlertDescription as A;
    Some(match alert {
        A::UnknownCA => {
            "unknown certificate authority: the client certificate is from another bundle of the tenant"
        }
        A::CertificateRequired => {
            "certificate required: the client presented no certificate of this bundle (it is from another tenant, or has none)"
        }
        A::BadCertificate => {
            "bad certificate: the client certificate is not a client certificate (clientAuth)"
        }
        A::CertificateExpired => "certificate expired: the client certificate expired",
        _ => return None,
    })
}
