//! Rejected TLS handshakes in the log (a public port gets scanned: `docs/design/transport.md`,
//! Serving):
//! at most one line every 10 seconds, with the count of the others. The real binary, clients
//! without a certificate over real TLS.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::service_common::Daemon;
use nix::sys::signal::Signal;
use rustls_pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Debug)]
struct NoCertificate;

impl rustls::client::ResolvesClientCert for NoCertificate {
    fn resolve(
        &self,
        _: &[&[u8]],
        _: &[rustls::SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        None
    }
    fn has_certs(&self) -> bool {
        false
    }
}

/// One handshake without a client certificate, until ratd refuses it.
async fn refused(connector: &tokio_rustls::TlsConnector, addr: std::net::SocketAddr) {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let Ok(mut stream) = connector
        .connect(ServerName::try_from("ratd").unwrap(), tcp)
        .await
    else {
        return;
    };
    let _ = stream.write_all(b"GET /mcp HTTP/1.1\r\n\r\n").await;
    let mut buf = Vec::new();
    let error = stream.read_to_end(&mut buf).await.expect_err("refused");
    assert_eq!(
        error.to_string(),
        "received fatal alert: CertificateRequired"
    );
    assert!(buf.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_refused_handshakes_log_one_line_then_the_count() {
    let mut ratd = Daemon::spawn(&[]);
    let addr = ratd.wait_serving();
    let mut tls = ratd.bundle.client_tls("alice");
    tls.client_auth_cert_resolver = Arc::new(NoCertificate);
    let connector = tokio_rustls::TlsConnector::from(Arc::new(tls));
    refused(&connector, addr).await;
    // The first refusal is logged; the time is taken once its line is read, so after ratd took
    // its own (a refusal read by the client is not yet logged on a loaded machine).
    ratd.wait_for("TLS handshake refused");
    let started = Instant::now();
    for _ in 0..99 {
        refused(&connector, addr).await;
    }
    // 10 seconds after the first line, the next refusal is logged with the count of the others.
    tokio::time::sleep(
        Duration::from_secs(10).saturating_sub(started.elapsed()) + Duration::from_millis(200),
    )
    .await;
    refused(&connector, addr).await;
    ratd.wait_for("since the last one logged");
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
    let lines: Vec<&String> = ratd
        .seen
        .iter()
        .filter(|l| l.contains("TLS handshake refused"))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].contains("TLS handshake refused addr=127.0.0.1:"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("TLS handshake refused (99 others since the last one logged)"),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("others=99"), "{}", lines[1]);
}
