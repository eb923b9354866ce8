//! ratd's command: parses the flags, installs the log subscriber (stderr, in the journal's form
//! when stderr is the journal stream), takes `NOTIFY_SOCKET` out of the environment while keeping
//! its address, and runs ratd until SIGTERM or SIGINT (`docs/design/transport.md`, Configuration;
//! `terminals.md`, Lifecycle; `status-and-logs.md`). Exits 1 when a startup step fails or the
//! terminals die too often.
// `deny` rather than `forbid`: the `allow`s below take NOTIFY_SOCKET out of the environment and
// give freed memory back to the system (glibc's malloc_trim).
#![deny(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use ratd::service::logs::{self, Form};
use ratd::service::notify::{NOTIFY_SOCKET, Notifier};
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

fn main() -> ExitCode {
    let args = ratd::Args::parse();
    // systemd's notify socket: its address is kept for ratd, and the variable leaves the
    // environment before tmux starts, so that the terminals do not inherit it (systemctl,
    // journalctl or systemd-detect-virt run in a terminal would report to it, and systemd warn
    // in ratd's journal each time), as sd_notify's unset_environment does.
    let notifier = Notifier::from_env();
    // SAFETY: no other thread exists yet (the async runtime is built below, and nothing before
    // this line starts one), which is remove_var's only precondition.
    #[allow(unsafe_code)]
    unsafe {
        std::env::remove_var(NOTIFY_SOCKET);
    }
    trim_freed_memory();
    let form = Form::detect();
    logs::init(args.log_level, form);
    // The connections of --max-connections need as many files: the soft limit (1024 on most
    // systems) goes up to the hard one (ratd warns at start when that is still too low).
    ratd::service::warnings::raise_file_limit();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            print_error(form, &format!("can not start the async runtime: {error}"));
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
                print_error(form, &format!("can not handle SIGTERM and SIGINT: {error}"));
                return Err(());
            }
        };
        let on_signal = shutdown.clone();
        let force = CancellationToken::new();
        let on_second = force.clone();
        tokio::spawn(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            // Logged before the stop begins, so that the log tells why before what.
            tracing::info!(signal = name, "stopping on signal");
            on_signal.cancel();
            // A second signal, of either kind, cuts the grace short (the convention of
            // daemons): everything is still stopped in order.
            let again = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!(signal = again, "second signal: stopping at once");
            on_second.cancel();
        });
        ratd::run_service(args.config(), shutdown, force, notifier)
            .await
            .map_err(|error| {
                print_error(form, &error);
            })
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(()) => ExitCode::FAILURE,
    }
}

/// Prints the error ratd exits with on stderr ([`Form::error_line`]); a stderr that does not
/// take it (a pipe whose reader exited) loses the line, where `eprintln!` would panic and turn
/// exit status 1 into 101.
fn print_error(form: Form, error: &dyn std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "{}", form.error_line(error));
}

/// Gives freed heap memory back to the system: every 10 seconds, when glibc's malloc holds
/// more than 8 MiB freed in its arenas (a flood of connections closed), `malloc_trim(0)`.
/// Without it glibc kept what 3000 idle connections had used: RSS 54 MiB a minute after they
/// closed, against 11 MiB before (docs/benchmarks.md, "ratd's door"; mimalloc, measured
/// instead, kept 70 MiB).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_freed_memory() {
    const EVERY: std::time::Duration = std::time::Duration::from_secs(10);
    const FREED: usize = 8 << 20;
    let trimmer = std::thread::Builder::new()
        .name("ratd-trim".into())
        .spawn(|| {
            loop {
                std::thread::sleep(EVERY);
                // SAFETY: mallinfo2 and malloc_trim take no pointer and are thread-safe
                // (each locks the arenas it walks).
                #[allow(unsafe_code)]
                unsafe {
                    if libc::mallinfo2().fordblks > FREED {
                        libc::malloc_trim(0);
                    }
                }
            }
        });
    if let Err(error) = trimmer {
        eprintln!("ratd: no thread to give freed memory back ({error}): serving without it");
    }
}

/// Other C libraries give freed memory back by themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_freed_memory() {}
