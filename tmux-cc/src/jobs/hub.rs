//! The jobs' hub: one task per client that waits for its jobs' ends by event, on a connection
//! of its own, and reads their statuses (the steps are in the module `jobs.rs`).

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use crate::client::{Client, ConnectionEnd, FOREVER, WeakClient};
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::PaneId;

/// How many times a pane found dead without a status makes the hub send SIGCHLD to the server
/// before its job fails.
pub const NUDGES: u32 = 20;

/// When the hub looks at the jobs without being woken: after a start or a look that found
/// something to do, then each delay in turn, the last one repeated.
const CHECKS: [Duration; 9] = [
    Duration::from_millis(2),
    Duration::from_millis(5),
    Duration::from_millis(10),
    Duration::from_millis(20),
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(500),
    Duration::from_secs(1),
];

/// The status part of a job's end.
#[derive(Debug, Clone, Copy)]
pub(super) struct Death {
    pub(super) status: Option<i32>,
    pub(super) signal: Option<i32>,
}

impl Death {
    /// What tmux said of the gate: a status `128 + N` (N a signal number) is the command's
    /// death by signal N, as `sh` reports it.
    fn of(status: Option<i32>, signal: Option<i32>) -> Death {
        match (status, signal) {
            (Some(s), None) if (129..=128 + 64).contains(&s) => Death {
                status: None,
                signal: Some(s - 128),
            },
            _ => Death { status, signal },
        }
    }
}

/// Why a job's end could not be reported.
#[derive(Debug, Clone)]
pub(super) enum Failure {
    Ended(ConnectionEnd),
    Gone,
}

impl Failure {
    pub(super) fn into_error(self, pane: PaneId) -> Error {
        match self {
            Failure::Ended(end) => Error::ConnectionEnded(end),
            Failure::Gone => Error::UnexpectedReply {
                command: "list-panes".into(),
                detail: format!("the job's pane {pane} is gone (killed by someone else?)"),
            },
        }
    }
}

/// The jobs of one client, waited for together by one task.
pub(crate) struct Hub {
    pub(super) channel: String,
    pub(super) shared: Arc<HubShared>,
    task: JoinHandle<()>,
}

#[derive(Debug)]
pub(super) struct HubShared {
    pending: Mutex<HashMap<PaneId, Waiter>>,
    pub(super) kick: Notify,
}

#[derive(Debug)]
struct Waiter {
    tx: oneshot::Sender<std::result::Result<Death, Failure>>,
    nudges: u32,
}

impl HubShared {
    pub(super) fn forget(&self, pane: PaneId) {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&pane);
    }

    fn fail_all(&self, failure: Failure) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        for (_, waiter) in pending.drain() {
            let _ = waiter.tx.send(Err(failure.clone()));
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Hub {
    /// Starts the task waiting on `events` (a connection of its own), which reads the jobs'
    /// states on `main`'s connection (without keeping it alive).
    pub(crate) async fn start(main: &Client, events: Client) -> Result<Hub> {
        let lines = main
            .run(&Command::new("display-message").args(["-p", "#{pid}"]))
            .await?;
        let said = lines
            .first()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .unwrap_or_default();
        let server_pid: i32 = said.trim().parse().map_err(|_| Error::UnexpectedReply {
            command: "display-message".into(),
            detail: format!("#{{pid}} is {said:?}"),
        })?;
        // Unique to this connection (the pid of its `tmux -C` process), in either attach mode.
        let channel = format!("tmux-cc-{}-jobs", main.pid());
        let shared = Arc::new(HubShared {
            pending: Mutex::new(HashMap::new()),
            kick: Notify::new(),
        });
        let task = tokio::spawn(run(
            events,
            main.downgrade(),
            channel.clone(),
            shared.clone(),
            server_pid,
        ));
        Ok(Hub {
            channel,
            shared,
            task,
        })
    }

    pub(super) fn register(
        &self,
        pane: PaneId,
    ) -> oneshot::Receiver<std::result::Result<Death, Failure>> {
        let (tx, rx) = oneshot::channel();
        self.shared
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(pane, Waiter { tx, nudges: 0 });
        self.shared.kick.notify_one();
        rx
    }
}

async fn run(
    events: Client,
    main: WeakClient,
    channel: String,
    shared: Arc<HubShared>,
    server_pid: i32,
) {
    let waiter = events.with_timeout(FOREVER);
    let wait = || {
        let waiter = waiter.clone();
        let channel = channel.clone();
        async move { crate::client::wait(&waiter, &channel).await }
    };
    let mut woken = Box::pin(wait());
    let mut step = 0usize;
    loop {
        let idle = shared
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty();
        let delay = CHECKS[step.min(CHECKS.len() - 1)];
        tokio::select! {
            result = &mut woken => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "the jobs' event connection failed");
                    let end = match e {
                        Error::ConnectionEnded(end) => end,
                        other => ConnectionEnd::WriteFailed(other.to_string()),
                    };
                    shared.fail_all(Failure::Ended(end));
                    return;
                }
                woken = Box::pin(wait());
                step = 0;
            }
            _ = shared.kick.notified() => {
                step = 0;
                continue;
            }
            _ = tokio::time::sleep(delay), if !idle => {
                step += 1;
            }
        }
        let Some(main) = main.upgrade() else {
            return;
        };
        match look(&main, &shared, server_pid).await {
            Ok(true) => step = 0,
            Ok(false) => {}
            Err(Error::ConnectionEnded(end)) => {
                shared.fail_all(Failure::Ended(end));
                return;
            }
            Err(e) => tracing::debug!(error = %e, "reading the jobs' panes failed"),
        }
    }
}

/// Reads every pane's state once and ends the jobs whose pane has a status; nudges the server
/// for a pane dead without one. True when it ended or nudged something.
async fn look(main: &Client, shared: &HubShared, server_pid: i32) -> Result<bool> {
    let lines = main
        .run(&Command::new("list-panes").args([
            "-a",
            "-F",
            "#{pane_id} #{pane_dead} #{pane_dead_status} #{pane_dead_signal}",
        ]))
        .await?;
    let mut panes = HashMap::new();
    for line in &lines {
        let text = String::from_utf8_lossy(line);
        let mut fields = text.split(' ');
        let (Some(id), Some(dead), Some(status), Some(signal)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Ok(id) = PaneId::from_str(id) else {
            continue;
        };
        panes.insert(
            id,
            (
                dead == "1",
                status.parse::<i32>().ok(),
                parse_signal(signal),
            ),
        );
    }
    let mut acted = false;
    let mut nudge = false;
    let mut pending = shared.pending.lock().unwrap_or_else(|e| e.into_inner());
    let mut ended = Vec::new();
    for (pane, waiter) in pending.iter_mut() {
        match panes.get(pane) {
            None => ended.push((*pane, Err(Failure::Gone))),
            Some((_, status, signal)) if status.is_some() || signal.is_some() => {
                ended.push((*pane, Ok(Death::of(*status, *signal))))
            }
            Some((true, _, _)) if waiter.nudges < NUDGES => {
                waiter.nudges += 1;
                nudge = true;
            }
            // Dead without a status after every nudge: killed by a signal that tmux 3.2a can
            // not name (it has no #{pane_dead_signal}): neither is known.
            Some((true, _, _)) => ended.push((
                *pane,
                Ok(Death {
                    status: None,
                    signal: None,
                }),
            )),
            Some((false, _, _)) => {}
        }
    }
    for (pane, result) in ended {
        if let Some(waiter) = pending.remove(&pane) {
            let _ = waiter.tx.send(result);
            acted = true;
        }
    }
    drop(pending);
    if nudge {
        tracing::debug!(
            server_pid,
            "a job's pane is dead without a status: SIGCHLD to the server"
        );
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(server_pid),
            nix::sys::signal::Signal::SIGCHLD,
        );
        acted = true;
    }
    Ok(acted)
}

/// `#{pane_dead_signal}`: a number where the system has no signal names (Linux), a name
/// (`TERM` or `term`) where it has (the BSDs, macOS).
fn parse_signal(text: &str) -> Option<i32> {
    if text.is_empty() {
        return None;
    }
    if let Ok(n) = text.parse() {
        return Some(n);
    }
    let name = format!("SIG{}", text.to_ascii_uppercase());
    nix::sys::signal::Signal::from_str(&name)
        .ok()
        .map(|s| s as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_by_number_or_name() {
        assert_eq!(parse_signal(""), None);
        assert_eq!(parse_signal("15"), Some(15));
        assert_eq!(parse_signal("TERM"), Some(15));
        assert_eq!(parse_signal("kill"), Some(9));
        assert_eq!(parse_signal("nonsense"), None);
    }
}
