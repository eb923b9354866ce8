//! The seven checks of loading a side, in order, from its directory or from the contents of
//! its files (docs/design/bundles.md, "Loading a side"): each failing with its own
//! [`LoadError`].

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use rustls::sign::SigningKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use x509_parser::prelude::{FromDer, X509Certificate};

use super::cert::{common_name, format_time, provider, system_time, unix_seconds};
use super::names::{check_client_name, check_name};
use super::side::{CA_FILE, LoadError, Role, Side};

/// The seven checks on the directory of a side, at the time `now` (validity check): the side
/// is the one whose certificate file the directory holds (`server.crt` or `client.crt`).
pub(super) fn check_dir(dir: &Path, now: SystemTime) -> Result<Side, LoadError> {
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
    check_side(role, parsed, now)
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

/// The checks on the contents of the three files of a side, the key permissions aside.
pub(super) fn check_contents(
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
    let check_own = match role {
        Role::Client => check_client_name,
        Role::Server => check_name,
    };
    check_own(&name).map_err(|source| LoadError::Name {
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
