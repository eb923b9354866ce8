//! A tmux server run in the foreground as a child process (`tmux -D`).
//!
//! How it starts, is found ready, refuses a socket another server holds and stops is listed in
//! the crate's README ("Server"), measured on tmux 3.3a.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, timeout};

use crate::client::{Client, ClientOptions, WeakClient, validate_socket_name};
use crate::error::{Error, Result};
use crate::exit::{ExitKind, ServerExit, StopReport, StopStep};
use crate::spawn::{DeathSignal, spawn};
use crate::stderr::{Drain, Keep, drain_stderr};
use crate::version::TmuxVersion;

/// How a tmux server is started and stopped. [`ServerOptions::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The socket name, passed as `tmux -L NAME`: 1 to 64 ASCII letters, digits, `-`, `_` or
    /// `.`, not starting with `.` (else [`Error::BadSocketName`]).
    pub socket_name: String,
    /// The tmux program: `tmux` (looked up in `PATH`) by default.
    pub tmux: PathBuf,
    /// How long the new server may take to answer its pid: 10 s by default. It answers in a
    /// few ms on an idle machine (about 50 ms with a load of 5 on 2 cores, measured); the
    /// margin is for a loaded one, where a restart given up too soon counts as a death.
    pub ready_timeout: Duration,
    /// How long [`Server::stop`] waits after `kill-server` before SIGTERM: 5 s by default.
    pub kill_server_grace: Duration,
    /// How long [`Server::stop`] waits after SIGTERM before SIGKILL: 2 s by default.
    pub terminate_grace: Duration,
    /// Variables removed from the server's environment (the environment its panes inherit).
    /// `TMUX` and `TMUX_PANE` are always removed, so that a server started from inside tmux
    /// does not believe it runs in another server's pane.
    pub env_remove: Vec<OsString>,
    /// Variables set in the server's environment (after `env_remove`).
    pub env: Vec<(OsString, OsString)>,
    /// The server's working directory; the owner's by default.
    pub current_dir: Option<PathBuf>,
}

impl ServerOptions {
    /// Defaults for a server on socket `socket_name`.
    pub fn new(socket_name: impl Into<String>) -> Self {
        ServerOptions {
            socket_name: socket_name.into(),
            tmux: PathBuf::from("tmux"),
            ready_timeout: Duration::from_secs(10),
            kill_server_grace: Duration::from_secs(5),
            terminate_grace: Duration::from_secs(2),
            env_remove: Vec::new(),
            env: Vec::new(),
            current_dir: None,
        }
    }
}

/// A tmux server started by tmux-cc: `tmux -u -D -f /dev/null -L NAME`, a child of this process
/// that dies with it (SIGTERM when the owner dies).
///
/// Cheap to clone: clones share the one server. When the last clone is dropped, the server is
/// sent SIGTERM (tmux then exits cleanly, hanging up its panes). A foreground server does not
/// exit with its last session.
#[derive(Debug, Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

#[derive(Debug)]
struct ServerInner {
    options: ServerOptions,
    pid: u32,
    version: TmuxVersion,
    exit: watch::Receiver<Option<ServerExit>>,
    signals: mpsc::UnboundedSender<Signal>,
    requested: Arc<AtomicBool>,
    stderr: Arc<Mutex<String>>,
    socket_file: Arc<Mutex<Option<SocketFile>>>,
    socket_path: std::sync::OnceLock<PathBuf>,
    /// The clients [`Server::connect`] made, which [`Server::stop`] closes first.
    clients: Mutex<Vec<WeakClient>>,
}

/// How many bytes of the server's standard error are kept for error messages.
const STDERR_KEPT: usize = 4096;

impl Server {
    /// Starts a server with [`ServerOptions::new`]'s defaults on socket `socket_name`.
    ///
    /// # Errors
    /// See [`Server::start_with`].
    pub async fn start(socket_name: &str) -> Result<Server> {
        Server::start_with(ServerOptions::new(socket_name)).await
    }

    /// Starts a server and waits until it answers `display-message -p '#{pid}'` with the pid
    /// of the child started (a few ms; at most `ready_timeout`). A stale socket (a file no
    /// server listens on) is taken over.
    ///
    /// # Errors
    /// - [`Error::BadSocketName`], before anything is started.
    /// - [`Error::TmuxMissing`], [`Error::TmuxTooOld`], [`Error::TmuxVersionUnknown`]: from
    ///   `tmux -V`.
    /// - [`Error::ServerSocketInUse`]: another server answers on the socket (the new `tmux -D`
    ///   then fails at once); names that server's pid.
    /// - [`Error::ServerExitedAtStart`]: the child exited and nothing answers on the socket.
    /// - [`Error::ServerNotReady`]: the child runs but did not answer in time (it is killed).
    /// - [`Error::Io`]: the child could not be started.
    pub async fn start_with(options: ServerOptions) -> Result<Server> {
        validate_socket_name(&options.socket_name)?;
        let version = tmux_version(&options.tmux).await?;

        let mut cmd = Command::new(&options.tmux);
        cmd.args(["-u", "-D", "-f", "/dev/null", "-L", &options.socket_name])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .env_remove("TMUX")
            .env_remove("TMUX_PANE");
        for name in &options.env_remove {
            cmd.env_remove(name);
        }
        for (name, value) in &options.env {
            cmd.env(name, value);
        }
        if let Some(dir) = &options.current_dir {
            cmd.current_dir(dir);
        }
        let mut child = spawn(cmd, DeathSignal::Term)
            .await
            .map_err(|e| spawn_error(&options.tmux, "starting the tmux server", e))?;
        let pid = child.id().ok_or_else(|| {
            Error::io(
                "starting the tmux server",
                std::io::Error::other("the child had no pid"),
            )
        })?;

        let stderr = drain_stderr(
            child.stderr.take(),
            Drain {
                chunk: 4096,
                keep: Keep::Last(STDERR_KEPT),
                message: "tmux server wrote to stderr",
                socket: Some(options.socket_name.clone()),
            },
        );

        let (exit_tx, exit_rx) = watch::channel(None);
        let (signal_tx, signal_rx) = mpsc::unbounded_channel();
        let requested = Arc::new(AtomicBool::new(false));
        let socket_file = Arc::new(Mutex::new(None));
        tokio::spawn(supervise(
            child,
            signal_rx,
            exit_tx,
            requested.clone(),
            options.terminate_grace,
            socket_file.clone(),
        ));
        let server = Server {
            inner: Arc::new(ServerInner {
                options,
                pid,
                version,
                exit: exit_rx,
                signals: signal_tx,
                requested,
                stderr,
                socket_file,
                socket_path: std::sync::OnceLock::new(),
                clients: Mutex::new(Vec::new()),
            }),
        };
        server.wait_ready().await?;
        tracing::debug!(socket = %server.socket_name(), pid, "tmux server ready");
        Ok(server)
    }

    async fn wait_ready(&self) -> Result<()> {
        let options = &self.inner.options;
        let deadline = Instant::now() + options.ready_timeout;
        let mut other = None;
        loop {
            let exited = *self.inner.exit.borrow();
            let answer = server_pid(&options.tmux, &options.socket_name).await;
            let answer = match answer {
                Some((pid, path)) if pid == self.inner.pid && exited.is_none() => {
                    let file = SocketFile::of(path.clone());
                    *self
                        .inner
                        .socket_file
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = file;
                    let _ = self.inner.socket_path.set(path);
                    return Ok(());
                }
                other => other.map(|(pid, _)| pid),
            };
            match (exited, answer) {
                (Some(_), Some(pid)) if pid != self.inner.pid => {
                    return Err(Error::ServerSocketInUse {
                        socket: options.socket_name.clone(),
                        pid,
                    });
                }
                (Some(exit), _) => {
                    return Err(Error::ServerExitedAtStart {
                        socket: options.socket_name.clone(),
                        exit,
                        stderr: self.stderr_text(),
                    });
                }
                (None, Some(pid)) => other = Some(pid),
                (None, None) => {}
            }
            if Instant::now() >= deadline {
                self.inner.requested.store(true, Ordering::SeqCst);
                let _ = self.inner.signals.send(Signal::SIGKILL);
                return Err(match other {
                    Some(pid) => Error::ServerSocketInUse {
                        socket: options.socket_name.clone(),
                        pid,
                    },
                    None => Error::ServerNotReady {
                        socket: options.socket_name.clone(),
                        pid: self.inner.pid,
                        waited: options.ready_timeout,
                    },
                });
            }
            let mut exit = self.inner.exit.clone();
            let _ = timeout(Duration::from_millis(5), exit.wait_for(|e| e.is_some())).await;
        }
    }

    fn stderr_text(&self) -> String {
        self.inner
            .stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .trim()
            .to_string()
    }

    /// The socket name (`-L`).
    pub fn socket_name(&self) -> &str {
        &self.inner.options.socket_name
    }

    /// The tmux program used.
    pub fn tmux(&self) -> &Path {
        &self.inner.options.tmux
    }

    /// The server's socket file (`#{socket_path}`, e.g. `/tmp/tmux-1000/NAME`). tmux 3.3a
    /// leaves it behind when it exits; tmux-cc removes it after the exit unless another server
    /// has replaced it since.
    pub fn socket_path(&self) -> &Path {
        self.inner
            .socket_path
            .get()
            .map(PathBuf::as_path)
            .unwrap_or(Path::new(""))
    }

    /// The server's pid (the child started, which is the server since it runs with `-D`).
    pub fn pid(&self) -> u32 {
        self.inner.pid
    }

    /// The version `tmux -V` named at start.
    pub fn version(&self) -> &TmuxVersion {
        &self.inner.version
    }

    /// How the server ended, if it has.
    pub fn exit(&self) -> Option<ServerExit> {
        *self.inner.exit.borrow()
    }

    /// Waits until the server exits and reports how. Any number of callers may wait, at once or
    /// later: each gets the same answer (the child is reaped once).
    pub async fn wait(&self) -> ServerExit {
        let mut exit = self.inner.exit.clone();
        match exit.wait_for(|e| e.is_some()).await {
            Ok(exit) => exit.expect("wait_for returned a value"),
            // The supervising task always sends before it ends; a runtime shutting down may
            // drop it without, and then nobody can tell.
            Err(_) => ServerExit {
                status: ExitKind::Unknown,
                requested: self.inner.requested.load(Ordering::SeqCst),
            },
        }
    }

    async fn wait_for(&self, limit: Duration) -> Option<ServerExit> {
        timeout(limit, self.wait()).await.ok()
    }

    /// Stops the server: first closes what was opened for the clients [`Server::connect`]
    /// made (their streams' connections, their blocking and jobs' connections; see
    /// [`Client::close`]), within `kill_server_grace`, leaving the clients themselves to
    /// `kill-server`; then `tmux kill-server`, then SIGTERM if it has not exited after
    /// `kill_server_grace` (5 s), then SIGKILL after `terminate_grace` (2 s) more. Reports which
    /// step was needed, or that the server had already exited.
    ///
    /// Why this order: tmux 3.3a crashes (SIGSEGV) now and then when a client detaches from its
    /// own session right before `kill-server`, and never in 1000 stops without it
    /// (docs/design/engine-streams.md, "tmux crashes").
    ///
    /// # Errors
    /// [`Error::Io`] if the server still runs 5 s after SIGKILL (a process stuck in the kernel).
    pub async fn stop(&self) -> Result<StopReport> {
        if let Some(exit) = self.exit() {
            return Ok(StopReport {
                step: StopStep::AlreadyExited,
                exit,
            });
        }
        self.inner.requested.store(true, Ordering::SeqCst);
        let options = &self.inner.options;
        let started = Instant::now();
        let clients: Vec<Client> =
            std::mem::take(&mut *self.inner.clients.lock().unwrap_or_else(|e| e.into_inner()))
                .iter()
                .filter_map(WeakClient::upgrade)
                .collect();
        let _ = timeout(options.kill_server_grace, async {
            for client in &clients {
                client.close_opened().await;
            }
        })
        .await;
        // kill-server itself can block (tmux issue 5444): bounded by the grace.
        let _ = tmux_output(
            &options.tmux,
            &options.socket_name,
            &["kill-server"],
            options.kill_server_grace,
        )
        .await;
        let left = options.kill_server_grace.saturating_sub(started.elapsed());
        if let Some(exit) = self.wait_for(left).await {
            return Ok(StopReport {
                step: StopStep::KillServer,
                exit,
            });
        }
        tracing::warn!(socket = %self.socket_name(), "tmux server still running after kill-server: sending SIGTERM");
        let _ = self.inner.signals.send(Signal::SIGTERM);
        if let Some(exit) = self.wait_for(options.terminate_grace).await {
            return Ok(StopReport {
                step: StopStep::Terminate,
                exit,
            });
        }
        tracing::warn!(socket = %self.socket_name(), "tmux server still running after SIGTERM: sending SIGKILL");
        let _ = self.inner.signals.send(Signal::SIGKILL);
        match self.wait_for(Duration::from_secs(5)).await {
            Some(exit) => Ok(StopReport {
                step: StopStep::Kill,
                exit,
            }),
            None => Err(Error::io(
                format!("stopping the tmux server (pid {})", self.pid()),
                std::io::Error::other("still running 5 s after SIGKILL"),
            )),
        }
    }

    /// Attaches a control client to this server: see [`Client::connect`]. [`Server::stop`]
    /// closes it first.
    ///
    /// # Errors
    /// See [`Client::connect`].
    pub async fn connect(&self, options: ClientOptions) -> Result<Client> {
        let client = Client::connect(self.tmux(), self.socket_name(), options).await?;
        let mut clients = self.inner.clients.lock().unwrap_or_else(|e| e.into_inner());
        clients.retain(|weak| weak.upgrade().is_some());
        clients.push(client.downgrade());
        Ok(client)
    }
}

/// Owns the child: reaps it, sends it the signals asked for (before it is reaped, so a pid
/// reused by another process is never signalled), and publishes its exit once.
async fn supervise(
    mut child: Child,
    mut signals: mpsc::UnboundedReceiver<Signal>,
    exit_tx: watch::Sender<Option<ServerExit>>,
    requested: Arc<AtomicBool>,
    terminate_grace: Duration,
    socket_file: Arc<Mutex<Option<SocketFile>>>,
) {
    let send = |child: &Child, signal: Signal| {
        if let Some(pid) = child.id() {
            let _ = kill(Pid::from_raw(pid as i32), signal);
        }
    };
    let status = loop {
        tokio::select! {
            status = child.wait() => break status,
            signal = signals.recv() => match signal {
                Some(signal) => send(&child, signal),
                None => {
                    // Every handle is gone: end the server, politely first.
                    requested.store(true, Ordering::SeqCst);
                    send(&child, Signal::SIGTERM);
                    match timeout(terminate_grace, child.wait()).await {
                        Ok(status) => break status,
                        Err(_) => {
                            send(&child, Signal::SIGKILL);
                            break child.wait().await;
                        }
                    }
                }
            },
        }
    };
    let status = match status {
        Ok(status) => ExitKind::from(status),
        Err(e) => {
            tracing::warn!(error = %e, "waiting for the tmux server failed");
            ExitKind::Unknown
        }
    };
    let exit = ServerExit {
        status,
        requested: requested.load(Ordering::SeqCst),
    };
    if !exit.requested {
        // Debug, not warning: whether an exit nobody asked for is a death is the owner's call
        // (ratd's supervisor judges it, and a service stop that reached tmux too is none).
        tracing::debug!(%exit, "the tmux server ended");
    }
    if let Some(file) = &*socket_file.lock().unwrap_or_else(|e| e.into_inner()) {
        file.remove_if_unchanged();
    }
    let _ = exit_tx.send(Some(exit));
}

fn spawn_error(tmux: &Path, what: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        Error::TmuxMissing {
            path: tmux.to_path_buf(),
        }
    } else {
        Error::io(format!("{what} ({})", tmux.display()), e)
    }
}

/// Runs `tmux -V` and checks the version.
///
/// # Errors
/// [`Error::TmuxMissing`], [`Error::TmuxTooOld`], [`Error::TmuxVersionUnknown`], [`Error::Io`].
pub async fn tmux_version(tmux: &Path) -> Result<TmuxVersion> {
    let mut cmd = Command::new(tmux);
    cmd.arg("-V")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = spawn(cmd, DeathSignal::Kill)
        .await
        .map_err(|e| spawn_error(tmux, "running tmux -V", e))?;
    let output = timeout(Duration::from_secs(5), child.wait_with_output())
        .await
        .map_err(|_| {
            Error::io(
                "running tmux -V",
                std::io::Error::other("no answer within 5 s"),
            )
        })?
        .map_err(|e| Error::io("running tmux -V", e))?;
    let said = String::from_utf8_lossy(&output.stdout);
    let version = TmuxVersion::parse(&said)?;
    version.check_supported()?;
    Ok(version)
}

/// Runs a forked `tmux -L SOCKET ARGS...` (no config, stdin closed) and returns its output, or
/// `None` if it could not run or did not finish within `limit` (then it is killed).
pub(crate) async fn tmux_output(
    tmux: &Path,
    socket: &str,
    args: &[&str],
    limit: Duration,
) -> Option<std::process::Output> {
    let mut cmd = Command::new(tmux);
    cmd.arg("-L")
        .arg(socket)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("TMUX")
        .kill_on_drop(true);
    let child = spawn(cmd, DeathSignal::Kill).await.ok()?;
    timeout(limit, child.wait_with_output()).await.ok()?.ok()
}

/// The pid and socket path of the server answering on `socket`, if one answers within 500 ms
/// (`display-message -p '#{pid} #{socket_path}'`).
pub(crate) async fn server_pid(tmux: &Path, socket: &str) -> Option<(u32, PathBuf)> {
    let output = tmux_output(
        tmux,
        socket,
        &["display-message", "-p", "#{pid} #{socket_path}"],
        Duration::from_millis(500),
    )
    .await?;
    if !output.status.success() {
        return None;
    }
    let text = std::str::from_utf8(&output.stdout)
        .ok()?
        .trim_end_matches('\n');
    let (pid, path) = text.split_once(' ')?;
    Some((pid.parse().ok()?, PathBuf::from(path)))
}

/// The socket file a server created, identified by device, inode and birth time, so that it is
/// removed after the server's exit only if no other server has replaced it since (tmux 3.3a
/// leaves its socket file behind when it exits). The birth time matters: ext4 gives a file
/// created right after another was deleted the same inode number, so a server that took the
/// socket between the death and the reap would otherwise lose its socket file (measured here).
/// Not the change time, which tmux changes with the mode of the socket as clients come and go.
#[derive(Debug)]
struct SocketFile {
    path: PathBuf,
    dev: u64,
    ino: u64,
    /// `None` where the file system does not say (then device and inode alone decide).
    born: Option<std::time::SystemTime>,
}

impl SocketFile {
    fn of(path: PathBuf) -> Option<SocketFile> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(&path).ok()?;
        Some(SocketFile {
            path,
            dev: meta.dev(),
            ino: meta.ino(),
            born: meta.created().ok(),
        })
    }

    fn remove_if_unchanged(&self) {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::symlink_metadata(&self.path)
            && (meta.dev(), meta.ino(), meta.created().ok()) == (self.dev, self.ino, self.born)
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests;
