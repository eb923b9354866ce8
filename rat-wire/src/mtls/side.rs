//! The kinds a side of a bundle is described with: its role, the seven checks of loading it,
//! the error of each, and the checked side itself, which the rustls configurations are built
//! from (docs/design/bundles.md, "Loading a side").

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use rustls::sign::SigningKey;
use rustls_pki_types::CertificateDer;

use super::cert::fingerprint;
use super::names::InvalidName;
#[cfg(doc)]
use super::names::check_name;

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

    pub(super) fn files(message: impl Into<String>) -> Self {
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
    pub(crate) fn not_after(&self) -> SystemTime {
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
