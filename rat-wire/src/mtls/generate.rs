//! Generating a closed bundle in memory with rcgen, then writing it (`docs/design/bundles.md`,
//! A closed bundle).

use std::fs::{DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256, SerialNumber,
};
use time::{Duration as TimeDuration, OffsetDateTime};

use super::cert::fingerprint;
use super::names::{InvalidName, check_client_name, check_name};
use super::side::{CA_FILE, Role};

/// How long the certificates of a bundle are valid, in years: rotating is generating a new
/// bundle when needed, not a schedule an expiry would impose.
pub const VALIDITY_YEARS: i32 = 10;

/// The organization of the CA subject, which also names the tenant (CN): it keeps the CA
/// subject distinct from the server certificate's, so that the latter is not self-issued.
pub const CA_ORGANIZATION: &str = "rat CA";

/// The directory of the server side in a bundle: `DIR/server`.
pub fn server_dir(bundle: &Path) -> PathBuf {
    bundle.join("server")
}

/// The directory of a client in a bundle: `DIR/clients/NAME`.
pub fn client_dir(bundle: &Path, client: &str) -> PathBuf {
    bundle.join("clients").join(client)
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateReport {
    /// The tenant, named by the CA and the server certificate.
    pub tenant: String,
    /// The server directory, `OUTPUT/server`: for ratd.
    pub server_dir: PathBuf,
    /// Each client with its directory, `OUTPUT/clients/NAME`, in the order given.
    pub clients: Vec<(String, PathBuf)>,
    /// The SHA-256 fingerprint of the CA (see [`super::fingerprint`]).
    pub ca_fingerprint: String,
    /// When every certificate of the bundle expires, as encoded (to the second).
    pub not_after: SystemTime,
}

/// Why [`generate`] wrote nothing. Whatever the error, no output directory is left behind
/// (parents it created stay).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The tenant is not a plain name.
    #[error("tenant: {0}")]
    Tenant(#[source] InvalidName),
    /// A client is not a plain name.
    #[error("client: {0}")]
    Client(#[source] InvalidName),
    /// No client was given.
    #[error("at least one client is required: give --client NAME for each client of the tenant")]
    NoClient,
    /// A client was given twice.
    #[error("client {0:?} given twice: each client is a session of its own, give each name once")]
    DuplicateClient(String),
    /// The output directory exists, even empty.
    #[error(
        "{} already exists: a bundle is never written over an existing directory, as the clients deployed with a bundle it replaced would stop working; remove it, or choose another one",
        .0.display()
    )]
    Exists(PathBuf),
    /// Issuing a certificate failed (rcgen).
    #[error("failed to issue the certificate of {name:?}: {source}")]
    Issue {
        /// The CN of the certificate.
        name: String,
        /// rcgen's error.
        #[source]
        source: rcgen::Error,
    },
    /// Creating a directory or writing a file failed.
    #[error("failed to write {}: {source}", path.display())]
    Write {
        /// The directory or file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
}

/// A certificate and its key, issued in memory.
struct Credential {
    cert_pem: String,
    key_pem: String,
}

/// Generates the closed bundle of `tenant` into `output`: a CA (ECDSA P-256, path length 0,
/// subject `O=rat CA, CN=tenant`, key never written), a server certificate (CN = tenant,
/// serverAuth only, no subject alternative name) and one client certificate per name (CN =
/// name, clientAuth only), all with the digital-signature key usage, valid 10 years from a day
/// before now. Written as `output/server/{ca.crt,server.crt,server.key}` and
/// `output/clients/NAME/{ca.crt,client.crt,client.key}`, keys 0600 and directories 0700.
///
/// `output` must not exist, even empty; its missing parents are created (as `mkdir -p`).
/// Everything is issued in memory first; a failure while writing removes `output`.
///
/// # Errors
/// [`GenerateError`]: bad names, no client or a duplicate, an existing output, a write failure.
pub fn generate(
    tenant: &str,
    clients: &[&str],
    output: &Path,
) -> Result<GenerateReport, GenerateError> {
    generate_at(tenant, clients, output, SystemTime::now())
}

/// [`generate`] as if run at `now` (tests craft old or future bundles with it).
///
/// # Errors
/// As [`generate`].
pub fn generate_at(
    tenant: &str,
    clients: &[&str],
    output: &Path,
    now: SystemTime,
) -> Result<GenerateReport, GenerateError> {
    generate_with(tenant, clients, output, now, &mut |_| Ok(()))
}

/// Called before writing each file, with its path: tests make a write fail with it.
type BeforeWrite<'a> = &'a mut dyn FnMut(&Path) -> std::io::Result<()>;

fn generate_with(
    tenant: &str,
    clients: &[&str],
    output: &Path,
    now: SystemTime,
    before_write: BeforeWrite<'_>,
) -> Result<GenerateReport, GenerateError> {
    check_name(tenant).map_err(GenerateError::Tenant)?;
    if clients.is_empty() {
        return Err(GenerateError::NoClient);
    }
    for (i, client) in clients.iter().enumerate() {
        check_client_name(client).map_err(GenerateError::Client)?;
        if clients[..i].contains(client) {
            return Err(GenerateError::DuplicateClient((*client).to_owned()));
        }
    }
    // Refused early for a clear error; creating it below refuses it again, race-free.
    if output.symlink_metadata().is_ok() {
        return Err(GenerateError::Exists(output.to_owned()));
    }

    // Issue everything in memory first: writing is then the only step that can fail halfway.
    let now = OffsetDateTime::from(now)
        .replace_nanosecond(0)
        .unwrap_or_else(|_| OffsetDateTime::from(now));
    let not_before = now - TimeDuration::days(1);
    let not_after = not_before
        .replace_year(not_before.year() + VALIDITY_YEARS)
        .unwrap_or_else(|_| not_before + TimeDuration::days(3653));
    let ca_key = new_key(tenant)?;
    let mut ca_params = params(not_before, not_after, tenant)?;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::OrganizationName, CA_ORGANIZATION);
    dn.push(DnType::CommonName, tenant);
    ca_params.distinguished_name = dn;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign];
    let ca_cert = ca_params
        .self_signed(&ca_key)
        .map_err(|source| issue_error(tenant, source))?;
    let ca_pem = ca_cert.pem();
    let ca_fingerprint = fingerprint(ca_cert.der());
    let issuer = Issuer::new(ca_params, ca_key);

    let leaf = |name: &str, role: Role| -> Result<Credential, GenerateError> {
        let key = new_key(name)?;
        let mut p = params(not_before, not_after, name)?;
        p.is_ca = IsCa::ExplicitNoCa;
        // TLS 1.3 key exchange is always ephemeral Diffie-Hellman: the key only signs.
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        p.extended_key_usages = vec![match role {
            Role::Server => ExtendedKeyUsagePurpose::ServerAuth,
            Role::Client => ExtendedKeyUsagePurpose::ClientAuth,
        }];
        p.use_authority_key_identifier_extension = true;
        let cert = p
            .signed_by(&key, &issuer)
            .map_err(|source| issue_error(name, source))?;
        Ok(Credential {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    };
    let server = leaf(tenant, Role::Server)?;
    let client_credentials = clients
        .iter()
        .map(|client| leaf(client, Role::Client))
        .collect::<Result<Vec<_>, _>>()?;

    // Parents as mkdir -p creates them: they hold no key.
    if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| GenerateError::Write {
            path: parent.to_owned(),
            source,
        })?;
    }
    // Fails if it exists: no window between a check and the creation.
    if let Err(source) = DirBuilder::new().mode(0o700).create(output) {
        return Err(if source.kind() == std::io::ErrorKind::AlreadyExists {
            GenerateError::Exists(output.to_owned())
        } else {
            GenerateError::Write {
                path: output.to_owned(),
                source,
            }
        });
    }
    let written = (|| {
        let server_dir = server_dir(output);
        write_side(&server_dir, &ca_pem, &server, Role::Server, before_write)?;
        // Clients have a directory of their own: a client named "server" does not collide.
        make_dir(&output.join("clients"))?;
        let mut dirs = Vec::with_capacity(clients.len());
        for (client, credential) in clients.iter().zip(&client_credentials) {
            let dir = client_dir(output, client);
            write_side(&dir, &ca_pem, credential, Role::Client, before_write)?;
            dirs.push(((*client).to_owned(), dir));
        }
        Ok((server_dir, dirs))
    })();
    match written {
        Ok((server_dir, clients)) => Ok(GenerateReport {
            tenant: tenant.to_owned(),
            server_dir,
            clients,
            ca_fingerprint,
            not_after: not_after.into(),
        }),
        Err(e) => {
            // output did not exist before: nothing but this bundle is removed
            let _ = std::fs::remove_dir_all(output);
            Err(e)
        }
    }
}

fn issue_error(name: &str, source: rcgen::Error) -> GenerateError {
    GenerateError::Issue {
        name: name.to_owned(),
        source,
    }
}

fn new_key(name: &str) -> Result<KeyPair, GenerateError> {
    KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(|source| issue_error(name, source))
}

/// Parameters shared by every certificate of a bundle: validity, a random 128-bit serial, the
/// CN, and no subject alternative name.
fn params(
    not_before: OffsetDateTime,
    not_after: OffsetDateTime,
    name: &str,
) -> Result<CertificateParams, GenerateError> {
    let mut p = CertificateParams::default();
    p.not_before = not_before;
    p.not_after = not_after;
    let mut serial = [0u8; 16];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut serial)
        .map_err(|_| issue_error(name, rcgen::Error::RingUnspecified))?;
    serial[0] &= 0x7f; // positive
    serial[0] |= 0x40; // and 16 bytes long once encoded
    p.serial_number = Some(SerialNumber::from_slice(&serial));
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name);
    p.distinguished_name = dn;
    p.subject_alt_names = Vec::new();
    Ok(p)
}

fn make_dir(path: &Path) -> Result<(), GenerateError> {
    DirBuilder::new()
        .mode(0o700)
        .create(path)
        .map_err(|source| GenerateError::Write {
            path: path.to_owned(),
            source,
        })
}

fn write_side(
    dir: &Path,
    ca_pem: &str,
    credential: &Credential,
    role: Role,
    before_write: BeforeWrite<'_>,
) -> Result<(), GenerateError> {
    make_dir(dir)?;
    for (name, content, mode) in [
        (CA_FILE, ca_pem, 0o644),
        (role.cert_file(), credential.cert_pem.as_str(), 0o644),
        (role.key_file(), credential.key_pem.as_str(), 0o600),
    ] {
        let path = dir.join(name);
        let mut write = || -> std::io::Result<()> {
            before_write(&path)?;
            // create_new: never over an existing file, whatever the directory holds
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(&path)?;
            file.write_all(content.as_bytes())?;
            file.sync_all()
        };
        write().map_err(|source| GenerateError::Write {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_removes_the_output_directory_only() {
        let tmp = tempfile::tempdir().unwrap();
        let output = tmp.path().join("parent/bundle");
        let mut written = Vec::new();
        let err = generate_with(
            "prod",
            &["alice", "bob"],
            &output,
            SystemTime::now(),
            &mut |path| {
                let name = path.strip_prefix(&output).unwrap().display().to_string();
                if name == "clients/bob/client.crt" {
                    return Err(std::io::Error::other("disk full (simulated)"));
                }
                written.push(name);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(
            err.to_string()
                .replace(&tmp.path().display().to_string(), "[TMP]"),
            "failed to write [TMP]/parent/bundle/clients/bob/client.crt: disk full (simulated)"
        );
        assert_eq!(
            written,
            [
                "server/ca.crt",
                "server/server.crt",
                "server/server.key",
                "clients/alice/ca.crt",
                "clients/alice/client.crt",
                "clients/alice/client.key",
                "clients/bob/ca.crt",
            ]
        );
        // the bundle directory is gone, the parent created for it stays
        assert!(!output.exists());
        assert!(tmp.path().join("parent").is_dir());
    }
}
