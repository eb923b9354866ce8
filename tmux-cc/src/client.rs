//! The control connection: one `tmux -u -C` client process, commands written as lines, replies
//! matched in order, notifications to subscribers.
//!
//! The protocol facts and the 3.3a traps it handles are listed in the crate's README ("Control
//! client"), read in tmux 3.3a's control.c and cmd-queue.c and measured on tmux 3.3a.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command as ProcessCommand};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::timeout;

use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::{Event, Notification, ParseError, Parser, Reply};
use crate::server::validate_socket_name;
use crate::spawn::{DeathSignal, spawn};
use crate::version::{DIFFERENCES, Features, TmuxVersion};

/// How a control client is attached. [`ClientOptions::default`] gives the defaults.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The name of the hidden service session the client attaches to, created for it and
    /// destroyed when it goes (`destroy-unattached on`). Default: `tmux-cc-PID-N` (this
    /// process's pid, a counter). ASCII letters, digits, `-` and `_` only.
    pub service_session: Option<String>,
    /// The default timeout of each command (see [`Client::with_timeout`]): 10 s.
    pub command_timeout: Duration,
    /// How long tmux may take to attach the client: 5 s.
    pub attach_timeout: Duration,
    /// How many notifications a slow subscriber may fall behind before it misses some
    /// ([`broadcast::error::RecvError::Lagged`]): 1024.
    pub notification_capacity: usize,
    /// Where the private directory for paste and buffer files is created (mode 0700, removed
    /// with the client). Default: `$XDG_RUNTIME_DIR` when set (a tmpfs on systemd machines),
    /// else the system's temporary directory.
    pub private_dir_parent: Option<PathBuf>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            service_session: None,
            command_timeout: Duration::from_secs(10),
            attach_timeout: Duration::from_secs(5),
            notification_capacity: 1024,
            private_dir_parent: None,
        }
    }
}

/// Why the control connection ended. Reported once ([`Client::closed`]), and carried by the
/// [`Error::ConnectionEnded`] of every command pending then or sent later.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionEnd {
    /// tmux printed `%exit`, with its reason if any (3.3a: none after an empty line or the end
    /// of input, `detached`, `server exited`, `server exited unexpectedly`, `too far behind`).
    Exit {
        /// The reason after `%exit`.
        reason: Option<String>,
    },
    /// The client's output ended without `%exit` (the process died).
    Eof,
    /// Reading the client's output failed.
    ReadFailed(String),
    /// Writing a command to the client failed.
    WriteFailed(String),
}

impl fmt::Display for ConnectionEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionEnd::Exit { reason: None } => {
                f.write_str("tmux ended the control client (%exit)")
            }
            ConnectionEnd::Exit {
                reason: Some(reason),
            } => write!(f, "tmux ended the control client (%exit: {reason})"),
            ConnectionEnd::Eof => f.write_str(
                "the control client's output ended without %exit (the tmux client process died)",
            ),
            ConnectionEnd::ReadFailed(e) => {
                write!(f, "reading from the control client failed: {e}")
            }
            ConnectionEnd::WriteFailed(e) => write!(f, "writing to the control client failed: {e}"),
        }
    }
}

type Slot = oneshot::Sender<std::result::Result<Vec<Reply>, ConnectionEnd>>;

/// What one command line written waits for: the replies of its commands, `expected` of them,
/// fewer when one fails. tmux runs the commands of one line (`a ; b ; c`) as a group: the first
/// that fails (`%error`) removes the rest of its line, which then give no reply block at all
/// (cmd-queue.c, `cmdq_remove_group`; the same from 3.2a to 3.7c, measured).
struct PendingLine {
    expected: usize,
    replies: Vec<Reply>,
    slot: Slot,
}

impl PendingLine {
    fn new(expected: usize, slot: Slot) -> Self {
        PendingLine {
            expected,
            replies: Vec::with_capacity(expected),
            slot,
        }
    }
}

enum Job {
    /// Lines to write in one piece, with one reply slot per command line.
    Write {
        bytes: Vec<u8>,
        slots: Vec<PendingLine>,
    },
    /// An empty line: tmux detaches the client.
    Detach,
}

#[derive(Default)]
struct State {
    /// One slot per command line written and not yet answered, in the order written.
    pending: VecDeque<PendingLine>,
    ended: Option<ConnectionEnd>,
}

struct Shared {
    state: Mutex<State>,
    end_tx: watch::Sender<Option<ConnectionEnd>>,
    notify: Mutex<Option<broadcast::Sender<Notification>>>,
    /// The last line tmux printed outside the protocol (e.g. a load-buffer error, which 3.3a
    /// prints after the command's `%end`).
    stray: Mutex<Option<Vec<u8>>>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the connection once: fails every pending command, closes the notification
    /// channel, publishes the reason.
    fn end(&self, reason: ConnectionEnd) {
        let pending = {
            let mut state = self.lock();
            if state.ended.is_some() {
                return;
            }
            state.ended = Some(reason.clone());
            std::mem::take(&mut state.pending)
        };
        tracing::debug!(%reason, pending = pending.len(), "tmux control connection ended");
        for line in pending {
            let _ = line.slot.send(Err(reason.clone()));
        }
        self.notify.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.end_tx.send_replace(Some(reason));
    }

    fn deliver(&self, reply: Reply) {
        let done = {
            let mut state = self.lock();
            let Some(line) = state.pending.front_mut() else {
                drop(state);
                tracing::warn!(
                    number = reply.number,
                    "tmux sent a reply to a command this client did not send"
                );
                return;
            };
            let failed = !reply.success;
            line.replies.push(reply);
            // The line is answered once every command replied, or one failed: tmux then
            // drops the rest of the line's group.
            if failed || line.replies.len() >= line.expected {
                state.pending.pop_front()
            } else {
                None
            }
        };
        // A closed slot is a command that timed out or was abandoned: its replies are dropped
        // here, and the queue stays aligned.
        if let Some(line) = done {
            let _ = line.slot.send(Ok(line.replies));
        }
    }

    fn ended(&self) -> Option<ConnectionEnd> {
        self.lock().ended.clone()
    }
}

/// A control-mode client of a tmux server: `tmux -u -N -L SOCKET -C new-session -s SERVICE -f
/// no-output,ignore-size sleep 2147483647`, a child of this process that dies with it (`-N`:
/// never start a server of its own when none runs there).
///
/// It is attached to a hidden service session of its own, whose one pane runs a command that
/// never exits; that session is destroyed when the client goes (`destroy-unattached on`). The
/// flags `no-output,ignore-size` are set at attach time and never toggled (toggling
/// `no-output` while output is queued can wedge every later reply in 3.3a, tmux issue 5049).
/// No command is sent before tmux has answered the attach (3.3a reads input before the attach
/// has run).
///
/// Commands are written one per line; replies are matched to them in order (several commands
/// may be in flight); each has a timeout. The end of the connection is reported once
/// ([`Client::closed`]) and fails every pending and later command with
/// [`Error::ConnectionEnded`].
///
/// Cheap to clone: clones share the connection. When the last clone is dropped, the client's
/// input is closed (tmux detaches it) and the process is killed a second later if still there.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    timeout: Duration,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("socket", &self.inner.socket)
            .field("service_session", &self.inner.service_session)
            .field("pid", &self.inner.pid)
            .field("timeout", &self.timeout)
            .finish()
    }
}

struct Inner {
    socket: String,
    tmux: PathBuf,
    service_session: String,
    pid: u32,
    jobs: mpsc::UnboundedSender<Job>,
    shared: Arc<Shared>,
    end_rx: watch::Receiver<Option<ConnectionEnd>>,
    private_dir: PrivateDir,
    counter: AtomicU64,
    /// The server's version (`#{version}`, asked once when connecting) and what it does
    /// differently, set before `connect` returns.
    server: OnceLock<(TmuxVersion, Features)>,
    /// Dropped with the last handle: the child's task then ends the process.
    _close: oneshot::Sender<()>,
}

static SERVICE_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Client {
    /// Starts a control client on the server at socket `socket` (`tmux -L`) and waits until
    /// tmux has attached it: the initial flags-0 reply block and `%session-changed` seen.
    /// Then sets `destroy-unattached on` and `detach-on-destroy on` on its service session.
    ///
    /// # Errors
    /// - [`Error::BadSocketName`]; [`Error::Refused`] for a bad service session name.
    /// - [`Error::TmuxMissing`], [`Error::Io`]: the process could not start, or the private
    ///   directory could not be created.
    /// - [`Error::AttachFailed`]: tmux refused the session (e.g. no server on that socket:
    ///   the detail is tmux's message) or did not attach within `attach_timeout`.
    pub async fn connect(tmux: &Path, socket: &str, options: ClientOptions) -> Result<Client> {
        validate_socket_name(socket)?;
        let service_session = match options.service_session {
            Some(name) => name,
            None => format!(
                "tmux-cc-{}-{}",
                std::process::id(),
                SERVICE_COUNTER.fetch_add(1, Ordering::Relaxed)
            ),
        };
        if service_session.is_empty()
            || !service_session
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Error::Refused(
                "a service session name holds only ASCII letters, digits, '-' and '_'",
            ));
        }
        let private_dir = PrivateDir::create(options.private_dir_parent.as_deref())?;

        let mut cmd = ProcessCommand::new(tmux);
        cmd.args(["-u", "-N", "-L", socket, "-C", "new-session", "-s"])
            .arg(&service_session)
            .args(["-f", "no-output,ignore-size", "sleep", "2147483647"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .kill_on_drop(true);
        let mut child = spawn(cmd, DeathSignal::Kill).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::TmuxMissing {
                    path: tmux.to_path_buf(),
                }
            } else {
                Error::io("starting the tmux control client", e)
            }
        })?;
        let pid = child.id().unwrap_or(0);
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr_text = Arc::new(Mutex::new(String::new()));
        if let Some(mut stderr) = child.stderr.take() {
            let kept = stderr_text.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 1024];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                    tracing::debug!(stderr = %text.trim_end(), "tmux control client wrote to stderr");
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    if kept.len() < 1024 {
                        kept.push_str(&text);
                    }
                }
            });
        }

        let (end_tx, end_rx) = watch::channel(None);
        let (notify_tx, _) = broadcast::channel(options.notification_capacity.max(1));
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            end_tx,
            notify: Mutex::new(Some(notify_tx)),
            stray: Mutex::new(None),
        });
        let (attach_tx, attach_rx) = oneshot::channel();
        tokio::spawn(read_loop(stdout, shared.clone(), attach_tx));
        let (jobs_tx, jobs_rx) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(stdin, jobs_rx, shared.clone()));
        let (close_tx, close_rx) = oneshot::channel();

        let attached = timeout(options.attach_timeout, attach_rx).await;
        let failure = match attached {
            Ok(Ok(Ok(()))) => None,
            Ok(Ok(Err(detail))) => Some(detail),
            Ok(Err(_)) => Some("the control client's output ended".to_string()),
            Err(_) => Some(format!(
                "tmux did not attach it within {:?}",
                options.attach_timeout
            )),
        };
        if let Some(detail) = failure {
            let _ = child.start_kill();
            let _ = timeout(Duration::from_secs(1), child.wait()).await;
            let stderr = stderr_text
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .trim()
                .to_string();
            let detail = if stderr.is_empty() {
                detail
            } else {
                format!("{detail} (tmux said: {stderr})")
            };
            return Err(Error::AttachFailed {
                socket: socket.to_string(),
                detail,
            });
        }
        tokio::spawn(watch_child(child, close_rx));

        let client = Client {
            inner: Arc::new(Inner {
                socket: socket.to_string(),
                tmux: tmux.to_path_buf(),
                service_session,
                pid,
                jobs: jobs_tx,
                shared,
                end_rx,
                private_dir,
                counter: AtomicU64::new(0),
                server: OnceLock::new(),
                _close: close_tx,
            }),
            timeout: options.command_timeout,
        };
        // `=NAME:`, not `=NAME`: set-option resolves its -t as a pane, and tmux 3.3a answers
        // `no such session: =NAME` for the bare form.
        let target = format!("={}:", client.inner.service_session);
        let replies = client
            .input_ok(&[
                Command::new("set-option").args(["-t", &target, "destroy-unattached", "on"]),
                Command::new("set-option").args(["-t", &target, "detach-on-destroy", "on"]),
                Command::new("display-message").args(["-p", "#{version}"]),
            ])
            .await?;
        let said = replies
            .last()
            .and_then(|lines| lines.first())
            .map(|line| format!("tmux {}", String::from_utf8_lossy(line)))
            .unwrap_or_default();
        let version = TmuxVersion::parse(&said)?;
        version.check_supported()?;
        let features = match Features::of_release(&version) {
            Some(features) => features,
            None => client.probe_features().await?,
        };
        tracing::debug!(socket, version = %version, ?features, "tmux server version");
        let _ = client.inner.server.set((version, features));
        tracing::debug!(socket, session = %client.inner.service_session, pid, "tmux control client attached");
        Ok(client)
    }

    /// What the server does differently, found by trying each row of
    /// [`DIFFERENCES`](crate::DIFFERENCES) on it ([`Difference::probe`](crate::Difference),
    /// on this client's service session) rather than from its version: what [`Client::connect`]
    /// does for a development build, whose version string can not tell.
    ///
    /// # Errors
    /// The connection's errors.
    pub async fn probe_features(&self) -> Result<Features> {
        let session = format!("={}:", self.inner.service_session);
        let mut has = Vec::new();
        for row in DIFFERENCES {
            let holds = match row.difference.probe(&session) {
                Some((commands, holds)) => holds(&self.input(&commands).await?),
                None => row.versions.until.is_none(),
            };
            if holds {
                has.push(row.difference);
            }
        }
        Ok(Features::with(has))
    }

    /// The server's version, as its `#{version}` said when this client connected.
    pub fn version(&self) -> &TmuxVersion {
        &self.server().0
    }

    /// What the server does differently from other tmux versions (the rows of
    /// [`DIFFERENCES`](crate::DIFFERENCES) that hold for it), which the operations handle.
    pub fn features(&self) -> &Features {
        &self.server().1
    }

    fn server(&self) -> &(TmuxVersion, Features) {
        self.inner
            .server
            .get()
            .expect("the server's version is read before connect returns")
    }

    /// A handle on the same connection whose commands time out after `timeout` instead.
    pub fn with_timeout(&self, timeout: Duration) -> Client {
        Client {
            inner: self.inner.clone(),
            timeout,
        }
    }

    /// The timeout of this handle's commands.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The socket name (`-L`).
    pub fn socket_name(&self) -> &str {
        &self.inner.socket
    }

    /// The tmux program used.
    pub fn tmux(&self) -> &Path {
        &self.inner.tmux
    }

    /// The client's hidden service session (a caller listing sessions should leave it out).
    pub fn service_session(&self) -> &str {
        &self.inner.service_session
    }

    /// The pid of the `tmux -C` process.
    pub fn pid(&self) -> u32 {
        self.inner.pid
    }

    /// Notifications from now on (every one but the `%exit`, which ends the connection and
    /// closes the channel: `recv` then returns `Closed`). A receiver that falls more than
    /// `notification_capacity` behind gets `Lagged` and misses the oldest.
    pub fn subscribe(&self) -> broadcast::Receiver<Notification> {
        match &*self
            .inner
            .shared
            .notify
            .lock()
            .unwrap_or_else(|e| e.into_inner())
        {
            Some(tx) => tx.subscribe(),
            None => broadcast::channel(1).1,
        }
    }

    /// Why the connection ended, if it has.
    pub fn end(&self) -> Option<ConnectionEnd> {
        self.end_rx_value()
    }

    fn end_rx_value(&self) -> Option<ConnectionEnd> {
        self.inner.end_rx.borrow().clone()
    }

    /// Waits until the connection ends and tells why. Any number of callers may wait; each
    /// gets the same answer.
    pub async fn closed(&self) -> ConnectionEnd {
        let mut rx = self.inner.end_rx.clone();
        match rx.wait_for(|e| e.is_some()).await {
            Ok(end) => end.clone().expect("wait_for returned a value"),
            Err(_) => ConnectionEnd::Eof,
        }
    }

    /// Detaches the client (an empty line, as tmux's control mode defines) and waits for the
    /// connection's end, at most 2 s (the process is killed when the last handle drops).
    pub async fn close(&self) -> ConnectionEnd {
        if let Some(end) = self.end() {
            return end;
        }
        let _ = self.inner.jobs.send(Job::Detach);
        match timeout(Duration::from_secs(2), self.closed()).await {
            Ok(end) => end,
            Err(_) => {
                self.inner.shared.end(ConnectionEnd::WriteFailed(
                    "no %exit within 2 s of detaching".into(),
                ));
                self.closed().await
            }
        }
    }

    /// Sends one command and returns its reply, `%error` included (`success` false).
    ///
    /// # Errors
    /// [`Error::Quote`] (a NUL byte in an argument), [`Error::Timeout`],
    /// [`Error::ConnectionEnded`].
    pub async fn reply(&self, cmd: &Command) -> Result<Reply> {
        let line = cmd.line()?;
        let mut replies = self
            .send_lines(line_with_lf(line), vec![1], cmd.name())
            .await?;
        Ok(replies.pop().expect("one reply per line"))
    }

    /// Sends one command and returns its output lines (each without its LF).
    ///
    /// # Errors
    /// [`Error::Command`] with tmux's message when it answers `%error`; as [`Client::reply`].
    pub async fn run(&self, cmd: &Command) -> Result<Vec<Vec<u8>>> {
        let reply = self.reply(cmd).await?;
        into_output(cmd.name(), reply)
    }

    /// Sends several commands as ONE unbroken write (their lines back to back, nothing of any
    /// other caller between them) and returns every reply, in order, `%error`s included. tmux
    /// runs each line whatever happened to the ones before.
    ///
    /// # Errors
    /// [`Error::Quote`] (nothing is sent), [`Error::Timeout`] (for the whole input),
    /// [`Error::ConnectionEnded`].
    pub async fn input(&self, cmds: &[Command]) -> Result<Vec<Reply>> {
        if cmds.is_empty() {
            return Ok(Vec::new());
        }
        let mut bytes = Vec::new();
        for cmd in cmds {
            bytes.extend_from_slice(&cmd.line()?);
            bytes.push(b'\n');
        }
        self.send_lines(bytes, vec![1; cmds.len()], cmds[0].name())
            .await
    }

    /// Sends `cmds` on ONE command line (`a ; b ; c`), which tmux runs all or nothing from the
    /// first failure on: a command that fails removes the ones after it on the line, which then
    /// never run, even when tmux was stopped and reads the line later. The replies of the
    /// commands that ran, in order: all of them, or fewer, the last one then the failure
    /// (`success` false).
    ///
    /// For what must not happen without what comes before it: a key pressed after a paste
    /// (the paste failing, the key would run what was typed on the line before).
    ///
    /// # Errors
    /// As [`Client::input`].
    pub async fn group(&self, cmds: &[Command]) -> Result<Vec<Reply>> {
        self.lines(&[], cmds).await
    }

    /// `before` as lines of their own, then `group` on one line (see [`Client::group`]), in
    /// one write: the replies of `before`, then those of the group's commands that ran.
    pub(crate) async fn lines(&self, before: &[Command], group: &[Command]) -> Result<Vec<Reply>> {
        let mut bytes = Vec::new();
        let mut expected = Vec::with_capacity(before.len() + 1);
        for cmd in before {
            bytes.extend_from_slice(&cmd.line()?);
            bytes.push(b'\n');
            expected.push(1);
        }
        for (i, cmd) in group.iter().enumerate() {
            if i > 0 {
                bytes.extend_from_slice(b" ; ");
            }
            bytes.extend_from_slice(&cmd.line()?);
        }
        if !group.is_empty() {
            bytes.push(b'\n');
            expected.push(group.len());
        }
        let Some(first) = before.first().or(group.first()) else {
            return Ok(Vec::new());
        };
        self.send_lines(bytes, expected, first.name()).await
    }

    /// [`Client::input`], then the output lines of each command.
    ///
    /// # Errors
    /// The first command answered with `%error` gives [`Error::Command`]; as
    /// [`Client::input`].
    pub async fn input_ok(&self, cmds: &[Command]) -> Result<Vec<Vec<Vec<u8>>>> {
        let replies = self.input(cmds).await?;
        cmds.iter()
            .zip(replies)
            .map(|(cmd, reply)| into_output(cmd.name(), reply))
            .collect()
    }

    /// Returns once tmux has written to the panes what the commands answered before this call
    /// gave them (a paste, keys): tmux answers such a command in the pass of its event loop that
    /// runs it, and writes the bytes to the pane's terminal as that pane becomes writable,
    /// which may come after the answer has left. One more command's round trip (a
    /// `display-message` printing nothing) is read in a later pass, after those writes: a
    /// program that looks at the terminal's side (what waits unread on it) once this returns
    /// sees the bytes. A pane whose terminal is full keeps the rest in tmux, behind the bytes
    /// already written.
    ///
    /// # Errors
    /// As [`Client::reply`].
    pub async fn written(&self) -> Result<()> {
        let cmd = Command::new("display-message").arg("-p").arg("");
        self.reply(&cmd).await.map(|_| ())
    }

    /// Sends one command line as given, for what the typed operations do not cover. The line
    /// must hold exactly ONE command (no `;` separator, no `%if`, not only a comment):
    /// replies are matched one per line, and a line giving none or several would misalign them
    /// until the connection ends. Prefer [`Client::reply`] with a [`Command`], which quotes.
    ///
    /// # Errors
    /// [`Error::Refused`] for an empty line or one holding LF or CR; as [`Client::reply`].
    pub async fn raw(&self, line: &[u8]) -> Result<Reply> {
        if line.iter().all(|b| *b == b' ' || *b == b'\t') {
            return Err(Error::Refused(
                "an empty command line would detach the control client",
            ));
        }
        if line.contains(&b'\n') || line.contains(&b'\r') {
            return Err(Error::Refused(
                "a raw command line may not hold LF or CR: send one command per line",
            ));
        }
        let name =
            String::from_utf8_lossy(line.split(|b| *b == b' ').next().unwrap_or(b"")).into_owned();
        let mut replies = self
            .send_lines(line_with_lf(line.to_vec()), vec![1], &name)
            .await?;
        Ok(replies.pop().expect("one reply per line"))
    }

    /// The last line tmux printed outside any reply block, if any (tmux 3.3a prints the error
    /// of a `load-buffer` or `save-buffer` that failed after its `%end` that way).
    pub fn last_stray_line(&self) -> Option<Vec<u8>> {
        self.inner
            .shared
            .stray
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The client's private directory (mode 0700, removed with the client), where buffer data
    /// passes through files (0600) that live only while tmux reads or writes them.
    pub fn private_dir(&self) -> &Path {
        &self.inner.private_dir.path
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.inner.counter.fetch_add(1, Ordering::Relaxed)
    }

    /// Writes `bytes`, lines whose commands number `expected` (one entry a line), and waits
    /// for every line's replies.
    async fn send_lines(
        &self,
        bytes: Vec<u8>,
        expected: Vec<usize>,
        label: &str,
    ) -> Result<Vec<Reply>> {
        if let Some(end) = self.inner.shared.ended() {
            return Err(Error::ConnectionEnded(end));
        }
        let count: usize = expected.iter().sum();
        let mut slots = Vec::with_capacity(expected.len());
        let mut receivers = Vec::with_capacity(expected.len());
        for n in expected {
            let (tx, rx) = oneshot::channel();
            slots.push(PendingLine::new(n, tx));
            receivers.push(rx);
        }
        if self.inner.jobs.send(Job::Write { bytes, slots }).is_err() {
            return Err(Error::ConnectionEnded(
                self.inner.shared.ended().unwrap_or(ConnectionEnd::Eof),
            ));
        }
        let shared = &self.inner.shared;
        let wait_all = async {
            let mut replies = Vec::with_capacity(count);
            for rx in receivers {
                match rx.await {
                    Ok(Ok(line)) => replies.extend(line),
                    Ok(Err(end)) => return Err(Error::ConnectionEnded(end)),
                    Err(_) => {
                        return Err(Error::ConnectionEnded(
                            shared.ended().unwrap_or(ConnectionEnd::Eof),
                        ));
                    }
                }
            }
            Ok(replies)
        };
        match timeout(self.timeout, wait_all).await {
            Ok(result) => result,
            Err(_) => Err(Error::Timeout {
                command: label.to_string(),
                after: self.timeout,
            }),
        }
    }
}

fn line_with_lf(mut line: Vec<u8>) -> Vec<u8> {
    line.push(b'\n');
    line
}

/// The output lines of a reply, or [`Error::Command`] for an `%error`.
pub(crate) fn into_output(name: &str, reply: Reply) -> Result<Vec<Vec<u8>>> {
    if reply.success {
        Ok(reply.lines)
    } else {
        Err(Error::Command {
            command: name.to_string(),
            message: String::from_utf8_lossy(&reply.lines.join(&b'\n')).into_owned(),
        })
    }
}

struct AttachWait {
    tx: oneshot::Sender<std::result::Result<(), String>>,
    block_seen: bool,
    session_seen: bool,
}

async fn read_loop(
    mut stdout: ChildStdout,
    shared: Arc<Shared>,
    attach: oneshot::Sender<std::result::Result<(), String>>,
) {
    let mut parser = Parser::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut attach = Some(AttachWait {
        tx: attach,
        block_seen: false,
        session_seen: false,
    });
    let end = loop {
        match stdout.read(&mut buf).await {
            Ok(0) => break ConnectionEnd::Eof,
            Ok(n) => {
                parser.feed(&buf[..n]);
                while let Some(item) = parser.next_item() {
                    handle(item, &shared, &mut attach);
                }
            }
            Err(e) => break ConnectionEnd::ReadFailed(e.to_string()),
        }
    };
    for item in parser.finish() {
        handle(item, &shared, &mut attach);
    }
    if let Some(wait) = attach.take() {
        let _ = wait.tx.send(Err(format!("{end} before attaching")));
    }
    shared.end(end);
}

fn handle(
    item: std::result::Result<Event, ParseError>,
    shared: &Shared,
    attach: &mut Option<AttachWait>,
) {
    match item {
        Ok(Event::Reply(reply)) if reply.flags == 0 => {
            // Not a reply to this client's commands: the initial attach block.
            if let Some(wait) = attach.as_mut() {
                if !reply.success {
                    let message = String::from_utf8_lossy(&reply.lines.join(&b'\n')).into_owned();
                    if let Some(wait) = attach.take() {
                        let _ = wait.tx.send(Err(format!("tmux refused it: {message}")));
                    }
                    return;
                }
                wait.block_seen = true;
                attach_done(attach);
            } else {
                tracing::debug!(number = reply.number, "ignoring a reply block with flags 0");
            }
        }
        Ok(Event::Reply(reply)) => shared.deliver(reply),
        Ok(Event::Notification(Notification::Exit { reason })) => {
            if let Some(wait) = attach.take() {
                let why = reason.clone().unwrap_or_else(|| "no reason".into());
                let _ = wait.tx.send(Err(format!("tmux ended it (%exit: {why})")));
            }
            shared.end(ConnectionEnd::Exit { reason });
        }
        Ok(Event::Notification(notification)) => {
            if let (Some(wait), Notification::SessionChanged { .. }) =
                (attach.as_mut(), &notification)
            {
                wait.session_seen = true;
                attach_done(attach);
            }
            if let Some(tx) = &*shared.notify.lock().unwrap_or_else(|e| e.into_inner()) {
                let _ = tx.send(notification);
            }
        }
        Err(error) => {
            tracing::debug!(%error, "tmux printed a line outside the control protocol");
            *shared.stray.lock().unwrap_or_else(|e| e.into_inner()) = Some(error.line);
        }
    }
}

fn attach_done(attach: &mut Option<AttachWait>) {
    if matches!(attach, Some(w) if w.block_seen && w.session_seen)
        && let Some(wait) = attach.take()
    {
        let _ = wait.tx.send(Ok(()));
    }
}

async fn write_loop(
    mut stdin: ChildStdin,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    shared: Arc<Shared>,
) {
    while let Some(job) = jobs.recv().await {
        let bytes = match job {
            Job::Write { bytes, slots } => {
                let mut state = shared.lock();
                if let Some(end) = &state.ended {
                    let end = end.clone();
                    drop(state);
                    for line in slots {
                        let _ = line.slot.send(Err(end.clone()));
                    }
                    continue;
                }
                // Slots are queued before the bytes are written, so a reply can never arrive
                // before its slot.
                state.pending.extend(slots);
                bytes
            }
            Job::Detach => b"\n".to_vec(),
        };
        if let Err(e) = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        }
        .await
        {
            shared.end(ConnectionEnd::WriteFailed(e.to_string()));
        }
    }
    // Every handle is gone: dropping stdin makes tmux detach the client.
}

/// Owns the process: reaps it; once every handle is gone (stdin then closed, so tmux detaches
/// it), kills it if it is still there a second later.
async fn watch_child(mut child: Child, close: oneshot::Receiver<()>) {
    tokio::select! {
        _ = child.wait() => {}
        _ = close => {
            if timeout(Duration::from_secs(1), child.wait()).await.is_err() {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
        }
    }
}

/// A private directory (mode 0700) for files holding buffer data, removed on drop.
struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    fn create(parent: Option<&Path>) -> Result<PrivateDir> {
        use std::os::unix::fs::DirBuilderExt;
        let parent = match parent {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os("XDG_RUNTIME_DIR") {
                Some(dir) if Path::new(&dir).is_dir() => PathBuf::from(dir),
                _ => std::env::temp_dir(),
            },
        };
        sweep_dead(&parent);
        static DIR_COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut last = None;
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = parent.join(format!(
                "tmux-cc-{}-{}-{nanos:08x}",
                std::process::id(),
                DIR_COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(PrivateDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(Error::io(
                        format!("creating a private directory in {}", parent.display()),
                        e,
                    ));
                }
            }
        }
        Err(Error::io(
            format!("creating a private directory in {}", parent.display()),
            last.unwrap_or_else(|| std::io::Error::other("no free name")),
        ))
    }
}

/// Removes the EMPTY private directories of processes that died without removing theirs
/// (killed, or exited without dropping their clients). Files are removed right after use, so
/// such a directory is empty; `remove_dir` leaves any other alone.
fn sweep_dead(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("tmux-cc-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
