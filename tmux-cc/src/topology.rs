//! [`Topology`]: a model of the whole server (sessions, window links with their panes and
//! layouts), kept current as the server changes, with the changes as [`TopologyEvent`]s.
//!
//! How it stays current. tmux notifies a control client of some changes at once (sessions created,
//! destroyed, renamed; windows added, closed, renamed in any session; the active pane), but
//! sends `%layout-change` only for the windows of the client's own session, which for a
//! tmux-cc client is its hidden service session: a split, a resize or a `kill-pane` in the
//! user's sessions brings no notification at all. So a [`Topology`] also holds ONE
//! subscription ([`Client::watch`], session scope) whose format loops over every session,
//! window and pane (`#{S:...#{W:...#{P:...}}}`) and prints what the model holds (ids, indexes,
//! layouts, active and dead flags, pids, commands, paths; names come by notification). tmux
//! re-expands it once a second and sends it when it differs: any such change reaches the
//! model within about a second. Measured on 3.2a, 3.3a and 3.7c.
//!
//! On either signal, the model is listed again in one write ([`Client::shape`]) and compared
//! with the one before; the differences are the events. Reading everything again is a few
//! hundred bytes a window, and it makes the model equal to a fresh listing by construction
//! rather than by replaying each notification right (several notifications that come
//! together are answered with one listing). A lagged notification receiver (`Lagged`) is
//! answered the same way: listing again loses nothing. A listing that fails (a timeout) is
//! tried again a second later.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::client::{Delivery, Subscription};
use tokio::task::JoinHandle;

use crate::client::Client;
use crate::error::Result;
use crate::ops::{SessionInfo, Shape, WindowPanes};
use crate::parse::{Layout, Notification, SessionId, WindowId};
use crate::watch::{Watch, WatchScope};

/// The format of the topology's subscription: everything of a [`Shape`] but names (which
/// come by notification, and could hold any byte). No `,` outside `#{...}`: tmux 3.7c reads
/// one in a loop as the start of the current item's format.
pub const TOPOLOGY_FORMAT: &str = "#{S:#{session_id} #{session_attached} #{session_grouped} #{session_windows}#{W: #{window_id}.#{window_index}.#{window_active}.#{window_zoomed_flag}.#{window_width}x#{window_height}.#{window_layout}.#{window_visible_layout}#{P: #{pane_id}.#{pane_index}.#{pane_active}.#{pane_dead}.#{pane_dead_status}.#{pane_pid}.#{pane_current_command}.#{pane_current_path}}}|}";

/// A change of the server, as a [`Topology`] sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopologyEvent {
    /// A session appeared.
    SessionAdded(SessionInfo),
    /// A session went.
    SessionRemoved(SessionId),
    /// A session's name, window count, attached count or group changed: its new description.
    SessionChanged(SessionInfo),
    /// A window link appeared (a new window, or a window linked into one more session).
    WindowAdded(WindowPanes),
    /// A window link went.
    WindowRemoved {
        /// The session it was in.
        session: SessionId,
        /// The window.
        window: WindowId,
    },
    /// A window's layout changed (a split, a pane killed, a resize, a zoom): the new layouts.
    LayoutChanged {
        /// The session of the window link.
        session: SessionId,
        /// The window.
        window: WindowId,
        /// `#{window_layout}`.
        layout: Layout,
        /// `#{window_visible_layout}`.
        visible_layout: Layout,
    },
    /// Anything but the layouts of a window link changed (its name, index, size, active flag;
    /// a pane added, gone, moved or resized, its command, path, active or dead flag): its new
    /// description. A split gives both: [`TopologyEvent::LayoutChanged`], then this.
    WindowChanged(WindowPanes),
    /// The reader fell more than the topology's capacity of events behind
    /// ([`Topology::start_with`]): the `missed` oldest events unread were dropped, and the
    /// events after this one come as usual. [`Topology::current`] is the whole model.
    Lagged {
        /// How many events were dropped.
        missed: u64,
    },
}

/// A model of the server kept current from notifications and a subscription (see the
/// module's notes). Dropping it stops its task and unsubscribes.
#[derive(Debug)]
pub struct Topology {
    current: Arc<Mutex<Shape>>,
    events: broadcast::Receiver<TopologyEvent>,
    task: JoinHandle<()>,
}

static TOPOLOGY_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Topology {
    /// Lists the server, subscribes, and keeps the model current from then on; holds at most
    /// [`Topology::CAPACITY`] events unread.
    ///
    /// # Errors
    /// The errors of [`Client::shape`] and [`Client::watch`].
    pub async fn start(client: &Client) -> Result<Topology> {
        Topology::start_with(client, Topology::CAPACITY).await
    }

    /// How many events a topology of [`Topology::start`] holds for its reader.
    pub const CAPACITY: usize = 1024;

    /// [`Topology::start`], holding at most `capacity` events unread (at least 1): a reader
    /// further behind gets [`TopologyEvent::Lagged`] in place of the oldest.
    ///
    /// # Errors
    /// As [`Topology::start`].
    pub async fn start_with(client: &Client, capacity: usize) -> Result<Topology> {
        let notes = client.subscribe();
        let name = format!(
            "tmux-cc-topology-{}",
            TOPOLOGY_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let watch = client
            .watch(&name, WatchScope::Session, TOPOLOGY_FORMAT)
            .await?;
        let shape = client.shape().await?;
        let current = Arc::new(Mutex::new(shape));
        let (tx, events) = broadcast::channel(capacity.max(1));
        let task = tokio::spawn(run(client.clone(), notes, watch, current.clone(), tx));
        Ok(Topology {
            current,
            events,
            task,
        })
    }

    /// The model as of the last listing.
    pub fn current(&self) -> Shape {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The next change, in order; `None` once the connection has ended. At most the
    /// topology's capacity of events wait to be read; past it the oldest are dropped and
    /// [`TopologyEvent::Lagged`] reports how many, before the ones kept.
    pub async fn next_event(&mut self) -> Option<TopologyEvent> {
        match self.events.recv().await {
            Ok(event) => Some(event),
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                Some(TopologyEvent::Lagged { missed })
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        // Aborting drops the task's Watch, which unsubscribes.
        self.task.abort();
    }
}

/// Whether a notification may mean the model changed.
fn relevant(note: &Notification) -> bool {
    use Notification as N;
    matches!(
        note,
        N::SessionChanged { .. }
            | N::ClientSessionChanged { .. }
            | N::SessionRenamed { .. }
            | N::SessionsChanged
            | N::SessionWindowChanged { .. }
            | N::WindowAdd { .. }
            | N::UnlinkedWindowAdd { .. }
            | N::WindowClose { .. }
            | N::UnlinkedWindowClose { .. }
            | N::WindowRenamed { .. }
            | N::UnlinkedWindowRenamed { .. }
            | N::WindowPaneChanged { .. }
            | N::LayoutChange { .. }
            | N::ClientDetached { .. }
    )
}

async fn run(
    client: Client,
    mut notes: Subscription,
    mut watch: Watch,
    current: Arc<Mutex<Shape>>,
    tx: broadcast::Sender<TopologyEvent>,
) {
    // Set when a listing failed: list again after a pause, whatever comes.
    let mut retry = false;
    loop {
        let dirty = retry
            || tokio::select! {
                note = notes.recv() => match note {
                    Some(Delivery::Notification(note)) => relevant(&note),
                    Some(Delivery::Lagged { missed }) => {
                        tracing::debug!(missed, "topology lagged: listing again");
                        true
                    }
                    None => return,
                },
                value = watch.recv() => match value {
                    Ok(_) => true,
                    // Resubscribing after a lag failed: the listing says what changed.
                    Err(_) if client.end().is_none() => true,
                    Err(_) => return,
                },
            };
        if !dirty {
            continue;
        }
        // What came meanwhile is answered by the same listing.
        while let Ok(Some(_)) = notes.try_recv() {}
        let shape = match client.shape().await {
            Ok(shape) => shape,
            Err(e) => {
                tracing::debug!(error = %e, "topology: listing the server");
                if client.end().is_some() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                retry = true;
                continue;
            }
        };
        retry = false;
        let events = {
            let mut old = current.lock().unwrap_or_else(|e| e.into_inner());
            let events = diff(&old, &shape);
            *old = shape;
            events
        };
        for event in events {
            if tx.send(event).is_err() {
                return;
            }
        }
    }
}

/// The events that turn `old` into `new`.
pub(crate) fn diff(old: &Shape, new: &Shape) -> Vec<TopologyEvent> {
    let mut events = Vec::new();
    let old_sessions: BTreeMap<_, _> = old.sessions.iter().map(|s| (s.id, s)).collect();
    let new_sessions: BTreeMap<_, _> = new.sessions.iter().map(|s| (s.id, s)).collect();
    for (id, s) in &new_sessions {
        match old_sessions.get(id) {
            None => events.push(TopologyEvent::SessionAdded((*s).clone())),
            Some(o) if o != s => events.push(TopologyEvent::SessionChanged((*s).clone())),
            Some(_) => {}
        }
    }
    let old_windows: BTreeMap<_, _> = old.windows.iter().map(|w| ((w.session, w.id), w)).collect();
    let new_windows: BTreeMap<_, _> = new.windows.iter().map(|w| ((w.session, w.id), w)).collect();
    for (key, w) in &new_windows {
        match old_windows.get(key) {
            None => events.push(TopologyEvent::WindowAdded((*w).clone())),
            Some(o) => {
                if o.layout != w.layout || o.visible_layout != w.visible_layout {
                    events.push(TopologyEvent::LayoutChanged {
                        session: w.session,
                        window: w.id,
                        layout: w.layout.clone(),
                        visible_layout: w.visible_layout.clone(),
                    });
                }
                let mut same = (*o).clone();
                same.layout = w.layout.clone();
                same.visible_layout = w.visible_layout.clone();
                if same != **w {
                    events.push(TopologyEvent::WindowChanged((*w).clone()));
                }
            }
        }
    }
    for (session, window) in old_windows.keys() {
        if !new_windows.contains_key(&(*session, *window)) {
            events.push(TopologyEvent::WindowRemoved {
                session: *session,
                window: *window,
            });
        }
    }
    for id in old_sessions.keys() {
        if !new_sessions.contains_key(id) {
            events.push(TopologyEvent::SessionRemoved(*id));
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::{TopologyEvent as E, diff};
    use crate::ops::{SessionInfo, Shape, WindowPanes};
    use crate::parse::{Layout, SessionId, WindowId};

    fn session(id: u32, name: &str) -> SessionInfo {
        SessionInfo {
            id: SessionId(id),
            name: name.into(),
            windows: 1,
            attached: 0,
            created: 1,
            group: None,
        }
    }

    fn window(session: u32, id: u32, layout: &str) -> WindowPanes {
        let layout: Layout = layout.parse().unwrap();
        WindowPanes {
            session: SessionId(session),
            id: WindowId(id),
            index: 0,
            name: "w".into(),
            active: true,
            zoomed: false,
            width: 80,
            height: 24,
            visible_layout: layout.clone(),
            layout,
            panes: Vec::new(),
        }
    }

    #[test]
    fn the_differences_of_two_shapes_are_the_events() {
        let one = "b25d,80x24,0,0,0";
        let split = "4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2]";
        let old = Shape {
            sessions: vec![session(1, "a"), session(2, "b")],
            windows: vec![window(1, 1, one), window(2, 2, one), window(2, 3, one)],
        };
        let mut renamed = window(2, 3, one);
        renamed.name = "x y".into();
        let new = Shape {
            sessions: vec![session(1, "a2"), session(3, "c")],
            windows: vec![window(1, 1, split), renamed.clone(), window(3, 4, one)],
        };
        assert_eq!(
            diff(&old, &new),
            vec![
                E::SessionChanged(session(1, "a2")),
                E::SessionAdded(session(3, "c")),
                E::LayoutChanged {
                    session: SessionId(1),
                    window: WindowId(1),
                    layout: split.parse().unwrap(),
                    visible_layout: split.parse().unwrap(),
                },
                E::WindowChanged(renamed),
                E::WindowAdded(window(3, 4, one)),
                E::WindowRemoved {
                    session: SessionId(2),
                    window: WindowId(2),
                },
                E::SessionRemoved(SessionId(2)),
            ]
        );
        assert_eq!(diff(&new, &new), vec![]);
    }
}
