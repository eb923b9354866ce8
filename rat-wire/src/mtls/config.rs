//! The rustls configurations built from a side, and the verifiers that make them say what
//! `docs/design/bundles.md` lists (What a refused client reads): each refusal its own alert.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ResolvesClientCert, verify_server_cert_signed_by_trust_anchor};
use rustls::crypto::{WebPkiSupportedAlgorithms, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::{ParsedCertificate, WebPkiClientVerifier};
use rustls::sign::{CertifiedKey, SigningKey};
use rustls::{
    CertificateError, CommonState, DigitallySignedStruct, DistinguishedName, Error, RootCertStore,
    SignatureScheme,
};
use x509_parser::prelude::{FromDer, X509Certificate};

use super::cert::{common_name, provider};

/// The only application protocol ratd speaks: HTTP/1.1, no h2: requests are short JSON
/// exchanges (`docs/design/transport.md`, Serving).
pub const ALPN_HTTP11: &[u8] = b"http/1.1";

/// The configuration [`ServerSide::rustls_config`](super::ServerSide::rustls_config) returns,
/// built from parts WITHOUT the checks of loading: for tests that need a server holding mixed
/// or expired files. Use [`load_server`](super::load_server) otherwise.
///
/// # Errors
/// rustls refusing the CA as a trust anchor or the key.
#[cfg(feature = "test-support")]
pub fn unchecked_server_config(
    ca: &CertificateDer<'static>,
    certificate: &CertificateDer<'static>,
    key: rustls::pki_types::PrivateKeyDer<'static>,
) -> Result<Arc<rustls::ServerConfig>, Error> {
    let key = provider().key_provider.load_private_key(key)?;
    build_server_config(ca, certificate, key)
}

/// The configuration [`ClientSide::rustls_config`](super::ClientSide::rustls_config) returns,
/// built from parts WITHOUT the checks of loading: for tests that need a client holding mixed
/// or expired files. Use [`load_client`](super::load_client) otherwise.
///
/// # Errors
/// rustls refusing the CA as a trust anchor or the key.
#[cfg(feature = "test-support")]
pub fn unchecked_client_config(
    ca: &CertificateDer<'static>,
    certificate: &CertificateDer<'static>,
    key: rustls::pki_types::PrivateKeyDer<'static>,
) -> Result<Arc<rustls::ClientConfig>, Error> {
    let key = provider().key_provider.load_private_key(key)?;
    build_client_config(ca, certificate, key)
}

fn roots(ca: &CertificateDer<'static>) -> Result<Arc<RootCertStore>, Error> {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone())?;
    Ok(Arc::new(roots))
}

pub(super) fn build_server_config(
    ca: &CertificateDer<'static>,
    certificate: &CertificateDer<'static>,
    key: Arc<dyn SigningKey>,
) -> Result<Arc<rustls::ServerConfig>, Error> {
    let provider = provider();
    let inner = WebPkiClientVerifier::builder_with_provider(roots(ca)?, provider.clone())
        .build()
        .map_err(|e| Error::General(e.to_string()))?;
    let verifier = Arc::new(BundleClientVerifier { inner });
    let certified = Arc::new(CertifiedKey::new(vec![certificate.clone()], key));
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_client_cert_verifier(verifier)
        .with_cert_resolver(Arc::new(AlwaysServerCert(certified)));
    config.alpn_protocols = vec![ALPN_HTTP11.to_vec()];
    Ok(Arc::new(config))
}

pub(super) fn build_client_config(
    ca: &CertificateDer<'static>,
    certificate: &CertificateDer<'static>,
    key: Arc<dyn SigningKey>,
) -> Result<Arc<rustls::ClientConfig>, Error> {
    let provider = provider();
    let verifier = Arc::new(BundleServerVerifier {
        roots: roots(ca)?,
        algorithms: provider.signature_verification_algorithms,
    });
    let issuer = X509Certificate::from_der(certificate)
        .map(|(_, cert)| cert.issuer().as_raw().to_vec())
        .map_err(|e| Error::General(format!("the certificate does not parse: {e}")))?;
    let certified = Arc::new(CertifiedKey::new(vec![certificate.clone()], key));
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_client_cert_resolver(Arc::new(BundleClientCert { certified, issuer }));
    config.alpn_protocols = vec![ALPN_HTTP11.to_vec()];
    Ok(Arc::new(config))
}

/// A client certificate of the bundle's CA that rat-tool would never have issued, with why.
#[derive(Debug)]
struct ClientCertificateRefused(String);

impl std::fmt::Display for ClientCertificateRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: make client certificates with rat-tool bundle generate",
            self.0
        )
    }
}

impl std::error::Error for ClientCertificateRefused {}

/// Why ratd refuses a client certificate its CA signed, `None` when it is one rat-tool would
/// issue: exactly one subject CN, a valid client name ([`check_client_name`]), and clientAuth
/// in its extended key usage (WebPKI accepts a certificate without that extension for any
/// purpose).
///
/// [`check_client_name`]: super::names::check_client_name
fn client_refusal(end_entity: &CertificateDer<'_>) -> Option<String> {
    let Ok((_, cert)) = X509Certificate::from_der(end_entity) else {
        return Some("the client certificate could not be read".to_owned());
    };
    let names = cert.subject().iter_common_name().count();
    if names != 1 {
        return Some(format!(
            "the client certificate carries {names} subject CNs, where a client certificate names one client"
        ));
    }
    if let Err(invalid) = super::names::check_client_name(&common_name(&cert)) {
        return Some(format!(
            "the client certificate names no valid session ({invalid})"
        ));
    }
    let client_auth = matches!(cert.extended_key_usage(), Ok(Some(eku)) if eku.value.client_auth);
    if !client_auth {
        return Some(
            "the client certificate does not carry clientAuth in its extended key usage".to_owned(),
        );
    }
    None
}

/// The server certificate, whatever the client asks for (no SNI: clients reach ratd by any
/// name or address).
#[derive(Debug)]
struct AlwaysServerCert(Arc<CertifiedKey>);

impl rustls::server::ResolvesServerCert for AlwaysServerCert {
    fn resolve(&self, _: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// ratd's verifier of client certificates: rustls' WebPKI verifier with the bundle CA as the
/// only root (chain, validity, clientAuth), whose refusals are mapped so that the alert a
/// refused client reads is the one `docs/design/bundles.md` lists:
/// - another bundle of the same tenant: `unknown_ca` (a signature that does not verify with the
///   CA of the same name is reported as an unknown issuer, as Go does);
/// - wrong role (no clientAuth): `bad_certificate` (rustls would send `unsupported_certificate`;
///   the error returned is then [`CertificateError::BadEncoding`], the one rustls maps to
///   `bad_certificate`, and the real reason is logged at debug level);
/// - expired: `certificate_expired` (rustls' own mapping);
/// - no certificate, which a client of another tenant sends (see [`BundleClientCert`]):
///   `certificate_required` (rustls' own, as a certificate is mandatory).
#[derive(Debug)]
struct BundleClientVerifier {
    inner: Arc<dyn ClientCertVerifier>,
}

impl ClientCertVerifier for BundleClientVerifier {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        true
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        let verified = self
            .inner
            .verify_client_cert(end_entity, intermediates, now)
            .map_err(|e| {
                let mapped = match &e {
                    #[allow(deprecated)]
                    Error::InvalidCertificate(
                        CertificateError::BadSignature
                        | CertificateError::UnsupportedSignatureAlgorithm
                        | CertificateError::UnsupportedSignatureAlgorithmContext { .. }
                        | CertificateError::UnsupportedSignatureAlgorithmForPublicKeyContext {
                            ..
                        },
                    ) => Error::InvalidCertificate(CertificateError::UnknownIssuer),
                    Error::InvalidCertificate(
                        CertificateError::InvalidPurpose
                        | CertificateError::InvalidPurposeContext { .. },
                    ) => Error::InvalidCertificate(CertificateError::BadEncoding),
                    _ => return e,
                };
                tracing::debug!(reason = %e, "client certificate refused");
                mapped
            })?;
        // What rat-tool never issues, refused here with the reason, rather than served: the
        // name is the client's tmux session, so a certificate of the CA (made with the CA key
        // by hand) naming no valid client, naming two (which one would be its session?), or
        // not made for a client, gets no session at all.
        client_refusal(end_entity).map_or(Ok(()), |reason| {
            Err(Error::InvalidCertificate(CertificateError::Other(
                rustls::OtherError(Arc::new(ClientCertificateRefused(reason))),
            )))
        })?;
        Ok(verified)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// A client's verifier of the server certificate: the chain to the bundle CA (the only root),
/// its validity and the serverAuth role, as rustls' WebPKI verifier checks them, and nothing
/// skipped but the host name, which the server certificate does not carry. The handshake
/// signature is verified as usual: the server proves it holds the key of its certificate.
#[derive(Debug)]
struct BundleServerVerifier {
    roots: Arc<RootCertStore>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for BundleServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            &self.roots,
            intermediates,
            now,
            self.algorithms.all,
        )
        .map_err(|e| match e {
            // signed by another CA of the same name: another bundle of the same tenant, an
            // unknown issuer (the server then reads the alert unknown_ca)
            Error::InvalidCertificate(CertificateError::BadSignature) => {
                Error::InvalidCertificate(CertificateError::UnknownIssuer)
            }
            e => e,
        })?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The client certificate, presented as Go's TLS client does: only to a server asking for a
/// certificate of a CA named as its issuer (or naming none). A client of another tenant thus
/// presents no certificate, and ratd refuses it with `certificate_required`.
#[derive(Debug)]
struct BundleClientCert {
    certified: Arc<CertifiedKey>,
    /// The issuer of the certificate, DER with its outer SEQUENCE, as
    /// `certificate_authorities` carries names.
    issuer: Vec<u8>,
}

impl ResolvesClientCert for BundleClientCert {
    fn resolve(
        &self,
        root_hint_subjects: &[&[u8]],
        _sigschemes: &[SignatureScheme],
    ) -> Option<Arc<CertifiedKey>> {
        let asked =
            root_hint_subjects.is_empty() || root_hint_subjects.contains(&self.issuer.as_slice());
        asked.then(|| self.certified.clone())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// The name in the certificate the peer of a connection presented (its subject CN), once the
/// handshake is done: for ratd, the client name, which is the session; for a client, the
/// tenant. `None` before the handshake completed or without a certificate (which ratd's
/// configuration does not allow). Pass a `rustls::ServerConnection` or `ClientConnection`
/// (they deref to [`CommonState`]), e.g. `tls_stream.get_ref().1`.
pub fn peer_name(conn: &CommonState) -> Option<String> {
    peer_name_from_certs(conn.peer_certificates()?)
}

/// The client name (= tmux session) of a connection accepted with
/// [`ServerSide::rustls_config`](super::ServerSide::rustls_config): the CN of its verified client
/// certificate. Same as [`peer_name`], named for ratd.
pub fn peer_client_name(conn: &CommonState) -> Option<String> {
    peer_name(conn)
}

/// The CN of the first (end-entity) certificate of `certs`, as [`peer_name`] tells it.
pub fn peer_name_from_certs(certs: &[CertificateDer<'_>]) -> Option<String> {
    let (_, cert) = X509Certificate::from_der(certs.first()?).ok()?;
    let name = common_name(&cert);
    (!name.is_empty()).then_some(name)
}
