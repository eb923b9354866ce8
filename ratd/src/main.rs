//! ratd's command: parses the flags, installs the log subscriber (stderr), and runs ratd until
//! SIGTERM or SIGINT (ratd-design.txt, Configuration, Lifecycle, Logs).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let args = ratd::Args::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(EnvFilter::new(args.log_level.filter_directives()))
        .with_target(false)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ratd: can not start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let shutdown = CancellationToken::new();
        let (mut term, mut int) = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(term), Ok(int)) => (term, int),
            (Err(error), _) | (_, Err(error)) => {
                eprintln!("ratd: can not handle SIGTERM and SIGINT: {error}");
                return Err(());
            }
        };
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!(signal = name, "stopping on signal");
            on_signal.cancel();
        });
        ratd::run(args.config(), shutdown).await.map_err(|error| {
            eprintln!("ratd: {error}");
        })
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(()) => ExitCode::FAILURE,
    }
}
