//! Helpers on certificates that every part of the module uses: the subject CN, the
//! fingerprint, the crypto provider and the times of certificates.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls::crypto::CryptoProvider;
use x509_parser::prelude::X509Certificate;

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

pub(super) fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

pub(super) fn system_time(secs: i64) -> SystemTime {
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
