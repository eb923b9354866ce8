//! systemd's notify protocol from outside: the real ratd binary with a real unix datagram
//! socket as NOTIFY_SOCKET (`docs/design/status-and-logs.md`, systemd).

use std::os::unix::net::UnixDatagram;
use std::process::Stdio;
use std::time::Duration;

use crate::service_common::{Daemon, call, tmux_server_pid};
use serde_json::json;

fn recv(socket: &UnixDatagram) -> String {
    let mut buf = [0u8; 4096];
    let n = socket.recv(&mut buf).expect("a notification within 30 s");
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn ready_status_and_stopping_in_order_and_the_terminals_never_see_the_socket() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notify");
    let socket = UnixDatagram::bind(&path).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // A home without startup files: the terminal check then finds everything holding.
    let home = tempfile::tempdir().unwrap();
    let mut ratd = Daemon::spawn_with(&[], |command| {
        command
            .env("NOTIFY_SOCKET", &path)
            .env("HOME", home.path())
            .stderr(Stdio::piped());
        Box::new(std::io::empty())
    });
    let stderr = ratd.child.stderr.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = send.send(line);
        }
    });
    ratd.lines = lines;
    let addr = ratd.wait_serving();

    assert_eq!(recv(&socket), "READY=1\n");
    // Tests run as root here: the first line tells it, first among the degradations.
    let root = nix::unistd::geteuid().is_root();
    let expected = if root {
        format!(
            "STATUS=serving tenant {} on {addr} · running as root\n",
            ratd.bundle.tenant
        )
    } else {
        format!("STATUS=serving tenant {} on {addr}\n", ratd.bundle.tenant)
    };
    assert_eq!(recv(&socket), expected);

    // NOTIFY_SOCKET left ratd's environment before tmux started: the server (whose environment
    // every terminal inherits) never had it.
    let pid = tmux_server_pid(&ratd.guard.socket).expect("the tmux server runs");
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let names: Vec<String> = environ
        .split(|b| *b == 0)
        .filter_map(|v| std::str::from_utf8(v).ok())
        .filter_map(|v| v.split_once('=').map(|(name, _)| name.to_owned()))
        .collect();
    assert!(names.iter().any(|n| n == "HOME"), "{names:?}");
    assert!(!names.iter().any(|n| n == "NOTIFY_SOCKET"), "{names:?}");
    let global = std::process::Command::new("tmux")
        .args(["-L", &ratd.guard.socket, "show-environment", "-g"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&global.stdout).contains("NOTIFY_SOCKET"),
        "the terminals' environment holds NOTIFY_SOCKET"
    );

    // A request makes its session seen, and a wait_window waiting is a wait in flight: the next
    // render (10 s at most) tells both.
    let client = std::sync::Arc::new(ratd.mcp("alice").await);
    call(&client, "list_windows", json!({})).await;
    let (text, _) = call(
        &client,
        "wait_window",
        json!({"window": "main", "max_seconds": 10}),
    )
    .await;
    assert!(text.contains("ready for input"), "{text}");
    let (text, is_error) = call(
        &client,
        "send_text",
        json!({"window": "main", "text": "sleep 60", "enter": true}),
    )
    .await;
    assert!(!is_error, "{text}");
    let waiting = {
        let client = client.clone();
        tokio::spawn(async move {
            call(
                &client,
                "wait_window",
                json!({"window": "main", "max_seconds": 50}),
            )
            .await
        })
    };
    let serving = expected.trim_end_matches('\n').to_owned();
    assert_eq!(
        recv(&socket),
        format!("{serving} · last seen: alice now · 1 wait in flight\n")
    );
    // The command ends (C-c): the wait returns.
    let (text, is_error) = call(
        &client,
        "send_keys",
        json!({"window": "main", "keys": ["C-c"]}),
    )
    .await;
    assert!(!is_error, "{text}");
    let (text, _) = waiting.await.unwrap();
    assert!(text.contains("finished"), "{text}");
    // A death of the tmux server is sent at once, among the degradations.
    let pid = tmux_server_pid(&ratd.guard.socket).expect("the tmux server runs");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let degraded = if root {
        serving.replace("running as root", "running as root, tmux died once in 5m")
    } else {
        format!("{serving} · tmux died once in 5m")
    };
    assert_eq!(
        recv(&socket),
        format!("{degraded} · last seen: alice now\n")
    );
    drop(client);

    ratd.signal(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(recv(&socket), "STOPPING=1\n");
    assert_eq!(recv(&socket), "STATUS=stopping: closing the door\n");
    assert_eq!(recv(&socket), "STATUS=stopping: stopping the terminals\n");
    let status = ratd.wait_exit();
    assert!(status.success(), "{status}: {:#?}", ratd.seen);
    socket.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 64];
    assert!(
        socket.recv(&mut buf).is_err(),
        "nothing after the last step"
    );
}
