//! How the terminals' tmux server stopped, in rat-core's terms: ratd logs it without knowing
//! tmux-cc's [`StopReport`].

use super::controller::{StopReport, StopStep};

/// How [`super::Controller::stop`] ended the tmux server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// It had exited already, when asked to earlier.
    ExitedAsked,
    /// It had exited already, on its own: `exit` reports how (`exit code 0`, `signal 15`).
    ExitedUnasked {
        /// How it ended, in words.
        exit: String,
    },
    /// It stopped when asked (kill-server): `step` in words.
    Asked {
        /// The step that stopped it, in words.
        step: String,
    },
    /// It had to be forced (SIGTERM, SIGKILL): `step` in words.
    Forced {
        /// The step that stopped it, in words.
        step: String,
    },
}

impl From<StopReport> for Stopped {
    fn from(report: StopReport) -> Self {
        let step = report.step.to_string();
        match report.step {
            StopStep::AlreadyExited if report.exit.requested => Stopped::ExitedAsked,
            StopStep::AlreadyExited => Stopped::ExitedUnasked {
                exit: report.exit.status.to_string(),
            },
            StopStep::KillServer => Stopped::Asked { step },
            StopStep::Terminate | StopStep::Kill => Stopped::Forced { step },
        }
    }
}
