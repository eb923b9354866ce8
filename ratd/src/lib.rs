//! ratd: the daemon owning the tmux server of one tenant and serving rat's nine tools as MCP
//! over Streamable HTTP behind mutual TLS (ratd-design.txt).
//!
//! One ratd per tenant, the tenant named by the server certificate of its bundle. Each request
//! comes over TLS 1.3 with a client certificate of the bundle, whose name is the tmux session
//! every tool of that request works in; ratd builds an rmcp service for each request, bound to
//! that session ([`mcp`]), and serves it statelessly at `/mcp` with JSON responses ([`serve`]).
//!
//! # Lifecycle
//!
//! [`Ratd::start`] runs the startup steps in the spec's order (Lifecycle > Startup), failing
//! while the admin is still there: load and check the bundle, start the tmux server (refusing a
//! socket another server holds, naming its pid), check the terminals once (their outcome shapes
//! the instructions and descriptions), then listen. [`Ratd::serve`] serves until its shutdown
//! token fires, then stops in the spec's order (Lifecycle > Shutdown): the door closes (no
//! new connection, kept-alive connections closed once idle), waits answer at once that ratd
//! stops, other calls get 10 seconds, then the tmux server is stopped. [`run`] is both.
//!
//! The service side (supervising the tmux server, systemd notify and status, the journal's log
//! format, the startup warnings) is issue 9: it fits in [`Ratd::serve`], which owns the
//! controller for as long as ratd serves.
#![forbid(unsafe_code)]

pub mod cli;
pub mod mcp;
pub mod serve;
pub mod service;
mod tools;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rat_core::mtls;
use rat_core::terminals::{Controller, ControllerConfig};
use rat_core::tools::ReadBudget;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use cli::{Args, Listen};
pub use serve::Peer;
pub use tools::InFlight;

/// How long calls in flight get to finish once ratd stops (ratd-design.txt, Shutdown).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What ratd needs to start: its flags, parsed ([`Args::config`]).
#[derive(Debug, Clone)]
pub struct Config {
    /// The server directory of a bundle (`DIR/server`).
    pub bundle: PathBuf,
    /// Where to listen.
    pub listen: Listen,
    /// The read budget of read_window and read_file.
    pub read_budget: ReadBudget,
}

/// Why ratd could not start: each names the step that failed and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// Step 1: the bundle did not load or failed a check.
    #[error("the bundle in {} can not be used: {source}", dir.display())]
    Bundle {
        /// The directory given with --bundle.
        dir: PathBuf,
        /// The check that failed, naming the file at fault.
        #[source]
        source: mtls::LoadError,
    },
    /// Step 2: the tmux server did not start (another server holds the socket, naming its pid;
    /// tmux or bash missing or too old).
    #[error("the terminals of tenant {tenant} can not start: {source}")]
    Terminals {
        /// The tenant of the bundle.
        tenant: String,
        /// Why, from rat-core.
        #[source]
        source: rat_core::terminals::StartError,
    },
    /// Step 4: the listen address could not be bound.
    #[error("can not listen on {listen}: {source}")]
    Listen {
        /// The address given with --listen.
        listen: String,
        /// The system's error.
        #[source]
        source: io::Error,
    },
}

/// A ratd that started: its tmux server runs, its terminals were checked, its listeners are
/// bound. [`Ratd::serve`] serves them.
pub struct Ratd {
    tenant: String,
    listeners: Vec<TcpListener>,
    acceptor: TlsAcceptor,
    controller: Controller,
    shared: Arc<mcp::Shared>,
}

impl Ratd {
    /// Runs the startup steps in the spec's order: load and check the bundle, start the tmux
    /// server, check the terminals, listen.
    ///
    /// # Errors
    /// [`StartError`], naming the step; the tmux server started at step 2 is stopped again when
    /// a later step fails.
    pub async fn start(config: Config) -> Result<Ratd, StartError> {
        // 1. The bundle: the server certificate names the tenant.
        let side = mtls::load_server(&config.bundle).map_err(|source| StartError::Bundle {
            dir: config.bundle.clone(),
            source,
        })?;
        let tenant = side.tenant().to_owned();
        let host = host_name();

        // 2. The tmux server of the tenant.
        let mut terminals = ControllerConfig::new(tenant.clone());
        terminals.read_budget = config.read_budget;
        let controller =
            Controller::start(terminals)
                .await
                .map_err(|source| StartError::Terminals {
                    tenant: tenant.clone(),
                    source,
                })?;

        // 3. The terminals, checked once: the outcome shapes instructions and descriptions.
        let check = controller.check_terminals().await;
        let tools = rat_core::catalog::tools(&check, config.read_budget)
            .into_iter()
            .map(mcp::rmcp_tool)
            .collect();
        let instructions = rat_core::catalog::instructions(&host, &check);

        // 4. Listen.
        let listeners = match serve::bind(&config.listen).await {
            Ok(listeners) => listeners,
            Err(source) => {
                let _ = controller.stop().await;
                return Err(StartError::Listen {
                    listen: config.listen.to_string(),
                    source,
                });
            }
        };
        let runner = tools::Runner::new(controller.clone(), config.read_budget);
        let shared = Arc::new(mcp::Shared::new(
            &tenant,
            &host,
            tools,
            instructions,
            runner,
        ));
        let addrs = listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            tenant,
            address = addrs,
            read_budget = %config.read_budget,
            bundle_expires = %mtls::format_time(side.not_after()),
            "ratd serving"
        );
        Ok(Ratd {
            tenant,
            listeners,
            acceptor: TlsAcceptor::from(side.rustls_config()),
            controller,
            shared,
        })
    }

    /// The tenant served, as the bundle names it.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// The tool calls in flight, waits apart: read while ratd serves.
    pub fn in_flight(&self) -> Arc<InFlight> {
        self.shared.runner.in_flight.clone()
    }

    /// Builds what each request gets, as ratd does for every request it serves: the rmcp
    /// service bound to the session of `peer`, and the handler rmcp asks it for, twice (for the
    /// tool schemas, then to serve, as a tools/call at 2026-07-28 does). Returned to be dropped
    /// by the caller. For the benchmark of the per-request build (docs/benchmarks.md, ratd),
    /// which the spec measured at 0.1 ms and 335 KB in the Go build.
    #[doc(hidden)]
    pub fn build_request_service(&self, peer: Peer) -> impl Send + use<> {
        let service = self.shared.service_for(peer.clone());
        let first = self.shared.handler(peer.clone());
        let second = self.shared.handler(peer);
        (service, first, second)
    }

    /// The addresses ratd listens on (the port chosen when 0 was asked).
    pub fn local_addrs(&self) -> Vec<SocketAddr> {
        self.listeners
            .iter()
            .filter_map(|listener| listener.local_addr().ok())
            .collect()
    }

    /// Serves until `shutdown` fires, then stops: the door closes, waits answer at once that
    /// ratd stops, other calls get [`SHUTDOWN_GRACE`], then the tmux server is stopped, so that
    /// nothing ratd started is left running (ratd-design.txt, Shutdown).
    pub async fn serve(self, shutdown: CancellationToken) {
        let Ratd {
            tenant,
            listeners,
            acceptor,
            controller,
            shared,
        } = self;
        let door = CancellationToken::new();
        let hard_stop = CancellationToken::new();
        let connections = TaskTracker::new();
        let mut accept_loops = tokio::task::JoinSet::new();
        for listener in listeners {
            accept_loops.spawn(serve::accept_loop(
                listener,
                acceptor.clone(),
                shared.clone(),
                connections.clone(),
                door.clone(),
                hard_stop.clone(),
            ));
        }

        shutdown.cancelled().await;

        tracing::info!(tenant, "stopping: closing the door");
        door.cancel();
        controller.announce_stop();
        while accept_loops.join_next().await.is_some() {}
        connections.close();
        if tokio::time::timeout(SHUTDOWN_GRACE, connections.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                tenant,
                "stopping: calls still running after 10 seconds are cut"
            );
            hard_stop.cancel();
            connections.wait().await;
        }
        tracing::info!(tenant, "stopping: stopping the terminals");
        match controller.stop().await {
            Ok(report) => tracing::info!(tenant, step = %report.step, "stopped"),
            Err(error) => tracing::warn!(tenant, %error, "stopped, the tmux server may be left"),
        }
    }
}

/// Starts ratd and serves until `shutdown` fires: [`Ratd::start`], then [`Ratd::serve`].
///
/// # Errors
/// [`StartError`] when a startup step fails.
pub async fn run(config: Config, shutdown: CancellationToken) -> Result<(), StartError> {
    Ratd::start(config).await?.serve(shutdown).await;
    Ok(())
}

/// The host name of this machine, as the instructions and the server title name it
/// (`gethostname(2)`); `localhost` if the system gives none.
pub fn host_name() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|name| name.into_string().ok())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}
