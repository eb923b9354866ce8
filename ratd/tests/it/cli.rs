//! The ratd binary from outside: its help, its refusals, and a run stopped by SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Bundle, SocketGuard, tmux_server_running, unique_tenant};

fn ratd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ratd"))
}

#[test]
fn help_tells_what_to_run() {
    let out = ratd().arg("--help").output().unwrap();
    assert!(out.status.success());
    insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap());
}

#[test]
fn a_read_budget_under_20_kib_over_16_mib_or_without_unit_is_refused_telling_why() {
    for (budget, code) in [
        ("16KiB", 2),
        ("64Kb", 2),
        ("64kib", 2),
        ("20KB", 2),
        ("lots", 2),
        ("65536", 2),
        ("100000GiB", 2),
    ] {
        let out = ratd()
            .args(["--bundle", "/nonexistent", "--read-budget", budget])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{budget}");
        insta::assert_snapshot!(
            format!("read_budget_{budget}"),
            String::from_utf8(out.stderr).unwrap()
        );
    }
}

#[test]
fn a_missing_bundle_exits_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("server");
    let out = ratd()
        .args([
            "--bundle",
            missing.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    insta::assert_snapshot!(stderr.replace(dir.path().to_str().unwrap(), "TMP"));
}

#[test]
fn sigterm_stops_ratd_and_its_tmux_server() {
    let tenant = unique_tenant();
    let guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle::generate(&tenant, &["alice"]);
    // The terminals' HOME: empty, not the user's, whose startup files may be slow or stall
    // (and a login shell killed mid-startup by the stop can leave a stalling lock behind).
    let home = tempfile::tempdir().unwrap();
    let mut child = ratd()
        .args([
            "--bundle",
            bundle.server_dir().to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .env("HOME", home.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let serving = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|line| line.contains("ratd serving"))
        .expect("ratd logs that it serves");
    assert!(
        serving.contains(&format!("tenant=\"{tenant}\"")) || serving.contains(&tenant),
        "{serving}"
    );
    assert!(tmux_server_running(&guard.socket));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "ratd still runs 20 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("stopping: closing the door")),
        "{rest:#?}"
    );
    assert!(rest.iter().any(|l| l.contains("stopped")), "{rest:#?}");
    assert!(
        !tmux_server_running(&guard.socket),
        "the tmux server is left"
    );
}

#[test]
fn a_port_in_use_is_refused_saying_what_to_do() {
    let tenant = unique_tenant();
    let _guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle::generate(&tenant, &["alice"]);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = taken.local_addr().unwrap().to_string();
    let out = ratd()
        .args([
            "--bundle",
            bundle.server_dir().to_str().unwrap(),
            "--listen",
            &listen,
        ])
        .env("HOME", bundle.home())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let last = stderr.lines().last().unwrap().replace(&listen, "ADDR");
    insta::assert_snapshot!(last, @"ratd: can not listen on ADDR: Address already in use (os error 98); another program listens there (another ratd maybe: ss -ltnp shows which), or give --listen another port");
}

/// A tmux older than the oldest tmux-cc supports (3.2) is refused at startup, before anything
/// listens: the message names the version found, the minimum, and where to get a newer one.
/// The tmux first on PATH is a program answering `-V` as tmux 3.1c would.
#[test]
fn a_tmux_too_old_is_refused_naming_the_version_and_the_minimum() {
    use std::os::unix::fs::PermissionsExt;
    let tenant = unique_tenant();
    let _guard = SocketGuard::named(format!("rat-{tenant}"));
    let bundle = Bundle::generate(&tenant, &["alice"]);
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("tmux");
    std::fs::write(&fake, "#!/bin/sh\necho 'tmux 3.1c'\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = ratd()
        .args([
            "--bundle",
            bundle.server_dir().to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .env("HOME", bundle.home())
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let last = stderr.lines().last().unwrap().replace(&tenant, "TENANT");
    insta::assert_snapshot!(last, @r#"ratd: the terminals of tenant TENANT can not start: tmux 3.1 is too old: tmux-cc needs tmux 3.2 or later (`tmux -V` said "tmux 3.1c"): install a newer tmux from your distribution, or build a release from https://github.com/tmux/tmux/releases"#);
}
