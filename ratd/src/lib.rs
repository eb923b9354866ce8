//! ratd: the daemon owning the tmux server of one tenant and serving rat's tools as MCP
//! over Streamable HTTP behind mutual TLS (the design: `docs/design/`, transport.md first).
//!
//! One ratd per tenant, the tenant named by the server certificate of its bundle. Each request
//! comes over TLS 1.3 with a client certificate of the bundle, whose name is the tmux session
//! every tool of that request works in; ratd builds an rmcp service for each request, bound to
//! that session ([`mcp`]), and serves it statelessly at `/mcp` with JSON responses ([`serve`]).
//!
//! # Lifecycle
//!
//! [`Ratd::start`] runs the startup steps in their order (`docs/design/terminals.md`, Startup),
//! failing while the admin is still there: load and check the bundle, start the tmux server
//! (refusing a socket another server holds, naming its pid), check the terminals once (their
//! outcome shapes the instructions and descriptions), then listen. [`Ratd::serve`] serves until its
//! shutdown token fires, then stops in its order (`docs/design/terminals.md`, Shutdown): the door
//! closes (no new connection, kept-alive connections closed once idle), waits answer at once that
//! ratd stops, other calls get 10 seconds, then the tmux server is stopped. [`run`] is both;
//! [`run_service`] is both telling systemd ([`Notifier`]), as ratd's `main` runs it.
//!
//! The service side ([`service`]: the startup warnings, the supervisor of the tmux server,
//! systemd's notify protocol and status line, the journal's log form) runs in
//! [`Ratd::start`] (warnings, the check's log) and [`Ratd::serve_with`] (the rest).
#![forbid(unsafe_code)]

mod bodies;
pub mod cli;
mod in_flight;
pub mod mcp;
mod peer;
pub mod serve;
pub mod service;
mod tools;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rat_core::result::ReadBudget;
use rat_core::terminals::{Controller, ControllerConfig, Stopped};
use rat_wire::mtls;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use cli::{Args, Listen};
pub use in_flight::InFlight;
pub use peer::Peer;
pub use service::notify::Notifier;
pub use service::supervisor::TooManyDeaths;

/// How long calls in flight get to finish once ratd stops (`docs/design/terminals.md`,
/// Shutdown).
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
    /// The terminals' `HOME` and start directory: `None` for ratd's own `$HOME` (what the
    /// binary uses: the home of ratd's user, whose shell startup files the terminals read).
    /// Given, it isolates the terminals of an embedding program or a test from the user's.
    pub home: Option<PathBuf>,
    /// The most connections held at once ([`DEFAULT_MAX_CONNECTIONS`] by default): beyond,
    /// new connections wait in the listen backlog until one closes (logged when reached).
    pub max_connections: usize,
    /// Secrets masked in answers and restored in inputs (the default), or shown
    /// (`docs/design/secrets.md`).
    pub secrets: rat_core::secrets::Mode,
}

/// The default of `--max-connections`: 4096 connections held at once, each an idle TLS
/// connection of about 30 KiB at most (docs/benchmarks.md), a file descriptor each. ratd
/// raises its soft file limit to the hard one at start to hold them.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// Why ratd could not start: each names the step that failed and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartupFailure {
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
        source: rat_core::terminals::ControllerStartError,
    },
    /// Step 4: the listen address could not be bound.
    #[error("can not listen on {listen}: {source}{}", listen_hint(source))]
    Listen {
        /// The address given with --listen.
        listen: String,
        /// The system's error.
        #[source]
        source: io::Error,
    },
}

/// What to do about a listen address refused, for the two reasons an operator meets.
fn listen_hint(error: &io::Error) -> &'static str {
    match error.kind() {
        io::ErrorKind::AddrInUse => {
            "; another program listens there (another ratd maybe: ss -ltnp shows which), or give --listen another port"
        }
        io::ErrorKind::PermissionDenied => {
            "; a port under 1024 needs root or CAP_NET_BIND_SERVICE (AmbientCapabilities= in the systemd unit), or give --listen a port from 1024"
        }
        _ => "",
    }
}

/// A ratd that started: its tmux server runs, its terminals were checked, its listeners are
/// bound. [`Ratd::serve`] serves them.
pub struct Ratd {
    tenant: String,
    max_connections: usize,
    /// The most connections held in their TLS handshake, by listener (`serve::MAX_HANDSHAKING`,
    /// or what the open file limit leaves them).
    max_handshaking: usize,
    listeners: Vec<TcpListener>,
    acceptor: TlsAcceptor,
    controller: Controller,
    shared: Arc<mcp::McpState>,
    /// The end of the bundle's validity, checked again every day.
    not_after: SystemTime,
}

impl Ratd {
    /// Runs the startup steps in their order: load and check the bundle, start the tmux
    /// server, check the terminals, listen.
    ///
    /// # Errors
    /// [`StartupFailure`], naming the step; the tmux server started at step 2 is stopped again when
    /// a later step fails.
    pub async fn start(config: Config) -> Result<Ratd, StartupFailure> {
        // 1. The bundle: the server certificate names the tenant.
        let side = mtls::load_server(&config.bundle).map_err(|source| StartupFailure::Bundle {
            dir: config.bundle.clone(),
            source,
        })?;
        let tenant = side.tenant().to_owned();
        let host = host_name();
        let mut degradations = service::warnings::startup(&config.bundle, side.not_after());

        // 2. The tmux server of the tenant.
        let mut terminals = ControllerConfig::new(tenant.clone());
        terminals.read_budget = config.read_budget;
        terminals.secrets = config.secrets;
        if let Some(home) = &config.home {
            terminals.home = home.clone();
        }
        // The writes in progress, for a write cut by the end of a former ratd to be told
        // (`docs/design/files.md`, Writes cut short). Without it, writes are not noted.
        let journal_dir = terminals
            .home
            .join(".local/state/rat")
            .join(&tenant)
            .join("writes");
        let journal = match rat_core::files::journal::Journal::open(&journal_dir) {
            Ok(journal) => Some(Arc::new(journal)),
            Err(error) => {
                tracing::warn!(dir = %journal_dir.display(), %error, "the journal of writes in progress can not be kept: a write cut by the end of ratd will not be told");
                None
            }
        };
        let controller =
            Controller::start(terminals)
                .await
                .map_err(|source| StartupFailure::Terminals {
                    tenant: tenant.clone(),
                    source,
                })?;

        // 3. The terminals, checked once: the outcome shapes instructions and descriptions.
        let check = controller.check_terminals().await;
        degradations.terminals = service::warnings::terminal_check(&check);
        let tools = rat_core::catalog::tools(&check, config.read_budget)
            .into_iter()
            .map(|mut def| {
                // Secrets masked: the descriptions say so (docs/design/secrets.md).
                if config.secrets == rat_core::secrets::Mode::Mask
                    && let Some(sentence) = rat_core::secrets::described(def.name)
                {
                    def.description.push_str(sentence);
                }
                def
            })
            .map(mcp::rmcp_tool)
            .collect();
        let instructions = rat_core::catalog::instructions(&host, &check);
        let capability = rat_core::catalog::capability(&check);

        // 4. Listen.
        let listeners = match serve::bind(&config.listen).await {
            Ok(listeners) => listeners,
            Err(source) => {
                let _ = controller.stop().await;
                return Err(StartupFailure::Listen {
                    listen: config.listen.to_string(),
                    source,
                });
            }
        };
        let mut runner = tools::Runner::new(controller.clone(), config.read_budget);
        runner.journal = journal;
        let addrs = listeners
            .iter()
            .filter_map(|l| l.local_addr().ok())
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let status = Arc::new(service::status::Status::new(
            &tenant,
            &addrs,
            Some(runner.in_flight.clone()),
            Notifier::nowhere(),
        ));
        status.degrade(|d| *d = degradations);
        let shared = Arc::new(mcp::McpState::new(
            &tenant,
            &host,
            tools,
            instructions,
            capability,
            runner,
            status,
        ));
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            tenant,
            address = addrs,
            read_budget = %config.read_budget,
            secrets = match config.secrets {
                rat_core::secrets::Mode::Mask => "masked",
                rat_core::secrets::Mode::Show => "shown",
            },
            bundle_expires = %mtls::format_time(side.not_after()),
            "ratd serving"
        );
        let max_handshaking =
            service::warnings::file_limit(config.max_connections, serve::MAX_HANDSHAKING);
        Ok(Ratd {
            tenant,
            max_connections: config.max_connections,
            max_handshaking,
            listeners,
            acceptor: TlsAcceptor::from(side.rustls_config()),
            controller,
            shared,
            not_after: side.not_after(),
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
    /// which the Go build rat started from measured at 0.1 ms and 335 KB.
    #[cfg(feature = "test-support")]
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

    /// Serves until `shutdown` fires, then stops: [`Ratd::serve_with`] outside systemd. The
    /// supervisor giving up is logged as an error and stops ratd the same way.
    pub async fn serve(self, shutdown: CancellationToken) {
        let _ = self.serve_with(shutdown, Notifier::nowhere()).await;
    }

    /// Serves until `shutdown` fires or the tmux server dies too often, telling `notifier`
    /// (systemd) how it goes, then stops in its order (`docs/design/terminals.md`,
    /// Restarts and Shutdown; `docs/design/status-and-logs.md`):
    ///
    /// - serving: the supervisor keeps the tmux server running, the status line is rendered
    ///   every 10 s, the bundle's expiry checked every day; `READY=1` once the door is open;
    /// - the stop: `STOPPING=1` at once, and the status line `stopping: closing the door`; the
    ///   supervisor stops (it must not restart what ratd stops) and the door closes: no new
    ///   connection, waits answer at once that ratd stops, other calls get [`SHUTDOWN_GRACE`];
    ///   then `stopping: stopping the terminals` and the tmux server is stopped with the
    ///   controller's escalation (a server that exited with the door, signalled by systemd with
    ///   ratd, needed nothing forced: logged at info).
    ///
    /// # Errors
    /// [`TooManyDeaths`] when the supervisor gave up (five deaths within five minutes): ratd
    /// stopped all the same, and exits with an error.
    pub async fn serve_with(
        self,
        shutdown: CancellationToken,
        notifier: Notifier,
    ) -> Result<(), TooManyDeaths> {
        self.serve_forcible(shutdown, CancellationToken::new(), notifier)
            .await
    }

    /// As [`Ratd::serve_with`], and `force` cuts the grace short: once it fires during the
    /// stop (a second SIGTERM or SIGINT, as daemons take it), the calls still running are cut
    /// at once, then the tmux server is stopped as usual. Firing it before `shutdown` does
    /// nothing until the stop begins.
    ///
    /// # Errors
    /// [`TooManyDeaths`], as [`Ratd::serve_with`].
    pub async fn serve_forcible(
        self,
        shutdown: CancellationToken,
        force: CancellationToken,
        notifier: Notifier,
    ) -> Result<(), TooManyDeaths> {
        let Ratd {
            tenant,
            max_connections,
            max_handshaking,
            listeners,
            acceptor,
            controller,
            shared,
            not_after,
        } = self;
        let status = shared.status.clone();
        status.set_notifier(notifier);
        let door = CancellationToken::new();
        let hard_stop = CancellationToken::new();
        let connections = TaskTracker::new();
        let mut accept_loops = tokio::task::JoinSet::new();
        let cap = Arc::new(serve::ConnectionCap::new(max_connections, max_handshaking));
        for listener in listeners {
            accept_loops.spawn(serve::accept_loop(
                listener,
                cap.clone(),
                acceptor.clone(),
                shared.clone(),
                connections.clone(),
                door.clone(),
                hard_stop.clone(),
            ));
        }
        let stop_service = CancellationToken::new();
        let mut supervisor = tokio::spawn(service::supervisor::supervise(
            controller.clone(),
            stop_service.clone(),
            Some(status.clone()),
        ));
        let renders = tokio::spawn(status.clone().run(stop_service.clone()));
        let expiry = tokio::spawn(service::warnings::expiry_every_day(
            not_after,
            status.clone(),
            stop_service.clone(),
        ));
        status.ready();

        let gave_up = tokio::select! {
            () = shutdown.cancelled() => None,
            joined = &mut supervisor => Some(joined),
        };

        status.stopping(service::status::StoppingStatus::ClosingTheDoor);
        tracing::info!(tenant, "stopping: closing the door");
        stop_service.cancel();
        door.cancel();
        controller.announce_stop();
        let supervised = match gave_up {
            Some(joined) => joined,
            None => supervisor.await,
        };
        let _ = renders.await;
        let _ = expiry.await;
        while accept_loops.join_next().await.is_some() {}
        connections.close();
        tokio::select! {
            () = connections.wait() => {}
            () = tokio::time::sleep(SHUTDOWN_GRACE) => {
                tracing::warn!(
                    tenant,
                    "stopping: calls still running after 10 seconds are cut"
                );
            }
            () = force.cancelled() => {
                tracing::warn!(
                    tenant,
                    "stopping at once, as asked again: requests still in flight are cut"
                );
            }
        }
        hard_stop.cancel();
        connections.wait().await;
        status.stopping(service::status::StoppingStatus::StoppingTheTerminals);
        tracing::info!(tenant, "stopping: stopping the terminals");
        let gave_up = matches!(supervised, Ok(Err(_)));
        match controller.stop().await {
            Ok(report) => match Stopped::from(report) {
                Stopped::ExitedAsked => {
                    tracing::info!(tenant, "stopped: the tmux server had already exited")
                }
                Stopped::ExitedUnasked { exit } if gave_up => tracing::info!(
                    tenant,
                    exit = %exit,
                    "stopped: the tmux server was dead already, after dying 5 times within 5 minutes (see the deaths above)"
                ),
                Stopped::ExitedUnasked { exit } => tracing::info!(
                    tenant,
                    exit = %exit,
                    "stopped: the tmux server had exited on its own (stopped as a service, systemd signals tmux too): nothing to force"
                ),
                Stopped::Asked { step } => tracing::info!(tenant, step = %step, "stopped"),
                Stopped::Forced { step } => {
                    tracing::warn!(tenant, step = %step, "stopped, forcing the tmux server")
                }
            },
            Err(error) => tracing::warn!(tenant, %error, "stopped, the tmux server may be left"),
        }
        match supervised {
            Ok(result) => result,
            Err(panicked) => {
                tracing::error!(error = %panicked, "the supervisor of the tmux server failed");
                Ok(())
            }
        }
    }
}

/// Starts ratd and serves until `shutdown` fires: [`Ratd::start`], then [`Ratd::serve`].
///
/// # Errors
/// [`StartupFailure`] when a startup step fails.
pub async fn run(config: Config, shutdown: CancellationToken) -> Result<(), StartupFailure> {
    Ratd::start(config).await?.serve(shutdown).await;
    Ok(())
}

/// Why ratd exits with an error: a startup step failed, or the terminals died too often.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A startup step failed.
    #[error(transparent)]
    Start(#[from] StartupFailure),
    /// The supervisor gave up on the tmux server.
    #[error(transparent)]
    TerminalsDying(#[from] TooManyDeaths),
}

/// [`Ratd::start`], then [`Ratd::serve_with`] telling `notifier`: what ratd's `main` runs.
///
/// # Errors
/// [`RunError`]: a startup step failed, or the tmux server died too often.
///
/// `force`, fired during the stop, cuts the grace given to the calls still running
/// ([`Ratd::serve_forcible`]).
pub async fn run_service(
    config: Config,
    shutdown: CancellationToken,
    force: CancellationToken,
    notifier: Notifier,
) -> Result<(), RunError> {
    Ratd::start(config)
        .await?
        .serve_forcible(shutdown, force, notifier)
        .await?;
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
