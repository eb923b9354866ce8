//! Runs shell command lines as tmux-cc jobs, in parallel, and prints how each ended and what
//! it wrote.
//!
//! ```sh
//! cargo run -p tmux-cc --example jobs -- 'echo hi; exit 3' 'seq 1 3' 'kill -TERM $$'
//! ```
//! Starts a private tmux server (`-L tmux-cc-jobs-PID`, the `tmux` on PATH), one session, then
//! every argument as a job in a window of its own, all at once; waits for each by its event,
//! prints `[N] exit STATUS` (or `[N] signal NUMBER`) and its output (the terminal's CR LF line
//! ends shown as LF), and stops the server. Exits 1 if a job could not be run.

use std::process::ExitCode;

use futures::future::join_all;
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
    let code = run(&server, &commands).await;
    let _ = server.stop().await;
    code
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
    let runs = commands.iter().map(|command| {
        let client = client.clone();
        async move {
            let mut job = client
                .start_job(&JobSpec::window("=jobs:", command))
                .await?;
            job.wait().await
        }
    });
    let mut code = ExitCode::SUCCESS;
    for (n, (command, result)) in commands.iter().zip(join_all(runs).await).enumerate() {
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
