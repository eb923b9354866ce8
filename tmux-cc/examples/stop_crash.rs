//! How often a tmux server dies by a signal (SIGSEGV) when it is stopped with control clients
//! and a stream attached: RUNS times start a server, attach a client, open a stream of a
//! pane that prints, start a job (so the jobs' event connection is open too), then stop the
//! server, and count the stops whose `ServerExit` was a signal.
//!
//! ```sh
//! cargo run -p tmux-cc --example stop_crash -- [--kill-first | --close-stream] [--no-job] [--tmux PATH] [RUNS]
//! ```
//!
//! By default the server is stopped with [`Server::stop`], which closes the stream's
//! connection, then runs `kill-server`. `--kill-first` runs `tmux kill-server` with everything
//! still attached (what `Server::stop` did before), then waits for the server's exit;
//! `--close-stream` closes the stream's connection, then does the same. `--no-job` starts no
//! job (no jobs' connection). Prints one line: the runs, the exits by a signal, and every kind
//! of exit counted. A one-off measure (docs/design/engine-streams.md, "tmux crashes"), not a
//! test: 1000 runs take about 4 minutes.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tmux_cc::{
    ClientOptions, ExitKind, JobSpec, NewSession, Server, ServerExit, ServerOptions, StreamOptions,
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut kill_first = false;
    let mut no_job = false;
    let mut close_stream = false;
    let mut tmux = PathBuf::from("tmux");
    let mut runs = 1000u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--kill-first" => kill_first = true,
            "--no-job" => no_job = true,
            "--close-stream" => {
                close_stream = true;
                kill_first = true;
            }
            "--tmux" => tmux = args.next().unwrap_or_default().into(),
            n => match n.parse() {
                Ok(n) => runs = n,
                Err(_) => {
                    eprintln!(
                        "usage: stop_crash [--kill-first | --close-stream] [--no-job] [--tmux PATH] [RUNS]"
                    );
                    return ExitCode::from(2);
                }
            },
        }
    }
    let mut exits: BTreeMap<String, u32> = BTreeMap::new();
    let mut signalled = 0;
    for run in 0..runs {
        match once(&tmux, run, kill_first, no_job, close_stream).await {
            Ok(exit) => {
                if matches!(exit.status, ExitKind::Signal(_)) {
                    signalled += 1;
                    eprintln!("stop_crash: run {run}: the server {}", exit.status);
                }
                *exits.entry(exit.status.to_string()).or_default() += 1;
            }
            Err(e) => *exits.entry(format!("failed: {e}")).or_default() += 1,
        }
    }
    let version = tmux_cc::tmux_version(&tmux)
        .await
        .map(|v| v.said)
        .unwrap_or_default();
    let order = if kill_first {
        "kill-server with everything attached"
    } else {
        "Server::stop"
    };
    println!("{version}, {order}: {runs} runs, {signalled} exits by a signal; {exits:?}");
    ExitCode::SUCCESS
}

async fn once(
    tmux: &std::path::Path,
    run: u32,
    kill_first: bool,
    no_job: bool,
    close_stream: bool,
) -> Result<ServerExit, Box<dyn Error>> {
    let socket = format!("tmux-cc-stop-crash-{}-{run}", std::process::id());
    let mut options = ServerOptions::new(&socket);
    options.tmux = tmux.to_path_buf();
    let server = Server::start_with(options).await?;
    let result = async {
        let client = server.connect(ClientOptions::default()).await?;
        let mut session = NewSession::new("work");
        session.command = vec![
            b"sh".to_vec(),
            b"-c".to_vec(),
            b"while :; do echo tick; sleep 0.01; done".to_vec(),
        ];
        let created = client.new_session(&session).await?;
        let mut stream = client
            .stream(created.pane, StreamOptions::default())
            .await?;
        if !no_job {
            let mut job = client
                .start_job(&JobSpec::window("=work:", "echo job"))
                .await?;
            job.wait().await?;
        }
        // Some output on its way when the server goes.
        let _ = tokio::time::timeout(Duration::from_millis(30), stream.next()).await;
        Ok::<_, Box<dyn Error>>((client, stream))
    }
    .await;
    if close_stream
        && let Ok((_, stream)) = &result
        && let Some(connection) = stream.connection()
    {
        connection.close().await;
    }
    let exit = if kill_first {
        let status = std::process::Command::new(tmux)
            .args(["-L", &socket, "kill-server"])
            .status()?;
        if !status.success() {
            eprintln!("stop_crash: tmux -L {socket} kill-server failed");
        }
        match tokio::time::timeout(Duration::from_secs(10), server.wait()).await {
            Ok(exit) => exit,
            Err(_) => server.stop().await?.exit,
        }
    } else {
        server.stop().await?.exit
    };
    drop(result?);
    Ok(exit)
}
