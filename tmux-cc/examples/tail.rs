//! Streams one pane's output to standard output as it comes, with flow control, until the
//! pane goes.
//!
//! ```sh
//! cargo run -p tmux-cc --example tail -- -L SOCKET -t TARGET   # a pane of a running server
//! cargo run -p tmux-cc --example tail -- -S PATH -t TARGET     # the same, by socket path
//! cargo run -p tmux-cc --example tail -- CMD ARGS...           # CMD in a private server
//! cargo run -p tmux-cc --example tail -- --pipe ...             # either, by the pane's pipe
//! ```
//!
//! With `-t`, the stream starts now: what the pane printed before is not shown. With `CMD`,
//! a private server (`-L tmux-cc-tail-PID`) runs CMD in a pane that waits (`tmux wait-for`)
//! until the stream is open, so every byte CMD prints is streamed; the server is stopped at
//! the end. Bytes go to standard output as the pane printed them (CMD's terminal translates
//! LF to CR LF). When standard output is slower than the pane, tmux pauses the pane for the
//! stream: `tail: paused` and `tail: resynced` go to standard error, and the pane's screen
//! at the point where the output resumes goes to standard output between them. Exits 0 when
//! the pane went, 2 on an error (Ctrl-C or SIGTERM included: the private server is stopped).
//! With `-t`, a pane whose program exits may lose its last output on the way (tmux drops
//! what it has not yet sent of a pane that closes: see `PaneStream`); with `CMD`, the pane
//! stays until every byte is delivered.
//!
//! `--pipe` streams by the pane's pipe (`Transport::Pipe`): about 2.5 times the rate of control
//! mode, refused on a pane that has a pipe already; with `CMD`, the end closes the pipe, which
//! may miss what tmux had not yet written to it (`StreamEnd::Stopped`).

use std::error::Error;
use std::io::Write;
use std::process::ExitCode;

use tmux_cc::{
    Client, ClientOptions, Command, NewSession, PaneId, Server, ServerSocket, StreamItem,
    StreamOptions, Transport,
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let transport = if args.first().is_some_and(|a| a == "--pipe") {
        args.remove(0);
        Transport::Pipe
    } else {
        Transport::ControlMode
    };
    let result = match &args[..] {
        [flag, socket, t, target] if (flag == "-L" || flag == "-S") && t == "-t" => {
            let socket = if flag == "-L" {
                ServerSocket::Name(socket.clone())
            } else {
                ServerSocket::Path(socket.into())
            };
            attach(socket, target, transport).await
        }
        [] => {
            eprintln!(
                "usage: tail [--pipe] -L SOCKET -t TARGET | tail [--pipe] -S PATH -t TARGET | \
                 tail [--pipe] CMD..."
            );
            return ExitCode::from(2);
        }
        cmd => {
            let cmd = if cmd.first().is_some_and(|a| a == "--") {
                &cmd[1..]
            } else {
                cmd
            };
            run(cmd, transport).await
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tail: {e}");
            ExitCode::from(2)
        }
    }
}

async fn attach(
    socket: ServerSocket,
    target: &str,
    transport: Transport,
) -> Result<(), Box<dyn Error>> {
    let tmux = std::path::PathBuf::from("tmux");
    let client = Client::connect_to(&tmux, &socket, ClientOptions::default()).await?;
    let pane = pane_of(&client, target).await?;
    tail(&client, pane, None, transport).await
}

async fn run(cmd: &[String], transport: Transport) -> Result<(), Box<dyn Error>> {
    let socket = format!("tmux-cc-tail-{}", std::process::id());
    let server = Server::start(&socket).await?;
    let result = async {
        let client = server.connect(ClientOptions::default()).await?;
        let go = format!("tail-go-{}", std::process::id());
        let mut session = NewSession::new("tail");
        // `$1` is the tmux program (inside the pane it finds its server through $TMUX), `$0`
        // names the shell in its messages ("tail: 1: CMD: not found"). The pane stays once CMD is done, and says so in a pane option: tmux 3.3a closes the
        // terminal of a pane whose program exited without reading what is left on it (3.7c
        // reads it first), and a session going ends the stream's connection, whose queued
        // output tmux then drops.
        let mut command = vec![
            b"sh".to_vec(),
            b"-c".to_vec(),
            format!(
                "t=\"$1\"; shift; \"$t\" wait-for {go} && \"$@\"; \
                 \"$t\" set-option -p -t \"$TMUX_PANE\" @tail-done 1; exec sleep 2147483647"
            )
            .into_bytes(),
            b"tail".to_vec(),
            server.tmux().as_os_str().as_encoded_bytes().to_vec(),
        ];
        command.extend(cmd.iter().map(|a| a.as_bytes().to_vec()));
        session.command = command;
        let created = client.new_session(&session).await?;
        tail(&client, created.pane, Some(go), transport).await
    };
    // Ctrl-C or SIGTERM: the server is stopped (CMD with it) and its socket removed.
    let result = tokio::select! {
        result = result => result,
        signal = interrupted() => Err(format!("{signal}: the tmux server and CMD stopped").into()),
    };
    server.stop().await?;
    result
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

async fn pane_of(client: &Client, target: &str) -> Result<PaneId, Box<dyn Error>> {
    let lines = client
        .run(&Command::new("display-message").args(["-p", "-t", target, "#{pane_id}"]))
        .await?;
    // tmux 3.3a prints nothing, rather than an error, for a target that names no pane.
    let id = lines
        .first()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .unwrap_or_default();
    if id.is_empty() {
        return Err(format!("can't find pane: {target}").into());
    }
    Ok(id.parse()?)
}

/// Streams `pane` to standard output; `go` is the wait-for channel that starts its program,
/// whose end the pane option `@tail-done` tells.
async fn tail(
    client: &Client,
    pane: PaneId,
    go: Option<String>,
    transport: Transport,
) -> Result<(), Box<dyn Error>> {
    let options = StreamOptions {
        transport,
        ..StreamOptions::default()
    };
    let mut stream = client.stream(pane, options).await?;
    let mut done = None;
    if let Some(go) = go {
        client
            .run(&Command::new("wait-for").args(["-S", &go]))
            .await?;
        // A control client's `wait-for` would block its queue, not its reply: poll instead.
        let client = client.clone();
        done = Some(tokio::spawn(async move {
            let target = pane.to_string();
            loop {
                let dead = client
                    .run(&Command::new("display-message").args([
                        "-p",
                        "-t",
                        &target,
                        "#{@tail-done}",
                    ]))
                    .await?;
                if dead.first().is_some_and(|l| l == b"1") {
                    return Ok::<(), tmux_cc::Error>(());
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }));
    }
    let mut out = std::io::stdout().lock();
    loop {
        let item = match &mut done {
            Some(waiter) => tokio::select! {
                item = stream.next() => item,
                waited = waiter => {
                    if let Ok(Err(e)) = waited {
                        return Err(e.into());
                    }
                    // CMD is done: end once what tmux read from the pane is delivered.
                    done = None;
                    stream.finish();
                    continue;
                }
            },
            None => stream.next().await,
        };
        let Some(item) = item else { break };
        match item {
            StreamItem::Data(bytes) => {
                out.write_all(&bytes)?;
                out.flush()?;
            }
            StreamItem::Paused => eprintln!("tail: paused"),
            StreamItem::Continued => {}
            StreamItem::Resynced(snapshot) => {
                out.write_all(&snapshot.capture)?;
                out.flush()?;
                eprintln!("tail: resynced");
            }
            StreamItem::End(tmux_cc::StreamEnd::Finished) => break,
            StreamItem::End(tmux_cc::StreamEnd::Stopped) => {
                eprintln!(
                    "tail: the pipe closed; what tmux had not yet written to it may be missing"
                );
                break;
            }
            StreamItem::End(why) => {
                // tmux drops what it had not yet sent of a closing pane (see StreamEnd).
                eprintln!(
                    "tail: the stream ended: {why:?}; the pane's last output may be missing \
                     (tmux drops what it has not yet sent of a pane that closes)"
                );
                break;
            }
        }
    }
    Ok(())
}
