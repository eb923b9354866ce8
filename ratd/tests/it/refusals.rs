//! Refused handshakes, tested from outside: a real ratd on 127.0.0.1:0, real TLS 1.3 clients
//! holding a certificate ratd refuses, each sending its HTTP request right after its side of the
//! handshake (as rat does), then reading. Every one must read ratd's alert, never a connection
//! reset: ratd reads what a refused client sent before closing (serve.rs, linger_after_refusal).
//! That reading is bounded: 5 seconds at most, and a stop of ratd does not wait for it.

use std::path::Path;
use std::sync::Arc;

use crate::common::{Bundle, Served, SocketGuard, unique_tenant};
use crate::service_common::Daemon;
use rat_wire::mtls;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256, date_time_ymd,
};
use rustls::AlertDescription;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// How many times in a row each refused client must read its alert.
const ROUNDS: usize = 20;

/// A client trusting ratd's CA (so that it finishes its side of the handshake) and presenting
/// the certificate and key in `dir` (`ROLE.crt`, `ROLE.key`).
fn holding(ca: &Path, dir: &Path, role: &str) -> Arc<rustls::ClientConfig> {
    mtls::unchecked_client_config(
        &CertificateDer::from_pem_file(ca).expect("CA certificate"),
        &CertificateDer::from_pem_file(dir.join(format!("{role}.crt"))).expect("certificate"),
        PrivateKeyDer::from_pem_file(dir.join(format!("{role}.key"))).expect("key"),
    )
    .expect("client configuration")
}

/// An MCP initialize request with a body of about `len` bytes (padded in a `_meta` field).
fn initialize(len: usize) -> Vec<u8> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
            "_meta": {"padding": "x".repeat(len)}
        }
    })
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nhost: ratd\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body.as_bytes());
    request
}

/// One connection of `tls` to `addr`: the handshake (which a TLS 1.3 client finishes before
/// the server checked its certificate), the request, then a read to the end. Returns what the
/// read failed with: the rustls error inside, else the I/O error's text.
async fn refused(
    tls: &Arc<rustls::ClientConfig>,
    addr: std::net::SocketAddr,
    request: &[u8],
) -> Result<rustls::Error, String> {
    let connector = tokio_rustls::TlsConnector::from(tls.clone());
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut stream = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    stream
        .write_all(request)
        .await
        .map_err(|e| format!("writing the request: {e}"))?;
    let mut buf = Vec::new();
    let error = match stream.read_to_end(&mut buf).await {
        Ok(_) => {
            return Err(format!(
                "served: {:?}",
                String::from_utf8_lossy(&buf)
                    .chars()
                    .take(200)
                    .collect::<String>()
            ));
        }
        Err(error) => error,
    };
    assert!(buf.is_empty(), "nothing served");
    match error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
    {
        Some(tls_error) => Ok(tls_error.clone()),
        None => Err(format!("reading: {error}")),
    }
}

/// `ROUNDS` connections of `tls`, each with a small request then with a 256 KiB one: every one
/// reads `alert`.
async fn every_round_reads(
    tls: &Arc<rustls::ClientConfig>,
    addr: std::net::SocketAddr,
    alert: AlertDescription,
) {
    for (size, request) in [("small", initialize(0)), ("256 KiB", initialize(256 << 10))] {
        for round in 0..ROUNDS {
            assert_eq!(
                refused(tls, addr, &request).await,
                Ok(rustls::Error::AlertReceived(alert)),
                "round {round} with a {size} request"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_another_bundle_of_the_tenant_reads_unknown_ca_every_time() {
    let mut served = Served::start(&["alice"]).await;
    let other = Bundle::generate(served.tenant(), &["alice"]);
    let ca = served.bundle.server_dir().join(mtls::CA_FILE);
    let tls = holding(&ca, &other.client_dir("alice"), "client");
    every_round_reads(&tls, served.addr, AlertDescription::UnknownCA).await;
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_the_wrong_role_reads_bad_certificate_every_time() {
    let mut served = Served::start(&["alice"]).await;
    let server_dir = served.bundle.server_dir();
    // The server certificate (serverAuth only) presented by a client.
    let tls = holding(&server_dir.join(mtls::CA_FILE), &server_dir, "server");
    every_round_reads(&tls, served.addr, AlertDescription::BadCertificate).await;
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_client_reads_certificate_expired_every_time() {
    // generate cannot make a client expired while its CA and server are valid (one validity
    // for the whole bundle, and the CA key is never written): crafted with rcgen, with the
    // profile of a bundle.
    let tenant = unique_tenant();
    let _guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle {
        dir: tempfile::tempdir().expect("temporary directory"),
        tenant: tenant.clone(),
    };
    let ca = TestCa::new(&tenant);
    let server_dir = bundle.server_dir();
    let client_dir = bundle.client_dir("alice");
    ca.write_side(
        &server_dir,
        "server",
        ca.issue(&tenant, ExtendedKeyUsagePurpose::ServerAuth, false),
    );
    ca.write_side(
        &client_dir,
        "client",
        ca.issue("alice", ExtendedKeyUsagePurpose::ClientAuth, true),
    );
    let ratd = ratd::Ratd::start(bundle.config())
        .await
        .expect("ratd starts");
    let addr = ratd.local_addrs()[0];
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(ratd.serve(shutdown.clone()));

    let tls = holding(&client_dir.join(mtls::CA_FILE), &client_dir, "client");
    every_round_reads(&tls, addr, AlertDescription::CertificateExpired).await;

    shutdown.cancel();
    task.await.expect("ratd's serve task ends");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_naming_no_valid_session_is_refused_at_the_handshake() {
    // rat-tool never makes one (it checks names): crafted with a CA key of the test's own.
    let tenant = unique_tenant();
    let bundle = Bundle {
        dir: tempfile::tempdir().expect("temporary directory"),
        tenant: tenant.clone(),
    };
    let ca = TestCa::new(&tenant);
    let server_dir = bundle.server_dir();
    ca.write_side(
        &server_dir,
        "server",
        ca.issue(&tenant, ExtendedKeyUsagePurpose::ServerAuth, false),
    );
    let names = ["not a session", "a;kill-server", &"x".repeat(33)];
    let clients: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let dir = bundle.dir.path().join(format!("client{i}"));
            ca.write_side(
                &dir,
                "client",
                ca.issue(name, ExtendedKeyUsagePurpose::ClientAuth, false),
            );
            holding(&dir.join(mtls::CA_FILE), &dir, "client")
        })
        .collect();
    let mut ratd = Daemon::spawn_piped_on(bundle, &[]);
    let addr = ratd.wait_serving();
    for (name, tls) in names.iter().zip(&clients) {
        for round in 0..5 {
            assert_eq!(
                refused(tls, addr, &initialize(0)).await,
                Ok(rustls::Error::AlertReceived(
                    AlertDescription::CertificateUnknown
                )),
                "{name}, round {round}"
            );
        }
    }
    // Logged with the reason (the first refusal; the others are counted in the next line).
    let line = ratd.wait_for("TLS handshake refused");
    ratd.signal(nix::sys::signal::Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
    assert!(
        line.contains(r#"error="invalid peer certificate: the client certificate names no valid session (invalid name \"not a session\": only letters, digits, '_' and '-' are allowed (1 to 32 characters)): make client certificates with rat-tool bundle generate""#),
        "{line}"
    );
    assert!(
        !ratd.seen.iter().any(|l| l.contains("Internal error")),
        "{:#?}",
        ratd.seen
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificates_rat_tool_never_issues_are_refused_at_the_handshake() {
    // An attacker holding the CA key (or a careless admin with openssl): a client certificate
    // with two CNs, one without clientAuth, and one named like each tmux session ratd uses
    // itself, as tmux lists them on ratd's server.
    let tenant = unique_tenant();
    let bundle = Bundle {
        dir: tempfile::tempdir().expect("temporary directory"),
        tenant: tenant.clone(),
    };
    let ca = TestCa::new(&tenant);
    ca.write_side(
        &bundle.server_dir(),
        "server",
        ca.issue(&tenant, ExtendedKeyUsagePurpose::ServerAuth, false),
    );
    let cas_dir = bundle.dir.path().to_owned();
    let mut ratd = Daemon::spawn_piped_on(bundle, &[]);
    let addr = ratd.wait_serving();
    let pid = ratd.pid().as_raw();
    let listed = std::process::Command::new("tmux")
        .args([
            "-L",
            &format!("rat-{tenant}"),
            "list-sessions",
            "-F",
            "#{session_name}",
        ])
        .output()
        .expect("tmux runs");
    let own: Vec<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let control = format!("ratd+{pid}+0");
    assert!(own.contains(&control), "{own:?}");
    assert!(own.iter().all(|name| name.starts_with(&control)), "{own:?}");

    let mut certificates = vec![
        (
            "two CNs".to_owned(),
            ca.issue_with(&["alice", "bob"], vec![ExtendedKeyUsagePurpose::ClientAuth]),
        ),
        (
            "no extended key usage".to_owned(),
            ca.issue_with(&["alice"], vec![]),
        ),
        (
            "serverAuth only".to_owned(),
            ca.issue_with(&["alice"], vec![ExtendedKeyUsagePurpose::ServerAuth]),
        ),
    ];
    let mut names = own.clone();
    // The sessions of tmux-cc's extra connections, opened on demand, and the name ratd's
    // control session had before.
    names.extend([
        format!("{control}-blocking"),
        format!("{control}-events"),
        format!("tmux-cc-{pid}-0"),
    ]);
    for name in names {
        let cert = ca.issue_with(&[&name], vec![ExtendedKeyUsagePurpose::ClientAuth]);
        certificates.push((name, cert));
    }
    for (i, (what, cert)) in certificates.into_iter().enumerate() {
        let dir = cas_dir.join(format!("client{i}"));
        ca.write_side(&dir, "client", cert);
        let tls = holding(&dir.join(mtls::CA_FILE), &dir, "client");
        let alert = if what == "serverAuth only" {
            AlertDescription::BadCertificate
        } else {
            AlertDescription::CertificateUnknown
        };
        assert_eq!(
            refused(&tls, addr, &initialize(0)).await,
            Ok(rustls::Error::AlertReceived(alert)),
            "{what}"
        );
    }
    // Logged with the reason (the first refusal; the others are counted in the next line).
    let line = ratd.wait_for("TLS handshake refused");
    ratd.signal(nix::sys::signal::Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
    assert!(
        line.contains(r#"error="invalid peer certificate: the client certificate carries 2 subject CNs, where a client certificate names one client: make client certificates with rat-tool bundle generate""#),
        "{line}"
    );
}

/// A CA with the profile of a bundle CA (`O=rat CA, CN=tenant`, path length 0) whose key the
/// test keeps.
struct TestCa {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    fn new(tenant: &str) -> TestCa {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = CertificateParams::default();
        (params.not_before, params.not_after) =
            (date_time_ymd(2025, 1, 1), date_time_ymd(2045, 1, 1));
        let mut dn = DistinguishedName::new();
        dn.push(DnType::OrganizationName, mtls::CA_ORGANIZATION);
        dn.push(DnType::CommonName, tenant);
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign];
        let pem = params.self_signed(&key).unwrap().pem();
        TestCa {
            pem,
            issuer: Issuer::new(params, key),
        }
    }

    /// A leaf certificate with common name `cn` and `usage`, valid from 2025 to 2045, or (if
    /// `expired`) in 2024 only: (certificate, key) PEM.
    fn issue(&self, cn: &str, usage: ExtendedKeyUsagePurpose, expired: bool) -> (String, String) {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = CertificateParams::default();
        (params.not_before, params.not_after) = if expired {
            (date_time_ymd(2024, 1, 1), date_time_ymd(2025, 1, 1))
        } else {
            (date_time_ymd(2025, 1, 1), date_time_ymd(2045, 1, 1))
        };
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, cn);
        params.distinguished_name = dn;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// A leaf certificate valid from 2025 to 2045 with a subject CN for each of `cns`, one or
    /// two (the second under the CN's OID, as rcgen keeps one value per type) and the extended
    /// key usages `usages` (none: no such extension): (certificate, key) PEM.
    fn issue_with(&self, cns: &[&str], usages: Vec<ExtendedKeyUsagePurpose>) -> (String, String) {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = CertificateParams::default();
        (params.not_before, params.not_after) =
            (date_time_ymd(2025, 1, 1), date_time_ymd(2045, 1, 1));
        let mut dn = DistinguishedName::new();
        assert!(matches!(cns.len(), 1 | 2), "one or two CNs");
        dn.push(DnType::CommonName, cns[0]);
        if let Some(second) = cns.get(1) {
            dn.push(DnType::CustomDnType(vec![2, 5, 4, 3]), *second);
        }
        params.distinguished_name = dn;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = usages;
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// A side directory as generate writes it: 0700, `ca.crt`, `ROLE.crt`, `ROLE.key` (0600).
    fn write_side(&self, dir: &Path, role: &str, (cert, key): (String, String)) {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::create_dir_all(dir).unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(dir.join(mtls::CA_FILE), &self.pem).unwrap();
        std::fs::write(dir.join(format!("{role}.crt")), cert).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(dir.join(format!("{role}.key")))
            .unwrap();
        std::io::Write::write_all(&mut file, key.as_bytes()).unwrap();
    }
}

/// A refused connection whose client reads the alert but never closes: ratd reads what it
/// sends for 5 seconds (REFUSAL_LINGER), then closes. Returns the client's raw TCP stream right
/// after the alert was read, and when the connection was opened: ratd's 5 seconds start after
/// that, whenever a loaded machine lets the client read the alert.
async fn refused_and_kept_open(served: &Served) -> (tokio::net::TcpStream, std::time::Instant) {
    let other = Bundle::generate(served.tenant(), &["alice"]);
    let ca = served.bundle.server_dir().join(mtls::CA_FILE);
    let tls = holding(&ca, &other.client_dir("alice"), "client");
    let connector = tokio_rustls::TlsConnector::from(tls);
    let opened_at = std::time::Instant::now();
    let tcp = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let mut stream = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
        .unwrap();
    stream.write_all(&initialize(0)).await.unwrap();
    let mut byte = [0u8; 1];
    let error = stream.read(&mut byte).await.expect_err("refused");
    assert_eq!(error.to_string(), "received fatal alert: UnknownCA");
    (stream.into_inner().0, opened_at)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_client_that_never_closes_is_closed_after_5_seconds() {
    let mut served = Served::start(&["alice"]).await;
    let (mut tcp, opened_at) = refused_and_kept_open(&served).await;
    // After the alert, the FIN: the server writes nothing more.
    let mut byte = [0u8; 1];
    assert_eq!(tcp.read(&mut byte).await.unwrap(), 0, "EOF after the alert");
    // The server keeps reading what the client sends, then closes: a write then meets a
    // closed socket (reset, then broken pipe).
    let closed_after = loop {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        if tcp.write_all(b"more of a request").await.is_err() {
            break opened_at.elapsed();
        }
        assert!(
            opened_at.elapsed() < std::time::Duration::from_secs(30),
            "never closed"
        );
    };
    // Not before the 5 s, and not at the end of the test: the upper bound leaves a loaded
    // machine room.
    assert!(
        closed_after >= std::time::Duration::from_secs(5)
            && closed_after < std::time::Duration::from_secs(20),
        "closed {closed_after:?} after the connection was opened"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_does_not_wait_for_refused_clients() {
    let mut served = Served::start(&["alice"]).await;
    let (mut tcp, _) = refused_and_kept_open(&served).await;
    let started = std::time::Instant::now();
    served.stop().await;
    let stopped_in = started.elapsed();
    assert!(
        stopped_in < std::time::Duration::from_secs(4),
        "stopped in {stopped_in:?}: waited for the refused client"
    );
    // The refused connection is closed: the client's write meets a closed socket.
    let mut byte = [0u8; 1];
    assert_eq!(tcp.read(&mut byte).await.unwrap(), 0, "EOF after the alert");
    let write = async {
        loop {
            if tcp.write_all(b"more of a request").await.is_err() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(2), write)
        .await
        .expect("the connection is closed");
}
