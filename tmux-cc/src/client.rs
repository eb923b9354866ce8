//! The control connection: one `tmux -u -C` client process, commands written as lines, replies
//! matched in order, notifications to subscribers.
//!
//! The protocol facts and the 3.3a traps it handles are listed in the crate's README ("Control
//! client"), read in tmux 3.3a's control.c and cmd-queue.c and measured on tmux 3.3a.

mod blocking;
mod commands;

mod options;
mod private_dir;
mod server_lock;
mod shared;
mod subscription;
mod tasks;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::process::Command as ProcessCommand;
use tokio::sync::{Notify, broadcast, mpsc, oneshot, watch};
use tokio::time::timeout;

pub use crate::end::ConnectionEnd;
pub(crate) use blocking::{FOREVER, WeakClient, wait};
pub(crate) use commands::into_output;
pub use options::{Attach, ClientFlags, ClientOptions, ServerSocket, validate_socket_name};
pub use subscription::{Delivery, Subscription};

use crate::command::Command;
use crate::error::{Error, Result};
use crate::spawn::{DeathSignal, spawn};
use crate::stderr::{Drain, Keep, drain_stderr};
use crate::version::{DIFFERENCES, Features, TmuxVersion};
use private_dir::PrivateDir;
use server_lock::{Process, server_lock};
use shared::{Job, Shared, State};
pub(crate) use tasks::{Route, Routed};
use tasks::{read_loop, watch_child, write_loop};

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
///
/// No two connections of this process to one server attach, or detach, at the same time: each
/// waits for the others (tmux crashes otherwise: `client/server_lock.rs`).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    timeout: Duration,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("socket", &self.inner.socket)
            .field("session", &self.inner.session.get().map(|s| &s.name))
            .field("pid", &self.inner.pid)
            .field("timeout", &self.timeout)
            .finish()
    }
}

struct Inner {
    socket: ServerSocket,
    /// The socket's name or path, for messages.
    label: String,
    tmux: PathBuf,
    /// The session attached, read once attached (before `connect` returns).
    session: OnceLock<AttachedSession>,
    /// Whether that session is the client's hidden service session.
    owns_session: bool,
    pid: u32,
    jobs: mpsc::UnboundedSender<Job>,
    shared: Arc<Shared>,
    end_rx: watch::Receiver<Option<ConnectionEnd>>,
    private_dir: PrivateDir,
    counter: AtomicU64,
    /// The server's version (`#{version}`, asked once when connecting) and what it does
    /// differently, set before `connect` returns.
    server: OnceLock<(TmuxVersion, Features)>,
    /// The options it was made with, and the extra connections opened from them on demand
    /// (blocking commands, the jobs' events): `client/blocking.rs`.
    extra: blocking::Extra,
}

struct AttachedSession {
    /// `$N`.
    id: String,
    name: String,
}

static SERVICE_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Client {
    /// Starts a control client on the server at socket `socket` (`tmux -L`) and waits until
    /// tmux has attached it: the initial flags-0 reply block and `%session-changed` seen.
    /// With the default [`Attach::ServiceSession`], then sets `destroy-unattached on` and
    /// `detach-on-destroy on` on its service session. The same as [`Client::connect_to`]
    /// with [`ServerSocket::Name`].
    ///
    /// # Errors
    /// - [`Error::BadSocketName`]; [`Error::Refused`] for a bad service session name.
    /// - [`Error::TmuxMissing`], [`Error::Io`]: the process could not start, or the private
    ///   directory could not be created.
    /// - [`Error::AttachFailed`]: tmux refused the session (e.g. no server on that socket,
    ///   or no such session for [`Attach::Session`]: the detail is tmux's message) or did not
    ///   attach within `attach_timeout`.
    pub async fn connect(tmux: &Path, socket: &str, options: ClientOptions) -> Result<Client> {
        Client::connect_to(tmux, &ServerSocket::Name(socket.to_string()), options).await
    }

    /// Starts a control client on the server at `socket` (`-L NAME` or `-S PATH`), attached
    /// as `options` say ([`ClientOptions::attach`], [`ClientOptions::flags`]), and waits
    /// until tmux has attached it. The version probe and [`Client::features`] work in both
    /// attach modes: they run on the session the client is attached to.
    ///
    /// # Errors
    /// As [`Client::connect`].
    pub async fn connect_to(
        tmux: &Path,
        socket: &ServerSocket,
        options: ClientOptions,
    ) -> Result<Client> {
        Client::connect_with(tmux, socket, options, None, false).await
    }

    /// [`Client::connect_to`], with the notifications `route` takes sent to it (a stream's
    /// pane output). With `join_left_over`, a service session of that name left by an open
    /// that was given up (`new-session -A`: attached to when it exists) is taken over rather
    /// than refused as a duplicate: for the extra connections, whose open a caller may drop
    /// after tmux made the session and before `destroy-unattached` was set on it.
    pub(crate) async fn connect_with(
        tmux: &Path,
        socket: &ServerSocket,
        options: ClientOptions,
        sink: Option<Route>,
        join_left_over: bool,
    ) -> Result<Client> {
        if let ServerSocket::Name(name) = socket {
            validate_socket_name(name)?;
        }
        let label = socket.label();
        let extra = blocking::Extra::new(options.clone());
        let service_session = match (&options.attach, options.service_session) {
            (Attach::Session(_), _) => None,
            (Attach::ServiceSession, Some(name)) => Some(name),
            (Attach::ServiceSession, None) => Some(format!(
                "tmux-cc-{}-{}",
                std::process::id(),
                SERVICE_COUNTER.fetch_add(1, Ordering::Relaxed)
            )),
        };
        if let Some(service_session) = &service_session
            && (service_session.is_empty()
                || !service_session
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_+".contains(&b)))
        {
            return Err(Error::Refused(
                "a service session name holds only ASCII letters, digits, '-', '_' and '+'",
            ));
        }
        let private_dir = PrivateDir::create(options.private_dir_parent.as_deref())?;

        let mut cmd = ProcessCommand::new(tmux);
        cmd.arg("-u").arg("-N").args(socket.args()).arg("-C");
        match (&options.attach, &service_session) {
            (Attach::Session(target), _) => {
                cmd.args(["attach-session", "-t", target]);
            }
            (Attach::ServiceSession, service) => {
                cmd.arg("new-session");
                if join_left_over {
                    // 3.2a to 3.7c: -A attaches to the session when it exists, with -f.
                    cmd.arg("-A");
                }
                cmd.arg("-s").arg(service.as_deref().unwrap_or_default());
            }
        }
        if let Some(flags) = options.flags.arg() {
            cmd.arg("-f").arg(flags);
        }
        if options.attach == Attach::ServiceSession {
            cmd.args(["sleep", "2147483647"]);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .kill_on_drop(true);
        // Held until tmux answered the attach, or the process of a failed one has gone.
        let lock = server_lock(socket);
        let held = lock.clone().lock_owned().await;
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
        let stderr_text = drain_stderr(
            child.stderr.take(),
            Drain {
                chunk: 1024,
                keep: Keep::First(1024),
                message: "tmux control client wrote to stderr",
                socket: None,
            },
        );

        let (end_tx, end_rx) = watch::channel(None);
        let (notify_tx, _) = broadcast::channel(options.notification_capacity.max(1));
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            end_tx,
            notify: Mutex::new(Some(notify_tx)),
            stray: Mutex::new(None),
            attached: AtomicBool::new(false),
        });
        let (exited_tx, exited_rx) = watch::channel(false);
        let process = Process {
            kill: Arc::new(Notify::new()),
            exited: exited_rx,
        };
        tokio::spawn(watch_child(child, process.kill.clone(), exited_tx));
        let (attach_tx, attach_rx) = oneshot::channel();
        tokio::spawn(read_loop(stdout, shared.clone(), attach_tx, sink));
        let (jobs_tx, jobs_rx) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(
            stdin,
            jobs_rx,
            shared.clone(),
            lock,
            process.clone(),
        ));

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
            process.kill.notify_one();
            process.wait(Duration::from_secs(1)).await;
            drop(held);
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
                socket: label,
                detail,
            });
        }
        shared.attached.store(true, Ordering::SeqCst);
        drop(held);

        let owns_session = service_session.is_some();
        let client = Client {
            inner: Arc::new(Inner {
                socket: socket.clone(),
                label,
                tmux: tmux.to_path_buf(),
                session: OnceLock::new(),
                owns_session,
                pid,
                jobs: jobs_tx,
                shared,
                end_rx,
                private_dir,
                counter: AtomicU64::new(0),
                server: OnceLock::new(),
                extra,
            }),
            timeout: options.command_timeout,
        };
        let mut commands = Vec::new();
        if let Some(service) = &service_session {
            // `=NAME:`, not `=NAME`: set-option resolves its -t as a pane, and tmux 3.3a
            // answers `no such session: =NAME` for the bare form.
            let target = format!("={service}:");
            commands.push(Command::new("set-option").args([
                "-t",
                &target,
                "destroy-unattached",
                "on",
            ]));
            commands.push(Command::new("set-option").args([
                "-t",
                &target,
                "detach-on-destroy",
                "on",
            ]));
        }
        // Without -t, display-message formats for the client's own session: the one attached.
        commands.push(Command::new("display-message").args(["-p", "#{session_id}"]));
        commands.push(Command::new("display-message").args(["-p", "#{session_name}"]));
        commands.push(Command::new("display-message").args(["-p", "#{version}"]));
        let replies = client.input_ok(&commands).await?;
        let first = |i: usize| {
            replies
                .get(i)
                .and_then(|lines| lines.first())
                .map(|line| String::from_utf8_lossy(line).into_owned())
                .unwrap_or_default()
        };
        let n = replies.len();
        let _ = client.inner.session.set(AttachedSession {
            id: first(n - 3),
            name: first(n - 2),
        });
        let said = format!("tmux {}", first(n - 1));
        let version = TmuxVersion::parse(&said)?;
        version.check_supported()?;
        let features = match Features::of_release(&version) {
            Some(features) => features,
            None => client.probe_features().await?,
        };
        let socket = &client.inner.label;
        tracing::debug!(socket, version = %version, ?features, "tmux server version");
        let _ = client.inner.server.set((version, features));
        tracing::debug!(socket, session = %client.session_name(), pid, "tmux control client attached");
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
        // The session's id: a target any session name is safe in.
        let session = format!("{}:", self.attached().id);
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

    /// The socket name (`-L`), or for a client connected with [`ServerSocket::Path`] the
    /// path as text.
    pub fn socket_name(&self) -> &str {
        &self.inner.label
    }

    /// The server's socket as given to [`Client::connect_to`].
    pub fn server_socket(&self) -> &ServerSocket {
        &self.inner.socket
    }

    /// The tmux program used.
    pub fn tmux(&self) -> &Path {
        &self.inner.tmux
    }

    /// The client's hidden service session, the one to leave out when listing sessions:
    /// `Some` with [`Attach::ServiceSession`] (the default), `None` with [`Attach::Session`],
    /// where the session attached is the user's ([`Client::session_name`] names it).
    pub fn service_session(&self) -> Option<&str> {
        self.owns_session().then(|| self.session_name())
    }

    /// The name of the session this client is attached to, as tmux said right after the
    /// attach (a rename later is not followed).
    pub fn session_name(&self) -> &str {
        &self.attached().name
    }

    /// The id (`$N`) of the session this client is attached to.
    pub fn session_id(&self) -> &str {
        &self.attached().id
    }

    /// Whether the session attached is the client's own hidden service session (created for
    /// it, gone with it: hide it), not a user's session ([`Attach::Session`]).
    pub fn owns_session(&self) -> bool {
        self.inner.owns_session
    }

    fn attached(&self) -> &AttachedSession {
        self.inner
            .session
            .get()
            .expect("the attached session is read before connect returns")
    }

    /// The pid of the `tmux -C` process.
    pub fn pid(&self) -> u32 {
        self.inner.pid
    }

    /// Notifications from now on (every one but the `%exit`, which ends the connection:
    /// [`Subscription::recv`] then returns `None`). A subscriber that falls more than
    /// [`notification_capacity`](ClientOptions::notification_capacity) behind gets the count of those
    /// it missed ([`Delivery::Lagged`]), then gets the ones after: nothing is lost unseen. On a
    /// lag, list again to resync.
    pub fn subscribe(&self) -> Subscription {
        Subscription::new(
            match &*self
                .inner
                .shared
                .notify
                .lock()
                .unwrap_or_else(|e| e.into_inner())
            {
                Some(tx) => tx.subscribe(),
                None => broadcast::channel(1).1,
            },
        )
    }

    /// Why the connection ended, if it has.
    pub fn end(&self) -> Option<ConnectionEnd> {
        self.end_rx_value()
    }

    fn end_rx_value(&self) -> Option<ConnectionEnd> {
        self.inner.end_rx.borrow().clone()
    }

    /// Waits until the connection ends and says why. Any number of callers may wait; each
    /// gets the same answer.
    pub async fn closed(&self) -> ConnectionEnd {
        let mut rx = self.inner.end_rx.clone();
        match rx.wait_for(|e| e.is_some()).await {
            Ok(end) => end.clone().expect("wait_for returned a value"),
            Err(_) => ConnectionEnd::Eof,
        }
    }

    /// Detaches the client (an empty line, as tmux's control mode defines) and waits for the
    /// connection's end: first for any other connection of the server attaching or detaching,
    /// then at most 2 s for the process's exit (it is killed then). The
    /// connections of its [streams](Client::stream) go first, the same way (those streams then
    /// end with [`StreamEnd::ConnectionEnded`](crate::StreamEnd::ConnectionEnded)); its
    /// blocking and jobs' connections go with its last handle.
    pub async fn close(&self) -> ConnectionEnd {
        self.close_opened().await;
        self.detach().await
    }

    /// Detaches the connections opened for this client (see [`Client::close`]), not itself.
    pub(crate) async fn close_opened(&self) {
        for connection in self.adopted().iter().rev() {
            connection.detach().await;
        }
    }

    /// Detaches this connection alone: see [`Client::close`].
    async fn detach(&self) -> ConnectionEnd {
        if let Some(end) = self.end() {
            return end;
        }
        let (done, detached) = oneshot::channel();
        let _ = self.inner.jobs.send(Job::Detach { done });
        let _ = detached.await;
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
}
