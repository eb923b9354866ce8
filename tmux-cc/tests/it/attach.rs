//! Attach modes: a client attached to a user's session (`Attach::Session`) changes nothing a
//! user's other clients see; `-S PATH` reaches a server by its socket file; the client flags
//! given at attach are the ones tmux applies.

use std::time::Duration;

use crate::common::server;
use tmux_cc::{
    Attach, Client, ClientFlags, ClientOptions, Command, Delivery, Error, Notification,
    ServerSocket,
};

/// A forked tmux on `socket` (independent of tmux-cc): its standard output.
fn forked(socket: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("tmux")
        .arg("-L")
        .arg(socket)
        .args(args)
        .output()
        .expect("run tmux");
    assert!(out.status.success(), "tmux {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What a user's other clients list: sessions and windows (attached counts aside).
fn listing(socket: &str) -> (String, String) {
    (
        forked(
            socket,
            &[
                "list-sessions",
                "-F",
                "#{session_id} #{session_name} #{session_windows} #{session_group}",
            ],
        ),
        forked(
            socket,
            &[
                "list-windows",
                "-a",
                "-F",
                "#{session_name}:#{window_index} #{window_id} #{window_name} #{window_layout} #{window_panes}",
            ],
        ),
    )
}

fn session(target: &str) -> ClientOptions {
    ClientOptions {
        attach: Attach::Session(target.to_string()),
        command_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    }
}

/// Every notification delivered so far, without waiting.
fn drain(notes: &mut tmux_cc::Subscription) -> Vec<Notification> {
    let mut got = Vec::new();
    while let Ok(Some(delivery)) = notes.try_recv() {
        match delivery {
            Delivery::Notification(n) => got.push(n),
            Delivery::Lagged { missed } => panic!("the observer missed {missed}"),
        }
    }
    got
}

#[tokio::test]
async fn attaching_to_a_session_leaves_the_server_as_it_was() {
    let (server, guard) = server("attach-same").await;
    let socket = &guard.socket;
    forked(
        socket,
        &["new-session", "-d", "-s", "work", "-x", "80", "-y", "24"],
    );
    forked(
        socket,
        &["new-window", "-d", "-t", "=work:", "-n", "second"],
    );
    // Another control client of the user's, attached there, watching.
    let observer = Client::connect(server.tmux(), socket, session("=work"))
        .await
        .unwrap();
    let mut notes = observer.subscribe();
    let before = listing(socket);

    let client = Client::connect(server.tmux(), socket, session("=work"))
        .await
        .unwrap();
    assert_eq!(client.session_name(), "work");
    assert!(!client.owns_session());
    let id = forked(
        socket,
        &["display-message", "-p", "-t", "=work:", "#{session_id}"],
    );
    assert_eq!(client.session_id(), id.trim());
    assert!(client.version().to_string().starts_with("3."));
    // Commands run in the attached session: no -t needed.
    assert_eq!(
        client
            .run(&Command::new("display-message").args(["-p", "#{session_name}"]))
            .await
            .unwrap(),
        vec![b"work".to_vec()]
    );
    assert_eq!(listing(socket), before, "while attached");
    assert_eq!(
        client.close().await,
        tmux_cc::ConnectionEnd::Exit { reason: None }
    );
    // One round trip of the observer: what tmux sent it before is delivered.
    observer.written().await.unwrap();
    assert_eq!(listing(socket), before, "after it left");
    let seen = drain(&mut notes);
    assert!(
        !seen.contains(&Notification::SessionsChanged),
        "the observer saw {seen:?}"
    );

    // The default attach does change the server, as the observer sees: the check above can
    // fail.
    let service = server.connect(ClientOptions::default()).await.unwrap();
    observer.written().await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while !seen.contains(&Notification::SessionsChanged) {
        assert!(std::time::Instant::now() < deadline, "{seen:?}");
        seen.extend(drain(&mut notes));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_ne!(listing(socket).0, before.0);
    assert!(service.owns_session());
}

#[tokio::test]
async fn a_missing_session_is_refused_with_tmuxs_message() {
    let (server, guard) = server("attach-missing").await;
    forked(&guard.socket, &["new-session", "-d", "-s", "other"]);
    let err = Client::connect(server.tmux(), &guard.socket, session("=nope"))
        .await
        .unwrap_err();
    match &err {
        Error::AttachFailed { socket, detail } => {
            assert_eq!(socket, &guard.socket);
            assert!(
                detail.starts_with("tmux refused it: can't find session"),
                "{detail}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_socket_path_connects() {
    let (server, _guard) = server("attach-path").await;
    let path = server.socket_path().to_path_buf();
    let client = Client::connect_to(
        server.tmux(),
        &ServerSocket::Path(path.clone()),
        ClientOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(client.server_socket(), &ServerSocket::Path(path.clone()));
    assert_eq!(client.socket_name(), path.display().to_string());
    assert_eq!(
        client
            .run(&Command::new("display-message").args(["-p", "#{socket_path} #{pid}"]))
            .await
            .unwrap(),
        vec![format!("{} {}", path.display(), server.pid()).into_bytes()]
    );
    assert!(client.owns_session());
}

#[tokio::test]
async fn the_flags_given_at_attach_are_the_clients() {
    let (server, guard) = server("attach-flags").await;
    let flags_of = |client: &Client| {
        let client = client.clone();
        async move {
            let lines = client
                .run(&Command::new("display-message").args(["-p", "#{client_flags}"]))
                .await
                .unwrap();
            let text = String::from_utf8_lossy(&lines[0]).into_owned();
            let mut flags: Vec<String> = text.split(',').map(str::to_string).collect();
            flags.sort();
            flags
        }
    };
    let default = server.connect(ClientOptions::default()).await.unwrap();
    let flags = flags_of(&default).await;
    for want in ["no-output", "ignore-size"] {
        assert!(flags.iter().any(|f| f == want), "{flags:?}");
    }
    assert!(
        !flags.iter().any(|f| f.starts_with("pause-after")),
        "{flags:?}"
    );
    let custom = Client::connect(
        server.tmux(),
        &guard.socket,
        ClientOptions {
            flags: ClientFlags {
                output: true,
                pause_after: Some(3),
                ignore_size: false,
                read_only: true,
            },
            ..session(default.session_name())
        },
    )
    .await
    .unwrap();
    let flags = flags_of(&custom).await;
    for want in ["pause-after=3", "read-only"] {
        assert!(flags.iter().any(|f| f == want), "{flags:?}");
    }
    for not in ["no-output", "ignore-size"] {
        assert!(!flags.iter().any(|f| f == not), "{flags:?}");
    }
}

/// Connections of one server opened and closed at once, four loops of ten (two loops drop
/// each connection once attached, two close it): tmux 3.2a to 3.7c crashed on this within the
/// first few connections before each connection waited for the others' attach and detach
/// (docs/design/engine-streams.md, "tmux crashes"; `examples/attach_crash.rs` counts it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_opened_and_closed_at_once_never_crash_the_server() {
    let env = crate::common::env("attach-loops").await;
    let loops = (0..4).map(|i| {
        let socket = env.guard.socket.clone();
        let tmux = env.client.tmux().to_path_buf();
        tokio::spawn(async move {
            let mut opened = 0;
            for _ in 0..10 {
                let connection = Client::connect(&tmux, &socket, ClientOptions::default())
                    .await
                    .expect("a connection attaches");
                opened += 1;
                if i % 2 == 1 {
                    connection.close().await;
                }
            }
            opened
        })
    });
    let mut opened = 0;
    for task in loops {
        opened += task.await.unwrap();
    }
    assert_eq!(opened, 40);
    // The dropped ones detach on their own: until then, tmux lists them.
    let main = env.client.pid().to_string();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let clients = env
            .client
            .run(&Command::new("list-clients").args(["-F", "#{client_pid}"]))
            .await
            .map(|lines| {
                lines
                    .iter()
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect::<Vec<_>>()
            });
        if clients.as_ref().is_ok_and(|c| *c == [main.clone()])
            || tokio::time::Instant::now() > deadline
        {
            assert_eq!(clients.unwrap(), vec![main]);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(env.server.exit(), None);
}
