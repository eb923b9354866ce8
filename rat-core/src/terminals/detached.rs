//! The processes a closed window leaves running: started from it, detached from its shell's
//! jobs (`(command &)` in a subshell, `nohup`, `disown`, `setsid`, daemons that fork twice), they
//! outlive the window, as they outlive a terminal a human closes. `close_window` finds them to
//! report them to the agent.
//!
//! Before the kill, the window's processes are noted from `/proc`, three ways, as none finds them
//! all alone:
//! - by environment: every process a pane starts inherits `TMUX_PANE` (the pane's id) and `TMUX`
//!   (the server's socket and pid) and keeps them through `setsid`, a new process group, or a
//!   parent that ended; pane ids restart at `%0` on each server, so both are matched. Only the
//!   processes of ratd's user are read (`/proc/PID/environ` of another user's is not readable).
//! - by session: the pane's shell leads it; a detached job keeps it unless it calls `setsid`,
//!   even when it cleared its environment (`env -i`).
//! - by descent from the shell, which a `setsid` one stays until its parent ends.
//!
//! What escapes all three: a process that dropped both variables (`env -i`, `sudo`, a program
//! running as another user) and also left the session and the shell's descendants.
//!
//! After the kill, those still running, neither zombies nor a pid reused since (its start time
//! tells them apart), are the ones left, with those the marks find that did not exist before the kill: a
//! process the hangup started (a daemon restarting on SIGHUP, a job's trap), a fork of one
//! noted. They are looked for once the known ones are all gone, and at the end of the grace.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use super::foreground::{Stat, escape, stat};
use super::texts;

/// A process noted before a kill: its pid and start time (which tells a reused pid apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Noted {
    /// Its pid.
    pub pid: u32,
    /// Its start time, in clock ticks since boot.
    start: u64,
    /// Its name (`comm`), escaped for the agent.
    pub name: String,
}

/// Every process of `/proc`, by pid.
fn all_processes() -> HashMap<u32, Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// What a pane marks in the environment of every process it starts: its `TMUX_PANE=%N` entry,
/// and the start of its `TMUX` entry, the server's socket and pid (`TMUX=/tmp/x/rat-a,1234,`;
/// the session's number after it is left out, as a window may move to another session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marks {
    pane: Vec<u8>,
    server: Vec<u8>,
}

impl Marks {
    /// The marks read from an environment block (`/proc/PID/environ`: `NAME=value` entries,
    /// each ended by a NUL byte); `None` without both variables.
    fn of_environment(environ: &[u8]) -> Option<Marks> {
        let mut pane = None;
        let mut server = None;
        for entry in environ.split(|&b| b == 0) {
            if entry.starts_with(b"TMUX_PANE=") {
                pane = Some(entry.to_vec());
            } else if entry.starts_with(b"TMUX=") {
                let comma = entry.iter().rposition(|&b| b == b',')?;
                server = Some(entry[..=comma].to_vec());
            }
        }
        Some(Marks {
            pane: pane?,
            server: server?,
        })
    }

    /// Whether an environment block holds both marks.
    fn in_environment(&self, environ: &[u8]) -> bool {
        let mut pane = false;
        let mut server = false;
        for entry in environ.split(|&b| b == 0) {
            pane |= entry == self.pane.as_slice();
            server |= entry.starts_with(&self.server);
        }
        pane && server
    }
}

/// The marks of the pane whose shell is `pane_pid`, read from the shell's environment.
fn pane_marks(pane_pid: u32) -> Option<Marks> {
    Marks::of_environment(&std::fs::read(format!("/proc/{pane_pid}/environ")).ok()?)
}

/// The processes of ratd's user whose environment holds `marks`: started from the pane,
/// wherever they went since.
fn marked(all: &HashMap<u32, Stat>, marks: &Marks) -> Vec<u32> {
    let uid = nix::unistd::geteuid().as_raw();
    all.keys()
        .copied()
        .filter(|pid| {
            // /proc/PID belongs to the process's user: another's environment is not readable
            std::fs::metadata(format!("/proc/{pid}")).is_ok_and(|m| m.uid() == uid)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|environ| marks.in_environment(&environ))
        })
        .collect()
}

/// What a window ran, noted before its kill: its processes, and what marks those started from
/// its pane (to find, after the kill, those started since).
#[derive(Debug, Default)]
pub(crate) struct Before {
    /// The pane's shell, which ends with the window: never named.
    pane_pid: u32,
    /// Its processes, by pid.
    noted: Vec<Noted>,
    /// The marks of its pane, `None` when its shell's environment could not be read.
    marks: Option<Marks>,
}

/// `pid` of `all` as noted, unless it is a zombie or gone.
fn noted(all: &HashMap<u32, Stat>, pid: u32) -> Option<Noted> {
    let s = all.get(&pid)?;
    (s.state != b'Z').then(|| Noted {
        pid,
        start: s.start,
        name: escape(&s.comm),
    })
}

/// The processes of the pane whose shell is `pane_pid`: those whose environment holds the
/// pane's marks, those of its session, and its shell's descendants; the shell itself left out,
/// as it ends with the window.
pub(crate) fn note(pane_pid: u32) -> Before {
    let all = all_processes();
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&pid, s) in &all {
        children.entry(s.ppid).or_default().push(pid);
    }
    let mut found: HashSet<u32> = all
        .iter()
        .filter(|(_, s)| s.session == pane_pid)
        .map(|(&pid, _)| pid)
        .collect();
    let marks = pane_marks(pane_pid);
    if let Some(marks) = &marks {
        found.extend(marked(&all, marks));
    }
    let mut seen = HashSet::from([pane_pid]);
    let mut stack = vec![pane_pid];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if seen.insert(child) {
                stack.push(child);
            }
        }
    }
    found.extend(seen);
    found.remove(&pane_pid);
    found.remove(&std::process::id());
    let mut noted: Vec<Noted> = found
        .into_iter()
        .filter_map(|pid| noted(&all, pid))
        .collect();
    noted.sort_by_key(|n| n.pid);
    Before {
        pane_pid,
        noted,
        marks,
    }
}

impl Before {
    /// The processes noted, by pid.
    #[cfg(test)]
    fn noted(&self) -> &[Noted] {
        &self.noted
    }

    /// Adds to `left` the processes started from the pane since it was noted (a process the
    /// hangup started, a daemon's fork): running, with the pane's marks, and not yet in `left`.
    fn started_since(&self, left: &mut Vec<Noted>) {
        let Some(marks) = &self.marks else {
            return;
        };
        let all = all_processes();
        for pid in marked(&all, marks) {
            if pid != self.pane_pid
                && pid != std::process::id()
                && !left.iter().any(|n| n.pid == pid)
                && let Some(noted) = noted(&all, pid)
            {
                left.push(noted);
            }
        }
    }
}

/// Whether `n` still runs (neither gone, nor a zombie, nor its pid reused since), its name
/// brought up to date: a process noted as it started may have executed a program since
/// (`setsid` running `sleep`).
fn still_running(n: &mut Noted) -> bool {
    match stat(n.pid) {
        Some(s) if s.start == n.start && s.state != b'Z' => {
            n.name = escape(&s.comm);
            true
        }
        _ => false,
    }
}

/// Of the processes of a window noted before its kill (`before`), those still running once the
/// window's own have had `grace` to end (they end on the hangup of the terminal, within
/// milliseconds), with those started from it since (found by the pane's marks, looked for
/// whenever the ones known are all gone, and at the end). Polled, so that a window leaving
/// nothing returns as soon as its processes are gone; sorted by pid.
pub(crate) async fn left_running(before: Before, grace: Duration) -> Vec<Noted> {
    let deadline = tokio::time::Instant::now() + grace;
    let mut left = before.noted.clone();
    loop {
        left.retain_mut(still_running);
        let over = tokio::time::Instant::now() >= deadline;
        if left.is_empty() || over {
            let known = left.len();
            before.started_since(&mut left);
            if left.len() == known || over {
                left.sort_by_key(|n| n.pid);
                return left;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The sentence of `close_window` naming the processes left running (their pid and name, the
/// first [`texts::NAMED_LEFT`] of them), or nothing.
pub(crate) fn left_text(left: &[Noted]) -> String {
    let named: Vec<(u32, &str)> = left.iter().map(|n| (n.pid, n.name.as_str())).collect();
    texts::left_running(&named)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noted(pid: u32, name: &str) -> Noted {
        Noted {
            pid,
            start: 0,
            name: name.into(),
        }
    }

    #[test]
    fn texts() {
        assert_eq!(left_text(&[]), "");
        assert_eq!(
            left_text(&[noted(12, "sleep")]),
            " Still running, detached from it: 12 (sleep). They outlive the window: kill 12 ends it."
        );
        let many: Vec<Noted> = (1..=12).map(|p| noted(p, "x")).collect();
        assert_eq!(
            left_text(&many),
            " Still running, detached from it: 1 (x), 2 (x), 3 (x), 4 (x), 5 (x), 6 (x), 7 (x), 8 \
             (x), 9 (x), 10 (x) and 2 more. They outlive the window: kill 1 2 3 4 5 6 7 8 9 10 ends \
             them."
        );
    }

    #[test]
    fn marks_are_both_variables_of_the_same_server() {
        let pane = b"A=1\0TMUX=/tmp/rat/rat-a,4321,0\0TMUX_PANE=%3\0B=2\0";
        let marks = Marks::of_environment(pane).unwrap();
        assert_eq!(marks.pane, b"TMUX_PANE=%3");
        assert_eq!(marks.server, b"TMUX=/tmp/rat/rat-a,4321,");
        assert!(marks.in_environment(pane));
        // another session of the same server: the window moved
        assert!(marks.in_environment(b"TMUX_PANE=%3\0TMUX=/tmp/rat/rat-a,4321,7\0"));
        // the same pane id on another server, or on this server's socket before a restart
        assert!(!marks.in_environment(b"TMUX_PANE=%3\0TMUX=/tmp/rat/rat-b,4321,0\0"));
        assert!(!marks.in_environment(b"TMUX_PANE=%3\0TMUX=/tmp/rat/rat-a,999,0\0"));
        // another pane, or one variable alone
        assert!(!marks.in_environment(b"TMUX_PANE=%31\0TMUX=/tmp/rat/rat-a,4321,0\0"));
        assert!(!marks.in_environment(b"TMUX_PANE=%3\0"));
        assert!(!marks.in_environment(b"TMUX=/tmp/rat/rat-a,4321,0\0"));
        assert_eq!(Marks::of_environment(b"TMUX_PANE=%3\0"), None);
        assert_eq!(Marks::of_environment(b"TMUX=/x,1,0\0"), None);
    }

    #[tokio::test]
    async fn a_process_ended_is_not_left() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let me = note(std::process::id());
        assert!(me.noted().iter().any(|n| n.pid == pid), "{me:?}");
        let it: Vec<Noted> = me
            .noted()
            .iter()
            .filter(|n| n.pid == pid)
            .cloned()
            .collect();
        let only = |noted: &[Noted]| Before {
            pane_pid: std::process::id(),
            noted: noted.to_vec(),
            marks: None,
        };
        assert_eq!(left_running(only(&it), Duration::ZERO).await, it);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            left_running(only(&it), Duration::from_secs(5)).await,
            vec![]
        );
    }
}
