//! The deaths of the tmux server within the window of the crash budget: the one record the
//! supervisor counts its budget on and the status line shows.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The window of the crash budget: five minutes.
pub const BUDGET_WINDOW: Duration = Duration::from_secs(5 * 60);

/// The deaths of the tmux server within [`BUDGET_WINDOW`]: their times only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TmuxDeaths {
    at: VecDeque<Instant>,
}

impl TmuxDeaths {
    /// A record with no death.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a death at `now`, forgetting those out of the window; returns how many deaths
    /// the window holds with it.
    pub fn record(&mut self, now: Instant) -> usize {
        self.at
            .retain(|at| now.saturating_duration_since(*at) < BUDGET_WINDOW);
        self.at.push_back(now);
        self.at.len()
    }

    /// How many deaths fall within the window at `now`.
    pub fn within_window(&self, now: Instant) -> usize {
        self.at
            .iter()
            .filter(|at| now.saturating_duration_since(**at) < BUDGET_WINDOW)
            .count()
    }
}

impl From<Vec<Instant>> for TmuxDeaths {
    fn from(at: Vec<Instant>) -> Self {
        Self { at: at.into() }
    }
}
