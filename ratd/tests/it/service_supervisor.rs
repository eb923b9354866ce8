//! The supervisor of the tmux server from outside (`docs/design/terminals.md`, Restarts):
//! the real ratd binary, its tmux server killed with SIGKILL as a crash or the OOM killer would.

use std::time::{Duration, Instant};

use crate::service_common::{Daemon, call, tmux_server_pid};
use nix::sys::signal::Signal;
use serde_json::json;

const RESTARTING: &str = "The terminals are restarting after a failure, and every window was lost: retry in a few seconds to find a fresh main.";

fn kill_tmux(ratd: &Daemon) -> u32 {
    let pid = tmux_server_pid(&ratd.guard.socket).expect("the tmux server runs");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    pid
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_tmux_server_is_restarted_with_a_fresh_main() {
    let mut ratd = Daemon::spawn(&[]);
    ratd.wait_serving();
    let client = ratd.mcp("alice").await;
    let (text, is_error) = call(&client, "create_window", json!({"name": "build"})).await;
    assert!(!is_error, "{text}");

    let old = kill_tmux(&ratd);
    let death = ratd.wait_for("the tmux server died");
    assert!(death.contains(&format!("pid={old}")), "{death}");
    assert!(
        death.contains("reason=\"killed by signal 9 (SIGKILL)\""),
        "{death}"
    );
    assert!(death.contains("deaths_in_5m=1"), "{death}");
    // What tools answer until the restart is checked where a stray server holds the restart
    // back (a_failed_restart_counts_as_a_death_and_is_tried_again): here the restart comes one
    // second after the death, a window a call on a loaded machine can miss.

    let restarted = ratd.wait_for("tmux server restarted");
    let new = tmux_server_pid(&ratd.guard.socket).expect("a new tmux server runs");
    assert_ne!(new, old);
    assert!(restarted.contains(&format!("pid={new}")), "{restarted}");
    // The windows are gone: a fresh main, and the header telling why.
    let (text, is_error) = call(&client, "list_windows", json!({})).await;
    assert!(!is_error, "{text}");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "[your terminals were restarted, every window and what ran in it gone: a fresh main was just created]"
        )
    );
    let windows: Vec<&str> = lines.map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(windows, ["main"], "{text}");

    // A stop asked for is not a death.
    ratd.signal(Signal::SIGTERM);
    let status = ratd.wait_exit();
    assert!(status.success(), "{status}");
    assert_eq!(
        ratd.seen
            .iter()
            .filter(|l| l.contains("the tmux server died"))
            .count(),
        1,
        "{:#?}",
        ratd.seen
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn dying_five_times_within_five_minutes_stops_ratd_with_an_error() {
    let mut ratd = Daemon::spawn(&[]);
    ratd.wait_serving();
    for kills in 1..=5 {
        // Still running after each of the first four deaths (it restarted the server).
        assert!(
            ratd.child.try_wait().unwrap().is_none(),
            "ratd stopped after {} deaths: {:#?}",
            kills - 1,
            ratd.seen
        );
        kill_tmux(&ratd);
        ratd.wait_for(&format!("deaths_in_5m={kills}"));
        if kills < 5 {
            ratd.wait_for("tmux server restarted");
        }
    }
    // The fifth death stops ratd: waited for (30 s at most), as stopping takes a moment.
    let status = ratd.wait_exit();
    assert_eq!(status.code(), Some(1), "{:#?}", ratd.seen);
    let last = ratd.seen.last().unwrap();
    assert_eq!(
        last,
        "ratd: the tmux server died 5 times within 5 minutes, the last time killed by signal 9 (SIGKILL): ratd stops, as it can not keep the terminals up; see the log for each death"
    );
    // Stopped in order all the same: the door, then the terminals.
    let all = ratd.seen.join("\n");
    assert!(all.contains("crash budget spent"), "{all}");
    assert!(all.contains("stopping: closing the door"), "{all}");
    assert!(all.contains("stopping: stopping the terminals"), "{all}");
    // The stop tells the deaths, not systemd: the server was dead already.
    let stopped = ratd
        .seen
        .iter()
        .find(|l| l.contains(" INFO stopped"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(
        stopped.contains(" INFO stopped: the tmux server was dead already, after dying 5 times within 5 minutes (see the deaths above) tenant=")
            && stopped.ends_with(" exit=killed by signal 9 (SIGKILL)"),
        "{stopped}"
    );
    assert!(!all.contains("systemd signals tmux too"), "{all}");
    assert!(
        tmux_server_pid(&ratd.guard.socket).is_none(),
        "tmux is left"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stopped_as_a_service_tmux_exiting_with_the_door_is_no_death_nor_warning() {
    // systemd's KillMode=control-group: SIGTERM to every process of the service at once; tmux
    // may exit before ratd handles its own (then the supervisor sees it first), or after.
    for tmux_first_by in [Duration::ZERO, Duration::from_millis(300)] {
        let mut ratd = Daemon::spawn(&[]);
        ratd.wait_serving();
        let tmux = tmux_server_pid(&ratd.guard.socket).expect("the tmux server runs");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(tmux as i32), Signal::SIGTERM).unwrap();
        if !tmux_first_by.is_zero() {
            // tmux first: once ratd has reaped it (its /proc entry gone), however long tmux
            // took to exit on a loaded machine, then a moment for the supervisor to see it.
            let deadline = Instant::now() + Duration::from_secs(20);
            while std::path::Path::new(&format!("/proc/{tmux}")).exists() {
                assert!(Instant::now() < deadline, "tmux still not reaped");
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(tmux_first_by);
        }
        ratd.signal(Signal::SIGTERM);
        let status = ratd.wait_exit();
        assert!(status.success(), "{status}: {:#?}", ratd.seen);
        let all = ratd.seen.join("\n");
        // No warning but the root one (tests run as root here), no death, no restart.
        assert!(
            !ratd
                .seen
                .iter()
                .any(|l| (l.contains("WARN") || l.contains("ERROR"))
                    && !l.contains("running as root")),
            "{all}"
        );
        assert!(!all.contains("the tmux server died"), "{all}");
        assert!(!all.contains("tmux server restarted"), "{all}");
        let stopped = ratd
            .seen
            .iter()
            .find(|l| l.contains(" INFO stopped"))
            .unwrap_or_else(|| panic!("{all}"));
        if tmux_first_by.is_zero() {
            // Either tmux was gone already, or kill-server met it exiting: nothing forced.
            assert!(
                stopped.contains("had exited on its own (stopped as a service, systemd signals tmux too): nothing to force")
                    || stopped.contains("step=stopped by kill-server"),
                "{all}"
            );
        } else {
            assert!(
                all.contains(
                    "INFO the tmux server stopped with ratd (SIGTERM to the service), not a death"
                ),
                "{all}"
            );
            assert!(
                stopped.contains("had exited on its own (stopped as a service, systemd signals tmux too): nothing to force"),
                "{all}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_restart_counts_as_a_death_and_is_tried_again() {
    let mut ratd = Daemon::spawn(&[]);
    ratd.wait_serving();
    let client = ratd.mcp("alice").await;
    // A stray server takes the socket before the restart (a command racing a crash): ratd is
    // stopped meanwhile, so that its restart, one second after the death, can not come first
    // on a loaded machine.
    ratd.signal(Signal::SIGSTOP);
    let old = kill_tmux(&ratd);
    // Dead (a zombie: ratd reaps it once resumed), its socket closed.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(format!("/proc/{old}/stat"))
        .map(|s| s.contains(") Z "))
        .unwrap_or(true)
    {
        assert!(Instant::now() < deadline, "the tmux server still runs");
        std::thread::sleep(Duration::from_millis(10));
    }
    let stray = std::process::Command::new("tmux")
        .args([
            "-L",
            &ratd.guard.socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "stray",
        ])
        .env("HOME", ratd.home.path())
        .status()
        .unwrap();
    assert!(stray.success());
    let stray_pid = tmux_server_pid(&ratd.guard.socket).expect("the stray server runs");
    ratd.signal(Signal::SIGCONT);
    ratd.wait_for("the tmux server died");
    // From the death until a restart succeeds, which the stray server prevents, tools answer
    // that the terminals restart.
    let (text, is_error) = call(&client, "list_windows", json!({})).await;
    assert_eq!(text, RESTARTING);
    assert!(is_error);
    let failed = ratd.wait_for("restarting the tmux server failed");
    assert!(
        failed.contains(&format!(
            "another tmux server (pid {stray_pid}) already serves socket {}",
            ratd.guard.socket
        )),
        "{failed}"
    );
    assert!(failed.contains("deaths_in_5m=2"), "{failed}");
    // Once the stray server is gone, the next attempt starts ratd's own. ratd is stopped while
    // it goes, so that a loaded machine can not let the attempts spend the crash budget.
    ratd.signal(Signal::SIGSTOP);
    let killed = std::process::Command::new("tmux")
        .args(["-L", &ratd.guard.socket, "kill-server"])
        .status()
        .unwrap();
    assert!(killed.success());
    ratd.signal(Signal::SIGCONT);
    let restarted = ratd.wait_for("tmux server restarted");
    let new = tmux_server_pid(&ratd.guard.socket).expect("ratd's server runs");
    assert_ne!(new, stray_pid);
    assert!(restarted.contains(&format!("pid={new}")), "{restarted}");
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
}
