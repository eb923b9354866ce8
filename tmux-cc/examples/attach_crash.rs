//! How often a tmux server dies by a signal (SIGSEGV) when control connections of it are
//! opened and closed at the same time: RUNS times start a server, attach a client, then run
//! LOOPS tasks at once, each opening ITERATIONS connections one after the other (a
//! [`Client::connect`] of its own, closed right after it attached: dropped, or
//! [`Client::close`] with `--close`), and count the servers that died by a signal.
//!
//! ```sh
//! cargo run -p tmux-cc --example attach_crash -- [--close] [--tmux PATH] [RUNS [LOOPS [ITERATIONS]]]
//! ```
//!
//! What it measures: tmux 3.2a to 3.6b write the `%client-detached` of a control client that
//! went to every control client, one still connecting too, whose control state does not exist
//! yet (docs/design/engine-streams.md, "tmux crashes"). Prints one line: the tmux version, the
//! runs, the servers that died by a signal, the connections opened. A one-off measure, not a
//! test (the test `client::connections_opened_and_closed_at_once_never_crash_the_server` is
//! its short form).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tmux_cc::{Client, ClientOptions, ExitKind, Server, ServerOptions};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let mut close = false;
    let mut tmux = PathBuf::from("tmux");
    let mut numbers = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--close" => close = true,
            "--tmux" => tmux = args.next().unwrap_or_default().into(),
            n => match n.parse::<u32>() {
                Ok(n) => numbers.push(n),
                Err(_) => {
                    eprintln!(
                        "usage: attach_crash [--close] [--tmux PATH] [RUNS [LOOPS [ITERATIONS]]]"
                    );
                    return ExitCode::from(2);
                }
            },
        }
    }
    let runs = numbers.first().copied().unwrap_or(20);
    let loops = numbers.get(1).copied().unwrap_or(4);
    let iterations = numbers.get(2).copied().unwrap_or(25);
    let mut signalled = 0;
    let mut opened = 0;
    let mut failed = 0;
    for run in 0..runs {
        match once(&tmux, run, loops, iterations, close).await {
            Ok((status, n)) => {
                opened += n;
                if let Some(ExitKind::Signal(signal)) = status {
                    signalled += 1;
                    eprintln!(
                        "attach_crash: run {run}: the server died by signal {signal} after {n} connections"
                    );
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("attach_crash: run {run} failed: {e}");
            }
        }
    }
    let version = tmux_cc::tmux_version(&tmux)
        .await
        .map(|v| v.said)
        .unwrap_or_default();
    let how = if close { "closed" } else { "dropped" };
    println!(
        "{version}: {runs} runs of {loops} loops x {iterations} connections {how}: {signalled} servers died by a signal, {failed} runs failed otherwise, {opened} connections opened"
    );
    ExitCode::SUCCESS
}

/// One server: how it died (`None`: it did not), and how many connections were opened.
async fn once(
    tmux: &std::path::Path,
    run: u32,
    loops: u32,
    iterations: u32,
    close: bool,
) -> Result<(Option<ExitKind>, u32), Box<dyn std::error::Error>> {
    let socket = format!("tmux-cc-attach-crash-{}-{run}", std::process::id());
    let mut options = ServerOptions::new(&socket);
    options.tmux = tmux.to_path_buf();
    let server = Server::start_with(options).await?;
    let client = server.connect(ClientOptions::default()).await?;
    let mut tasks = Vec::new();
    for _ in 0..loops {
        let tmux = tmux.to_path_buf();
        let socket = socket.clone();
        tasks.push(tokio::spawn(async move {
            let mut n = 0;
            for _ in 0..iterations {
                let Ok(connection) =
                    Client::connect(&tmux, &socket, ClientOptions::default()).await
                else {
                    break;
                };
                n += 1;
                if close {
                    connection.close().await;
                }
            }
            n
        }));
    }
    let mut n = 0;
    for task in tasks {
        n += task.await.unwrap_or(0);
    }
    // The last closes may still be on their way.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let died = server.exit().map(|exit| exit.status);
    drop(client);
    let _ = server.stop().await;
    Ok((died, n))
}
