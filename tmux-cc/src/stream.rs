//! Pane output streams: the bytes a pane prints, in order, with flow control, each stream
//! on a control connection of its own.
//!
//! How it works (the measured tmux rules are in docs/design/engine-streams.md):
//!
//! - The stream's connection attaches (`attach-session -f pause-after=N,ignore-size`) to a
//!   session holding the pane's window: tmux sends output only for the panes of the client's
//!   session. Its reader task hands the pane's `%extended-output` to a bounded channel and
//!   waits for room, so a consumer that does not take items stops the reading of the pipe.
//! - tmux then sees the output it queued for that client age; past N seconds it pauses the
//!   pane for the client (`%pause %N`) and drops what it had queued and what the pane prints
//!   while paused, for that client only. The stream yields [`StreamItem::Paused`].
//! - When the consumer asks for the next item after `Paused`, it has caught up: the stream
//!   sends `refresh-client -A '%N:continue' ; capture-pane -p -t %N ...` as ONE command line,
//!   which tmux runs in one pass of its loop with no read of the pane between them: the
//!   capture shows the screen exactly as it stands where the output resumes. It yields
//!   [`StreamItem::Continued`] (tmux's `%continue`, read out of that refresh-client's reply
//!   body, where tmux prints it) and [`StreamItem::Resynced`] with the capture.
//! - Output of the session's other panes reaching that connection is dropped by its reader,
//!   not turned off with `refresh-client -A '%M:off'`: that would have to follow every pane
//!   created later, and a dropped pane costs only the reading (when the consumer is slow,
//!   pause-after pauses those panes for this client too, and they are never continued).

mod control;
mod job_end;
mod pipe;

pub(crate) use job_end::{JobEnd, Release};

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;

use crate::client::{Client, ConnectionEnd};
use crate::command::Command;
use crate::error::{Error, Result};
use crate::marker::MarkerFilter;
use crate::ops::Capture;
use crate::parse::{PaneId, WindowId};

/// How a stream's bytes come from tmux. The two differ in speed, in how a stream ends, and in
/// what else they allow on the pane (docs/design/engine-streams.md has the measures):
///
/// | | [`Transport::ControlMode`] | [`Transport::Pipe`] |
/// |---|---|---|
/// | throughput (64 MiB, tmux 3.3a) | about 13 MiB/s, tmux's control-mode ceiling | that of `pipe-pane` into a file |
/// | end by the pane's close | its last output may be missing (tmux drops what it did not send) | its last output may be missing (tmux may not have read it) |
/// | [`PaneStream::finish`] | [`StreamEnd::Finished`]: every byte tmux read | [`StreamEnd::Stopped`]: may miss what tmux had not yet passed to the pipe |
/// | a slow consumer | tmux pauses the pane for the stream after `pause_after` | the stream drops past `capacity` x 64 KiB held |
/// | the pane's pipe (`pipe-pane`) | free for others | the stream's: refused on a pane that has one; a `pipe-pane` on it ends the stream |
/// | connections | one more, output on | none (its commands go on the client's) |
///
/// Either way nothing is lost silently: a gap is always a [`StreamItem::Paused`] followed by a
/// [`StreamItem::Resynced`] with the screen where the bytes resume.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Transport {
    /// `%output` of a control connection of the stream's own, attached with output on and
    /// `pause-after`: tmux escapes every byte into lines, which caps the rate.
    #[default]
    ControlMode,
    /// `pipe-pane -O` into a FIFO of the client's private directory, read at full speed into a
    /// queue of at most `capacity` x 64 KiB: as fast as tmux's own pipe.
    Pipe,
}

/// How a pane is streamed. [`StreamOptions::default`] gives the defaults.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// Where the bytes come from (default [`Transport::ControlMode`]).
    pub transport: Transport,
    /// [`Transport::ControlMode`]: `pause-after`, in SECONDS: how old the output tmux queued for the stream may get
    /// before tmux pauses the pane for it (default 1). 0 pauses as soon as any output waits.
    /// tmux buffers up to this long of the pane's output for a slow stream.
    pub pause_after: u32,
    /// How much the stream holds for a slow consumer (default 64). With
    /// [`Transport::ControlMode`], items: each [`StreamItem::Data`] is one `%extended-output`
    /// line of tmux, at most a few KiB, and a full channel stops the reading of the connection
    /// (tmux then pauses the pane after `pause_after`). With [`Transport::Pipe`], units of
    /// 64 KiB (so 4 MiB by default) of what was read from the FIFO, handed out in
    /// [`StreamItem::Data`] of at most 64 KiB; a read that does not fit makes the stream drop
    /// what comes until the consumer caught up ([`StreamItem::Paused`]).
    pub capacity: usize,
    /// What [`StreamItem::Resynced`] captures (default: the visible screen, rows as shown).
    pub snapshot: Capture,
    /// The timeout of the stream's commands (default 10 s; [`Transport::Pipe`] uses the
    /// client's own).
    pub command_timeout: Duration,
    /// How long tmux may take to attach the stream's connection, or, with
    /// [`Transport::Pipe`], to start the pipe's program (default 5 s).
    pub attach_timeout: Duration,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            transport: Transport::ControlMode,
            pause_after: 1,
            capacity: 64,
            snapshot: Capture::default(),
            command_timeout: Duration::from_secs(10),
            attach_timeout: Duration::from_secs(5),
        }
    }
}

/// The pane's screen where a stream resumed after a pause: what a consumer shows in place
/// of the output tmux dropped while the pane was paused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// `capture-pane -p` as [`StreamOptions::snapshot`] says: rows, each ended by LF.
    pub capture: Bytes,
}

/// Why a stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamEnd {
    /// The pane was closed (killed, or its program exited) while its window stays. Its last
    /// output may be missing (see [`PaneStream`]).
    PaneClosed,
    /// The pane's window was closed (its last pane went, or it was killed). Its last output
    /// may be missing (see [`PaneStream`]).
    WindowClosed,
    /// The stream's connection ended (e.g. its session was destroyed: `%exit`). The pane's
    /// last output may be missing (see [`PaneStream`]).
    ConnectionEnded(ConnectionEnd),
    /// A resync failed: tmux's message or the error.
    ResyncFailed(String),
    /// The stream of a job ([`Client::start_job_streamed`]) reached the job's end: every byte
    /// the command wrote was delivered, but for those a [`StreamItem::Paused`] said lost. Or [`PaneStream::finish`] was called and everything
    /// tmux had read from the pane by then
    /// was delivered ([`Transport::ControlMode`]).
    Finished,
    /// [`PaneStream::finish`] closed the pane's pipe ([`Transport::Pipe`]): what tmux had read
    /// but not yet written to the pipe at that moment is not delivered (tmux drops the buffer
    /// of a pipe it closes). For every byte, let the pane close: tmux empties the pipe first.
    Stopped,
    /// The pane's pipe was closed or replaced by somebody else's `pipe-pane` while the pane
    /// lives ([`Transport::Pipe`]: tmux keeps one pipe per pane).
    PipeClosed,
    /// Reading the pane's output failed: the error.
    Failed(String),
}

/// One item of a [`PaneStream`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamItem {
    /// Bytes the pane printed, raw, in order, directly after the previous `Data` unless a
    /// `Paused` lies between.
    Data(Bytes),
    /// tmux paused the pane for this stream (the consumer fell `pause_after` behind): what
    /// it printed from here until the `Resynced` that follows is lost to the stream.
    Paused,
    /// tmux resumed the pane's output for this stream (its `%continue`).
    Continued,
    /// The pane's screen at the point where the `Data` after it resumes.
    Resynced(Snapshot),
    /// The last item: why the stream ended.
    End(StreamEnd),
}

/// A bounded stream of one pane's output ([`Client::stream`]). Items come only as fast as
/// [`PaneStream::next`] takes them. While the pane lives, nothing is lost silently: either
/// every byte arrives in order, or a [`StreamItem::Paused`] and [`StreamItem::Resynced`] mark
/// where bytes were lost. A stream that ends with the pane ([`StreamEnd::PaneClosed`],
/// [`StreamEnd::WindowClosed`], or [`StreamEnd::ConnectionEnded`] when its session went) may
/// miss the pane's last output: tmux drops what it has not yet sent to a control client of a
/// pane that closes (measured on 3.3a and 3.7c with a bare `tmux -C` client too: `seq 1 100000;
/// exit` lost its last few thousand lines in most runs). For every byte up to the end, keep
/// the pane open after its program (e.g. `remain-on-exit`, or a shell that waits) and end the
/// stream with [`PaneStream::finish`], which ends with [`StreamEnd::Finished`] only once
/// everything tmux read from the pane was delivered. Dropping it detaches its connection.
///
/// With [`Transport::Pipe`], dropping the stream closes the pane's pipe, and
/// [`PaneStream::finish`] ends with [`StreamEnd::Stopped`]. See [`Transport`] for how the two
/// compare.
#[derive(Debug)]
pub struct PaneStream {
    pane: PaneId,
    window: WindowId,
    transport: Transport,
    source: Source,
    /// Takes tmux-cc's end markers out of the data (and ends a job's stream at its own).
    filter: MarkerFilter,
    /// Items to hand out before reading more.
    pending: VecDeque<StreamItem>,
    /// A job's stream: what lets the job's gate end the job (see `job_end`).
    job: Option<JobEnd>,
}

impl Drop for PaneStream {
    fn drop(&mut self) {
        if let Some(job) = &self.job {
            job.release(Release::Gone);
        }
    }
}

/// Where a stream's items come from: one per [`Transport`], and nothing once it ended.
#[derive(Debug)]
enum Source {
    ControlMode(control::ControlSource),
    /// The pipe and the items of a resync waiting to be taken.
    Pipe(pipe::PipeSource, VecDeque<StreamItem>),
    Ended,
}

impl Client {
    /// Streams `pane`'s output from now on, on a control connection of the stream's own,
    /// attached to a session holding the pane's window with output on, `pause-after`, and
    /// `ignore-size` (a stalled consumer never holds up this client's replies).
    ///
    /// # Errors
    /// [`Error::Command`] when tmux finds no such pane, [`Error::AttachFailed`] and the other
    /// errors of [`Client::connect_to`], and this connection's errors.
    ///
    /// With [`Transport::Pipe`], no connection is opened: the pane's pipe is (see
    /// [`Transport`]); [`Error::Refused`] when the pane has one already, [`Error::Command`]
    /// (`target pane has exited`) for a pane whose program is done, [`Error::Timeout`] when
    /// the pipe's program did not start within `attach_timeout`.
    pub async fn stream(&self, pane: PaneId, options: StreamOptions) -> Result<PaneStream> {
        let target = pane.to_string();
        let lines = self
            .run(&Command::new("display-message").args([
                "-p",
                "-t",
                &target,
                "#{pane_id} #{session_id} #{window_id} #{pane_pipe}",
            ]))
            .await?;
        let said = lines
            .first()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .unwrap_or_default();
        // display-message does not fail for a missing target (3.3a): it formats nothing.
        let mut fields = said.split(' ');
        let (Some(id), Some(session), Some(window)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(missing(&target));
        };
        let Ok(window) = window.parse::<WindowId>() else {
            return Err(missing(&target));
        };
        if id != target || session.is_empty() {
            return Err(missing(&target));
        }
        let session = session.to_string();
        let source = match options.transport {
            Transport::Pipe => {
                let piped = fields.next() == Some("1");
                let source = pipe::PipeSource::open(
                    self.clone(),
                    piped,
                    pane,
                    window,
                    options.capacity,
                    options.snapshot.clone(),
                    options.attach_timeout,
                )
                .await?;
                Source::Pipe(source, VecDeque::new())
            }
            Transport::ControlMode => Source::ControlMode(
                control::ControlSource::open(self, session, pane, window, &options).await?,
            ),
        };
        Ok(PaneStream {
            pane,
            window,
            transport: options.transport,
            source,
            filter: MarkerFilter::default(),
            pending: VecDeque::new(),
            job: None,
        })
    }
}

fn missing(target: &str) -> Error {
    Error::Command {
        command: "stream".into(),
        message: format!("can't find pane: {target}"),
    }
}

impl PaneStream {
    /// The pane streamed.
    pub fn pane(&self) -> PaneId {
        self.pane
    }

    /// The pane's window when the stream opened.
    pub fn window(&self) -> WindowId {
        self.window
    }

    /// The stream's own connection (its pid, its session), `None` once the stream ended, and
    /// always with [`Transport::Pipe`] (which has none).
    pub fn connection(&self) -> Option<&Client> {
        match &self.source {
            Source::ControlMode(control) => control.connection(),
            Source::Pipe(..) | Source::Ended => None,
        }
    }

    /// Where the stream's bytes come from.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// Ends the stream once every byte tmux has read from the pane by now has been delivered:
    /// the items already on their way still come, then [`StreamEnd::Finished`]. For a pane
    /// whose program is known to be done (e.g. it signalled a `wait-for` channel after it):
    /// tmux answers a command on the stream's connection after the output it queued before
    /// it, so that answer marks the end.
    ///
    /// With [`Transport::Pipe`] it closes the pane's pipe, after two round trips (tmux writes
    /// to the pipe what it read before them unless the pipe is full), and the stream ends with
    /// [`StreamEnd::Stopped`] once what the pipe held came. tmux drops what it had read but
    /// not yet written to a pipe it closes, and reports to nobody how much that was: `Stopped`
    /// claims no completeness. A pane whose program exited (kept by `remain-on-exit`) wrote
    /// all it read to the pipe before it was marked dead, and tmux refuses to close its pipe:
    /// its stream ends once the pipe stays quiet for 50 ms.
    pub fn finish(&mut self) {
        match &mut self.source {
            Source::ControlMode(control) => control.finish(),
            Source::Pipe(pipe, _) => pipe.finish(),
            Source::Ended => {}
        }
    }

    /// The next item; `None` after [`StreamItem::End`]. Waits for the pane to print. After
    /// a [`StreamItem::Paused`], the next call resumes the pane (the consumer has caught up)
    /// and yields [`StreamItem::Continued`] then [`StreamItem::Resynced`].
    pub async fn next(&mut self) -> Option<StreamItem> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            let item = match &mut self.source {
                Source::ControlMode(control) => control.next().await,
                Source::Pipe(pipe, ready) => Some(pipe.next(ready).await),
                Source::Ended => None,
            };
            match item {
                Some(StreamItem::Data(data)) => {
                    let data = self.filter.feed_bytes(data);
                    if self.filter.ended() {
                        // A job's stream, at the job's end: every byte the command wrote came.
                        if let Some(job) = &self.job {
                            job.release(Release::Marker);
                        }
                        self.source = Source::Ended;
                        if !data.is_empty() {
                            self.pending.push_back(StreamItem::Data(data));
                        }
                        self.pending.push_back(StreamItem::End(StreamEnd::Finished));
                        continue;
                    }
                    if !data.is_empty() {
                        return Some(StreamItem::Data(data));
                    }
                }
                other => {
                    // The run of bytes was cut: what looked like a marker's start is data.
                    let held = self.filter.flush();
                    if !held.is_empty() {
                        self.pending.push_back(StreamItem::Data(Bytes::from(held)));
                    }
                    match other {
                        Some(item) => {
                            self.notify_job(&item);
                            if matches!(item, StreamItem::End(_)) {
                                self.source = Source::Ended;
                            }
                            self.pending.push_back(item);
                        }
                        None => {
                            if let Some(job) = &self.job {
                                job.release(Release::Gone);
                            }
                            self.source = Source::Ended;
                            return self.pending.pop_front();
                        }
                    }
                }
            }
        }
    }

    /// Makes the stream end, with [`StreamEnd::Finished`], at the job's end marker `marker`
    /// (everything before it delivered, nothing after it), and passes `job` what lets the job
    /// end (see `job_end`). `ended` resolves once the marker came through the job's own pipe:
    /// should the stream not have it once the job was let go, it ends after tmux answered
    /// behind the job's last bytes ([`Release::end`]).
    pub(crate) fn end_at(
        &mut self,
        marker: Vec<u8>,
        ended: tokio::sync::oneshot::Receiver<()>,
        job: JobEnd,
    ) {
        self.filter = MarkerFilter::ending_at(marker);
        if let Source::ControlMode(control) = &mut self.source {
            control.finish_after(ended, job.clone());
        }
        self.job = Some(job);
    }

    /// Notifies the job's gate, for a job's stream, of what this item means for the job's end.
    fn notify_job(&self, item: &StreamItem) {
        let Some(job) = &self.job else { return };
        match item {
            StreamItem::Paused => job.release(Release::Paused),
            StreamItem::End(_) => job.release(Release::Gone),
            _ => {}
        }
    }
}

/// `capture-pane -p -t TARGET` as `capture` says: a resync's snapshot.
fn capture_command(target: &str, capture: &Capture) -> Command {
    Command::new("capture-pane")
        .args(["-p", "-t", target])
        .flag("-J", capture.join)
        .opt("-S", capture.history.map(|n| format!("-{n}")))
        .flag("-a", capture.alternate)
        .flag("-e", capture.escapes)
        .flag("-N", capture.trailing_spaces)
}

/// A capture's reply as the snapshot's bytes: its rows, each ended by LF.
fn capture_bytes(reply: &crate::parse::Reply) -> Bytes {
    let mut out = Vec::with_capacity(reply.lines.iter().map(|l| l.len() + 1).sum());
    for line in &reply.lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    Bytes::from(out)
}
