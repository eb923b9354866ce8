//! Typed format subscriptions: `refresh-client -B NAME:SCOPE:FORMAT` as a [`Watch`], a stream
//! of `(ids, value)`; dropping it unsubscribes (`refresh-client -B NAME`).
//!
//! What tmux does (control.c `control_check_subs_*`, cmd-refresh-client.c, read in 3.3a and
//! 3.7c, measured on 3.2a, 3.3a and 3.7c):
//! - It checks every subscription of a client on a timer, once a second (the timer is armed
//!   when the first subscription is added). A change therefore arrives 0 to about 1 s after it
//!   happens, plus the time to write it; a value that changes and changes back between two
//!   checks is never seen. It sends a value only when it differs from the last one it sent for
//!   the same (subscription, pane or window): the first check sends every current value.
//! - Every scope is relative to the client's OWN session (for a tmux-cc [`Client`], its hidden
//!   service session): [`WatchScope::Session`] expands the format once, in that session;
//!   [`WatchScope::Pane`] and [`WatchScope::Window`] report that pane or window only while it
//!   is linked into that session (and a pane only while its process runs);
//!   [`WatchScope::AllPanes`] and [`WatchScope::AllWindows`] loop over that session's panes
//!   and windows only. To watch the user's sessions, use [`WatchScope::Session`] with a format
//!   that loops over them, `#{S:...#{W:...#{P:...}}}` (see `Topology`).
//! - Adding a subscription under a name in use replaces it, and its values are sent again.
//! - `refresh-client -B` exists in every tmux tmux-cc supports (3.2 on; measured on 3.2a).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::client::{Delivery, Subscription};

use crate::client::Client;
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::{Notification, PaneId, SessionId, WindowId};

/// What a [`Watch`] covers: the `SCOPE` of `refresh-client -B NAME:SCOPE:FORMAT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchScope {
    /// The client's session: one value (SCOPE empty).
    Session,
    /// One pane (`%N`), while it is in the client's session: one value per window link.
    Pane(PaneId),
    /// Every pane of the client's session (`%*`): one value per pane.
    AllPanes,
    /// One window (`@N`), while it is in the client's session.
    Window(WindowId),
    /// Every window of the client's session (`@*`): one value per window.
    AllWindows,
}

impl WatchScope {
    fn text(&self) -> String {
        match self {
            WatchScope::Session => String::new(),
            WatchScope::Pane(p) => p.to_string(),
            WatchScope::AllPanes => "%*".into(),
            WatchScope::Window(w) => w.to_string(),
            WatchScope::AllWindows => "@*".into(),
        }
    }
}

/// One value of a [`Watch`]: a `%subscription-changed` line, its ids and the expanded format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchValue {
    /// The client's session (`$S`).
    pub session: SessionId,
    /// The window, for a window or pane scope.
    pub window: Option<WindowId>,
    /// The window's index in the session, for a window or pane scope.
    pub window_index: Option<u32>,
    /// The pane, for a pane scope.
    pub pane: Option<PaneId>,
    /// The format's value (lossy UTF-8).
    pub value: String,
}

/// A format subscription of a [`Client`] ([`Client::watch`]): the values tmux sends for it,
/// in order. Dropping it unsubscribes (a `refresh-client -B NAME` sent from a task of the
/// current tokio runtime, if there is one); [`Watch::cancel`] does it and waits.
#[derive(Debug)]
pub struct Watch {
    /// The names of the client's open watches, this one's among them until it goes.
    names: Arc<Names>,
    client: Client,
    name: String,
    scope: WatchScope,
    format: String,
    rx: Subscription,
    cancelled: bool,
}

impl Client {
    /// Subscribes to `format` (a tmux format, `#{...}`) over `scope` under `name`:
    /// `refresh-client -B NAME:SCOPE:FORMAT`. Values arrive about once a second at most (see
    /// the module's notes); the first ones within a second of this call.
    ///
    /// `name` must be unique among this client's watches (tmux replaces a subscription of the
    /// same name): ASCII letters, digits, `-` and `_`. A name in use by a watch of this client
    /// not yet dropped or cancelled is refused.
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad name, a name in use, or a format that is empty or holds LF
    /// or CR;
    /// [`Error::Command`] if tmux refuses the command; the connection's errors.
    pub async fn watch(&self, name: &str, scope: WatchScope, format: &str) -> Result<Watch> {
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Error::Refused(
                "a watch name holds only ASCII letters, digits, '-' and '_'",
            ));
        }
        if format.is_empty() || format.contains(['\n', '\r']) {
            return Err(Error::Refused(
                "a watch format is not empty and holds no LF or CR",
            ));
        }
        let names = self.extension(|| async { Ok(Names::default()) }).await?;
        if !names.take(name) {
            return Err(Error::Refused(
                "a watch of that name is open on this client (tmux would replace it): cancel or drop it first, or pick another name",
            ));
        }
        // Subscribe before tmux can send the first value.
        let rx = self.subscribe();
        if let Err(e) = self.run(&subscribe_command(name, scope, format)).await {
            names.give_back(name);
            return Err(e);
        }
        Ok(Watch {
            names,
            client: self.clone(),
            name: name.to_string(),
            scope,
            format: format.to_string(),
            rx,
            cancelled: false,
        })
    }
}

/// The names of a client's open watches (kept with the client: [`Client::extension`]).
#[derive(Debug, Default)]
struct Names(Mutex<HashSet<String>>);

impl Names {
    /// Takes `name`; false when it is in use.
    fn take(&self, name: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string())
    }

    fn give_back(&self, name: &str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
    }
}

fn subscribe_command(name: &str, scope: WatchScope, format: &str) -> Command {
    Command::new("refresh-client").args(["-B", &format!("{name}:{}:{format}", scope.text())])
}

fn unsubscribe_command(name: &str) -> Command {
    Command::new("refresh-client").args(["-B", name])
}

impl Watch {
    /// The subscription's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next value tmux sends for this subscription.
    ///
    /// If this watch fell behind the client's notifications (more than
    /// `notification_capacity` of them unread, `Lagged`), values may have been lost: it
    /// subscribes again, which makes tmux send every current value again (so values can
    /// repeat, never go missing), and goes on.
    ///
    /// # Errors
    /// [`Error::ConnectionEnded`] once the connection has ended; the errors of resubscribing.
    pub async fn recv(&mut self) -> Result<WatchValue> {
        loop {
            match self.rx.recv().await {
                Some(Delivery::Notification(Notification::SubscriptionChanged {
                    name,
                    session,
                    window,
                    window_index,
                    pane,
                    value,
                })) if name == self.name => {
                    return Ok(WatchValue {
                        session,
                        window,
                        window_index,
                        pane,
                        value,
                    });
                }
                Some(Delivery::Notification(_)) => {}
                Some(Delivery::Lagged { missed }) => {
                    tracing::debug!(name = %self.name, missed, "watch lagged: subscribing again");
                    self.client
                        .run(&subscribe_command(&self.name, self.scope, &self.format))
                        .await?;
                }
                None => {
                    return Err(Error::ConnectionEnded(
                        self.client.end().unwrap_or(crate::ConnectionEnd::Eof),
                    ));
                }
            }
        }
    }

    /// [`Watch::recv`] with a deadline: `Ok(None)` if nothing came within `within`.
    ///
    /// # Errors
    /// As [`Watch::recv`].
    pub async fn recv_timeout(&mut self, within: Duration) -> Result<Option<WatchValue>> {
        match tokio::time::timeout(within, self.recv()).await {
            Ok(value) => value.map(Some),
            Err(_) => Ok(None),
        }
    }

    /// Unsubscribes (`refresh-client -B NAME`) and waits for tmux's answer: no value of it is
    /// sent after.
    ///
    /// # Errors
    /// The connection's errors.
    pub async fn cancel(mut self) -> Result<()> {
        self.cancelled = true;
        let result = self
            .client
            .run(&unsubscribe_command(&self.name))
            .await
            .map(drop);
        self.names.give_back(&self.name);
        result
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.cancelled {
            return;
        }
        if self.client.end().is_some() {
            self.names.give_back(&self.name);
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let client = self.client.clone();
            let name = std::mem::take(&mut self.name);
            let names = self.names.clone();
            handle.spawn(async move {
                if let Err(e) = client.run(&unsubscribe_command(&name)).await {
                    tracing::debug!(%name, error = %e, "unsubscribing a dropped watch");
                }
                // Free once tmux has dropped it: a new watch of the name is not unsubscribed.
                names.give_back(&name);
            });
        } else {
            self.names.give_back(&self.name);
        }
    }
}
