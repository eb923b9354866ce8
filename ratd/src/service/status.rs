//! The status line ratd tells systemd (`STATUS=`), the one line `systemctl status` shows
//! whatever the logs did since (`docs/design/status-and-logs.md`, The status line):
//!
//! ```text
//! serving tenant prod on [::]:7281 · bracketed paste overridden, bundle expires in 212 days · last seen: alice now, bob 25m ago, carol 3h ago · 1 wait in flight
//! ```
//!
//! - Degradations, known issues of a ratd serving all the same, in a fixed order with short
//!   labels (the log tells the details), at most five at once ([`Degradations`]).
//! - Last seen, per session, the time of its last request whatever the method: the five most
//!   recent, then a count of the others; coarse times ([`coarse_ago`]).
//! - Waits in flight: the wait_window calls waiting, what a stop cuts.
//! - While stopping, the step replaces the line: `stopping: closing the door`, then
//!   `stopping: stopping the terminals`.
//!
//! Rendered every 10 s ([`RENDER_EVERY`]) and sent only when it changed; a degradation found
//! and a step of the stop are sent at once; nothing is sent before ratd is ready. Session names
//! are shown, never the addresses of clients: any local user can read the status of a unit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::deaths::TmuxDeaths;
use super::notify::Notifier;
use crate::InFlight;

/// How often the line is rendered (and sent when it changed).
pub const RENDER_EVERY: Duration = Duration::from_secs(10);

/// How many sessions the line names; the others are counted.
pub const SESSIONS_SHOWN: usize = 5;

/// A step of the stop, replacing the line while ratd stops: a stop that lasts shows where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoppingStatus {
    /// The door closes: no new connection, calls in flight get 10 s.
    ClosingTheDoor,
    /// The tmux server and every terminal are being stopped.
    StoppingTheTerminals,
}

impl StoppingStatus {
    /// The line shown for this step.
    pub fn line(self) -> &'static str {
        match self {
            StoppingStatus::ClosingTheDoor => "stopping: closing the door",
            StoppingStatus::StoppingTheTerminals => "stopping: stopping the terminals",
        }
    }
}

/// What degrades ratd while it serves, each shown for as long as it holds, in this order:
/// running as root or a bundle its user can write (root is not checked for the second), what
/// bash startup files defeat in the terminals or the check not running, the bundle expiring
/// within a year, the deaths of the tmux server within the window of its restart budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Degradations {
    /// ratd runs as root.
    pub root: bool,
    /// The user of ratd can replace its bundle.
    pub bundle_writable: bool,
    /// The labels of the terminal check's warnings, in rat-core's order
    /// (`TerminalCheck::warnings`): at most two.
    pub terminals: Vec<&'static str>,
    /// Whole days left on the bundle, when less than a year remains (updated daily).
    pub expiry_days: Option<u64>,
}

impl Degradations {
    /// The short labels, in the fixed order, at most five; `deaths` is the count of tmux deaths
    /// within the budget's window.
    pub fn labels(&self, deaths: usize) -> Vec<String> {
        let mut labels = Vec::new();
        if self.root {
            labels.push("running as root".to_owned());
        } else if self.bundle_writable {
            labels.push("bundle writable".to_owned());
        }
        labels.extend(self.terminals.iter().take(2).map(|l| (*l).to_owned()));
        match self.expiry_days {
            Some(0) => labels.push("bundle expires today".to_owned()),
            Some(1) => labels.push("bundle expires in 1 day".to_owned()),
            Some(days) => labels.push(format!("bundle expires in {days} days")),
            None => {}
        }
        match deaths {
            0 => {}
            1 => labels.push("tmux died once in 5m".to_owned()),
            n => labels.push(format!("tmux died {n} times in 5m")),
        }
        labels.truncate(5);
        labels
    }
}

/// A time since, coarse: `now` under a minute, then `Nm ago`, `Nh ago`, `Nd ago` (whole units,
/// rounded down), so that most renders change nothing.
pub fn coarse_ago(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    match secs {
        0..60 => "now".to_owned(),
        60..3_600 => format!("{}m ago", secs / 60),
        3_600..86_400 => format!("{}h ago", secs / 3_600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// What the line is made of: kept by ratd, of its calls (tmux knows nothing of it), lost when
/// ratd stops.
#[derive(Debug, Clone)]
pub struct StatusState {
    /// The tenant served.
    pub tenant: String,
    /// Where ratd listens, as shown (`[::]:7281`).
    pub address: String,
    /// What degrades ratd now.
    pub degradations: Degradations,
    /// The deaths of the tmux server, kept for the budget's window.
    pub deaths: TmuxDeaths,
    /// The last request of each session.
    pub last_seen: HashMap<String, Instant>,
    /// The step of the stop, once ratd stops.
    pub stopping: Option<StoppingStatus>,
}

impl StatusState {
    /// The state of a ratd serving `tenant` on `address`, nothing seen yet.
    pub fn new(tenant: impl Into<String>, address: impl Into<String>) -> Self {
        Self {
            tenant: tenant.into(),
            address: address.into(),
            degradations: Degradations::default(),
            deaths: TmuxDeaths::new(),
            last_seen: HashMap::new(),
            stopping: None,
        }
    }

    /// The line at `now`, with `waits` wait_window calls waiting.
    pub fn render(&self, now: Instant, waits: usize) -> String {
        if let Some(step) = self.stopping {
            return step.line().to_owned();
        }
        let mut parts = vec![format!(
            "serving tenant {} on {}",
            self.tenant, self.address
        )];
        let deaths = self.deaths.within_window(now);
        let labels = self.degradations.labels(deaths);
        if !labels.is_empty() {
            parts.push(labels.join(", "));
        }
        if !self.last_seen.is_empty() {
            let mut sessions: Vec<(&String, &Instant)> = self.last_seen.iter().collect();
            // Most recent first; a tie (same instant) by name, for a stable line.
            sessions.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            let mut seen: Vec<String> = sessions
                .iter()
                .take(SESSIONS_SHOWN)
                .map(|(name, at)| {
                    format!("{name} {}", coarse_ago(now.saturating_duration_since(**at)))
                })
                .collect();
            match sessions.len().saturating_sub(SESSIONS_SHOWN) {
                0 => {}
                1 => seen.push("1 other".to_owned()),
                others => seen.push(format!("{others} others")),
            }
            parts.push(format!("last seen: {}", seen.join(", ")));
        }
        match waits {
            0 => {}
            1 => parts.push("1 wait in flight".to_owned()),
            n => parts.push(format!("{n} waits in flight")),
        }
        parts.join(" · ")
    }
}

/// The status line of a running ratd and its sending: shared by the request path (last seen),
/// the supervisor (deaths), the warnings (degradations) and the stop (its steps). Cheap to
/// share in an `Arc`.
pub struct Status {
    state: Mutex<StatusState>,
    in_flight: Option<Arc<InFlight>>,
    notifier: Mutex<Notifier>,
    /// Whether READY=1 was sent; nothing is sent before.
    ready: Mutex<Option<String>>,
}

impl std::fmt::Debug for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Status")
            .field("notifier", &self.notifier())
            .finish_non_exhaustive()
    }
}

impl Status {
    /// The status of a ratd serving `tenant` on `address`, telling `notifier`, counting the
    /// waits of `in_flight` (none when `None`).
    pub fn new(
        tenant: impl Into<String>,
        address: impl Into<String>,
        in_flight: Option<Arc<InFlight>>,
        notifier: Notifier,
    ) -> Self {
        Self {
            state: Mutex::new(StatusState::new(tenant, address)),
            in_flight,
            notifier: Mutex::new(notifier),
            ready: Mutex::new(None),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, StatusState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The notifier the line goes to.
    pub fn notifier(&self) -> Notifier {
        self.notifier
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sends to `notifier` from now on (ratd's `main` hands it over once ratd started).
    pub fn set_notifier(&self, notifier: Notifier) {
        *self.notifier.lock().unwrap_or_else(|e| e.into_inner()) = notifier;
    }

    /// A request of `session` at `now` (whatever its method).
    pub fn seen_at(&self, session: &str, now: Instant) {
        let mut state = self.state();
        match state.last_seen.get_mut(session) {
            Some(at) => *at = now,
            None => {
                state.last_seen.insert(session.to_owned(), now);
            }
        }
    }

    /// A request of `session`, now.
    pub fn seen(&self, session: &str) {
        self.seen_at(session, Instant::now());
    }

    /// Changes the degradations with `change`, then sends the line at once if it changed.
    pub fn degrade(&self, change: impl FnOnce(&mut Degradations)) {
        change(&mut self.state().degradations);
        self.send_if_changed(Instant::now());
    }

    /// A death of the tmux server at `now`, shown for the budget's window; sent at once.
    /// Returns how many deaths the window holds with it (what the crash budget counts).
    pub fn tmux_died_at(&self, now: Instant) -> usize {
        let deaths = self.state().deaths.record(now);
        self.send_if_changed(now);
        deaths
    }

    /// The line at `now`.
    pub fn render_at(&self, now: Instant) -> String {
        let waits = self.in_flight.as_ref().map_or(0, |f| f.waits());
        self.state().render(now, waits)
    }

    /// Sends `READY=1`, then the line: ratd serves.
    pub fn ready(&self) {
        let line = self.render_at(Instant::now());
        if let Err(error) = self.notifier().ready() {
            tracing::warn!(%error, "telling systemd ratd is ready failed");
        }
        self.send(&line);
        *self.ready.lock().unwrap_or_else(|e| e.into_inner()) = Some(line);
    }

    /// A step of the stop: `STOPPING=1` with the first, and the line of the step, at once
    /// (even before ready: systemd must learn ratd stops).
    pub fn stopping(&self, step: StoppingStatus) {
        let first = {
            let mut state = self.state();
            let first = state.stopping.is_none();
            state.stopping = Some(step);
            first
        };
        if first && let Err(error) = self.notifier().stopping() {
            tracing::warn!(%error, "telling systemd ratd stops failed");
        }
        let line = step.line().to_owned();
        self.send(&line);
        *self.ready.lock().unwrap_or_else(|e| e.into_inner()) = Some(line);
    }

    /// Renders the line at `now` and sends it if ratd is ready and the line changed since the
    /// last one sent. Returns whether it was sent.
    pub fn send_if_changed(&self, now: Instant) -> bool {
        let line = self.render_at(now);
        let mut last = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        match last.as_deref() {
            None => false,
            Some(sent) if sent == line => false,
            Some(_) => {
                self.send(&line);
                *last = Some(line);
                true
            }
        }
    }

    fn send(&self, line: &str) {
        if let Err(error) = self.notifier().status(line) {
            tracing::debug!(%error, "sending the status line to systemd failed");
        }
    }

    /// Renders every [`RENDER_EVERY`] until `stop` fires, sending the line when it changed.
    pub async fn run(self: Arc<Self>, stop: CancellationToken) {
        let mut every = tokio::time::interval(RENDER_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => {
                    self.send_if_changed(Instant::now());
                }
                () = stop.cancelled() => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 60;
    const H: u64 = 3_600;

    fn state() -> (StatusState, Instant) {
        let t0 = Instant::now();
        (
            StatusState::new("prod", "[::]:7281"),
            t0 + Duration::from_secs(10 * 86_400),
        )
    }

    fn ago(now: Instant, secs: u64) -> Instant {
        now - Duration::from_secs(secs)
    }

    #[test]
    fn the_spec_example() {
        let (mut s, now) = state();
        s.degradations.terminals = vec!["bracketed paste overridden"];
        s.degradations.expiry_days = Some(212);
        s.last_seen.insert("alice".into(), ago(now, 5));
        s.last_seen.insert("bob".into(), ago(now, 25 * M + 59));
        s.last_seen.insert("carol".into(), ago(now, 3 * H + 10));
        insta::assert_snapshot!(s.render(now, 1), @"serving tenant prod on [::]:7281 · bracketed paste overridden, bundle expires in 212 days · last seen: alice now, bob 25m ago, carol 3h ago · 1 wait in flight");
    }

    #[test]
    fn a_fresh_ratd_tells_only_what_it_serves() {
        let (s, now) = state();
        insta::assert_snapshot!(s.render(now, 0), @"serving tenant prod on [::]:7281");
    }

    #[test]
    fn degradations_in_their_fixed_order_at_most_five() {
        let (mut s, now) = state();
        s.degradations = Degradations {
            root: true,
            bundle_writable: true,
            terminals: vec!["bracketed paste overridden", "prompts not recorded"],
            expiry_days: Some(1),
        };
        s.deaths = vec![ago(now, 10), ago(now, 4 * M), ago(now, 6 * M)].into();
        insta::assert_snapshot!(s.render(now, 3), @"serving tenant prod on [::]:7281 · running as root, bracketed paste overridden, prompts not recorded, bundle expires in 1 day, tmux died 2 times in 5m · 3 waits in flight");
        s.degradations.root = false;
        s.degradations.terminals = vec!["terminal check could not run"];
        s.degradations.expiry_days = Some(0);
        s.deaths = vec![ago(now, 299)].into();
        insta::assert_snapshot!(s.render(now, 0), @"serving tenant prod on [::]:7281 · bundle writable, terminal check could not run, bundle expires today, tmux died once in 5m");
        // Deaths older than the budget's window are gone.
        s.deaths = vec![ago(now, 300)].into();
        s.degradations = Degradations::default();
        insta::assert_snapshot!(s.render(now, 0), @"serving tenant prod on [::]:7281");
    }

    #[test]
    fn five_sessions_most_recent_first_then_a_count() {
        let (mut s, now) = state();
        for (i, name) in ["a", "b", "c", "d", "e", "f", "g"].iter().enumerate() {
            s.last_seen.insert(
                (*name).into(),
                ago(now, [59, 60, 3_599, 3_600, 86_399, 86_400, 9 * 86_400][i]),
            );
        }
        insta::assert_snapshot!(s.render(now, 0), @"serving tenant prod on [::]:7281 · last seen: a now, b 1m ago, c 59m ago, d 1h ago, e 23h ago, 2 others");
        s.last_seen.remove("g");
        insta::assert_snapshot!(s.render(now, 0), @"serving tenant prod on [::]:7281 · last seen: a now, b 1m ago, c 59m ago, d 1h ago, e 23h ago, 1 other");
        s.last_seen.insert("g".into(), now);
        insta::assert_snapshot!(s.render(now, 0), @"serving tenant prod on [::]:7281 · last seen: g now, a now, b 1m ago, c 59m ago, d 1h ago, 2 others");
    }

    #[test]
    fn a_stop_step_replaces_the_line() {
        let (mut s, now) = state();
        s.degradations.root = true;
        s.last_seen.insert("alice".into(), now);
        s.stopping = Some(StoppingStatus::ClosingTheDoor);
        assert_eq!(s.render(now, 2), "stopping: closing the door");
        s.stopping = Some(StoppingStatus::StoppingTheTerminals);
        assert_eq!(s.render(now, 0), "stopping: stopping the terminals");
    }

    #[test]
    fn coarse_times() {
        let d = Duration::from_secs;
        assert_eq!(coarse_ago(d(0)), "now");
        assert_eq!(coarse_ago(d(59)), "now");
        assert_eq!(coarse_ago(d(60)), "1m ago");
        assert_eq!(coarse_ago(d(3_599)), "59m ago");
        assert_eq!(coarse_ago(d(3_600)), "1h ago");
        assert_eq!(coarse_ago(d(86_399)), "23h ago");
        assert_eq!(coarse_ago(d(86_400)), "1d ago");
        assert_eq!(coarse_ago(d(40 * 86_400)), "40d ago");
    }

    fn receiver() -> (
        tempfile::TempDir,
        std::os::unix::net::UnixDatagram,
        Notifier,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let socket = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
        socket.set_nonblocking(true).unwrap();
        (dir, socket, Notifier::to(path.as_os_str()))
    }

    fn drain(socket: &std::os::unix::net::UnixDatagram) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = socket.recv(&mut buf) {
            out.push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        out
    }

    #[test]
    fn sent_only_once_ready_and_only_when_changed() {
        let (_dir, socket, notifier) = receiver();
        let status = Status::new("prod", "127.0.0.1:7281", None, notifier);
        let t0 = Instant::now();
        status.seen_at("alice", t0);
        status.degrade(|d| d.root = true);
        assert!(!status.send_if_changed(t0));
        assert_eq!(drain(&socket), Vec::<String>::new(), "nothing before ready");
        status.ready();
        assert_eq!(
            drain(&socket),
            [
                "READY=1\n",
                "STATUS=serving tenant prod on 127.0.0.1:7281 · running as root · last seen: alice now\n"
            ]
        );
        // The same line is not sent again; a coarse time changing is.
        assert!(!status.send_if_changed(t0 + Duration::from_secs(30)));
        assert!(status.send_if_changed(t0 + Duration::from_secs(61)));
        assert_eq!(
            drain(&socket),
            [
                "STATUS=serving tenant prod on 127.0.0.1:7281 · running as root · last seen: alice 1m ago\n"
            ]
        );
        // A degradation found is sent at once.
        status.degrade(|d| d.terminals = vec!["bracketed paste overridden"]);
        assert_eq!(drain(&socket).len(), 1);
        // The stop: STOPPING=1 with its first step, each step at once, nothing rendered after.
        status.stopping(StoppingStatus::ClosingTheDoor);
        status.stopping(StoppingStatus::StoppingTheTerminals);
        status.seen("bob");
        assert!(!status.send_if_changed(Instant::now()));
        assert_eq!(
            drain(&socket),
            [
                "STOPPING=1\n",
                "STATUS=stopping: closing the door\n",
                "STATUS=stopping: stopping the terminals\n"
            ]
        );
    }
}
