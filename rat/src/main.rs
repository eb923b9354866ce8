//! rat: the stdio bridge a harness starts (see the library's documentation and
//! `docs/design/bridge.md`).
//!
//! `rat --server HOST:PORT --bundle DIR [--log-level info]`
//!
//! Startup: load and check the client directory of the bundle (rat-wire's mtls: the seven
//! checks), warn when less than a year of validity remains, log one line, then relay. ratd is
//! not contacted before the first message: a ratd briefly down does not fail the startup of the
//! harness. A failure at startup is written on stderr, and rat exits with status 1 (2 for bad
//! flags, as clap does). Logs go to stderr only: stdout carries the protocol.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::SystemTime;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, ValueEnum};
use rat::headers::ToolHeaders;
use rat::relay::{Config, REQUEST_TIMEOUT, Relay, Stop};
use rat_wire::connect::{LogLevel, ServerArgs};
use rat_wire::mtls;
use tokio::io::BufReader;
use tokio::signal::unix::{SignalKind, signal};
use tracing::level_filters::LevelFilter;
use tracing::{error, info, warn};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The stdio bridge to ratd: relays each MCP message read on stdin to ratd over HTTPS, with the
/// client certificate of a bundle, and writes ratd's answers on stdout.
#[derive(Debug, Parser)]
#[command(name = "rat", version)]
struct Cli {
    #[command(flatten)]
    server: ServerArgs,
    /// The least level logged on stderr; debug adds one line per message (method, identifier,
    /// HTTP status, duration), never their content.
    #[arg(long, default_value = "info", value_parser = PossibleValuesParser::new(LOG_LEVELS).map(log_level))]
    log_level: LogLevel,
}

/// The levels rat takes, in the order its `--help` lists them (rat-wire's [`LogLevel`] has
/// trace too, which only ratd takes).
const LOG_LEVELS: [&str; 4] = ["debug", "info", "warn", "error"];

fn log_level(level: String) -> LogLevel {
    LogLevel::from_str(&level, false).expect("clap checked it is one of LOG_LEVELS")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = cli.log_level.level_filter();
    // rat's own lines at the level asked; the libraries under it only for their warnings.
    let targets = Targets::new()
        .with_target("rat", level)
        .with_target("rat_wire", level)
        .with_default(LevelFilter::WARN.min(level));
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .with_target(false),
        )
        .with(targets)
        .init();

    let server = cli.server.server.to_string();
    let bundle = cli.server.bundle.display().to_string();
    let client = match mtls::load_client(&cli.server.bundle) {
        Ok(client) => client,
        Err(e) => {
            error!(
                bundle,
                "the client directory of the bundle does not load: {e}"
            );
            return ExitCode::FAILURE;
        }
    };
    let now = SystemTime::now();
    if let Some(warning) = mtls::expiry_warning(client.not_after(), now) {
        warn!(bundle, "{warning}");
    }
    info!(
        version = env!("CARGO_PKG_VERSION"),
        server,
        tenant = client.tenant(),
        session = client.client_name(),
        bundle_expires = %mtls::describe_validity(client.not_after(), now),
        "rat started"
    );

    let schemas = rat_wire::tool::input_schemas();
    let config = Config {
        server,
        tls: (*client.rustls_config()).clone(),
        tools: ToolHeaders::from_schemas(schemas.iter().map(|(name, schema)| (*name, schema))),
        request_timeout: REQUEST_TIMEOUT,
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            error!("starting the runtime failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(async {
        let relay = match Relay::new(config) {
            Ok(relay) => relay,
            Err(e) => {
                error!("{e}");
                return ExitCode::FAILURE;
            }
        };
        let (mut terminate, mut interrupt) = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(t), Ok(i)) => (t, i),
            (Err(e), _) | (_, Err(e)) => {
                error!("installing the signal handlers failed: {e}");
                return ExitCode::FAILURE;
            }
        };
        let shutdown = async move {
            tokio::select! {
                _ = terminate.recv() => "SIGTERM".to_owned(),
                _ = interrupt.recv() => "SIGINT".to_owned(),
            }
        };
        let stdin = BufReader::with_capacity(64 * 1024, tokio::io::stdin());
        let stop = relay.run(stdin, tokio::io::stdout(), shutdown).await;
        match &stop {
            Stop::EndOfInput | Stop::Signal(_) => {
                info!(reason = %stop, "rat stopped");
                ExitCode::SUCCESS
            }
            Stop::InputError(_) | Stop::OutputError(_) => {
                error!(reason = %stop, "rat stopped");
                ExitCode::FAILURE
            }
        }
    });
    // stdin may still be read by a blocking thread: do not wait for it.
    runtime.shutdown_background();
    code
}
