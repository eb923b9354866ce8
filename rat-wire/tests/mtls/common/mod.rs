//! Helpers shared by the mtls tests: bundles crafted with rcgen where `generate` cannot make
//! them (bad names, a certificate expired while its CA is valid), and file plumbing.
#![allow(dead_code, unreachable_pub)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256,
};
use time::{Duration, OffsetDateTime};

/// A CA made by a test, with the profile of a bundle CA (`O=rat CA, CN=tenant`, path length 0),
/// whose key the test keeps to issue what it needs.
pub struct Ca {
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

/// Valid from a day ago for a year.
pub fn valid_now() -> (OffsetDateTime, OffsetDateTime) {
    let now = OffsetDateTime::now_utc();
    (now - Duration::days(1), now + Duration::days(365))
}

/// Valid two days ago, expired yesterday.
pub fn expired() -> (OffsetDateTime, OffsetDateTime) {
    let now = OffsetDateTime::now_utc();
    (now - Duration::days(2), now - Duration::days(1))
}

impl Ca {
    pub fn new(tenant: &str) -> Ca {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut p = CertificateParams::default();
        (p.not_before, p.not_after) = valid_now();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::OrganizationName, "rat CA");
        dn.push(DnType::CommonName, tenant);
        p.distinguished_name = dn;
        p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign];
        let pem = p.self_signed(&key).unwrap().pem();
        Ca {
            pem,
            issuer: Issuer::new(p, key),
        }
    }

    /// Issues a leaf certificate with `cn`, `usage` and `validity`: (certificate PEM, key PEM).
    pub fn issue(
        &self,
        cn: &str,
        usage: ExtendedKeyUsagePurpose,
        validity: (OffsetDateTime, OffsetDateTime),
    ) -> (String, String) {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut p = CertificateParams::default();
        (p.not_before, p.not_after) = validity;
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, cn);
        p.distinguished_name = dn;
        p.is_ca = IsCa::ExplicitNoCa;
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        p.extended_key_usages = vec![usage];
        let cert = p.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// Issues a leaf certificate valid now, with subject `dn` and the extended key usages
    /// `usages` (none: no such extension): (certificate PEM, key PEM).
    pub fn issue_with(
        &self,
        dn: DistinguishedName,
        usages: Vec<ExtendedKeyUsagePurpose>,
    ) -> (String, String) {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut p = CertificateParams::default();
        (p.not_before, p.not_after) = valid_now();
        p.distinguished_name = dn;
        p.is_ca = IsCa::ExplicitNoCa;
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        p.extended_key_usages = usages;
        let cert = p.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// Writes a side directory `dir` for `role` ("server" or "client") with this CA.
    pub fn write_side(&self, dir: &Path, role: &str, cert: &(String, String)) {
        write_side(dir, role, &self.pem, &cert.0, &cert.1);
    }
}

/// Writes a side directory as generate does: 0700, key 0600.
pub fn write_side(dir: &Path, role: &str, ca: &str, cert: &str, key: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).unwrap();
    fs::write(dir.join("ca.crt"), ca).unwrap();
    fs::write(dir.join(format!("{role}.crt")), cert).unwrap();
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dir.join(format!("{role}.key")))
        .unwrap();
    f.write_all(key.as_bytes()).unwrap();
}

/// Copies `from` over `to` keeping `to`'s mode when it exists (0600 for a key otherwise).
pub fn copy(from: &Path, to: &Path) {
    let data = fs::read(from).unwrap();
    fs::write(to, data).unwrap();
}

/// Generates a bundle of `tenant` with `clients` in a fresh directory `name` under `tmp`.
pub fn bundle(tmp: &Path, name: &str, tenant: &str, clients: &[&str]) -> PathBuf {
    let dir = tmp.join(name);
    rat_wire::mtls::generate(tenant, clients, &dir).unwrap();
    dir
}

/// The PEM file at `path` decoded to DER.
pub fn der(path: &Path) -> rustls::pki_types::CertificateDer<'static> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::from_pem_file(path).unwrap()
}

/// The private key at `path`.
pub fn key(path: &Path) -> rustls::pki_types::PrivateKeyDer<'static> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::PrivateKeyDer::from_pem_file(path).unwrap()
}

/// Replaces the temporary directory in `text` with `[TMP]`.
pub fn redact(text: &str, tmp: &Path) -> String {
    text.replace(&tmp.display().to_string(), "[TMP]")
}
