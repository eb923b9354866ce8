//! Jobs: a shell command line run in a pane of its own, waited for by an event, with its exact
//! exit status and every byte it wrote to its terminal.
//!
//! How (the measures behind each step are in `docs/design/jobs.md`):
//! - the pane starts on a gate (see `GATE` below) that waits on a FIFO of the client's private
//!   directory: nothing of the command runs before the pane is set up;
//! - then, on the pane alone (never globally): `remain-on-exit on`, so that tmux keeps the pane
//!   and its status; a `pane-died` hook that runs `wait-for -S CHANNEL`, the channel of this
//!   client's jobs; `pipe-pane -O 'exec cat > OUT'`, another FIFO, read by a thread of this
//!   process; then the gate opens and runs the command as its child;
//! - the command ended, the gate writes an end marker (an OSC sequence of its own) and waits:
//!   the terminal stays open until the marker has come through the pipe, so every byte before
//!   it has too. tmux itself (3.3a, 3.7c) can close a terminal with bytes still in flight when
//!   its process exits at once, and `pipe-pane` copies only what tmux read: both lose lines
//!   otherwise. Then the gate exits with the command's status;
//! - one task per client (the hub) waits in `wait-for CHANNEL` on a connection of its own and,
//!   woken, reads every job's `#{pane_dead_status}` and `#{pane_dead_signal}` in one
//!   `list-panes -a`. tmux keeps a signal sent while nobody waits, so a job that ends between
//!   two waits is seen at the next one;
//! - tmux fires `pane-died` only once it has the status (it reaps the child on SIGCHLD), and
//!   tmux 3.3a built with libutempter can lose a SIGCHLD (its handler replaced while another
//!   pane is being spawned): the pane is then dead (its terminal ended) without a status, and
//!   no hook fires. So the hub also looks on a timer while jobs run (2 ms after a start and
//!   after a gate is let go to exit, backing off to once a second) and sends SIGCHLD to the server (`#{pid}`) when it sees
//!   such a pane, which makes tmux reap it; at most [`NUDGES`] times a pane;
//! - [`Job::wait`] removes the pane (its window when it made one): tmux then closes the pipe,
//!   and the reader's end of file ends the output.

mod gate;
mod hub;

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::client::{Client, ConnectionEnd};
use crate::command::Command;
use crate::error::{Error, Result};
use crate::fifo::{make_fifo, sh_quote, write_fifo};
use crate::marker::end_marker;
use crate::parse::{PaneId, WindowId};
use crate::stream::{JobEnd, PaneStream, Release, StreamOptions};
use gate::{GATE, read_output};
pub use hub::NUDGES;
use hub::{Death, Failure, Hub, HubShared};

/// Where a job runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobPlace {
    /// A new window (`new-window -d -t TARGET`): a session target ending in `:` (`=work:`) for
    /// the next free index, or an exact window target for that index. The window is the job's:
    /// it is removed with the job.
    NewWindow(String),
    /// A new pane of an existing window (`split-window -d -t TARGET`, a window or pane target).
    /// Only that pane is removed with the job.
    SplitWindow(String),
}

/// What to run and how: the options are the job's own, set on its pane (and its session for
/// `history_limit`, for the time of the creation only), never globally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSpec {
    /// The command line, run by `sh -c` as the pane's process.
    pub command: Vec<u8>,
    /// Where.
    pub place: JobPlace,
    /// The window's name (`-n`, [`JobPlace::NewWindow`] only); tmux names it after its
    /// command when `None`.
    pub name: Option<String>,
    /// The pane's history size in lines. tmux reads `history-limit` from the session when it
    /// creates a pane (it is a session option, 3.2a to 3.7c): the session's value is set, the
    /// pane created and the value put back (unset, or its own value) right after, on the same
    /// command line. tmux 3.7 then gives the pane its session's value again (it applies a
    /// change to every pane of the session): [`Client::start_job`] reads the pane's limit back
    /// and refuses the job there. `None`: the session's value.
    pub history_limit: Option<u32>,
    /// Variables set in the pane's environment (`-e NAME=VALUE`, each).
    pub environment: Vec<(String, Vec<u8>)>,
    /// The start directory (`-c`).
    pub directory: Option<PathBuf>,
}

impl JobSpec {
    /// `command` in a new window of `target` (e.g. `=work:`), nothing else set.
    pub fn window(target: impl Into<String>, command: impl AsRef<[u8]>) -> JobSpec {
        JobSpec::at(JobPlace::NewWindow(target.into()), command)
    }

    /// `command` in a new pane of window `target` (e.g. `@3`), nothing else set.
    pub fn pane(target: impl Into<String>, command: impl AsRef<[u8]>) -> JobSpec {
        JobSpec::at(JobPlace::SplitWindow(target.into()), command)
    }

    fn at(place: JobPlace, command: impl AsRef<[u8]>) -> JobSpec {
        JobSpec {
            command: command.as_ref().to_vec(),
            place,
            name: None,
            history_limit: None,
            environment: Vec::new(),
            directory: None,
        }
    }
}

/// How a job ended. One of `status` and `signal` is set, or neither when tmux could not tell:
/// a pane still dead without a status after [`NUDGES`] SIGCHLDs, which is how tmux 3.2a (no
/// `#{pane_dead_signal}`) shows a gate killed by a signal it does not catch (`KILL`, `HUP`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobExit {
    /// Its exit status (`exit 7`: 7), when it exited with one: 0 to 128, or above 192 (129 to
    /// 192 are read as a signal, below).
    pub status: Option<i32>,
    /// The number of the signal that killed it (`kill -TERM $$`: 15), when one did, or when
    /// it exited with `128 + N` (`sh` tells the two apart no better).
    pub signal: Option<i32>,
    /// Every byte it wrote to its terminal, as the terminal gave them to tmux: lines end in
    /// CR LF (the terminal's `onlcr`), escape sequences kept.
    pub output: Vec<u8>,
}

/// A running (or ended) job: [`Client::start_job`].
///
/// Dropped before [`Job::wait`] returned, it removes its pane (its window for
/// [`JobPlace::NewWindow`]), which ends the command with a SIGHUP if it still runs.
#[derive(Debug)]
pub struct Job {
    client: Client,
    hub: Arc<HubShared>,
    window: WindowId,
    pane: PaneId,
    pid: u32,
    own_window: bool,
    death: oneshot::Receiver<std::result::Result<Death, Failure>>,
    output: JoinHandle<std::io::Result<Vec<u8>>>,
    removed: bool,
    done: Option<JobExit>,
    /// A job watched live: what lets its gate end it (held until its stream has its end).
    job_end: Option<JobEnd>,
}

impl Job {
    /// The job's window (made for it with [`JobPlace::NewWindow`]).
    pub fn window(&self) -> WindowId {
        self.window
    }

    /// The job's pane.
    pub fn pane(&self) -> PaneId {
        self.pane
    }

    /// The pid of the pane's process, the gate that runs the command line as its child (see
    /// the module's steps), and the id of the pane's process group.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Waits for the job's end, by event (no polling by the caller), then removes its pane
    /// (its window when it made one) and returns its status and output. The pane goes at
    /// that point because tmux keeps the pipe to the output's reader open as long as the pane
    /// exists, and only that pipe's end shows that every byte has been read. A second call
    /// returns the same answer.
    ///
    /// # Errors
    /// [`Error::ConnectionEnded`]; [`Error::UnexpectedReply`] when the pane disappeared
    /// (killed by someone else: no status to report); [`Error::Io`] when reading its output
    /// failed.
    pub async fn wait(&mut self) -> Result<JobExit> {
        if let Some(done) = &self.done {
            return Ok(done.clone());
        }
        if let Some(job_end) = &self.job_end {
            // Waited for before its stream had its last bytes: the job ends all the same.
            job_end.release(Release::Waited);
        }
        let death = match (&mut self.death).await {
            Ok(Ok(death)) => death,
            Ok(Err(failure)) => return Err(failure.into_error(self.pane)),
            Err(_) => {
                return Err(Error::ConnectionEnded(
                    self.client.end().unwrap_or(ConnectionEnd::Eof),
                ));
            }
        };
        if !self.removed {
            self.remove().await?;
            self.removed = true;
        }
        let output = match (&mut self.output).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(e)) => return Err(Error::io("reading a job's output", e)),
            Err(e) => {
                return Err(Error::io(
                    "reading a job's output",
                    std::io::Error::other(e.to_string()),
                ));
            }
        };
        let done = JobExit {
            status: death.status,
            signal: death.signal,
            output,
        };
        self.done = Some(done.clone());
        Ok(done)
    }

    /// Sends signal `signal` (e.g. 15, SIGTERM) to the job's process group (the pane's: its
    /// gate and the command). [`Job::wait`] then reports the signal, if the command did not catch
    /// it.
    ///
    /// # Errors
    /// [`Error::Refused`] once [`Job::wait`] has returned (the pid may belong to another
    /// process by then) or for a signal number that is not one; [`Error::Io`] when `kill`
    /// failed.
    pub fn kill(&self, signal: i32) -> Result<()> {
        if self.done.is_some() {
            return Err(Error::Refused("the job has ended"));
        }
        let signal = nix::sys::signal::Signal::try_from(signal)
            .map_err(|_| Error::Refused("not a signal number"))?;
        let pid = i32::try_from(self.pid).map_err(|_| Error::Refused("no such pid"))?;
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(-pid), signal).map_err(|e| {
            Error::io(
                format!("signalling job pid {pid}"),
                std::io::Error::from_raw_os_error(e as i32),
            )
        })
    }

    async fn remove(&self) -> Result<()> {
        let cmd = if self.own_window {
            Command::new("kill-window").args(["-t", &self.window.to_string()])
        } else {
            Command::new("kill-pane").args(["-t", &self.pane.to_string()])
        };
        self.client.run(&cmd).await.map(drop)
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Some(job_end) = &self.job_end {
            job_end.release(Release::Waited);
        }
        self.hub.forget(self.pane);
        if self.removed {
            return;
        }
        let client = self.client.clone();
        let target = if self.own_window {
            ("kill-window", self.window.to_string())
        } else {
            ("kill-pane", self.pane.to_string())
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = client
                    .run(&Command::new(target.0).args(["-t", &target.1]))
                    .await;
            });
        }
    }
}

/// What `new-window`/`split-window` printed.
const CREATED: &str = "#{window_id} #{pane_id} #{pane_pid}";

impl Client {
    /// Starts a job: `spec.command` run by `sh -c` in a new window or pane, with the job's own
    /// options (see [`JobSpec`]; the steps in the module `jobs.rs`). Returns once the command
    /// runs, its pane set up so that its end is an event and its output complete.
    ///
    /// The first job of a client opens the connection its jobs' events come on (kept with the
    /// client, as [`Client::blocking`]'s).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find session`), [`Error::Io`] (the FIFOs of the private
    /// directory), [`Error::Refused`] for a `history_limit` the server does not keep (tmux
    /// 3.7, see [`JobSpec::history_limit`]; nothing is left running), the connection's errors;
    /// those of [`Client::connect`] for the first job.
    pub async fn start_job(&self, spec: &JobSpec) -> Result<Job> {
        self.start(spec, None).await.map(|(job, _)| job)
    }

    /// [`Client::start_job`], with the job's pane streamed from its first byte: the stream
    /// ([`Client::stream`] with `options`) is open before the command runs, and ends with
    /// [`StreamEnd::Finished`](crate::StreamEnd::Finished) once the command is done and every
    /// byte it wrote was delivered (tmux-cc's end marker taken out). A consumer slower than the
    /// job may see a [`StreamItem::Paused`](crate::StreamItem::Paused) (see [`PaneStream`]);
    /// [`Job::wait`] still gives every byte. Read the stream to its end before waiting: the
    /// job's program is held after the command until its stream has the job's last bytes
    /// (tmux drops what it has not yet sent of a pane whose program exited), and a job waited
    /// for first ends at once, its stream then ending with
    /// [`StreamEnd::PaneClosed`](crate::StreamEnd::PaneClosed) should it miss them.
    ///
    /// ```no_run
    /// # async fn demo(client: &tmux_cc::Client) -> tmux_cc::Result<()> {
    /// use tmux_cc::{JobSpec, StreamItem, StreamOptions};
    ///
    /// let spec = JobSpec::window("=work:", "echo first; echo second; exit 5");
    /// let (mut job, mut stream) = client.start_job_streamed(&spec, StreamOptions::default()).await?;
    /// while let Some(item) = stream.next().await {
    ///     match item {
    ///         StreamItem::Data(bytes) => print!("{}", String::from_utf8_lossy(&bytes)),
    ///         StreamItem::End(why) => eprintln!("stream ended: {why:?}"),
    ///         _ => {} // Paused, Continued, Resynced: see PaneStream
    ///     }
    /// }
    /// let exit = job.wait().await?; // status Some(5), every byte in exit.output
    /// # let _ = exit; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Those of [`Client::start_job`] and [`Client::stream`] (the job is then removed).
    pub async fn start_job_streamed(
        &self,
        spec: &JobSpec,
        options: StreamOptions,
    ) -> Result<(Job, PaneStream)> {
        let (job, stream) = self.start(spec, Some(options)).await?;
        Ok((job, stream.expect("a stream was asked for")))
    }

    async fn start(
        &self,
        spec: &JobSpec,
        watch: Option<StreamOptions>,
    ) -> Result<(Job, Option<PaneStream>)> {
        let hub = self
            .extension(|| async {
                let events = self.open_extra("events").await?;
                Hub::start(self, events).await
            })
            .await?;
        let hub = &*hub;
        let id = self.next_id();
        let gate = self.private_dir().join(format!("job-{id}.gate"));
        let out = self.private_dir().join(format!("job-{id}.out"));
        make_fifo(&gate)?;
        if let Err(e) = make_fifo(&out) {
            let _ = std::fs::remove_file(&gate);
            return Err(e);
        }
        let marker = end_marker(id);
        let (seen_tx, seen_rx) = oneshot::channel();
        // Sent to the stream, if any, once the end marker came through the pipe; and what
        // lets the gate end the job once the stream has its last bytes (stream/job_end.rs).
        let (ended_tx, ended_rx) = oneshot::channel();
        let job_end = watch.is_some().then(JobEnd::new);
        let reader = {
            let (out, marker) = (out.clone(), marker.clone());
            tokio::task::spawn_blocking(move || read_output(&out, &marker, seen_tx))
        };
        let watch = match (watch, &job_end) {
            (Some(options), Some(job_end)) => Some((options, ended_rx, job_end.clone())),
            _ => None,
        };
        let result = self.set_up(spec, hub, &gate, &out, &marker, watch).await;
        match result {
            Ok((window, pane, pid, own_window, death, stream)) => {
                // The command has ended once its end marker came through the pipe: every
                // byte before it has too. Then the gate may exit (with the command's status).
                let gate = gate.clone();
                let shared = hub.shared.clone();
                let held = job_end.clone();
                tokio::spawn(async move {
                    let seen = seen_rx.await.is_ok();
                    if seen {
                        let _ = ended_tx.send(());
                        if let Some(held) = held {
                            held.released().await;
                        }
                    }
                    if seen && write_fifo(&gate, b"\n").await.is_ok() {
                        // The gate exits now: the hub looks again within milliseconds, so
                        // that a lost SIGCHLD costs a nudge, not the wait of its timer.
                        shared.kick.notify_one();
                    }
                    let _ = std::fs::remove_file(&gate);
                });
                let job = Job {
                    client: self.clone(),
                    hub: hub.shared.clone(),
                    window,
                    pane,
                    pid,
                    own_window,
                    death,
                    output: reader,
                    removed: false,
                    job_end,
                    done: None,
                };
                Ok((job, stream))
            }
            Err(e) => {
                let _ = std::fs::remove_file(&gate);
                // Ends the reader's wait for a writer: it reads an end of file at once.
                let _ = std::fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(&out);
                let _ = std::fs::remove_file(&out);
                Err(e)
            }
        }
    }

    #[allow(clippy::type_complexity)]
    async fn set_up(
        &self,
        spec: &JobSpec,
        hub: &Hub,
        gate: &Path,
        out: &Path,
        marker: &[u8],
        watch: Option<(StreamOptions, oneshot::Receiver<()>, JobEnd)>,
    ) -> Result<(
        WindowId,
        PaneId,
        u32,
        bool,
        oneshot::Receiver<std::result::Result<Death, Failure>>,
        Option<PaneStream>,
    )> {
        let (verb, target, own_window) = match &spec.place {
            JobPlace::NewWindow(target) => ("new-window", target, true),
            JobPlace::SplitWindow(target) => ("split-window", target, false),
        };
        let mut create = Command::new(verb).args(["-d", "-P", "-F", CREATED, "-t", target]);
        if own_window {
            create = create.opt("-n", spec.name.as_deref());
        }
        if let Some(dir) = &spec.directory {
            create = create.arg("-c").arg(dir.as_os_str().as_bytes());
        }
        for (name, value) in &spec.environment {
            let mut pair = name.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(value);
            create = create.arg("-e").arg(pair);
        }
        create = create
            .args(["--", "sh", "-c", GATE])
            .arg(&spec.command)
            .arg(gate.as_os_str().as_bytes())
            .arg(marker);

        let reply = match spec.history_limit {
            None => self.run(&create).await?,
            Some(limit) => self.create_with_history(target, limit, &create).await?,
        };
        let line = reply
            .first()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .unwrap_or_default();
        let parts: Vec<&str> = line.split(' ').collect();
        let bad = || Error::UnexpectedReply {
            command: verb.to_string(),
            detail: format!("expected `{CREATED}`, got {line:?}"),
        };
        let [window, pane, pid] = parts[..] else {
            return Err(bad());
        };
        let window = WindowId::from_str(window).map_err(|_| bad())?;
        let pane = PaneId::from_str(pane).map_err(|_| bad())?;
        let pid: u32 = pid.parse().map_err(|_| bad())?;

        let remove = || async {
            let cmd = if own_window {
                Command::new("kill-window").args(["-t", &window.to_string()])
            } else {
                Command::new("kill-pane").args(["-t", &pane.to_string()])
            };
            let _ = self.run(&cmd).await;
        };
        let pane_target = pane.to_string();
        if let Some(limit) = spec.history_limit {
            // tmux 3.7 applies a session's history-limit to every pane of it, at once: a pane
            // of its own limit can not be had there. Read back rather than guessed by version.
            let got = self
                .run(&Command::new("display-message").args([
                    "-p",
                    "-t",
                    &pane_target,
                    "#{history_limit}",
                ]))
                .await;
            let holds = matches!(&got, Ok(lines) if lines.first().map(Vec::as_slice) == Some(limit.to_string().as_bytes()));
            if !holds {
                remove().await;
                got?;
                return Err(Error::Refused(
                    "this tmux gives every pane its session's history-limit (tmux 3.7): a job can not have one of its own; start it in a session of that limit",
                ));
            }
        }
        let mut pipe = b"exec cat > ".to_vec();
        pipe.extend_from_slice(&sh_quote(out.as_os_str().as_bytes()));
        let wake = format!("wait-for -S {}", hub.channel);
        let setup = [
            Command::new("set-option").args(["-p", "-t", &pane_target, "remain-on-exit", "on"]),
            Command::new("set-hook").args(["-p", "-t", &pane_target, "pane-died", &wake]),
            Command::new("pipe-pane")
                .args(["-O", "-t", &pane_target])
                .arg(pipe),
        ];
        if let Err(e) = self.input_ok(&setup).await {
            remove().await;
            return Err(e);
        }
        // The stream opens while the gate still holds the command: it sees the first byte.
        let stream = match watch {
            None => None,
            Some((options, ended, job_end)) => match self.stream(pane, options).await {
                Ok(mut stream) => {
                    stream.end_at(marker.to_vec(), ended, job_end);
                    Some(stream)
                }
                Err(e) => {
                    remove().await;
                    return Err(e);
                }
            },
        };
        let death = hub.register(pane);
        if let Err(e) = write_fifo(gate, b"\n").await {
            hub.shared.forget(pane);
            remove().await;
            return Err(Error::io("opening a job's gate", e));
        }
        Ok((window, pane, pid, own_window, death, stream))
    }

    /// `create` with the session's `history-limit` at `limit`, put back right after: one
    /// command line (nothing of another client between), then the value put back again on a
    /// line of its own should the creation have failed (which ends the line).
    async fn create_with_history(
        &self,
        target: &str,
        limit: u32,
        create: &Command,
    ) -> Result<Vec<Vec<u8>>> {
        let before = self
            .run(&Command::new("show-options").args(["-q", "-v", "-t", target, "history-limit"]))
            .await?;
        let restore = match before.first() {
            Some(value) if !value.is_empty() => Command::new("set-option")
                .args(["-t", target, "history-limit"])
                .arg(value),
            _ => Command::new("set-option").args(["-u", "-t", target, "history-limit"]),
        };
        let set =
            Command::new("set-option").args(["-t", target, "history-limit", &limit.to_string()]);
        let replies = self.group(&[set, create.clone(), restore.clone()]).await?;
        if replies.len() < 3 {
            let _ = self.run(&restore).await;
        }
        let mut replies = replies.into_iter();
        let set_reply = replies.next();
        if let Some(reply) = set_reply.filter(|r| !r.success) {
            return crate::client::into_output("set-option", reply);
        }
        match replies.next() {
            Some(reply) => crate::client::into_output(create.name(), reply),
            None => Err(Error::UnexpectedReply {
                command: create.name().to_string(),
                detail: "no reply".into(),
            }),
        }
    }
}
