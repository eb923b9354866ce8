//! [`Transport::ControlMode`](super::Transport::ControlMode): a stream's bytes as the `%output`
//! of a control connection of its own, with tmux's `pause-after` flow control (the steps are in
//! the module `stream.rs`).

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::{Snapshot, StreamEnd, StreamItem, StreamOptions, capture_bytes, capture_command};
use crate::client::{Attach, Client, ClientFlags, ClientOptions, Route, Routed};
use crate::command::Command;
use crate::error::{Error, Result};
use crate::ops::Capture;
use crate::parse::{BadLayout, Layout, Notification, PaneId, WindowId};

/// How long after the last data the first nudge goes (see `ControlSource::poke`).
const POKE_IDLE: Duration = Duration::from_millis(100);
/// How long past `pause_after` after the last data the second goes.
const POKE_LATE: Duration = Duration::from_millis(300);

/// What the stream's connection routes to it, in the order tmux printed it.
#[derive(Debug)]
enum Raw {
    /// Output of the pane.
    Data(Vec<u8>),
    /// `%pause %N` for the pane (pause-after).
    Paused,
    /// `%continue %N` for the pane outside a reply.
    Continued,
    /// The pane's window closed.
    WindowClosed,
    /// The pane's window's layout changed (a pane may have gone).
    Layout(Result<Layout, BadLayout>),
}

impl Raw {
    /// A notification the route took (see [`route`]) as what it means to the stream.
    fn of(notification: Notification) -> Option<Raw> {
        use Notification as N;
        match notification {
            N::Output { data, .. } | N::ExtendedOutput { data, .. } => Some(Raw::Data(data)),
            N::Pause { .. } => Some(Raw::Paused),
            N::Continue { .. } => Some(Raw::Continued),
            N::WindowClose { .. } | N::UnlinkedWindowClose { .. } => Some(Raw::WindowClosed),
            N::LayoutChange { layout, .. } => Some(Raw::Layout(layout)),
            _ => None,
        }
    }
}

/// What of the connection's notifications the stream of `pane` takes: the pane's output,
/// pauses and continues (output of other panes is dropped: see docs/design/engine-streams.md),
/// and its window's close and layout changes, which go on to the subscribers too.
fn route(pane: PaneId, window: WindowId) -> impl Fn(&Notification) -> Routed + Send + Sync {
    use Notification as N;
    move |notification| match notification {
        N::Output { pane: p, .. }
        | N::ExtendedOutput { pane: p, .. }
        | N::Pause { pane: p }
        | N::Continue { pane: p } => {
            if *p == pane {
                Routed::Taken
            } else {
                Routed::Dropped
            }
        }
        N::WindowClose { window: w }
        | N::UnlinkedWindowClose { window: w }
        | N::LayoutChange { window: w, .. }
            if *w == window =>
        {
            Routed::Shared
        }
        _ => Routed::Passed,
    }
}

enum Recv {
    Raw(Option<Raw>),
    /// The end a finish asked for came: how the stream ends.
    Finished(StreamEnd),
}

/// The control-mode side of a [`super::PaneStream`].
#[derive(Debug)]
pub(super) struct ControlSource {
    pane: PaneId,
    connection: Option<Client>,
    rx: mpsc::Receiver<Notification>,
    ready: VecDeque<StreamItem>,
    resync_due: bool,
    snapshot: Capture,
    /// Set by `finish`: resolves, with how the stream ends, once tmux answered a command
    /// sent after it.
    finish: Option<oneshot::Receiver<StreamEnd>>,
    /// When to nudge tmux if nothing came since the last data (see `ControlSource::poke`).
    pokes: VecDeque<Instant>,
    pause_after: Duration,
}

impl ControlSource {
    /// Opens the stream's connection, attached to `session` (which holds the pane's window)
    /// with output on, `pause-after` and `ignore-size`.
    pub(super) async fn open(
        client: &Client,
        session: String,
        pane: PaneId,
        window: WindowId,
        options: &StreamOptions,
    ) -> Result<ControlSource> {
        let (tx, rx) = mpsc::channel(options.capacity.max(1));
        let connection = Client::connect_with(
            client.tmux(),
            client.server_socket(),
            ClientOptions {
                attach: Attach::Session(session),
                flags: ClientFlags {
                    output: true,
                    pause_after: Some(options.pause_after),
                    ignore_size: true,
                    read_only: false,
                },
                command_timeout: options.command_timeout,
                attach_timeout: options.attach_timeout,
                notification_capacity: 16,
                ..ClientOptions::default()
            },
            Some(Route {
                route: Box::new(route(pane, window)),
                tx,
            }),
            false,
        )
        .await?;
        client.adopt(&connection);
        Ok(ControlSource {
            pane,
            connection: Some(connection),
            rx,
            ready: VecDeque::new(),
            resync_due: false,
            snapshot: options.snapshot.clone(),
            finish: None,
            pokes: VecDeque::new(),
            pause_after: Duration::from_secs(options.pause_after.into()),
        })
    }

    /// The stream's connection, `None` once the stream ended.
    pub(super) fn connection(&self) -> Option<&Client> {
        self.connection.as_ref()
    }

    /// See [`super::PaneStream::finish`].
    pub(super) fn finish(&mut self) {
        self.finish_once(None);
    }

    /// For a job's stream: [`Self::finish`] once the job's marker came through its pipe
    /// (`ended`) and the job was let go (`job`), ending as the release says
    /// ([`super::Release::end`]). A stream that has its marker ends before that.
    pub(super) fn finish_after(&mut self, ended: oneshot::Receiver<()>, job: super::JobEnd) {
        self.finish_once(Some((ended, job)));
    }

    fn finish_once(&mut self, after: Option<(oneshot::Receiver<()>, super::JobEnd)>) {
        let Some(connection) = self.connection.clone() else {
            return;
        };
        let (mut tx, rx) = oneshot::channel();
        self.finish = Some(rx);
        tokio::spawn(async move {
            let mut end = StreamEnd::Finished;
            if let Some((ended, job)) = after {
                // The stream may end (and close its connection) first: this task then lets
                // the connection go rather than hold it.
                tokio::select! {
                    seen = ended => if seen.is_err() { return },
                    _ = tx.closed() => return,
                }
                tokio::select! {
                    why = job.released() => end = why.end(),
                    _ = tx.closed() => return,
                }
            }
            // Two round trips: the first answer comes after every byte tmux read before the
            // command, or after the point where tmux dropped them for a pause; but the
            // `%pause` that dropped them is written after that answer (tmux queues it behind
            // the lines waiting, the answer among them). The second answer comes after it.
            let _ = connection.written().await;
            let _ = connection.written().await;
            let _ = tx.send(end);
        });
    }

    /// The next item; `None` after [`StreamItem::End`].
    pub(super) async fn next(&mut self) -> Option<StreamItem> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            let connection = self.connection.clone()?;
            if self.resync_due {
                self.resync_due = false;
                self.resync(&connection).await;
                continue;
            }
            let raw = match self.recv(&connection).await {
                Recv::Raw(raw) => raw,
                Recv::Finished(end) => return Some(self.end(end)),
            };
            if matches!(raw, Some(Raw::Data(_))) {
                let now = Instant::now();
                self.pokes.clear();
                self.pokes.push_back(now + POKE_IDLE);
                self.pokes.push_back(now + self.pause_after + POKE_LATE);
            } else {
                self.pokes.clear();
            }
            match raw {
                Some(Raw::Data(data)) => return Some(StreamItem::Data(Bytes::from(data))),
                Some(Raw::Paused) => {
                    self.resync_due = true;
                    return Some(StreamItem::Paused);
                }
                Some(Raw::Continued) => return Some(StreamItem::Continued),
                Some(Raw::WindowClosed) => return Some(self.end(StreamEnd::WindowClosed)),
                Some(Raw::Layout(layout)) => {
                    let gone = layout
                        .as_ref()
                        .is_ok_and(|layout| layout.panes().all(|p| p.id != self.pane));
                    if gone {
                        return Some(self.end(StreamEnd::PaneClosed));
                    }
                }
                None => {
                    let end = connection.closed().await;
                    return Some(self.end(StreamEnd::ConnectionEnded(end)));
                }
            }
        }
    }

    /// The next raw item, or the end `finish` asked for; nudges tmux at the times in `pokes`
    /// meanwhile.
    async fn recv(&mut self, connection: &Client) -> Recv {
        loop {
            let poke_at = self.pokes.front().copied();
            // The end once the finish asked for came; `None` when its condition never will
            // (its sender went unsent): that finish is then forgotten.
            let finish = async {
                match &mut self.finish {
                    Some(done) => done.await.ok(),
                    None => std::future::pending().await,
                }
            };
            let poke = async {
                match poke_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            // Biased: the items before the finish's answer are in the channel when it comes.
            tokio::select! {
                biased;
                notification = self.rx.recv() => match notification {
                    Some(notification) => match Raw::of(notification) {
                        Some(raw) => return Recv::Raw(Some(raw)),
                        None => continue,
                    },
                    None => return Recv::Raw(None),
                },
                finished = finish => {
                    if let Some(end) = finished {
                        return Recv::Finished(end);
                    }
                    self.finish = None;
                }
                _ = poke => {
                    self.pokes.pop_front();
                    Self::poke(connection);
                }
            }
        }
    }

    /// Sends a command on the stream's connection and lets its answer go. tmux (3.3a, 3.7c)
    /// can leave the `%pause` it decided queued, unwritten, when its buffer towards this
    /// client is empty at that moment: nothing is written until the client's next command,
    /// whose reply comes after it. So a stream that got data and then nothing for a while
    /// asks once shortly after (100 ms) and once past `pause_after`; an idle pane costs two
    /// commands after each burst of output, none while it stays quiet.
    fn poke(connection: &Client) {
        let connection = connection.clone();
        tokio::spawn(async move {
            let _ = connection.written().await;
        });
    }

    fn end(&mut self, why: StreamEnd) -> StreamItem {
        self.connection = None;
        self.ready.clear();
        StreamItem::End(why)
    }

    /// Continues the pane and captures it in one command line (one pass of tmux's loop).
    async fn resync(&mut self, connection: &Client) {
        let target = self.pane.to_string();
        let group = [
            Command::new("refresh-client").args(["-A", &format!("{target}:continue")]),
            capture_command(&target, &self.snapshot),
        ];
        let replies = match connection.group(&group).await {
            Ok(replies) => replies,
            Err(Error::ConnectionEnded(end)) => {
                let item = self.end(StreamEnd::ConnectionEnded(end));
                self.ready.push_back(item);
                return;
            }
            Err(e) => {
                self.resync_failed(e.to_string());
                return;
            }
        };
        // tmux prints `%continue %N` inside the reply of the refresh-client that caused it
        // (3.3a..3.7c): read it there, and only there (a capture's body may show such text).
        let continued = format!("%continue {target}");
        if let Some(refresh) = replies.first()
            && refresh.success
            && refresh.lines.iter().any(|l| *l == continued.as_bytes())
        {
            self.ready.push_back(StreamItem::Continued);
        }
        match replies.get(1) {
            Some(reply) if reply.success => {
                self.ready.push_back(StreamItem::Resynced(Snapshot {
                    capture: capture_bytes(reply),
                }));
            }
            other => {
                let message = other
                    .or(replies.first())
                    .map(|r| String::from_utf8_lossy(&r.lines.join(&b'\n')).into_owned())
                    .unwrap_or_default();
                self.resync_failed(message);
            }
        }
    }

    /// Ends the stream after a resync that failed with `message`: as the pane's close when
    /// that is why (its pane or window went after the pause), else with `ResyncFailed`. tmux
    /// writes a window's close to this client before the answer of a command run after the
    /// close, and the reader routes in order: that close is in the channel by now.
    fn resync_failed(&mut self, message: String) {
        let mut end = StreamEnd::ResyncFailed(message);
        while let Ok(notification) = self.rx.try_recv() {
            match Raw::of(notification) {
                Some(Raw::WindowClosed) => {
                    end = StreamEnd::WindowClosed;
                    break;
                }
                Some(Raw::Layout(Ok(layout))) if layout.panes().all(|p| p.id != self.pane) => {
                    end = StreamEnd::PaneClosed;
                    break;
                }
                _ => {}
            }
        }
        let item = self.end(end);
        self.ready.push_back(item);
    }
}
