//! The supervisor of the tmux server (`docs/design/terminals.md`, Restarts): ratd keeps
//! its server running, that it needs a child process being its own concern.
//!
//! It waits for the server to exit ([`Controller::wait_server`]), logs why, and starts it again
//! after [`RESTART_DELAY`] ([`Controller::restart`]); tools meanwhile answer that the terminals
//! are restarting (rat-core's controller does). [`BUDGET_DEATHS`] deaths within
//! [`BUDGET_WINDOW`] make it give up with [`TooManyDeaths`], for ratd to exit with an error and
//! the service to show as failed; a restart failing counts as a death (a stray server may hold
//! the socket). Only the times of recent deaths are kept.
//!
//! A stop asked for is not a death: the supervisor ends when its `stop` token fires, and ratd
//! stops it before stopping the server, so that it does not restart what ratd stops. Stopped as
//! a service, tmux gets SIGTERM from systemd along with ratd, and exits cleanly: a server ending
//! with status 0 (or by SIGTERM or SIGHUP) is judged once the restart delay passed, an exit with
//! the stop (logged at info, not a death) if the stop came meanwhile, a death logged then
//! otherwise (`tmux kill-server` typed in a terminal also exits 0). Other exits are logged at
//! once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rat_core::terminals::{Controller, ExitKind, ServerExit};
use tokio_util::sync::CancellationToken;

use super::status::Status;

/// How long after a death the server is started again.
pub const RESTART_DELAY: Duration = Duration::from_secs(1);

/// How many deaths within [`BUDGET_WINDOW`] make ratd give up.
pub const BUDGET_DEATHS: usize = 5;

pub use super::deaths::BUDGET_WINDOW;
use super::deaths::TmuxDeaths;

/// Whether `deaths` within the window (as [`TmuxDeaths::record`] counted them) spent the
/// budget.
pub fn spent(deaths: usize) -> bool {
    deaths >= BUDGET_DEATHS
}

/// The supervisor gave up: the tmux server died (or failed to restart) five times within five
/// minutes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tmux server died {deaths} times within 5 minutes, the last time {last}: ratd stops, as \
it can not keep the terminals up; see the log for each death"
)]
pub struct TooManyDeaths {
    /// The deaths counted within the window.
    pub deaths: usize,
    /// How the last one happened (an exit status, a signal, a failed restart).
    pub last: String,
}

/// Keeps the tmux server of `controller` running until `stop` fires (returns `Ok`) or the crash
/// budget is spent (returns the error, ratd then stopping). Each death is logged at warning
/// with its reason and shown in `status`; each restart at info with the new server's pid.
///
/// # Errors
/// [`TooManyDeaths`] when five deaths or failed restarts fall within five minutes.
pub async fn supervise(
    controller: Controller,
    stop: CancellationToken,
    status: Option<Arc<Status>>,
) -> Result<(), TooManyDeaths> {
    // The record of the status line when there is one, so that the budget and the line count
    // the same deaths; the supervisor's own otherwise.
    let mut own = TmuxDeaths::new();
    let mut record = |now: Instant| match &status {
        Some(status) => status.tmux_died_at(now),
        None => own.record(now),
    };
    loop {
        let pid = controller.server_pid();
        let exit: ServerExit = tokio::select! {
            exit = controller.wait_server() => exit,
            () = stop.cancelled() => return Ok(()),
        };
        if exit.requested || stop.is_cancelled() {
            return Ok(());
        }
        // systemd sends SIGTERM to the whole service, on which tmux exits cleanly (status 0):
        // such an exit, or SIGTERM itself, is judged once the restart delay passed, an exit with
        // ratd's stop if the stop came meanwhile. A crash (a signal) is a death at once.
        let sigterm = matches!(
            exit.status,
            ExitKind::Code(0) | ExitKind::Signal(15) | ExitKind::Signal(1)
        );
        let mut reason = exit.status.to_string();
        if !sigterm {
            note_death(&mut record, pid, &reason)?;
        }
        loop {
            tokio::select! {
                () = tokio::time::sleep(RESTART_DELAY) => {}
                () = stop.cancelled() => {
                    if sigterm {
                        tracing::info!(pid, reason, "the tmux server stopped with ratd (SIGTERM to the service), not a death");
                    }
                    return Ok(());
                }
            }
            if sigterm {
                note_death(&mut record, pid, &reason)?;
            }
            match controller.restart().await {
                Ok(()) => {
                    tracing::info!(
                        pid = controller.server_pid(),
                        "tmux server restarted: every session starts again with a fresh main"
                    );
                    break;
                }
                Err(error) => {
                    reason = format!("failed to restart: {error}");
                    let deaths = record(Instant::now());
                    tracing::warn!(%error, deaths_in_5m = deaths, "restarting the tmux server failed, which counts as a death; trying again in 1 second");
                    if spent(deaths) {
                        return Err(give_up(deaths, reason));
                    }
                    // Judged as any death from now on.
                    continue;
                }
            }
        }
    }
}

fn note_death(
    record: &mut impl FnMut(Instant) -> usize,
    pid: u32,
    reason: &str,
) -> Result<(), TooManyDeaths> {
    let deaths = record(Instant::now());
    tracing::warn!(
        pid,
        reason,
        deaths_in_5m = deaths,
        "the tmux server died: its terminals and their commands are lost; restarting it in 1 second"
    );
    if spent(deaths) {
        return Err(give_up(deaths, reason.to_owned()));
    }
    Ok(())
}

fn give_up(deaths: usize, last: String) -> TooManyDeaths {
    let error = TooManyDeaths { deaths, last };
    tracing::error!(%error, "crash budget spent");
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_deaths_within_five_minutes_spend_the_budget() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut budget = TmuxDeaths::new();
        assert_eq!(budget.record(t0), 1);
        assert_eq!(budget.record(t0 + s(60)), 2);
        assert_eq!(budget.record(t0 + s(120)), 3);
        assert_eq!(budget.record(t0 + s(180)), 4);
        assert!(!spent(4));
        // The first death is 5 minutes old: out of the window.
        assert_eq!(budget.record(t0 + s(300)), 4);
        assert_eq!(budget.record(t0 + s(301)), 5);
        assert!(spent(5));
    }

    #[test]
    fn deaths_spread_out_never_spend_it() {
        let t0 = Instant::now();
        let mut budget = TmuxDeaths::new();
        for i in 0..50u64 {
            let deaths = budget.record(t0 + Duration::from_secs(75 * i));
            assert!(!spent(deaths), "death {i}: {deaths}");
        }
    }

    #[test]
    fn the_error_tells_why_ratd_stops() {
        insta::assert_snapshot!(TooManyDeaths { deaths: 5, last: "killed by signal 9 (SIGKILL)".into() }.to_string(), @"the tmux server died 5 times within 5 minutes, the last time killed by signal 9 (SIGKILL): ratd stops, as it can not keep the terminals up; see the log for each death");
    }
}
