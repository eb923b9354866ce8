//! What the tests of ratd share: a bundle made by rat-core's generate (rat-tool's code), a real
//! ratd started in-process on 127.0.0.1:0 with its real tmux server (a unique tenant per test,
//! so a unique socket `rat-<tenant>`, killed at the end even when the test fails), and rmcp's
//! own client over reqwest presenting a client certificate of the bundle.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rat_core::result::ReadBudget;
use rat_wire::mtls;
use ratd::{Config, InFlight, Listen, Ratd};
use rmcp::RoleClient;
use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio_util::sync::CancellationToken;

pub use tmux_cc::test_support::SocketGuard;

/// A tenant name no other test uses: `rt-PID-N`.
pub fn unique_tenant() -> String {
    tmux_cc::test_support::socket_name("rt")
}

/// A bundle of `tenant` for `clients`, generated into a temporary directory.
pub struct Bundle {
    pub dir: tempfile::TempDir,
    pub tenant: String,
}

impl Bundle {
    pub fn generate(tenant: &str, clients: &[&str]) -> Bundle {
        let dir = tempfile::tempdir().expect("temporary directory");
        mtls::generate(tenant, clients, &dir.path().join("b")).expect("bundle generated");
        std::fs::create_dir(dir.path().join("home")).expect("the terminals' home");
        Bundle {
            dir,
            tenant: tenant.to_owned(),
        }
    }
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("b")
    }
    /// The terminals' HOME: empty, of this test alone. Not the user's: their shell startup
    /// files may be slow or stall (root's `pyenv init` here waits 60 s on a lock that a bash
    /// killed mid-startup by another test left behind).
    pub fn home(&self) -> PathBuf {
        let home = self.dir.path().join("home");
        // A Bundle built field by field (tests making their own certificates) has none yet.
        std::fs::create_dir_all(&home).expect("the terminals' home");
        home
    }
    pub fn server_dir(&self) -> PathBuf {
        mtls::server_dir(&self.root())
    }
    pub fn client_dir(&self, client: &str) -> PathBuf {
        mtls::client_dir(&self.root(), client)
    }
    pub fn client_tls(&self, client: &str) -> rustls::ClientConfig {
        let side = mtls::load_client(&self.client_dir(client)).expect("client side loads");
        (*side.rustls_config()).clone()
    }
    pub fn config(&self) -> Config {
        Config {
            bundle: self.server_dir(),
            listen: Listen::Host {
                host: "127.0.0.1".into(),
                port: 0,
            },
            read_budget: ReadBudget::DEFAULT,
            home: Some(self.home()),
            max_connections: ratd::DEFAULT_MAX_CONNECTIONS,
            secrets: Default::default(),
        }
    }
}

/// A ratd serving in-process, stopped (and its tmux server killed) when dropped.
pub struct Served {
    pub bundle: Bundle,
    pub addr: SocketAddr,
    pub shutdown: CancellationToken,
    pub task: Option<tokio::task::JoinHandle<()>>,
    pub in_flight: Arc<InFlight>,
    pub guard: SocketGuard,
}

impl Served {
    /// Generates a bundle for a fresh tenant with `clients` and starts ratd on it.
    pub async fn start(clients: &[&str]) -> Served {
        Self::start_with(clients, |_| {}).await
    }

    /// As [`Served::start`], its configuration changed by `change` first.
    pub async fn start_with(clients: &[&str], change: impl FnOnce(&mut Config)) -> Served {
        let tenant = unique_tenant();
        let guard = SocketGuard::named(format!("rat-{tenant}"));
        let bundle = Bundle::generate(&tenant, clients);
        let mut config = bundle.config();
        change(&mut config);
        let ratd = Ratd::start(config).await.expect("ratd starts");
        let addr = ratd.local_addrs()[0];
        let in_flight = ratd.in_flight();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(ratd.serve(shutdown.clone()));
        Served {
            bundle,
            addr,
            shutdown,
            task: Some(task),
            in_flight,
            guard,
        }
    }

    pub fn tenant(&self) -> &str {
        &self.bundle.tenant
    }

    pub fn url(&self) -> String {
        format!("https://{}/mcp", self.addr)
    }

    /// An HTTP client presenting the certificate of `client`.
    pub fn http(&self, client: &str) -> reqwest::Client {
        http_client(self.bundle.client_tls(client))
    }

    /// A POST of a JSON-RPC `body` to /mcp through `http` (one of [`Served::http`]), with the
    /// headers of protocol 2025-11-25 (no initialize needed by a stateless ratd).
    pub fn post(
        &self,
        http: &reqwest::Client,
        body: impl Into<reqwest::Body>,
    ) -> reqwest::RequestBuilder {
        http.post(self.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body)
    }

    /// rmcp's client for `client`, initialized with protocol `version`.
    pub async fn mcp(&self, client: &str) -> RunningService<RoleClient, ClientConfig> {
        self.mcp_version(client, ProtocolVersion::V_2025_11_25)
            .await
    }

    /// rmcp's client for `client`, initialized with protocol `version`.
    pub async fn mcp_version(
        &self,
        client: &str,
        version: ProtocolVersion,
    ) -> RunningService<RoleClient, ClientConfig> {
        let mut info = ClientConfig::default();
        info.protocol_version = version;
        info.serve(self.transport(client))
            .await
            .expect("initialize succeeds")
    }

    /// rmcp's client for `client`, starting with server/discover (protocol 2026-07-28).
    pub async fn mcp_discover(&self, client: &str) -> RunningService<RoleClient, ClientConfig> {
        ClientConfig::default()
            .serve_with_lifecycle(
                self.transport(client),
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("discover succeeds")
    }

    pub fn transport(&self, client: &str) -> StreamableHttpClientTransport<reqwest::Client> {
        StreamableHttpClientTransport::with_client(
            self.http(client),
            StreamableHttpClientTransportConfig::with_uri(self.url()),
        )
    }

    /// Stops ratd as a signal would, and waits for it to be done.
    pub async fn stop(&mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            task.await.expect("ratd's serve task ends");
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// A reqwest client over `tls`, HTTP/1.1 only.
pub fn http_client(tls: rustls::ClientConfig) -> reqwest::Client {
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .http1_only()
        .build()
        .expect("reqwest client")
}

/// The pid of the tmux server on `socket`, asked to tmux itself.
pub fn tmux_server_pid(socket: &str) -> Option<u32> {
    let out = std::process::Command::new("tmux")
        .args(["-L", socket, "display-message", "-p", "#{pid}"])
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// Whether a tmux server answers on `socket`.
pub fn tmux_server_running(socket: &str) -> bool {
    tmux_server_pid(socket).is_some()
}

pub fn path_str(path: &Path) -> String {
    path.display().to_string()
}
