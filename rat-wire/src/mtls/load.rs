//! Loading a side of a bundle, from its directory or from the contents of its files, with the
//! seven ordered checks ([`Check`], docs/design/bundles.md, "Loading a side").

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use rustls::Error;
use rustls_pki_types::CertificateDer;

use super::cert::fingerprint;
use super::checks::{check_contents, check_dir};
use super::config;
#[cfg(doc)]
use super::side::Check;
use super::side::{CA_FILE, LoadError, Role, Side};

/// The server side of a bundle (`DIR/server`), loaded and checked: what ratd holds.
#[derive(Debug, Clone)]
pub struct ServerSide {
    side: Side,
    config: Arc<rustls::ServerConfig>,
}

/// A client side of a bundle (`DIR/clients/NAME`), loaded and checked: what rat and
/// `rat-tool check` hold.
#[derive(Debug, Clone)]
pub struct ClientSide {
    side: Side,
    config: Arc<rustls::ClientConfig>,
}

/// A side of either role, as [`load`] finds it in a directory.
#[derive(Debug, Clone)]
pub enum LoadedSide {
    /// The directory held `server.crt`.
    Server(ServerSide),
    /// The directory held `client.crt`.
    Client(ClientSide),
}

fn load_error(side: &Side, e: Error) -> LoadError {
    // Checks 1 to 7 passed: rustls refusing the credential means the CA is not usable as a
    // trust anchor, or the key does not fit the certificate.
    match e {
        Error::InvalidCertificate(_) | Error::General(_) => LoadError::NotSignedByCa {
            certificate: side.role.cert_file().to_owned(),
            ca: CA_FILE.to_owned(),
            reason: format!("the CA is not usable as a trust anchor: {e}"),
        },
        e => LoadError::KeyMismatch {
            key: format!("{} ({e})", side.role.key_file()),
            certificate: side.role.cert_file().to_owned(),
        },
    }
}

fn server_config(side: &Side) -> Result<Arc<rustls::ServerConfig>, LoadError> {
    config::build_server_config(&side.ca, &side.certificate, side.key.clone())
        .map_err(|e| load_error(side, e))
}

fn client_config(side: &Side) -> Result<Arc<rustls::ClientConfig>, LoadError> {
    config::build_client_config(&side.ca, &side.certificate, side.key.clone())
        .map_err(|e| load_error(side, e))
}

macro_rules! common_accessors {
    () => {
        /// The tenant of the bundle, named by the CN of its CA (and of its server certificate).
        pub fn tenant(&self) -> &str {
            &self.side.tenant
        }

        /// When this side stops working: the expiry of its certificate or of the CA, whichever
        /// comes first (to the second, as encoded in the certificates).
        pub fn not_after(&self) -> SystemTime {
            self.side.not_after()
        }

        /// The SHA-256 fingerprint of the bundle CA, as openssl prints it (colon separated
        /// uppercase hex): it identifies the bundle, as every directory of a bundle holds its CA.
        pub fn ca_fingerprint(&self) -> String {
            fingerprint(&self.side.ca)
        }

        /// The CA certificate (DER).
        pub fn ca_certificate(&self) -> &CertificateDer<'static> {
            &self.side.ca
        }

        /// The side's own certificate (DER).
        pub fn certificate(&self) -> &CertificateDer<'static> {
            &self.side.certificate
        }
    };
}

impl ServerSide {
    common_accessors!();

    /// Builds the server side from the contents of its three PEM files (no files: a secret
    /// store, an embedded asset), with the same checks as [`load_server`] but the key
    /// permissions, which are the holder's concern.
    ///
    /// # Errors
    /// The [`LoadError`] of the first check failing.
    pub fn from_pem(ca: &[u8], certificate: &[u8], key: &[u8]) -> Result<Self, LoadError> {
        let side = check_contents(Role::Server, ca, certificate, key, SystemTime::now())?;
        Self::new(side)
    }

    fn new(side: Side) -> Result<Self, LoadError> {
        let config = server_config(&side)?;
        Ok(Self { side, config })
    }

    /// The rustls configuration of ratd: TLS 1.3 only, ALPN `http/1.1`, presenting the server
    /// certificate alone, requiring a client certificate of the bundle CA with clientAuth (refusals
    /// are sent as the alerts `docs/design/bundles.md` lists: see the module doc). Built once at
    /// load; this returns the same `Arc`.
    pub fn rustls_config(&self) -> Arc<rustls::ServerConfig> {
        self.config.clone()
    }
}

impl ClientSide {
    common_accessors!();

    /// The name of this client: the CN of its certificate, which is its tmux session.
    pub fn client_name(&self) -> &str {
        &self.side.name
    }

    /// Builds a client side from the contents of its three PEM files (no files), with the same
    /// checks as [`load_client`] but the key permissions, which are the holder's concern.
    ///
    /// # Errors
    /// The [`LoadError`] of the first check failing.
    pub fn from_pem(ca: &[u8], certificate: &[u8], key: &[u8]) -> Result<Self, LoadError> {
        let side = check_contents(Role::Client, ca, certificate, key, SystemTime::now())?;
        Self::new(side)
    }

    fn new(side: Side) -> Result<Self, LoadError> {
        let config = client_config(&side)?;
        Ok(Self { side, config })
    }

    /// The rustls configuration of a client of ratd: TLS 1.3 only, ALPN `http/1.1`, presenting
    /// the client certificate (only to a server asking for a certificate of this bundle's CA, or
    /// naming none), verifying the server's chain to the bundle CA, its validity and its
    /// serverAuth role, and skipping only the host-name check (the server certificate carries no
    /// name or address). Built once at load; this returns the same `Arc`. Use it with reqwest's
    /// `use_preconfigured_tls` or tokio-rustls.
    pub fn rustls_config(&self) -> Arc<rustls::ClientConfig> {
        self.config.clone()
    }
}

impl LoadedSide {
    /// The role of the side.
    pub fn role(&self) -> Role {
        match self {
            LoadedSide::Server(_) => Role::Server,
            LoadedSide::Client(_) => Role::Client,
        }
    }

    /// The name the side's certificate carries: the tenant for the server, the client name
    /// (= session) for a client.
    pub fn name(&self) -> &str {
        match self {
            LoadedSide::Server(s) => s.tenant(),
            LoadedSide::Client(c) => c.client_name(),
        }
    }

    /// The tenant of the bundle.
    pub fn tenant(&self) -> &str {
        match self {
            LoadedSide::Server(s) => s.tenant(),
            LoadedSide::Client(c) => c.tenant(),
        }
    }

    /// See [`ServerSide::not_after`].
    pub fn not_after(&self) -> SystemTime {
        match self {
            LoadedSide::Server(s) => s.not_after(),
            LoadedSide::Client(c) => c.not_after(),
        }
    }

    /// See [`ServerSide::ca_fingerprint`].
    pub fn ca_fingerprint(&self) -> String {
        match self {
            LoadedSide::Server(s) => s.ca_fingerprint(),
            LoadedSide::Client(c) => c.ca_fingerprint(),
        }
    }
}

/// Loads the server directory of a bundle (`DIR/server`: `ca.crt`, `server.crt`, `server.key`),
/// running the seven checks in order (see [`Check`]), so that ratd fails at startup rather than
/// with an opaque handshake error at the first connection.
///
/// # Errors
/// The [`LoadError`] of the first check failing; a client directory is a [`LoadError::Files`].
pub fn load_server(dir: &Path) -> Result<ServerSide, LoadError> {
    match load(dir)? {
        LoadedSide::Server(server) => Ok(server),
        LoadedSide::Client(_) => Err(LoadError::files(format!(
            "{} is a client directory (it holds client.crt): ratd needs the server directory of the bundle (DIR/server)",
            dir.display()
        ))),
    }
}

/// Loads a client directory of a bundle (`DIR/clients/NAME`: `ca.crt`, `client.crt`,
/// `client.key`), running the seven checks in order (see [`Check`]).
///
/// # Errors
/// The [`LoadError`] of the first check failing; the server directory is a
/// [`LoadError::Files`].
pub fn load_client(dir: &Path) -> Result<ClientSide, LoadError> {
    match load(dir)? {
        LoadedSide::Client(client) => Ok(client),
        LoadedSide::Server(_) => Err(LoadError::files(format!(
            "{} is the server directory of a bundle (it holds server.crt): a client needs a client directory (DIR/clients/NAME)",
            dir.display()
        ))),
    }
}

/// Loads the directory of either side, the side being the one whose certificate file the
/// directory holds (`server.crt` or `client.crt`), with the seven checks in order.
///
/// # Errors
/// The [`LoadError`] of the first check failing.
pub fn load(dir: &Path) -> Result<LoadedSide, LoadError> {
    load_at(dir, SystemTime::now())
}

/// [`load`] at the time `now` (validity check), for tests and tools that look ahead.
///
/// # Errors
/// The [`LoadError`] of the first check failing.
pub fn load_at(dir: &Path, now: SystemTime) -> Result<LoadedSide, LoadError> {
    let side = check_dir(dir, now)?;
    Ok(match side.role {
        Role::Server => LoadedSide::Server(ServerSide::new(side)?),
        Role::Client => LoadedSide::Client(ClientSide::new(side)?),
    })
}
