//! The transcripts of a server's panes: one [`Follow`] per pane an input was sent to, started
//! before the first input is written (the pane's pipe then holds every byte of its command,
//! marks included), dropped with the server. See docs/design/output.md.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tmux_cc::{Client, PaneId};

use super::TERMINAL_SIZE;
use crate::terminals::transcript::Follow;

/// The transcripts of one server's panes, by pane number.
#[derive(Debug, Default)]
pub(crate) struct Follows {
    panes: Mutex<HashMap<u32, Arc<Follow>>>,
    /// Held while a pane's pipe is opened: one pipe per pane.
    starting: tokio::sync::Mutex<()>,
}

impl Follows {
    /// Pane `pane`'s transcript, when it is followed and its stream has not ended.
    pub(crate) fn get(&self, pane: u32) -> Option<Arc<Follow>> {
        let panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
        panes.get(&pane).filter(|f| f.end().is_none()).cloned()
    }

    /// Pane `pane`'s transcript, its pipe opened now when it was not. `None` when tmux
    /// refuses (the pane gone, or a pipe of the user's on it): its answers read the screen.
    pub(crate) async fn start(&self, client: &Client, pane: u32) -> Option<Arc<Follow>> {
        if let Some(follow) = self.get(pane) {
            return Some(follow);
        }
        let _starting = self.starting.lock().await;
        if let Some(follow) = self.get(pane) {
            return Some(follow);
        }
        let (width, height) = TERMINAL_SIZE;
        match Follow::start(client, PaneId(pane), width as u16, height as u16).await {
            Ok(follow) => {
                let follow = Arc::new(follow);
                self.panes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(pane, follow.clone());
                Some(follow)
            }
            Err(e) => {
                tracing::debug!(pane, error = %e, "following the pane's output failed: its answers read the screen");
                None
            }
        }
    }
}
