//! Runs shell command lines as tmux-cc jobs, in parallel, and prints how each ended and what
//! it wrote.
//!
//! ```sh
//! cargo run -p tmux-cc --example jobs -- 'echo hi; exit 3' 'seq 1 3' 'kill -TERM $$'
//! ```
//! Starts a private tmux server (`-L tmux-cc-jobs-PID`, the `tmux` on PATH), one session, then
//! every argument as a job in a window of its own, all at once; waits for each by its event,
//! prints, as each one ends, `[N] exit STATUS` (or `[N] signal NUMBER`; N its place among the
//! arguments, from 0) and its output (the terminal's CR LF line ends shown as LF), and stops
//! the server. Exits 1 if a job could not be run; on Ctrl-C or SIGTERM, stops the server (the
//! jobs still running end with it) and exits 130.

use std::process::ExitCode;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tmux_cc::{ClientOptions, JobSpec, NewSession, Server};

#[tokio::main]
async fn main() -> ExitCode {
    let commands: Vec<String> = std::env::args().skip(1).collect();
    if commands.is_empty() {
        eprintln!("usage: jobs 'CMD' ['CMD'...]");
        return ExitCode::FAILURE;
    }
    let socket = format!("tmux-cc-jobs-{}", std::process::id());
    let server = match Server::start(&socket).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("starting tmux: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Ctrl-C or SIGTERM: the jobs done are printed already; the server is stopped (its
    // running jobs with it) and its socket removed, as at a normal end.
    let code = tokio::select! {
        code = run(&server, &commands) => code,
        signal = interrupted() => {
            eprintln!("jobs: {signal}: stopping the tmux server and the jobs still running");
            ExitCode::from(130)
        }
    };
    let _ = server.stop().await;
    code
}

/// Waits for SIGINT or SIGTERM and names it.
async fn interrupted() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => "interrupted",
        _ = term.recv() => "terminated",
    }
}

async fn run(server: &Server, commands: &[String]) -> ExitCode {
    let client = match server.connect(ClientOptions::default()).await {
        Ok(client) => client,
        Err(e) => {
            eprintln!("attaching: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = client.new_session(&NewSession::new("jobs")).await {
        eprintln!("new-session: {e}");
        return ExitCode::FAILURE;
    }
    // Each job is printed as it ends, labelled with its place on the command line.
    let mut runs: FuturesUnordered<_> = commands
        .iter()
        .enumerate()
        .map(|(n, command)| {
            let client = client.clone();
            async move {
                let result = async {
                    let mut job = client
                        .start_job(&JobSpec::window("=jobs:", command))
                        .await?;
                    job.wait().await
                }
                .await;
                (n, command, result)
            }
        })
        .collect();
    let mut code = ExitCode::SUCCESS;
    while let Some((n, command, result)) = runs.next().await {
        match result {
            Ok(exit) => {
                match (exit.status, exit.signal) {
                    (Some(status), _) => println!("[{n}] exit {status}: {command}"),
                    (None, Some(signal)) => println!("[{n}] signal {signal}: {command}"),
                    (None, None) => println!("[{n}] ended: {command}"),
                }
                let text = String::from_utf8_lossy(&exit.output).replace("\r\n", "\n");
                print!("{text}");
                if !text.is_empty() && !text.ends_with('\n') {
                    println!();
                }
            }
            Err(e) => {
                println!("[{n}] failed: {command}: {e}");
                code = ExitCode::FAILURE;
            }
        }
    }
    code
}
