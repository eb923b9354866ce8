//! How a job's stream and the job's gate agree on the job's end ([`Client::start_job_streamed`]).
//!
//! tmux drops the output it has not yet sent to a control client once the pane's program
//! exits, silently (no `%pause`: `control_write_pending` frees a dead pane's blocks, 3.2a to
//! 3.7c). A stream whose reader is behind when the job ends would lose the job's last bytes,
//! its end marker with them, and never end. So the gate holds the job's program, after the
//! marker, until the stream lets it go ([`Release`]): it saw the marker, or tmux paused the
//! pane for it (what it printed is lost anyway, and said so), or it was dropped, or the job
//! was waited for first. Should the stream not have its marker by then, it ends once tmux has
//! answered after the job's last bytes, as [`Release::end`] says.
//!
//! [`Client::start_job_streamed`]: crate::Client::start_job_streamed

use std::sync::Arc;

use tokio::sync::watch;

use super::StreamEnd;

/// Why a streamed job's gate may let the job end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Release {
    /// The stream had the job's end marker: every byte came.
    Marker,
    /// tmux paused the pane for the stream: the bytes from the `Paused` to the `Resynced` are
    /// lost to it, and the stream said so.
    Paused,
    /// The stream was dropped or ended otherwise.
    Gone,
    /// The job was waited for (or dropped) before its stream had the marker.
    Waited,
}

impl Release {
    /// How a stream without its marker ends, once tmux answered after the job's last bytes:
    /// `Finished` when every byte came or its loss was reported; `PaneClosed` (its last output may
    /// be missing) when the job was let go before the stream had it.
    pub(crate) fn end(self) -> StreamEnd {
        match self {
            Release::Marker | Release::Paused => StreamEnd::Finished,
            Release::Gone | Release::Waited => StreamEnd::PaneClosed,
        }
    }
}

/// The job's side and the stream's side share one of these: the first [`JobEnd::release`]
/// counts.
#[derive(Debug, Clone)]
pub(crate) struct JobEnd(Arc<watch::Sender<Option<Release>>>);

impl JobEnd {
    /// A pair not yet released.
    pub(crate) fn new() -> JobEnd {
        JobEnd(Arc::new(watch::channel(None).0))
    }

    /// Lets the job end, for `why`, unless it was let go already.
    pub(crate) fn release(&self, why: Release) {
        self.0.send_if_modified(|now| {
            if now.is_none() {
                *now = Some(why);
                true
            } else {
                false
            }
        });
    }

    /// Why the job was let go, once it is; `Release::Gone` once nobody holds a `JobEnd` any
    /// more.
    pub(crate) async fn released(&self) -> Release {
        let mut rx = self.0.subscribe();
        match rx.wait_for(Option::is_some).await {
            Ok(why) => why.unwrap_or(Release::Gone),
            Err(_) => Release::Gone,
        }
    }
}
