//! `scripts/demo`, the README's first command: it builds, generates a bundle, starts ratd,
//! checks it, and prints the harness entry, which a real client (the official Python SDK) then
//! starts to reach a terminal; Ctrl-C (SIGINT to its process group, as a terminal sends it)
//! stops everything and leaves no tmux server behind. Run with the test's own build (dev
//! profile), a port, a directory and a tenant of its own.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tests::{
    SocketGuard, binaries, free_port, python, run, steps, tmux_server_running, unique_name,
    workspace_root,
};

/// Kills the demo's process group if the test fails midway.
struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = killpg(Pid::from_raw(self.0.id() as i32), Signal::SIGKILL);
            let _ = self.0.wait();
        }
    }
}

#[test]
fn the_demo_serves_a_terminal_and_ctrl_c_stops_everything() {
    let profile_dir = binaries().rat.parent().expect("target/debug").to_path_buf();
    let target_dir = profile_dir.parent().expect("target").to_path_buf();
    let dir = tempfile::tempdir().expect("a directory");
    let tenant = unique_name("demo");
    let tmux = SocketGuard::named(format!("rat-{tenant}"));
    let listen = format!("127.0.0.1:{}", free_port());
    // The terminals' HOME (ratd's, as the demo runs it): of this test alone, not the user's,
    // whose shell startup files may be slow or stall (root's `pyenv init` here waits 60 s on a
    // lock that a shell killed mid-startup left behind). cargo and rustup keep their homes.
    let real_home = std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME"));
    let cargo_home =
        std::env::var_os("CARGO_HOME").unwrap_or_else(|| real_home.join(".cargo").into());
    let rustup_home =
        std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| real_home.join(".rustup").into());
    let home = dir.path().join("home");
    std::fs::create_dir(&home).expect("the terminals' home");
    // The log of an earlier run, which the demo keeps one back.
    std::fs::create_dir(dir.path().join("demo")).expect("the demo directory");
    std::fs::write(dir.path().join("demo/ratd.log"), "an earlier run\n").expect("an old log");
    let mut child = Command::new("bash");
    child
        .arg(workspace_root().join("scripts/demo"))
        .env("HOME", &home)
        .env("CARGO_HOME", cargo_home)
        .env("RUSTUP_HOME", rustup_home)
        .env("RAT_DEMO_DIR", dir.path().join("demo"))
        .env("RAT_DEMO_LISTEN", &listen)
        .env("RAT_DEMO_TENANT", &tenant)
        .env("RAT_DEMO_PROFILE", "dev")
        .env("CARGO_TARGET_DIR", &target_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut group = Group(child.spawn().expect("scripts/demo starts"));
    let stdout = group.0.stdout.take().expect("stdout");
    let stderr = group.0.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            text.push_str(&line);
            text.push('\n');
        }
        text
    });

    // Read until the demo says it serves (a build may come first).
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut printed = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) => {
                let done = line.starts_with("ratd serves until you press Ctrl-C");
                printed.push(line);
                if done {
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                assert!(
                    Instant::now() < deadline,
                    "the demo did not serve:\n{}",
                    printed.join("\n")
                );
                if let Ok(Some(status)) = group.0.try_wait() {
                    panic!(
                        "the demo exited ({status}):\n{}\n--- stderr:\n{}",
                        printed.join("\n"),
                        stderr.join().unwrap_or_default()
                    );
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!(
                "the demo closed its output:\n{}\n--- stderr:\n{}",
                printed.join("\n"),
                stderr.join().unwrap_or_default()
            ),
        }
    }
    let printed = printed.join("\n") + "\n";
    assert!(
        printed.contains(&format!("ratd at {listen} serves this client.")),
        "{printed}"
    );
    assert!(
        printed.contains(&format!("  tmux -L rat-{tenant} attach -r -t agent\n")),
        "{printed}"
    );
    let start = printed.find("{\n").expect("the JSON entry");
    let end = printed[start..].find("\n}\n").expect("its end") + start + 2;
    let config = dir.path().join("harness.json");
    std::fs::write(&config, &printed[start..end]).expect("the entry written");

    // What a harness pasting the entry gets: a terminal.
    let output = run(
        "the Python SDK from the demo's entry",
        python("from_config.py").arg(&config),
        Duration::from_secs(60),
    );
    let steps = steps(&output.stdout);
    assert_eq!(steps[0].text, format!("rat-{tenant}"));
    assert!(steps[5].text.contains("\nconfigured\n"), "{:?}", steps[5]);
    assert!(
        tmux_server_running(&tmux.socket),
        "the terminals run while the demo serves"
    );

    // Ctrl-C: SIGINT to the demo's process group, as a terminal sends it.
    killpg(Pid::from_raw(group.0.id() as i32), Signal::SIGINT).expect("SIGINT sent");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = group.0.try_wait().expect("the demo's status") {
            break status;
        }
        assert!(Instant::now() < deadline, "the demo did not stop on Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = stderr.join().unwrap_or_default();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.ends_with("demo: stopped, no terminal left.\n"),
        "{stderr}"
    );
    assert!(
        !tmux_server_running(&tmux.socket),
        "no tmux server left behind"
    );
    let log = std::fs::read_to_string(dir.path().join("demo/ratd.log")).expect("ratd's log");
    assert!(log.contains("stopping: stopping the terminals"), "{log}");
    assert!(!log.contains("an earlier run"), "{log}");
    let earlier = std::fs::read_to_string(dir.path().join("demo/ratd.log.1")).expect("kept");
    assert_eq!(earlier, "an earlier run\n");
}
