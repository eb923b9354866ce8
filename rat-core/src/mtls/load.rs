//! Loading a side of a bundle, from its directory or from the contents of its files, with the
//! seven ordered checks of plan.md (Bundles).

use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls::crypto::CryptoProvider;
use rustls::sign::SigningKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use x509_parser::prelude::{FromDer, X509Certificate};

use super::config;
use super::names::{InvalidName, check_name};

/// The name of the CA certificate in the directory of each side.
pub const CA_FILE: &str = "ca.crt";

/// What a certificate authenticates, carried by its extended key usage: ratd (serverAuth), or
/// one of its clients (clientAuth). Neither can stand for the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// ratd, serving the tenant its certificate names (serverAuth only).
    Server,
    /// A client of ratd, working in the session its certificate names (clientAuth only).
    Client,
}

impl Role {
    /// `"server"` or `"client"`: also the base name of the side's files.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }

    /// The certificate file of the side: `server.crt` or `client.crt`.
    pub fn cert_file(self) -> &'static str {
        match self {
            Role::Server => "server.crt",
            Role::Client => "client.crt",
        }
    }

    /// The private key file of the side: `server.key` or `client.key`.
    pub fn key_file(self) -> &'static str {
        match self {
            Role::Server => "server.key",
            Role::Client => "client.key",
        }
    }

    /// The name of the extended key usage carrying the role, as in TLS texts.
    pub fn usage(self) -> &'static str {
        match self {
            Role::Server => "serverAuth",
            Role::Client => "clientAuth",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The checks of loading a side, in the order they run: when loading fails at one, the ones
/// before it passed. `rat-tool bundle inspect` prints one line per check with [`Check::title`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// 1. The files of one side are there, each a single PEM block of its kind (several
    ///    certificates in `ca.crt` would all be trusted).
    Files,
    /// 2. The private key is readable by its owner only (mode bits `0o077` clear), as ssh
    ///    requires: a client key grants a shell. Not checked from contents.
    KeyPermissions,
    /// 3. The private key matches the certificate.
    KeyMatch,
    /// 4. `ca.crt` is a CA, which signed the certificate.
    SignedByCa,
    /// 5. The certificate carries the role of its side, and only it (serverAuth only for the
    ///    server, clientAuth only for a client).
    Role,
    /// 6. The certificate and the CA are valid now.
    ValidNow,
    /// 7. The certificate and the CA carry plain names (see [`check_name`]).
    Names,
}

impl Check {
    /// Every check, in the order loading runs them.
    pub const ALL: [Check; 7] = [
        Check::Files,
        Check::KeyPermissions,
        Check::KeyMatch,
        Check::SignedByCa,
        Check::Role,
        Check::ValidNow,
        Check::Names,
    ];

    /// What the check requires, for humans (`rat-tool bundle inspect`).
    pub fn title(self) -> &'static str {
        match self {
            Check::Files => "files of a side",
            Check::KeyPermissions => "key readable by its owner only",
            Check::KeyMatch => "key matching the certificate",
            Check::SignedByCa => "certificate signed by the CA",
            Check::Role => "certificate of its role only",
            Check::ValidNow => "certificates valid now",
            Check::Names => "plain names",
        }
    }
}

/// Why a side of a bundle could not be loaded: one variant per [`Check`], the first failing.
/// Messages name the file at fault and say what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Check 1: a file is missing or unreadable, is not a single PEM block of its kind, or the
    /// directory is not the one of the expected side.
    #[error("{message}")]
    Files {
        /// What is wrong and what to do.
        message: String,
    },
    /// Check 2: the private key is readable by others than its owner.
    #[error(
        "{} has mode {mode:04o}, readable by others than its owner (a key is a credential: a client's grants a shell, the server's lets anyone pose as ratd): run chmod 600 {}",
        path.display(), path.display()
    )]
    KeyPermissions {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Check 3: the private key is not the one of the certificate.
    #[error(
        "{key} does not match {certificate}: both must come from the same directory of one bundle, copy that directory again as a whole"
    )]
    KeyMismatch {
        /// The key, as named in messages (file name or kind).
        key: String,
        /// The certificate, as named in messages.
        certificate: String,
    },
    /// Check 4: the certificate is not signed by the CA of its directory, or the CA is not one.
    #[error(
        "{certificate} is not signed by {ca} ({reason}): the files come from different bundles, copy the directory of one side of one bundle as a whole"
    )]
    NotSignedByCa {
        /// The certificate, as named in messages.
        certificate: String,
        /// The CA certificate, as named in messages.
        ca: String,
        /// What the verification found.
        reason: String,
    },
    /// Check 5: the certificate is not a certificate of its side's role only.
    #[error(
        "{certificate} is not a {expected} certificate only (extended key usage: {found}): {hint}",
        hint = role_hint(*expected)
    )]
    Role {
        /// The certificate, as named in messages.
        certificate: String,
        /// The role of the side.
        expected: Role,
        /// The extended key usages the certificate carries, comma separated, or `none`.
        found: String,
    },
    /// Check 6: the certificate or the CA is expired or not valid yet.
    #[error("{certificate} {reason}")]
    Validity {
        /// The certificate at fault, as named in messages.
        certificate: String,
        /// `expired on DATE: generate a new bundle ...` or
        /// `is not valid before DATE: check this machine's clock ...`.
        reason: String,
    },
    /// Check 7: the certificate or the CA does not carry a plain name in its subject CN.
    #[error("{certificate} does not carry a plain name in its subject CN: {source}")]
    Name {
        /// The certificate at fault, as named in messages.
        certificate: String,
        /// The name refused.
        #[source]
        source: InvalidName,
    },
}

fn role_hint(role: Role) -> &'static str {
    match role {
        Role::Server => {
            "ratd needs the server directory of a bundle (DIR/server), whose certificate carries serverAuth only"
        }
        Role::Client => {
            "a client needs a client directory of a bundle (DIR/clients/NAME), whose certificate carries clientAuth only"
        }
    }
}

impl LoadError {
    /// The check that failed.
    pub fn check(&self) -> Check {
        match self {
            LoadError::Files { .. } => Check::Files,
            LoadError::KeyPermissions { .. } => Check::KeyPermissions,
            LoadError::KeyMismatch { .. } => Check::KeyMatch,
            LoadError::NotSignedByCa { .. } => Check::SignedByCa,
            LoadError::Role { .. } => Check::Role,
            LoadError::Validity { .. } => Check::ValidNow,
            LoadError::Name { .. } => Check::Names,
        }
    }

    fn files(message: impl Into<String>) -> Self {
        LoadError::Files {
            message: message.into(),
        }
    }
}

/// A side of a bundle, loaded and checked: what both [`ServerSide`] and [`ClientSide`] hold.
#[derive(Clone)]
pub(crate) struct Side {
    pub(crate) role: Role,
    /// The CN of the side's certificate: the tenant (server) or the client (= session).
    pub(crate) name: String,
    /// The CN of the CA: the tenant.
    pub(crate) tenant: String,
    pub(crate) ca: CertificateDer<'static>,
    pub(crate) certificate: CertificateDer<'static>,
    pub(crate) key: Arc<dyn SigningKey>,
    pub(crate) ca_not_after: SystemTime,
    pub(crate) cert_not_after: SystemTime,
}

impl Side {
    fn not_after(&self) -> SystemTime {
        self.ca_not_after.min(self.cert_not_after)
    }
}

impl fmt::Debug for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // never the key
        f.debug_struct("Side")
            .field("role", &self.role)
            .field("name", &self.name)
            .field("tenant", &self.tenant)
            .field("ca_fingerprint", &fingerprint(&self.ca))
            .field("not_after", &self.not_after())
            .finish_non_exhaustive()
    }
}

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
        let side = parse(Role::Server, ca, certificate, key, SystemTime::now())?;
        Self::new(side)
    }

    fn new(side: Side) -> Result<Self, LoadError> {
        let config = config::server_config(&side)?;
        Ok(Self { side, config })
    }

    /// The rustls configuration of ratd: TLS 1.3 only, ALPN `http/1.1`, presenting the server
    /// certificate alone, requiring a client certificate of the bundle CA with clientAuth
    /// (refusals are sent as the alerts plan.md lists: see the module doc). Built once at load;
    /// this returns the same `Arc`.
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
        let side = parse(Role::Client, ca, certificate, key, SystemTime::now())?;
        Self::new(side)
    }

    fn new(side: Side) -> Result<Self, LoadError> {
        let config = config::client_config(&side)?;
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
    // 1. files
    let role = side_role(dir)?;
    let ca = read_file(&dir.join(CA_FILE))?;
    let cert = read_file(&dir.join(role.cert_file()))?;
    let key_path = dir.join(role.key_file());
    let key = read_file(&key_path)?;
    let parsed = parse_files(
        &ca,
        &cert,
        &key,
        &Labels {
            ca: CA_FILE.to_owned(),
            cert: role.cert_file().to_owned(),
            key: role.key_file().to_owned(),
        },
    )?;
    // 2. key permissions
    let meta = std::fs::metadata(&key_path)
        .map_err(|e| LoadError::files(format!("cannot read {}: {e}", key_path.display())))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(LoadError::KeyPermissions {
            path: key_path,
            mode,
        });
    }
    let side = check_side(role, parsed, now)?;
    Ok(match role {
        Role::Server => LoadedSide::Server(ServerSide::new(side)?),
        Role::Client => LoadedSide::Client(ClientSide::new(side)?),
    })
}

/// How the parts of a side are named in errors: file names for a directory, kinds for contents.
struct Labels {
    ca: String,
    cert: String,
    key: String,
}

/// The three parts of a side, decoded (check 1 passed).
struct Parsed {
    ca: CertificateDer<'static>,
    cert: CertificateDer<'static>,
    key: Arc<dyn SigningKey>,
    labels: Labels,
}

fn parse(
    role: Role,
    ca: &[u8],
    cert: &[u8],
    key: &[u8],
    now: SystemTime,
) -> Result<Side, LoadError> {
    let labels = Labels {
        ca: "the CA certificate".to_owned(),
        cert: format!("the {role} certificate"),
        key: format!("the {role} key"),
    };
    let parsed = parse_files(ca, cert, key, &labels)?;
    check_side(role, parsed, now)
}

fn side_role(dir: &Path) -> Result<Role, LoadError> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(LoadError::files(format!(
                "{} is not a directory: give the directory of one side of a bundle (DIR/server or DIR/clients/NAME)",
                dir.display()
            )));
        }
        Err(e) => {
            return Err(LoadError::files(format!(
                "cannot read {}: {e}: give the directory of one side of a bundle (DIR/server or DIR/clients/NAME)",
                dir.display()
            )));
        }
    }
    let server = dir.join(Role::Server.cert_file()).exists();
    let client = dir.join(Role::Client.cert_file()).exists();
    match (server, client) {
        (true, true) => Err(LoadError::files(format!(
            "{} holds both server.crt and client.crt: each side has a directory of its own, copy the one of this side again",
            dir.display()
        ))),
        (true, false) => Ok(Role::Server),
        (false, true) => Ok(Role::Client),
        (false, false) => Err(LoadError::files(format!(
            "{} holds neither server.crt nor client.crt: give the directory of one side of a bundle (DIR/server or DIR/clients/NAME)",
            dir.display()
        ))),
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path)
        .map_err(|e| LoadError::files(format!("cannot read {}: {e}", path.display())))
}

/// Counts the PEM blocks of `data` (lines starting with `-----BEGIN `) and returns the label of
/// the single one, or an error naming `label`.
fn single_pem_block(data: &[u8], expected: &str, label: &str) -> Result<(), LoadError> {
    let text = String::from_utf8_lossy(data);
    let labels: Vec<&str> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("-----BEGIN "))
        .map(|rest| rest.trim_end_matches('-'))
        .collect();
    match labels.as_slice() {
        [] => Err(LoadError::files(format!(
            "{label} holds no PEM block: expected a single PEM {expected}"
        ))),
        [one]
            if one == &expected || (expected == "PRIVATE KEY" && one.ends_with("PRIVATE KEY")) =>
        {
            Ok(())
        }
        [other] => Err(LoadError::files(format!(
            "{label} holds a PEM {other}, not a PEM {expected}"
        ))),
        many => Err(LoadError::files(format!(
            "{label} holds {} PEM blocks, not a single PEM {expected} (several certificates in ca.crt would all be trusted): copy the file again from the directory rat-tool bundle generate wrote",
            many.len()
        ))),
    }
}

fn parse_files(ca: &[u8], cert: &[u8], key: &[u8], labels: &Labels) -> Result<Parsed, LoadError> {
    let certificate = |data: &[u8], label: &str| -> Result<CertificateDer<'static>, LoadError> {
        single_pem_block(data, "CERTIFICATE", label)?;
        let der = CertificateDer::from_pem_slice(data)
            .map_err(|e| LoadError::files(format!("{label}: not a PEM certificate: {e}")))?;
        X509Certificate::from_der(&der).map_err(|e| {
            LoadError::files(format!(
                "{label} does not hold a valid X.509 certificate: {e}"
            ))
        })?;
        Ok(der)
    };
    let ca_der = certificate(ca, &labels.ca)?;
    let cert_der = certificate(cert, &labels.cert)?;
    single_pem_block(key, "PRIVATE KEY", &labels.key)?;
    let key_der = PrivateKeyDer::from_pem_slice(key)
        .map_err(|e| LoadError::files(format!("{}: not a PEM private key: {e}", labels.key)))?;
    let signing_key = provider()
        .key_provider
        .load_private_key(key_der)
        .map_err(|e| {
            LoadError::files(format!(
                "{} does not hold a usable private key: {e}",
                labels.key
            ))
        })?;
    Ok(Parsed {
        ca: ca_der,
        cert: cert_der,
        key: signing_key,
        labels: Labels {
            ca: labels.ca.clone(),
            cert: labels.cert.clone(),
            key: labels.key.clone(),
        },
    })
}

/// Checks 3 to 7 on the decoded parts of a side.
fn check_side(role: Role, parsed: Parsed, now: SystemTime) -> Result<Side, LoadError> {
    let Parsed {
        ca: ca_der,
        cert: cert_der,
        key,
        labels,
    } = parsed;
    // parsed in check 1 already
    let (_, ca) = X509Certificate::from_der(&ca_der)
        .map_err(|e| LoadError::files(format!("{}: {e}", labels.ca)))?;
    let (_, cert) = X509Certificate::from_der(&cert_der)
        .map_err(|e| LoadError::files(format!("{}: {e}", labels.cert)))?;

    // 3. key
    let matches = key
        .public_key()
        .is_some_and(|spki| spki.as_ref() == cert.tbs_certificate.subject_pki.raw);
    if !matches {
        return Err(LoadError::KeyMismatch {
            key: labels.key,
            certificate: labels.cert,
        });
    }

    // 4. CA
    let not_signed = |reason: String| LoadError::NotSignedByCa {
        certificate: labels.cert.clone(),
        ca: labels.ca.clone(),
        reason,
    };
    if !ca.is_ca() {
        return Err(not_signed(format!("{} is not a CA certificate", labels.ca)));
    }
    if let Ok(Some(usage)) = ca.key_usage()
        && !usage.value.key_cert_sign()
    {
        return Err(not_signed(format!(
            "{} may not sign certificates (key usage)",
            labels.ca
        )));
    }
    if cert.issuer().as_raw() != ca.subject().as_raw() {
        return Err(not_signed(format!(
            "issued by \"{}\", the CA is \"{}\"",
            cert.issuer(),
            ca.subject()
        )));
    }
    if cert.verify_signature(Some(ca.public_key())).is_err() {
        return Err(not_signed(format!(
            "signed by another CA named \"{}\": another bundle of the same tenant",
            ca.subject()
        )));
    }

    // 5. role
    let found = usages(&cert);
    let only = match role {
        Role::Server => "serverAuth",
        Role::Client => "clientAuth",
    };
    if found != [only] {
        return Err(LoadError::Role {
            certificate: labels.cert,
            expected: role,
            found: if found.is_empty() {
                "none".to_owned()
            } else {
                found.join(", ")
            },
        });
    }

    // 6. validity
    let now_secs = unix_seconds(now);
    for (label, c) in [(&labels.cert, &cert), (&labels.ca, &ca)] {
        let validity = c.validity();
        if now_secs < validity.not_before.timestamp() {
            return Err(LoadError::Validity {
                certificate: label.clone(),
                reason: format!(
                    "is not valid before {}: check the clock of this machine, or wait until then",
                    format_time(system_time(validity.not_before.timestamp()))
                ),
            });
        }
        if now_secs > validity.not_after.timestamp() {
            return Err(LoadError::Validity {
                certificate: label.clone(),
                reason: format!(
                    "expired on {}: generate a new bundle (rat-tool bundle generate) and deploy it to every side",
                    format_time(system_time(validity.not_after.timestamp()))
                ),
            });
        }
    }

    // 7. names
    let name = common_name(&cert);
    check_name(&name).map_err(|source| LoadError::Name {
        certificate: labels.cert.clone(),
        source,
    })?;
    let tenant = common_name(&ca);
    check_name(&tenant).map_err(|source| LoadError::Name {
        certificate: labels.ca.clone(),
        source,
    })?;

    Ok(Side {
        role,
        name,
        tenant,
        ca_not_after: system_time(ca.validity().not_after.timestamp()),
        cert_not_after: system_time(cert.validity().not_after.timestamp()),
        ca: ca_der.clone(),
        certificate: cert_der.clone(),
        key,
    })
}

/// The extended key usages of `cert`, by their TLS names (`serverAuth`, `clientAuth`, ...).
fn usages(cert: &X509Certificate<'_>) -> Vec<String> {
    let Ok(Some(eku)) = cert.extended_key_usage() else {
        return Vec::new();
    };
    let eku = eku.value;
    let mut found = Vec::new();
    for (set, name) in [
        (eku.any, "any"),
        (eku.server_auth, "serverAuth"),
        (eku.client_auth, "clientAuth"),
        (eku.code_signing, "codeSigning"),
        (eku.email_protection, "emailProtection"),
        (eku.time_stamping, "timeStamping"),
        (eku.ocsp_signing, "OCSPSigning"),
    ] {
        if set {
            found.push(name.to_owned());
        }
    }
    found.extend(eku.other.iter().map(|oid| oid.to_id_string()));
    found
}

/// The subject CN of `cert`, empty when it has none (which check 7 refuses).
pub(crate) fn common_name(cert: &X509Certificate<'_>) -> String {
    cert.subject()
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// The SHA-256 fingerprint of a certificate (DER), as openssl prints it: colon separated
/// uppercase hex. The fingerprint of its CA identifies a bundle.
pub fn fingerprint(cert: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, cert);
    digest
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The crypto provider every configuration of rat uses, passed explicitly (never installed as
/// the process default): ring.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

fn system_time(secs: i64) -> SystemTime {
    if secs >= 0 {
        UNIX_EPOCH + Duration::from_secs(secs.unsigned_abs())
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
    }
}

/// Formats a time as `YYYY-MM-DD HH:MM:SS UTC`, the form every message of this module uses.
pub fn format_time(t: SystemTime) -> String {
    let t = time::OffsetDateTime::from(t);
    format!(
        "{} {:02}:{:02}:{:02} UTC",
        t.date(),
        t.hour(),
        t.minute(),
        t.second()
    )
}
