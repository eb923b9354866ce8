//! The startup check's outcome (`docs/design/terminals.md`, The startup check): what bash startup
//! files defeat at the prompt of the terminals. Its value changes the instructions and the
//! descriptions (see [`crate::catalog`]) and the results of `list_windows` and `wait_window`.
//! How the check runs is reported on [`super::Controller::check_terminals`].

use std::time::Duration;

/// What holds in the terminals, found once at startup by
/// [`Controller::check_terminals`](super::Controller::check_terminals).
///
/// A check that can not run is taken as nothing holding ([`TerminalCheck::not_run`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalCheck {
    /// Whether the check ran to its end (within 10 seconds).
    pub ran: bool,
    /// Bracketed paste is on at the prompt (rat's hook turns it on; a `PROMPT_COMMAND` assigned
    /// by a startup file leaves the inputrc or bash default). Off: multi-line text may run line
    /// by line even at a prompt, which the instructions and `send_text` then say.
    pub bracketed_paste: bool,
    /// rat's hook records prompts (`@rat_prompt`): a startup file assigning `PROMPT_COMMAND`
    /// replaces it, and then `wait_window` can not wait.
    pub prompts: bool,
    /// The hook records statuses right: `false` gives 1 and `false | true` gives `1 0`. A command
    /// run before rat's (`history -a; ...`, starship) loses them, and no status is reported then.
    pub statuses: bool,
    /// What `PROMPT_COMMAND` became at the prompt of a terminal, for the log (never shown to
    /// agents); `None` when the check did not get that far.
    pub prompt_command: Option<String>,
    /// Why the check could not run (for the log), e.g. a startup file blocking.
    pub problem: Option<String>,
    /// How long the check took.
    pub duration: Duration,
}

impl TerminalCheck {
    /// Everything holds: the outcome with no startup file in the way. Also what `rat` uses, as
    /// input schemas do not depend on the check.
    pub fn all_holding() -> Self {
        Self {
            ran: true,
            bracketed_paste: true,
            prompts: true,
            statuses: true,
            prompt_command: None,
            problem: None,
            duration: Duration::ZERO,
        }
    }

    /// A check that could not run, taken as nothing holding (`docs/design/terminals.md`, The
    /// startup check).
    pub fn not_run(problem: impl Into<String>, duration: Duration) -> Self {
        Self {
            ran: false,
            bracketed_paste: false,
            prompts: false,
            statuses: false,
            prompt_command: None,
            problem: Some(problem.into()),
            duration,
        }
    }

    /// Whether agents are warned that multi-line text may run line by line even at a prompt.
    pub fn warns_paste(&self) -> bool {
        !self.bracketed_paste
    }

    /// Whether windows record prompts, so that `wait_window` can wait.
    pub fn records_prompts(&self) -> bool {
        self.prompts
    }

    /// Whether exit statuses are reported (prompts recorded, statuses right).
    pub fn reports_statuses(&self) -> bool {
        self.prompts && self.statuses
    }

    /// What the terminals lose, in a fixed order; empty when everything holds. ratd sends these
    /// to clients by name in its MCP capabilities ([`Degradation::name`]), and `rat-tool check`
    /// reads them back from there.
    pub fn degradations(&self) -> Vec<Degradation> {
        let mut lost = Vec::new();
        if !self.prompts {
            lost.push(Degradation::WaitsLost);
        } else if !self.statuses {
            lost.push(Degradation::StatusesLost);
        }
        if !self.bracketed_paste {
            lost.push(Degradation::PasteOverridden);
        }
        lost
    }

    /// The warnings ratd logs (and shows as degradations), one short label each, in a fixed
    /// order; empty when everything holds.
    pub fn warnings(&self) -> Vec<&'static str> {
        let mut warnings = Vec::new();
        if !self.ran {
            warnings.push("terminal check could not run");
            return warnings;
        }
        if !self.bracketed_paste {
            warnings.push("bracketed paste overridden");
        }
        if !self.prompts {
            warnings.push("prompts not recorded");
        } else if !self.statuses {
            warnings.push("exit statuses lost");
        }
        warnings
    }
}

/// One thing the terminals lose, found by the startup check ([`TerminalCheck::degradations`]).
///
/// Data, not words: ratd sends each by its [`name`](Degradation::name) in the `rat` entry of its
/// MCP `capabilities.experimental`, and `rat-tool check` maps the names back to the fix it prints
/// ([`crate::terminals::texts::degradation`]), so no client matches the instructions' wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Degradation {
    /// No prompt of rat's hook is recorded (or the check could not run): waits and exit
    /// statuses are lost.
    WaitsLost,
    /// Prompts are recorded but a hook runs before rat's at each prompt: exit statuses are lost.
    StatusesLost,
    /// Bracketed paste is off at the prompt: multi-line text may run line by line.
    PasteOverridden,
}

impl Degradation {
    /// Every degradation, in the order they are listed.
    pub const ALL: [Degradation; 3] = [
        Degradation::WaitsLost,
        Degradation::StatusesLost,
        Degradation::PasteOverridden,
    ];

    /// Its name on the wire (stable; kebab-case).
    pub fn name(self) -> &'static str {
        match self {
            Degradation::WaitsLost => "waits-lost",
            Degradation::StatusesLost => "statuses-lost",
            Degradation::PasteOverridden => "paste-overridden",
        }
    }

    /// The degradation of a wire name, `None` for a name this build does not know.
    pub fn from_name(name: &str) -> Option<Degradation> {
        Degradation::ALL.into_iter().find(|d| d.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_outcome_gives_its_degradations() {
        let all = TerminalCheck::all_holding();
        assert_eq!(all.degradations(), []);
        let statuses = TerminalCheck {
            statuses: false,
            ..all.clone()
        };
        assert_eq!(statuses.degradations(), [Degradation::StatusesLost]);
        let nothing = TerminalCheck::not_run("blocked", Duration::ZERO);
        assert_eq!(
            nothing.degradations(),
            [Degradation::WaitsLost, Degradation::PasteOverridden]
        );
    }

    #[test]
    fn names_go_both_ways() {
        for d in Degradation::ALL {
            assert_eq!(Degradation::from_name(d.name()), Some(d));
        }
        assert_eq!(Degradation::from_name("waits lost"), None);
    }
}
