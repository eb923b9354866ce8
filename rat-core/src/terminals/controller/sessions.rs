//! The sessions created for the tenant's clients, kept to say why one is created again.

use std::path::PathBuf;

use super::ControllerConfig;
use crate::terminals::names::is_valid_name;
use crate::terminals::texts::NewSessionCause;

/// The sessions of the tenant's clients, to explain to a client whose session is created again why
/// (its last window closed, or the terminals restarted) from one whose terminals never
/// existed. Those of earlier runs of ratd are kept in a small state file of the tenant
/// (`~/.local/state/rat/TENANT.sessions` in the terminals' home): one name a line.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    /// Created on the current tmux server.
    here: std::collections::HashSet<String>,
    /// Created on an earlier server (a restart) or by an earlier ratd, not created again yet.
    before: std::collections::HashSet<String>,
    /// The state file, when there is a home to keep it in.
    file: Option<PathBuf>,
}

impl Sessions {
    pub(super) fn load(config: &ControllerConfig) -> Sessions {
        let file = config
            .home
            .join(".local/state/rat")
            .join(format!("{}.sessions", config.tenant));
        let before = std::fs::read_to_string(&file)
            .map(|text| {
                text.lines()
                    .filter(|l| is_valid_name(l))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Sessions {
            here: Default::default(),
            before,
            file: Some(file),
        }
    }

    /// `session` was just created: why it had to be.
    pub(super) fn created(&mut self, session: &str) -> NewSessionCause {
        let origin = if self.here.contains(session) {
            NewSessionCause::LastClosed
        } else if self.before.remove(session) {
            NewSessionCause::Restarted
        } else {
            NewSessionCause::New
        };
        if self.here.insert(session.to_string()) && origin == NewSessionCause::New {
            self.save();
        }
        origin
    }

    /// The server was replaced: its sessions are from before.
    pub(super) fn restarted(&mut self) {
        let here = std::mem::take(&mut self.here);
        self.before.extend(here);
    }

    fn save(&self) {
        let Some(file) = &self.file else { return };
        let mut names: Vec<&String> = self.here.iter().chain(&self.before).collect();
        names.sort();
        names.dedup();
        let text: String = names.iter().map(|n| format!("{n}\n")).collect();
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(file, text) {
            tracing::debug!(error = %e, file = %file.display(), "could not keep the sessions' state file");
        }
    }
}
