//! Prints the shape of a running tmux server, then every change as it happens.
//!
//! ```sh
//! cargo run -p tmux-cc --example watch -- -L SOCKET
//! ```
//! Attaches one control client to the server on socket SOCKET (`tmux -L`; the tmux first on
//! PATH, or `$TMUX_CC_TMUX`), starts a [`Topology`], prints its sessions, windows and panes
//! (with geometry), then one line per [`TopologyEvent`] until the server goes (exit 1, saying
//! why the connection ended: the server exited, was killed, or detached the client) or Ctrl-C
//! (exit 0).
//! It attaches to one of the server's sessions as it is (`attach-session -t`, no output, no
//! size of its own): nothing is created on the server; what any attach does still happens
//! (the session counts one more client, its last-attached time is set, attach hooks run; see
//! `Attach::Session`). A server with no session gets the client's own hidden service
//! session instead, left out of what is printed. Layout changes of other sessions arrive
//! within about a second (tmux re-checks the topology's subscription once a second).

use std::path::PathBuf;
use std::process::ExitCode;

use tmux_cc::{Attach, Client, ClientOptions, Shape, Topology, TopologyEvent};

/// How the example attaches: the one place to change for another attach mode.
async fn attach(socket: &str) -> tmux_cc::Result<Client> {
    let tmux =
        std::env::var_os("TMUX_CC_TMUX").map_or_else(|| PathBuf::from("tmux"), PathBuf::from);
    // Which session to attach to: asked once, before the connection exists.
    let first = std::process::Command::new(&tmux)
        .args(["-L", socket, "list-sessions", "-F", "#{session_id}"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .map(str::to_string)
        });
    let options = match first {
        Some(session) => ClientOptions {
            attach: Attach::Session(session),
            ..ClientOptions::default()
        },
        None => ClientOptions::default(),
    };
    Client::connect(&tmux, socket, options).await
}

fn print_shape(shape: &Shape) {
    for s in &shape.sessions {
        println!(
            "session {} {:?}: {} windows, {} attached{}",
            s.id,
            s.name,
            s.windows,
            s.attached,
            s.group
                .as_ref()
                .map(|g| format!(", group {g:?}"))
                .unwrap_or_default()
        );
        for w in shape.windows.iter().filter(|w| w.session == s.id) {
            println!(
                "  window {} {}:{:?} {}x{}{} layout {}",
                w.id,
                w.index,
                w.name,
                w.width,
                w.height,
                if w.active { " (active)" } else { "" },
                w.layout
            );
            for p in &w.panes {
                println!(
                    "    pane {} {}x{} at {},{}{}{} pid {} {:?} in {}",
                    p.id,
                    p.width,
                    p.height,
                    p.left,
                    p.top,
                    if p.active { " (active)" } else { "" },
                    if p.dead { " (dead)" } else { "" },
                    p.pid,
                    p.current_command,
                    p.current_path.display()
                );
            }
        }
    }
}

fn print_event(event: &TopologyEvent) {
    match event {
        TopologyEvent::SessionAdded(s) => println!("+ session {} {:?}", s.id, s.name),
        TopologyEvent::SessionRemoved(id) => println!("- session {id}"),
        TopologyEvent::SessionChanged(s) => println!(
            "~ session {} {:?}: {} windows, {} attached",
            s.id, s.name, s.windows, s.attached
        ),
        TopologyEvent::WindowAdded(w) => {
            println!("+ window {} {}:{} {:?}", w.id, w.session, w.index, w.name)
        }
        TopologyEvent::WindowRemoved { session, window } => {
            println!("- window {window} of {session}")
        }
        TopologyEvent::LayoutChanged {
            session,
            window,
            layout,
            visible_layout,
        } if visible_layout != layout => {
            // Zoomed: the window's layout is kept, what shows is one pane.
            println!("~ layout {window} of {session}: {layout}, visible {visible_layout}")
        }
        TopologyEvent::LayoutChanged {
            session,
            window,
            layout,
            ..
        } => println!("~ layout {window} of {session}: {layout}"),
        TopologyEvent::Lagged { missed } => println!("! {missed} changes missed"),
        TopologyEvent::WindowChanged(w) => println!(
            "~ window {} {}:{} {:?}, panes {}",
            w.id,
            w.session,
            w.index,
            w.name,
            w.panes
                .iter()
                .map(|p| format!("{}={:?}", p.id, p.current_command))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let socket = match &args[..] {
        [flag, socket] if flag == "-L" => socket.clone(),
        _ => {
            eprintln!("usage: watch -L SOCKET");
            return ExitCode::from(2);
        }
    };
    let client = match attach(&socket).await {
        Ok(client) => client,
        Err(e) => {
            eprintln!("watch: attaching to {socket}: {e}");
            return ExitCode::from(1);
        }
    };
    let mut topology = match Topology::start(&client).await {
        Ok(topology) => topology,
        Err(e) => {
            eprintln!("watch: listing {socket}: {e}");
            return ExitCode::from(1);
        }
    };
    println!("tmux {} on {socket}", client.version());
    print_shape(&topology.current());
    loop {
        tokio::select! {
            event = topology.next_event() => match event {
                Some(TopologyEvent::Lagged { missed }) => {
                    println!("! {missed} changes missed (this reader was slow): the server now");
                    print_shape(&topology.current());
                }
                Some(event) => print_event(&event),
                None => return ended(&socket, client.closed().await),
            },
            end = client.closed() => return ended(&socket, end),
            _ = tokio::signal::ctrl_c() => {
                eprintln!("watch: interrupted");
                return ExitCode::SUCCESS;
            }
        }
    }
}

/// Says why the connection ended (the server exited or was killed, the client was detached)
/// and exits 1: the watch ends only when asked to.
fn ended(socket: &str, end: tmux_cc::ConnectionEnd) -> ExitCode {
    eprintln!("watch: the connection to {socket} ended: {end}");
    ExitCode::from(1)
}
