//! What a closed window leaves running, as an agent leaves it: the commands an agent types, typed as
//! they were (`setsid sleep 251 & nohup sleep 252 & (sleep 253 &); setsid -f sleep 254`), with
//! `disown`, a daemon forking twice, a job and a command that end with the window, and what
//! escapes by design (`env -i` out of the window's session). The processes are found by their
//! command line, never by a file they write: each sleep's seconds are unique to the test's
//! process, so that the same test run by another checkout at the same time is not seen.

use crate::common::*;
use rat_core::terminals::{CloseWindow, CreateWindow};

/// A daemon as they start, its seconds given: it forks, the child leaves the session
/// (`setsid`) and forks again, both parents end, and the grandchild, its standard streams on
/// /dev/null, sleeps.
const DAEMON: &str = "import os, sys
if os.fork():
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
null = os.open(os.devnull, os.O_RDWR)
for fd in range(3):
    os.dup2(null, fd)
os.execvp('sleep', ['sleep', sys.argv[1]])
";

/// Seconds for the sleeps of a test, unique to this test process: the `n`th of a block of 20
/// of its own (each test picks its `n`s, apart from the other tests' ones).
fn unique_seconds(n: u64) -> u64 {
    100_000 + u64::from(std::process::id() % 400_000) * 20 + n
}

/// The pids of the processes running `sleep SECONDS` (their command line exactly that).
fn sleeping(seconds: u64) -> Vec<u32> {
    let cmdline = format!("sleep\0{seconds}\0");
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == cmdline.as_bytes())
        })
        .collect();
    pids.sort();
    pids
}

/// Whether `pid` runs (a zombie does not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap() + 1..].trim_start().starts_with('Z'))
}

/// Kills, when dropped, every `sleep` of the given seconds still running: whatever happens, the
/// processes the test left end with it.
struct KillOnDrop(Vec<u64>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &seconds in &self.0 {
            for pid in sleeping(seconds) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_process_an_agent_leaves_behind_is_named_once() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.create_window(CreateWindow {
        name: "jobs".into(),
    })
    .await;
    f.ready("s", "jobs").await;
    // seconds unique to this process: 251 to 260 as first reported, shifted
    let s = |n: u64| unique_seconds(n - 250);
    let _ended = KillOnDrop((251..=260).map(s).collect());
    std::fs::write(f.home().join("daemon.py"), DAEMON).unwrap();
    let started = f
        .run(
            "s",
            "jobs",
            &format!(
                "setsid sleep {} & nohup sleep {} & (sleep {} &); setsid -f sleep {}; sleep {} & \
                 disown; python3 daemon.py {}; sleep {} & nohup env -i sleep {} & setsid env -i \
                 sleep {} &",
                s(251),
                s(252),
                s(253),
                s(254),
                s(255),
                s(256),
                s(257),
                s(258),
                s(259)
            ),
        )
        .await;
    assert!(started.text.contains("exit status 0"), "{}", started.text);
    t.send_text(text("jobs", &format!("sleep {}", s(260)), true))
        .await;
    f.wait_command("s", "jobs", "sleep").await;
    // Each sleeps once it executed sleep (a forked bash, setsid, nohup, env or python until
    // then), one process each.
    let mut pid = std::collections::HashMap::new();
    for n in 251..=260 {
        eventually(&format!("sleep {} runs", s(n)), || {
            sleeping(s(n)).len() == 1
        })
        .await;
        pid.insert(n, sleeping(s(n))[0]);
    }
    let closed = t
        .close_window(CloseWindow {
            name: "jobs".into(),
        })
        .await;
    // setsid (a job, then -f), nohup, a subshell's job, disown, the daemon, and nohup after
    // env -i (it cleared the window's variables, but stayed in its session) outlive the window;
    // the plain job 257 and the foreground 260 end with it; 259, its variables cleared in a
    // session of its own, escapes by design, as the description says.
    let mut left: Vec<u32> = [251, 252, 253, 254, 255, 256, 258]
        .iter()
        .map(|n| pid[n])
        .collect();
    left.sort();
    let named: Vec<String> = left.iter().map(|p| format!("{p} (sleep)")).collect();
    let pids: Vec<String> = left.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        closed.text,
        format!(
            "Window jobs closed. Still running, detached from it: {}. They outlive the window: \
             kill {} ends them.",
            named.join(", "),
            pids.join(" ")
        )
    );
    for p in &left {
        assert!(running(*p), "{p} named, not running");
    }
    assert!(!running(pid[&257]) && !running(pid[&260]));
    assert!(running(pid[&259]), "the escaped one still runs, unnamed");
}

/// A process the window's hangup starts: a command that, hung up with the window, starts a
/// program in a session of its own and ends, as a daemon restarting on SIGHUP does. It did not
/// exist when the window's processes were noted, before the kill; it carries the window's
/// variables, and is named, by the name of the program it runs by then. The command runs in the
/// foreground, where the terminal's hangup reaches it from the kernel: a background job gets it
/// only when bash sends it on, which bash does when it exits on the signal, not when it exits on
/// the end of its input first (seen in the tmux matrix: 3 runs in 18).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_started_by_the_hangup_is_named() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.create_window(CreateWindow { name: "hup".into() }).await;
    f.ready("s", "hup").await;
    let (seconds, waiting) = (unique_seconds(15), unique_seconds(16));
    let _ended = KillOnDrop(vec![seconds, waiting]);
    // `wait` returns on a trapped signal at once; the command's own sleep ends with the hangup.
    // The trap ignores the hangup first: the command gets it twice, from the kernel and from
    // bash sending it on to its foreground job.
    t.send_text(text(
        "hup",
        &format!(
            "sh -c 'trap \"trap \\\"\\\" HUP; setsid sleep {seconds} & exit\" HUP; touch \
             hup.ready; sleep {waiting} & wait'"
        ),
        true,
    ))
    .await;
    let ready = f.home().join("hup.ready");
    eventually("the command's trap is set", || {
        ready.exists() && sleeping(waiting).len() == 1
    })
    .await;
    assert!(sleeping(seconds).is_empty());
    let closed = t.close_window(CloseWindow { name: "hup".into() }).await;
    let started = sleeping(seconds);
    assert_eq!(
        started.len(),
        1,
        "started once by the hangup: {}",
        closed.text
    );
    assert_eq!(
        closed.text,
        format!(
            "Window hup closed. Still running, detached from it: {0} (sleep). They outlive the \
             window: kill {0} ends it.",
            started[0]
        )
    );
    assert!(sleeping(waiting).is_empty());
}
