//! The waiting of `wait_window`: one batched query for every waiting window per tick.
//!
//! The Go build asked tmux every quarter of a second per call, with a fork each time (125 ms late
//! on average). Here a single poller runs while at least one call waits: every [`TICK`] it sends
//! ONE `list-windows -a` through the control connection (about 0.1 ms of tmux time, no fork),
//! and publishes the windows of every session in a `watch` channel; each waiting call reads its
//! own window from there. Prompt-to-answer latency is then the hook's `tmux set-option` plus half
//! a tick on average (see `benches/benches/wait.rs` and the README for the figures). Control-mode
//! notifications can not replace it: a pane option set by the hook notifies nobody (tmux 3.3a),
//! and `%output` only reaches a control client for the panes of its own session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

use super::window::{WindowInfo, parse_window, window_format};

/// How often the poller asks tmux while calls wait.
pub(crate) const TICK: Duration = Duration::from_millis(10);

/// What one poll saw: the windows of every session, by (session, window).
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    /// `None` when the poll failed (the terminals restarting): waiters then end.
    pub windows: Option<HashMap<(String, String), WindowInfo>>,
}

/// The poller shared by every waiting call of a controller.
pub(crate) struct WaitHub {
    tx: watch::Sender<Arc<Snapshot>>,
    running: Mutex<bool>,
}

impl WaitHub {
    pub(crate) fn new() -> Self {
        Self {
            tx: watch::channel(Arc::new(Snapshot::default())).0,
            running: Mutex::new(false),
        }
    }

    /// A receiver of the snapshots to come, starting the poller if it is not running. `poll`
    /// asks tmux once (`list-windows -a -F FORMAT`) and returns its output lines, or `None` on a
    /// failure.
    pub(crate) fn subscribe<F, Fut>(self: &Arc<Self>, poll: F) -> watch::Receiver<Arc<Snapshot>>
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Option<Vec<String>>> + Send,
    {
        let mut rx = self.tx.subscribe();
        rx.mark_unchanged();
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if !*running {
            *running = true;
            let hub = Arc::clone(self);
            tokio::spawn(async move { hub.run(poll).await });
        }
        rx
    }

    async fn run<F, Fut>(self: Arc<Self>, poll: F)
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Option<Vec<String>>> + Send,
    {
        let format = window_format(true);
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            {
                // Decide to stop under the lock that subscribe takes: no waiter is left behind.
                let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
                if self.tx.receiver_count() == 0 {
                    *running = false;
                    return;
                }
            }
            let windows = poll(format.clone()).await.map(|lines| {
                lines
                    .iter()
                    .filter_map(|l| parse_window(l, true))
                    .map(|w| ((w.session.clone().unwrap_or_default(), w.name.clone()), w))
                    .collect()
            });
            self.tx.send_replace(Arc::new(Snapshot { windows }));
        }
    }
}
