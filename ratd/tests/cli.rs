//! The ratd binary from outside: its help, its refusals, and a run stopped by SIGTERM.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Bundle, TmuxGuard, tmux_server_running, unique_tenant};

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
    let guard = TmuxGuard {
        socket: format!("rat-{tenant}"),
    };
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
    let _guard = TmuxGuard {
        socket: format!("rat-{tenant}"),
    };
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
