//! Real TLS handshakes between the configurations of a bundle (rustls on both sides, in memory
//! over a tokio duplex pipe), and interop with openssl (s_client against a rustls server of the
//! bundle on 127.0.0.1:0, and the profile as `openssl x509 -text` shows it).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use crate::common::{Ca, bundle, der, expired, key, valid_now};
use rat_wire::mtls::{self, unchecked_client_config, unchecked_server_config};
use rcgen::ExtendedKeyUsagePurpose;
use rustls::pki_types::ServerName;
use rustls::{AlertDescription, CertificateError, Error};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What each end of a connection got.
#[derive(Debug)]
struct Outcome {
    /// The client's handshake.
    client: Result<(), Error>,
    /// The client's first read after its handshake (what the server wrote: "hello NAME").
    client_read: Result<String, Error>,
    /// The name of the server, for the client.
    client_saw: Option<String>,
    /// The server's handshake: the client name on success.
    server: Result<String, Error>,
}

fn rustls_error(e: std::io::Error) -> Error {
    match e.into_inner() {
        Some(inner) => match inner.downcast::<Error>() {
            Ok(e) => *e,
            Err(other) => Error::General(other.to_string()),
        },
        None => Error::General("io error without a rustls error".into()),
    }
}

/// Runs a connection between `server` and `client`, the client reaching the server under
/// `name` (never checked). The server writes `hello NAME` once its handshake succeeds; the
/// client reads it once its own succeeds.
async fn connect_as(
    server: Arc<rustls::ServerConfig>,
    client: Arc<rustls::ClientConfig>,
    name: ServerName<'static>,
) -> Outcome {
    let (c, s) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(async move {
        let mut tls = tokio_rustls::TlsAcceptor::from(server)
            .accept(s)
            .await
            .map_err(rustls_error)?;
        let peer = mtls::peer_client_name(tls.get_ref().1).expect("a verified client has a name");
        tls.write_all(format!("hello {peer}").as_bytes())
            .await
            .unwrap();
        tls.shutdown().await.unwrap();
        Ok::<_, Error>(peer)
    });
    let mut outcome = Outcome {
        client: Ok(()),
        client_read: Err(Error::General("not read".into())),
        client_saw: None,
        server: Err(Error::General("not run".into())),
    };
    match tokio_rustls::TlsConnector::from(client)
        .connect(name, c)
        .await
    {
        Ok(mut tls) => {
            outcome.client_saw = mtls::peer_name(tls.get_ref().1);
            let mut buf = String::new();
            outcome.client_read = tls
                .read_to_string(&mut buf)
                .await
                .map(|_| buf)
                .map_err(rustls_error);
        }
        Err(e) => outcome.client = Err(rustls_error(e)),
    }
    outcome.server = served.await.unwrap();
    outcome
}

async fn connect(server: Arc<rustls::ServerConfig>, client: Arc<rustls::ClientConfig>) -> Outcome {
    connect_as(
        server,
        client,
        ServerName::try_from("ratd.invalid").unwrap(),
    )
    .await
}

/// The client completes its handshake (TLS 1.3), and reads the alert of the server refusing it.
fn assert_refused(outcome: &Outcome, alert: AlertDescription, server_error: &Error) {
    assert!(outcome.client.is_ok(), "{outcome:?}");
    assert_eq!(
        outcome.client_read.as_ref().unwrap_err(),
        &Error::AlertReceived(alert),
        "{outcome:?}"
    );
    assert_eq!(
        outcome.server.as_ref().unwrap_err(),
        server_error,
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_client_of_the_bundle_is_accepted_and_named() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice", "bob"]);
    let server = mtls::load_server(&a.join("server")).unwrap();
    for (name, server_name) in [
        ("alice", ServerName::try_from("elsewhere.example").unwrap()),
        ("bob", ServerName::try_from("127.0.0.1").unwrap()),
    ] {
        let client = mtls::load_client(&a.join("clients").join(name)).unwrap();
        let o = connect_as(server.rustls_config(), client.rustls_config(), server_name).await;
        assert_eq!(o.server.as_deref().unwrap(), name);
        assert_eq!(o.client_read.as_deref().unwrap(), format!("hello {name}"));
        assert_eq!(o.client_saw.as_deref(), Some("prod"));
    }
}

#[tokio::test]
async fn the_server_refuses_clients_with_the_alerts_of_the_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let b = bundle(tmp.path(), "b", "prod", &["alice"]);
    let other = bundle(tmp.path(), "c", "staging", &["alice"]);
    let server = mtls::load_server(&a.join("server"))
        .unwrap()
        .rustls_config();
    let ca = der(&a.join("server/ca.crt"));
    let holding = |dir: &Path, role: &str| {
        unchecked_client_config(
            &ca,
            &der(&dir.join(format!("{role}.crt"))),
            key(&dir.join(format!("{role}.key"))),
        )
        .unwrap()
    };

    // another bundle of the same tenant: same CA name, so the certificate is presented
    let o = connect(server.clone(), holding(&b.join("clients/alice"), "client")).await;
    assert_refused(
        &o,
        AlertDescription::UnknownCA,
        &Error::InvalidCertificate(CertificateError::UnknownIssuer),
    );

    // another tenant: the server asks for its CA by name, the client has none to present
    let o = connect(
        server.clone(),
        holding(&other.join("clients/alice"), "client"),
    )
    .await;
    assert_refused(
        &o,
        AlertDescription::CertificateRequired,
        &Error::NoCertificatesPresented,
    );

    // wrong role: the server certificate presented by a client
    let o = connect(server.clone(), holding(&a.join("server"), "server")).await;
    assert_refused(
        &o,
        AlertDescription::BadCertificate,
        &Error::InvalidCertificate(CertificateError::BadEncoding),
    );

    // no certificate at all
    let no_cert = rustls::ClientConfig::builder_with_provider(mtls::provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyServer))
        .with_no_client_auth();
    let o = connect(server.clone(), Arc::new(no_cert)).await;
    assert_refused(
        &o,
        AlertDescription::CertificateRequired,
        &Error::NoCertificatesPresented,
    );
}

#[tokio::test]
async fn the_server_refuses_an_expired_client() {
    // crafted with rcgen: a CA and a server valid now, a client of that CA expired yesterday
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new("prod");
    let dir = tmp.path().join("server");
    ca.write_side(
        &dir,
        "server",
        &ca.issue("prod", ExtendedKeyUsagePurpose::ServerAuth, valid_now()),
    );
    let server = mtls::load_server(&dir).unwrap().rustls_config();
    let (cert, key) = ca.issue("alice", ExtendedKeyUsagePurpose::ClientAuth, expired());
    use rustls::pki_types::pem::PemObject;
    let client = unchecked_client_config(
        &der(&dir.join("ca.crt")),
        &rustls::pki_types::CertificateDer::from_pem_slice(cert.as_bytes()).unwrap(),
        rustls::pki_types::PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap(),
    )
    .unwrap();
    let o = connect(server, client).await;
    assert!(o.client.is_ok(), "{o:?}");
    assert_eq!(
        o.client_read.as_ref().unwrap_err(),
        &Error::AlertReceived(AlertDescription::CertificateExpired)
    );
    assert!(
        matches!(
            o.server,
            Err(Error::InvalidCertificate(
                CertificateError::ExpiredContext { .. }
            ))
        ),
        "{o:?}"
    );
}

/// The handshake of a client holding `cert` with the server side in `dir`: refused by the
/// server with the reason it gives (rustls' "other" certificate error), the client reading
/// `certificate_unknown`.
async fn refused_reason(dir: &Path, cert: (String, String)) -> String {
    use rustls::pki_types::pem::PemObject;
    let server = mtls::load_server(dir).unwrap().rustls_config();
    let client = unchecked_client_config(
        &der(&dir.join("ca.crt")),
        &rustls::pki_types::CertificateDer::from_pem_slice(cert.0.as_bytes()).unwrap(),
        rustls::pki_types::PrivateKeyDer::from_pem_slice(cert.1.as_bytes()).unwrap(),
    )
    .unwrap();
    let o = connect(server, client).await;
    assert!(o.client.is_ok(), "{o:?}");
    assert_eq!(
        o.client_read.as_ref().unwrap_err(),
        &Error::AlertReceived(AlertDescription::CertificateUnknown),
        "{o:?}"
    );
    match o.server {
        Err(Error::InvalidCertificate(CertificateError::Other(other))) => other.to_string(),
        other => panic!("not refused with a reason: {other:?}"),
    }
}

#[tokio::test]
async fn the_server_refuses_certificates_rat_tool_never_issues() {
    // Signed by the bundle's CA, crafted with rcgen as an attacker holding the CA key would.
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new("prod");
    let dir = tmp.path().join("server");
    ca.write_side(
        &dir,
        "server",
        &ca.issue("prod", ExtendedKeyUsagePurpose::ServerAuth, valid_now()),
    );
    let one_cn = |cn: &str| {
        let mut dn = rcgen::DistinguishedName::new();
        dn.push(rcgen::DnType::CommonName, cn);
        dn
    };

    // Two CNs (rcgen keeps one value per type: the second is pushed under the CN's OID).
    let mut two = one_cn("alice");
    two.push(rcgen::DnType::CustomDnType(vec![2, 5, 4, 3]), "bob");
    let cert = ca.issue_with(two, vec![ExtendedKeyUsagePurpose::ClientAuth]);
    assert_eq!(
        refused_reason(&dir, cert).await,
        "the client certificate carries 2 subject CNs, where a client certificate names one client: make client certificates with rat-tool bundle generate"
    );

    // No extended key usage at all (WebPKI would accept it for any purpose).
    let cert = ca.issue_with(one_cn("alice"), vec![]);
    assert_eq!(
        refused_reason(&dir, cert).await,
        "the client certificate does not carry clientAuth in its extended key usage: make client certificates with rat-tool bundle generate"
    );

    // Named like a session tmux-cc makes for itself by default.
    let cert = ca.issue_with(
        one_cn("tmux-cc-4242-0"),
        vec![ExtendedKeyUsagePurpose::ClientAuth],
    );
    assert_eq!(
        refused_reason(&dir, cert).await,
        "the client certificate names no valid session (invalid name \"tmux-cc-4242-0\": a client name may not begin with tmux-cc-, which names the tmux sessions ratd uses itself (choose another client name)): make client certificates with rat-tool bundle generate"
    );

    // Named like ratd's own sessions (a `+` no client name holds).
    for own in ["ratd+4242+0", "ratd+4242+0-blocking", "ratd+4242+0-events"] {
        let cert = ca.issue_with(one_cn(own), vec![ExtendedKeyUsagePurpose::ClientAuth]);
        assert_eq!(
            refused_reason(&dir, cert).await,
            format!(
                "the client certificate names no valid session (invalid name {own:?}: only letters, digits, '_' and '-' are allowed (1 to 32 characters)): make client certificates with rat-tool bundle generate"
            )
        );
    }
}

#[tokio::test]
async fn the_client_refuses_a_server_not_of_its_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let b = bundle(tmp.path(), "b", "prod", &["alice"]);
    let client = mtls::load_client(&a.join("clients/alice"))
        .unwrap()
        .rustls_config();

    // a server of another bundle of the same tenant
    let other_server = mtls::load_server(&b.join("server"))
        .unwrap()
        .rustls_config();
    let o = connect(other_server, client.clone()).await;
    assert_eq!(
        o.client,
        Err(Error::InvalidCertificate(CertificateError::UnknownIssuer)),
        "{o:?}"
    );
    assert_eq!(
        o.server,
        Err(Error::AlertReceived(AlertDescription::UnknownCA)),
        "{o:?}"
    );

    // a server holding a client certificate of the bundle
    let rogue = unchecked_server_config(
        &der(&a.join("server/ca.crt")),
        &der(&a.join("clients/alice/client.crt")),
        key(&a.join("clients/alice/client.key")),
    )
    .unwrap();
    let o = connect(rogue, client.clone()).await;
    assert!(
        matches!(
            o.client,
            Err(Error::InvalidCertificate(
                CertificateError::InvalidPurposeContext { .. }
            ))
        ),
        "{o:?}"
    );
    assert_eq!(
        o.server,
        Err(Error::AlertReceived(
            AlertDescription::UnsupportedCertificate
        )),
        "{o:?}"
    );
}

#[test]
fn alpn_is_http_1_1_on_both_sides() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let server = mtls::load_server(&a.join("server")).unwrap();
    let client = mtls::load_client(&a.join("clients/alice")).unwrap();
    assert_eq!(
        server.rustls_config().alpn_protocols,
        vec![b"http/1.1".to_vec()]
    );
    assert_eq!(
        client.rustls_config().alpn_protocols,
        vec![b"http/1.1".to_vec()]
    );
}

/// A client verifier accepting any server: for tests of the server side alone.
#[derive(Debug)]
struct AnyServer;

impl rustls::client::danger::ServerCertVerifier for AnyServer {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }

    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        mtls::provider()
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Serves one connection with `server` on 127.0.0.1:0; the task returns the client name and
/// the ALPN protocol, or the handshake error.
async fn serve_one(
    server: Arc<rustls::ServerConfig>,
) -> (
    u16,
    tokio::task::JoinHandle<Result<(String, Option<String>), Error>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut tls = tokio_rustls::TlsAcceptor::from(server)
            .accept(tcp)
            .await
            .map_err(rustls_error)?;
        let peer = mtls::peer_client_name(tls.get_ref().1).unwrap();
        let alpn = tls
            .get_ref()
            .1
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        tls.write_all(format!("hello {peer}\n").as_bytes())
            .await
            .unwrap();
        tls.shutdown().await.unwrap();
        Ok((peer, alpn))
    });
    (port, served)
}

/// Runs `openssl s_client` with the client directory `dir` against 127.0.0.1:`port`.
async fn s_client(dir: &Path, port: u16, version: &'static str) -> std::process::Output {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        Command::new("openssl")
            .args([
                "s_client",
                "-connect",
                &format!("127.0.0.1:{port}"),
                version,
                "-alpn",
                "http/1.1",
            ])
            .arg("-CAfile")
            .arg(dir.join("ca.crt"))
            .arg("-cert")
            .arg(dir.join("client.crt"))
            .arg("-key")
            .arg(dir.join("client.key"))
            .args(["-verify_return_error", "-quiet", "-ign_eof"])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn openssl_s_client_reaches_a_rustls_server_of_the_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let server = mtls::load_server(&a.join("server"))
        .unwrap()
        .rustls_config();
    let (port, served) = serve_one(server).await;
    let out = s_client(&a.join("clients/alice"), port, "-tls1_3").await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout, "hello alice\n", "stderr: {stderr}");
    assert!(stderr.contains("verify return:1"), "{stderr}");
    let (peer, alpn) = served.await.unwrap().unwrap();
    assert_eq!(peer, "alice");
    assert_eq!(alpn.as_deref(), Some("http/1.1"));
}

#[tokio::test]
async fn tls_1_2_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let server = mtls::load_server(&a.join("server"))
        .unwrap()
        .rustls_config();
    let (port, served) = serve_one(server).await;
    let out = s_client(&a.join("clients/alice"), port, "-tls1_2").await;
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let err = served.await.unwrap().unwrap_err();
    assert_eq!(
        err,
        Error::PeerIncompatible(rustls::PeerIncompatible::SupportedVersionsExtensionRequired),
        "{err:?}"
    );
}

fn x509_text(path: &Path) -> String {
    let out = Command::new("openssl")
        .args(["x509", "-noout", "-text", "-in"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of `openssl x509 -text` that make the profile, trimmed: names, key, signature,
/// and the extensions that matter with their values.
fn profile(path: &Path) -> String {
    let text = x509_text(path);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut kept = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let with_value = [
            "X509v3 Key Usage",
            "X509v3 Extended Key Usage",
            "X509v3 Basic Constraints",
            "X509v3 Subject Alternative Name",
        ]
        .iter()
        .any(|h| line.starts_with(h));
        if with_value {
            kept.push(format!("{line} {}", lines[i + 1]));
        } else if [
            "Subject:",
            "Issuer:",
            "Public-Key:",
            "ASN1 OID:",
            "Signature Algorithm:",
        ]
        .iter()
        .any(|h| line.starts_with(h))
        {
            kept.push(line.to_string());
        }
    }
    kept.dedup();
    kept.join("\n")
}

#[test]
fn openssl_shows_the_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let text = format!(
        "ca.crt\n{}\n\nserver.crt\n{}\n\nclient.crt\n{}\n",
        profile(&a.join("server/ca.crt")),
        profile(&a.join("server/server.crt")),
        profile(&a.join("clients/alice/client.crt")),
    );
    insta::assert_snapshot!(text);
    let server = x509_text(&a.join("server/server.crt"));
    assert!(!server.contains("Subject Alternative Name"), "{server}");
    assert!(x509_text(&a.join("server/ca.crt")).contains("CA:TRUE, pathlen:0"));
}

/// A bundle made by another tool with the same layout and profile (here the openssl command
/// line, as the Go rat-tool would write it: PKCS#8 keys, CA path length 0, EKU only) loads on
/// both sides and connects: the loader depends on the profile, not on rcgen's encoding.
#[tokio::test]
async fn a_bundle_made_with_openssl_loads_and_connects() {
    let tmp = tempfile::tempdir().unwrap();
    let script = r#"
set -e
umask 077
mkdir -p server clients/alice
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -subj "/O=rat CA/CN=prod" -days 3650 \
  -addext "basicConstraints=critical,CA:TRUE,pathlen:0" -addext "keyUsage=critical,keyCertSign" \
  -out ca.crt
leaf() { # DIR ROLE CN EKU
  key "$1/$2.key"
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\n' "$4" > ext
  openssl req -new -key "$1/$2.key" -subj "/CN=$3" -out req.csr
  openssl x509 -req -in req.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile ext -out "$1/$2.crt" 2>/dev/null
  cp ca.crt "$1/ca.crt"
}
leaf server server prod serverAuth
leaf clients/alice client alice clientAuth
"#;
    let out = Command::new("bash")
        .args(["-c", script])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = mtls::load_server(&tmp.path().join("server")).unwrap();
    let client = mtls::load_client(&tmp.path().join("clients/alice")).unwrap();
    assert_eq!((server.tenant(), client.client_name()), ("prod", "alice"));
    let o = connect(server.rustls_config(), client.rustls_config()).await;
    assert_eq!(o.server.as_deref().unwrap(), "alice");
    assert_eq!(o.client_read.as_deref().unwrap(), "hello alice");
}
