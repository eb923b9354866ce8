//! Shared by the integration tests: a private tmux server per test, killed by its socket even
//! when the test fails.
#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use tmux_cc::test_support::{self, SocketGuard};
use tmux_cc::{Client, ClientOptions, Server, ServerOptions};

/// A unique socket name for this test process and call: `tcc-TEST-PID-N`
/// ([`test_support::socket_name`]).
pub fn socket_name(test: &str) -> String {
    test_support::socket_name(&format!("tcc-{test}"))
}

/// A guard of a fresh socket named as [`socket_name`] names it: the server there is killed
/// and its socket file removed when the guard drops, whatever happened.
pub fn guard(test: &str) -> SocketGuard {
    SocketGuard::new(&format!("tcc-{test}"))
}

/// A server started on a fresh socket, its guard, and a control client.
pub struct Env {
    pub client: Client,
    pub server: Server,
    pub guard: SocketGuard,
}

pub async fn server(test: &str) -> (Server, SocketGuard) {
    let guard = guard(test);
    let mut options = ServerOptions::new(&guard.socket);
    options.env.push(("HOME".into(), test_home().into()));
    let server = Server::start_with(options)
        .await
        .expect("start the tmux server");
    (server, guard)
}

/// The HOME of the tests' servers, whose panes run a login shell: an empty directory of the
/// tests, not the user's, whose shell startup files may be slow or stall (root's `pyenv init`
/// here waits 60 s on a lock that a shell killed mid-startup left behind), and which a shell
/// killed mid-startup here could leave in that state for the user.
pub fn test_home() -> std::path::PathBuf {
    let home = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tmux-cc-home");
    std::fs::create_dir_all(&home).expect("the tests' HOME");
    home
}

pub async fn env(test: &str) -> Env {
    let (server, guard) = server(test).await;
    let client = server
        .connect(ClientOptions {
            command_timeout: Duration::from_secs(20),
            ..ClientOptions::default()
        })
        .await
        .expect("attach a control client");
    Env {
        client,
        server,
        guard,
    }
}

/// The global window-size, read with a forked tmux (independent of tmux-cc).
pub fn global_window_size(socket: &str) -> String {
    let out = std::process::Command::new("tmux")
        .args([
            "-L",
            socket,
            "show-options",
            "-g",
            "-w",
            "-v",
            "window-size",
        ])
        .output()
        .expect("run tmux show-options");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Polls `capture` of `target` (every 20 ms, at most 10 s) until `done` holds; returns the
/// last capture, panicking with it if `done` never held.
pub async fn wait_capture(
    client: &Client,
    target: &str,
    capture: &tmux_cc::Capture,
    done: impl Fn(&str) -> bool,
) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let screen =
            String::from_utf8_lossy(&client.capture(target, capture).await.unwrap()).into_owned();
        if done(&screen) {
            return screen;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting; last capture of {target}:\n{screen}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server and its control client, with a session `session` created on it.
pub async fn env_with_session(test: &str, session: &str) -> Env {
    let env = env(test).await;
    env.client
        .new_session(&tmux_cc::NewSession::new(session))
        .await
        .unwrap();
    env
}
