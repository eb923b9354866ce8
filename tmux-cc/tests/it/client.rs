//! The control connection against real tmux: attach, pipelining, timeouts that keep replies
//! aligned, unbroken inputs, notifications, and the end of the connection reported once.

use std::time::Duration;

use crate::common::{env, guard};
use tmux_cc::{
    Client, ClientOptions, Command, ConnectionEnd, Delivery, Error, NewSession, Notification,
};

fn display(text: &str) -> Command {
    Command::new("display-message").args(["-p", text])
}

/// Keeps tmux busy for `seconds`: run-shell's `%end` comes at once, and the commands after it
/// wait for the shell (3.3a).
async fn keep_busy(client: &Client, seconds: u32) {
    client
        .run(&Command::new("run-shell").arg(format!("sleep {seconds}")))
        .await
        .unwrap();
}

async fn text(client: &Client, cmd: &Command) -> String {
    let lines = client.run(cmd).await.unwrap();
    String::from_utf8(lines.join(&b'\n')).unwrap()
}

#[tokio::test]
async fn five_hundred_pipelined_commands_each_get_their_own_reply() {
    let env = env("pipeline").await;
    let calls = (0..500).map(|i| {
        let client = env.client.clone();
        async move { (i, text(&client, &display(&format!("reply {i}"))).await) }
    });
    for (i, got) in futures::future::join_all(calls).await {
        assert_eq!(got, format!("reply {i}"));
    }
}

#[tokio::test]
async fn a_timed_out_reply_is_never_given_to_the_next_command() {
    let env = env("timeout").await;
    // Busy for 5 s, so that a loaded machine can not let the answer come within the 200 ms.
    keep_busy(&env.client, 5).await;
    let err = env
        .client
        .with_timeout(Duration::from_millis(200))
        .run(&display("late"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    insta::assert_snapshot!(err.to_string(), @"tmux did not answer `display-message` within 200ms");
    assert_eq!(text(&env.client, &display("next")).await, "next");
    assert_eq!(text(&env.client, &display("after")).await, "after");
}

#[tokio::test]
async fn an_input_is_one_write_and_gets_every_reply_in_order() {
    let env = env("input").await;
    let input = |tag: &'static str| {
        let client = env.client.clone();
        async move {
            let cmds: Vec<Command> = (0..50).map(|i| display(&format!("{tag} {i}"))).collect();
            client.input(&cmds).await.unwrap()
        }
    };
    let (a, b) = tokio::join!(input("A"), input("B"));
    for (tag, replies) in [("A", a), ("B", b)] {
        assert_eq!(replies.len(), 50);
        let numbers: Vec<u64> = replies.iter().map(|r| r.number).collect();
        for (i, reply) in replies.iter().enumerate() {
            assert!(reply.success);
            assert_eq!(reply.lines, vec![format!("{tag} {i}").into_bytes()]);
        }
        // Nothing of the other input ran between this input's commands.
        assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{numbers:?}");
    }
}

#[tokio::test]
async fn a_failed_command_in_an_input_fails_alone() {
    let env = env("inputerr").await;
    let replies = env
        .client
        .input(&[
            display("one"),
            Command::new("kill-window").args(["-t", "=nosuch:=window"]),
            display("three"),
        ])
        .await
        .unwrap();
    let summary: Vec<(bool, String)> = replies
        .iter()
        .map(|r| {
            (
                r.success,
                String::from_utf8_lossy(&r.lines.join(&b'\n')).into_owned(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (true, "one".to_string()),
            (false, "can't find session: nosuch".to_string()),
            (true, "three".to_string()),
        ]
    );
    let err = env
        .client
        .input_ok(&[
            display("one"),
            Command::new("kill-window").args(["-t", "=nosuch:=window"]),
        ])
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `kill-window`: can't find session: nosuch");
}

#[tokio::test]
async fn raw_lines_must_hold_one_command() {
    let env = env("raw").await;
    let reply = env
        .client
        .raw(b"display-message -p 'raw #{session_name}'")
        .await
        .unwrap();
    assert_eq!(
        reply.lines,
        vec![format!("raw {}", env.client.session_name()).into_bytes()]
    );
    let mut messages = Vec::new();
    for bad in [&b""[..], b"  ", b"a\nb", b"a\rb"] {
        let err = env.client.raw(bad).await.unwrap_err();
        assert!(matches!(err, Error::Refused(_)));
        messages.push(err.to_string());
    }
    insta::assert_snapshot!(messages.join("\n"), @r"
    refused: an empty command line would detach the control client
    refused: an empty command line would detach the control client
    refused: a raw command line may not hold LF or CR: send one command per line
    refused: a raw command line may not hold LF or CR: send one command per line
    ");
    // Still aligned.
    assert_eq!(text(&env.client, &display("still")).await, "still");
}

#[tokio::test]
async fn notifications_reach_every_subscriber() {
    let env = env("notify").await;
    let mut a = env.client.subscribe();
    let mut b = env.client.subscribe();
    env.client
        .new_session(&NewSession::new("other"))
        .await
        .unwrap();
    for rx in [&mut a, &mut b] {
        let got = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let Delivery::Notification(Notification::SessionsChanged) =
                    rx.recv().await.unwrap()
                {
                    return;
                }
            }
        })
        .await;
        assert!(got.is_ok(), "no %sessions-changed");
    }
}

#[tokio::test]
async fn the_service_session_is_private_and_goes_with_the_client() {
    let env = env("service").await;
    let name = env.client.session_name().to_string();
    assert!(name.starts_with("tmux-cc-"), "{name}");
    let target = format!("={name}:");
    assert_eq!(
        env.client
            .option(tmux_cc::OptionScope::Session(&target), "destroy-unattached")
            .await
            .unwrap(),
        Some(b"on".to_vec())
    );
    assert!(env.client.has_session(&format!("={name}")).await.unwrap());
    let end = env.client.close().await;
    assert_eq!(end, ConnectionEnd::Exit { reason: None });
    let other = env.server.connect(ClientOptions::default()).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while other.has_session(&format!("={name}")).await.unwrap() {
        assert!(
            std::time::Instant::now() < deadline,
            "the service session stayed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn exit_is_reported_once_and_later_commands_fail_cleanly() {
    let env = env("exit").await;
    let waiters: Vec<_> = (0..3)
        .map(|_| {
            let client = env.client.clone();
            tokio::spawn(async move { client.closed().await })
        })
        .collect();
    let mut notes = env.client.subscribe();
    // Killing its own session detaches the client: tmux prints `%exit`.
    let _ = env
        .client
        .reply(
            &Command::new("kill-session").args(["-t", &format!("={}", env.client.session_name())]),
        )
        .await;
    let end = tokio::time::timeout(Duration::from_secs(20), env.client.closed())
        .await
        .expect("the end is reported");
    assert!(matches!(end, ConnectionEnd::Exit { .. }), "{end:?}");
    for waiter in waiters {
        assert_eq!(waiter.await.unwrap(), end);
    }
    let err = env.client.run(&display("after")).await.unwrap_err();
    assert!(
        matches!(&err, Error::ConnectionEnded(e) if *e == end),
        "{err:?}"
    );
    // The subscription ends with the connection.
    while let Some(delivery) = notes.recv().await {
        assert!(
            matches!(delivery, Delivery::Notification(_)),
            "{delivery:?}"
        );
    }
    insta::assert_snapshot!(
        Error::ConnectionEnded(ConnectionEnd::Exit { reason: Some("detached".into()) }).to_string(),
        @"the tmux control connection has ended: tmux ended the control client (%exit: detached)"
    );
}

#[tokio::test]
async fn the_server_killed_under_load_fails_every_pending_command_without_a_hang() {
    let env = env("sigkill").await;
    // Keep tmux busy so that many commands are pending when it dies: long enough that a
    // loaded machine can not answer them all before the kill 50 ms later.
    keep_busy(&env.client, 10).await;
    let calls: Vec<_> = (0..300)
        .map(|i| {
            let client = env.client.clone();
            tokio::spawn(async move { client.run(&display(&format!("{i}"))).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(50)).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(env.server.pid() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(10), async {
        let mut failed = 0;
        for call in calls {
            match call.await.unwrap() {
                Ok(_) => {}
                Err(Error::ConnectionEnded(_)) => failed += 1,
                Err(other) => panic!("expected ConnectionEnded, got {other:?}"),
            }
        }
        failed
    })
    .await
    .expect("no command hangs");
    assert!(outcome > 0, "no command was pending when the server died");
    let end = env.client.closed().await;
    assert_eq!(
        end,
        ConnectionEnd::Exit {
            reason: Some("server exited unexpectedly".into())
        }
    );
    let err = env.client.run(&display("later")).await.unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"the tmux control connection has ended: tmux ended the control client (%exit: server exited unexpectedly)");
    assert!(!env.server.wait().await.requested);
}

#[tokio::test]
async fn attaching_without_a_server_says_why() {
    let guard = guard("noserver");
    let socket = guard.socket.clone();
    let err = Client::connect("tmux".as_ref(), &socket, ClientOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AttachFailed { .. }), "{err:?}");
    let message = err.to_string().replace(&socket, "SOCKET");
    assert!(
        message.starts_with("the control client for socket \"SOCKET\" could not attach:"),
        "{message}"
    );
}

#[tokio::test]
async fn a_lagging_subscriber_is_told_how_many_it_missed_and_gets_the_rest() {
    let env = crate::common::env("lagged").await;
    // The connection's own client, with a small buffer.
    let client = env
        .server
        .connect(ClientOptions {
            notification_capacity: 8,
            command_timeout: Duration::from_secs(20),
            ..ClientOptions::default()
        })
        .await
        .unwrap();
    let mut slow = client.subscribe();
    // A subscriber that keeps up, as the ground truth.
    let mut fast = client.subscribe();
    let marker = "lag-marker";
    let all = tokio::spawn(async move {
        let mut got = Vec::new();
        while let Some(delivery) = fast.recv().await {
            match delivery {
                Delivery::Notification(n) => {
                    let last =
                        matches!(&n, Notification::SessionRenamed { name, .. } if name == marker);
                    got.push(n);
                    if last {
                        return got;
                    }
                }
                Delivery::Lagged { missed } => panic!("the fast one missed {missed}"),
            }
        }
        panic!("closed before the marker");
    });
    for i in 0..24 {
        client
            .new_session(&NewSession::new(format!("lag{i}")))
            .await
            .unwrap();
        tokio::task::yield_now().await;
    }
    client
        .run(&Command::new("rename-session").args(["-t", "=lag23", marker]))
        .await
        .unwrap();
    let all = all.await.unwrap();
    let (mut missed, mut got, mut lags) = (0u64, Vec::new(), 0);
    loop {
        match slow.recv().await.unwrap() {
            Delivery::Lagged { missed: n } => {
                lags += 1;
                missed += n;
            }
            Delivery::Notification(n) => {
                let last =
                    matches!(&n, Notification::SessionRenamed { name, .. } if name == marker);
                got.push(n);
                if last {
                    break;
                }
            }
        }
    }
    eprintln!(
        "{} notifications; the slow one: {lags} lags, {missed} missed, {} got",
        all.len(),
        got.len()
    );
    assert!(lags >= 1, "never lagged over {} notifications", all.len());
    assert_eq!(missed as usize + got.len(), all.len());
    // What it got is what came after the ones it missed, in order.
    assert_eq!(got[..], all[all.len() - got.len()..]);
}
