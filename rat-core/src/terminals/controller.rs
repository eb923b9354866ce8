//! The controller: the tenant's tmux server through tmux-cc, its options and terminal
//! environment, the startup check, restarts and the stop (`docs/design/terminals.md`: The tmux
//! server, The startup check, Lifecycle).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tmux_cc::{Client, ClientOptions, Command, Reply, Server, ServerOptions, commands};
use tokio_util::sync::CancellationToken;

use super::check::TerminalCheck;
use super::hook::{HookDir, parse_bash_version, shell_quote};
use super::names::is_valid_name;
use super::prompts::Prompts;
use super::texts::{self};
use crate::result::{ReadBudget, ToolResult};

mod connection;
mod follows;
mod sessions;
mod startup_check;

pub(crate) use follows::Follows;
use sessions::Sessions;

pub use tmux_cc::{ExitKind, ServerExit, StopReport, StopStep};

/// The width and height of every terminal, the same on every machine (`docs/design/terminals.md`).
pub const TERMINAL_SIZE: (u32, u32) = (200, 24);
/// The rows of history each terminal keeps (`history-limit`): the transcript's, the one number.
pub const HISTORY_LIMIT: u32 = super::transcript::HISTORY_LIMIT as u32;
/// The oldest bash accepted: bracketed paste exists since 4.4.
pub const MIN_BASH: (u32, u32) = (4, 4);
/// The longest the startup check takes.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(10);
/// The window every session starts with.
pub const FIRST_WINDOW: &str = "main";

/// How the controller starts. [`ControllerConfig::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct ControllerConfig {
    /// The tenant: the tmux socket is `rat-<tenant>`. A plain name (letters, digits, `_`, `-`,
    /// at most 32).
    pub tenant: String,
    /// The most a `read_window` result holds (64 KiB by default).
    pub read_budget: ReadBudget,
    /// The tmux program: `tmux`, looked up in `PATH` unless a path.
    pub tmux: PathBuf,
    /// The bash program: `bash`, looked up in `PATH` unless a path. 4.4 or later.
    pub bash: PathBuf,
    /// Where terminals start, and their `HOME`: `$HOME` by default.
    pub home: PathBuf,
    /// How long a tmux command may take (10 s, the deadline of a tool call).
    pub command_timeout: Duration,
    /// Secrets masked in answers and restored in inputs (the default), or shown.
    pub secrets: crate::secrets::Mode,
}

impl ControllerConfig {
    /// The defaults for `tenant`.
    pub fn new(tenant: impl Into<String>) -> Self {
        Self {
            tenant: tenant.into(),
            read_budget: ReadBudget::DEFAULT,
            tmux: PathBuf::from("tmux"),
            bash: PathBuf::from("bash"),
            home: std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from),
            command_timeout: Duration::from_secs(10),
            secrets: crate::secrets::Mode::Mask,
        }
    }

    /// The tmux socket name: `rat-<tenant>`.
    pub fn socket_name(&self) -> String {
        format!("rat-{}", self.tenant)
    }
}

/// Why the controller could not start its server (`docs/design/terminals.md`, Startup, step 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ControllerStartError {
    /// The tenant is not a plain name.
    #[error("invalid tenant name {0:?}: only letters, digits, '_' and '-', up to 32 characters")]
    BadTenant(String),
    /// Another tmux server answers on the socket: another ratd serves this tenant here.
    #[error(
        "another tmux server (pid {pid}) already serves socket {socket}: another ratd serves this tenant on this machine"
    )]
    ServerSocketInUse {
        /// The socket name.
        socket: String,
        /// The pid of the server answering there.
        pid: u32,
    },
    /// tmux missing or too old, as tmux-cc found it.
    #[error("{0}")]
    Tmux(#[source] tmux_cc::Error),
    /// bash was not found.
    #[error("bash was not found (looked for {}): install bash 4.4 or later", path.display())]
    BashMissing {
        /// What was looked for.
        path: PathBuf,
    },
    /// bash is older than 4.4, or its version could not be read.
    #[error("bash {version} is too old: rat needs bash 4.4 or later, for bracketed paste ({})", path.display())]
    BashTooOld {
        /// The version `bash --version` stated.
        version: String,
        /// The bash found.
        path: PathBuf,
    },
    /// The home directory, where terminals start, is missing or not a directory.
    #[error(
        "the terminals' home directory {} is missing or not a directory: create it, or give ratd's user an existing home (its HOME)",
        path.display()
    )]
    HomeMissing {
        /// [`ControllerConfig::home`].
        path: PathBuf,
    },
    /// Setting the server up failed (options, environment).
    #[error("could not set the tmux server up: {0}")]
    Setup(#[source] tmux_cc::Error),
    /// The terminals' prompt hook could not be set up (its private directory, its FIFO).
    #[error("could not set up the terminals' prompt hook: {0}")]
    Hook(#[source] std::io::Error),
}

/// A running server, its control connection, and what its terminals' hooks reported.
#[derive(Clone)]
pub(crate) struct RunningServer {
    pub server: Server,
    pub client: Client,
    pub prompts: Arc<Prompts>,
    /// Each pane's transcript, from the first input sent to it (docs/design/output.md).
    pub follows: Arc<Follows>,
}

/// Why a tmux command could not be run, shown to agents by [`TmuxFailure::result`].
#[derive(Debug)]
pub(crate) enum TmuxFailure {
    /// The server died or restarts.
    Restarting,
    /// tmux did not answer in time.
    Timeout(String),
    /// Anything else (logged, never shown).
    Internal(String),
}

impl TmuxFailure {
    pub(crate) fn result(self) -> ToolResult {
        match self {
            TmuxFailure::Restarting => {
                ToolResult::failed(texts::RESTARTING, "tmux server restarting")
            }
            TmuxFailure::Timeout(cause) => ToolResult::failed(texts::NOT_ANSWERING, cause),
            TmuxFailure::Internal(cause) => ToolResult::failed(texts::INTERNAL, cause),
        }
    }

    /// As [`TmuxFailure::result`], for a call whose commands were written to tmux: a timeout then
    /// says they may still take effect, and `look` how to see whether they did.
    pub(crate) fn result_sent(self, look: &str) -> ToolResult {
        match self {
            TmuxFailure::Timeout(cause) => {
                ToolResult::failed(texts::not_answering_sent(look), cause)
            }
            other => other.result(),
        }
    }
}

pub(crate) struct ControllerState {
    pub config: ControllerConfig,
    /// The tmux program, absolute.
    pub tmux: PathBuf,
    /// The bash program, absolute.
    pub bash: PathBuf,
    pub live: RwLock<RunningServer>,
    pub restarting: AtomicBool,
    pub stopping: CancellationToken,
    pub check: RwLock<TerminalCheck>,
    pub create_lock: tokio::sync::Mutex<()>,
    /// Held while a lost control connection is replaced.
    pub reconnect: tokio::sync::Mutex<()>,
    /// The sessions created, to say why one is created again (see [`Sessions`]).
    pub sessions: std::sync::Mutex<Sessions>,
    /// The sessions' placeholders (`docs/design/secrets.md`).
    pub secrets: crate::secrets::Secrets,
}

/// The terminals of a tenant: its tmux server (owned through tmux-cc), the startup check, and
/// [`Terminals`](super::Terminals) bound to sessions ([`Controller::session`], in
/// `tools.rs`: the controller knows nothing of the tools). Cheap to clone.
#[derive(Clone)]
pub struct Controller {
    pub(crate) inner: Arc<ControllerState>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("tenant", &self.inner.config.tenant)
            .finish_non_exhaustive()
    }
}

/// `program` as an absolute path: as given when it holds a `/`, else found in `PATH`.
fn resolve(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 || program.is_absolute() {
        return program.is_file().then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The name of the hidden tmux session of a new control connection of ratd: `ratd+PID+N`
/// (this process, a counter). tmux-cc names the sessions of its extra connections after it
/// (`ratd+PID+N-blocking`, `ratd+PID+N-events`). The `+` is a character no client name holds
/// (`rat_wire::mtls::check_client_name`) and tmux keeps as it is (it changes `.` and `:` into
/// `_`), so that no client certificate can name a session ratd uses itself.
pub(crate) fn own_session_name() -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!(
        "ratd+{}+{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

pub(crate) fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A session of [`TERMINAL_SIZE`] started in `home` (`new-session -d`), its first window named
/// `window` when given: a client's session, or the startup check's.
pub(crate) fn new_terminal_session(name: &str, window: Option<&str>, home: &str) -> Command {
    commands::new_session(name, window, TERMINAL_SIZE, home)
}

/// Sizes the window `target` to [`TERMINAL_SIZE`], and its size manual (`resize-window`): each
/// new window, in the write that creates it.
pub(crate) fn resize_to_terminal(target: &str) -> Command {
    let (width, height) = TERMINAL_SIZE;
    commands::resize_window(target, width, height)
}

/// The output lines of a reply, lossy UTF-8.
pub(crate) fn lines(reply: &Reply) -> Vec<String> {
    reply
        .lines
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

impl Controller {
    /// Starts the tenant's tmux server (`tmux -u -D -f /dev/null -L rat-<tenant>`, a child that
    /// dies with this process) with rat's options and terminal environment:
    ///
    /// - options: `default-shell` bash (terminals run it as a login shell), `history-limit`
    ///   10000, `default-size` 200x24, `allow-rename off`, `message-limit 0` (tmux keeps every
    ///   command line in its message log: pasted inputs must not linger there), `remain-on-exit
    ///   on` and an empty `remain-on-exit-format` (a shell that ends keeps its window until an
    ///   answer reported it). `window-size
    ///   manual` is set on each window by `resize-window`, NEVER globally (tmux 3.3a segfaults
    ///   on the next new session, issue 4849);
    /// - `default-command`: `exec bash --rcfile RC -i`, RC being rat's start-up file (see
    ///   [`super::hook`]): the login files, then rat's prompt hook, first in `PROMPT_COMMAND`;
    /// - environment: this process's, minus `NOTIFY_SOCKET` and `PROMPT_COMMAND`, plus
    ///   `LC_ALL=C.UTF-8`, `PAGER`, `GIT_PAGER`, `MANPAGER`, `SYSTEMD_PAGER` = `cat`, `HOME` =
    ///   [`ControllerConfig::home`]. `TMUX` stays set in the terminals (tmux sets it), so that a
    ///   `tmux` typed there reaches rat's server, not the user's.
    ///
    /// # Errors
    /// [`ControllerStartError`]: a bad tenant, another server on the socket (its pid), tmux missing or
    /// older than 3.3, bash missing or older than 4.4, or the setup failing.
    pub async fn start(config: ControllerConfig) -> Result<Controller, ControllerStartError> {
        if !is_valid_name(&config.tenant) {
            return Err(ControllerStartError::BadTenant(config.tenant));
        }
        let tmux = resolve(&config.tmux).ok_or_else(|| {
            ControllerStartError::Tmux(tmux_cc::Error::TmuxMissing {
                path: config.tmux.clone(),
            })
        })?;
        let bash = resolve(&config.bash).ok_or_else(|| ControllerStartError::BashMissing {
            path: config.bash.clone(),
        })?;
        check_bash(&bash).await?;
        let live = start_live(&config, &tmux, &bash).await?;
        let config_copy = config.clone();
        Ok(Controller {
            inner: Arc::new(ControllerState {
                config,
                tmux,
                bash,
                live: RwLock::new(live),
                restarting: AtomicBool::new(false),
                stopping: CancellationToken::new(),
                check: RwLock::new(TerminalCheck::all_holding()),
                create_lock: tokio::sync::Mutex::new(()),
                reconnect: tokio::sync::Mutex::new(()),
                sessions: std::sync::Mutex::new(Sessions::load(&config_copy)),
                secrets: crate::secrets::Secrets::new(config_copy.secrets),
            }),
        })
    }

    /// The configuration started with.
    pub fn config(&self) -> &ControllerConfig {
        &self.inner.config
    }

    /// The secrets of the tenant's sessions: their vaults (`docs/design/secrets.md`).
    pub fn secrets(&self) -> &crate::secrets::Secrets {
        &self.inner.secrets
    }

    /// The pid of the current tmux server.
    pub fn server_pid(&self) -> u32 {
        self.inner.current_server().server.pid()
    }

    /// What the startup check found (all holding until [`Controller::check_terminals`] ran).
    pub fn terminal_check(&self) -> TerminalCheck {
        self.inner
            .check
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Waits until the current tmux server exits, and reports how: its status or signal, and
    /// whether [`Controller::stop`] asked for it (`requested` false is a death: a crash, the OOM
    /// killer, `tmux kill-server` typed in a terminal). For ratd's supervisor, which restarts
    /// the server after a death ([`Controller::restart`]); the controller never does by itself.
    pub async fn wait_server(&self) -> ServerExit {
        let server = self.inner.current_server().server;
        server.wait().await
    }

    /// Starts a new server after a death. Meanwhile, and if it fails, tools answer that the
    /// terminals are restarting.
    ///
    /// # Errors
    /// As [`Controller::start`] (a stray server may hold the socket: `ServerSocketInUse`).
    pub async fn restart(&self) -> Result<(), ControllerStartError> {
        self.inner.restarting.store(true, Ordering::SeqCst);
        let old = self.inner.current_server();
        if old.server.exit().is_none() {
            let _ = old.server.stop().await;
        }
        let live = start_live(&self.inner.config, &self.inner.tmux, &self.inner.bash).await?;
        *self.inner.live.write().unwrap_or_else(|e| e.into_inner()) = live;
        self.inner
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .restarted();
        self.inner.restarting.store(false, Ordering::SeqCst);
        Ok(())
    }

    /// Makes every wait return at once, saying rat stops (`docs/design/terminals.md`, Shutdown:
    /// the door closes first, and a wait must not hold it open). [`Controller::stop`] does it too.
    pub fn announce_stop(&self) {
        self.inner.stopping.cancel();
    }

    /// A token cancelled when the controller stops ([`Controller::announce_stop`]).
    pub fn stopping(&self) -> CancellationToken {
        self.inner.stopping.child_token()
    }

    /// Stops the tmux server and every terminal: `kill-server`, then SIGTERM after 5 s, then
    /// SIGKILL 2 s later; the report says which step was needed, or that the server had
    /// exited already (stopped as a service, systemd signals tmux too). Waits return at once.
    ///
    /// # Errors
    /// tmux-cc's, when signalling the server failed.
    pub async fn stop(&self) -> Result<StopReport, tmux_cc::Error> {
        self.announce_stop();
        let live = self.inner.current_server();
        live.server.stop().await
    }
}

/// `word` as one word for bash: as it is when it holds only letters, digits and `/._-+,`, else
/// quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,".contains(&b));
    if plain {
        word.to_string()
    } else {
        shell_quote(word)
    }
}

async fn check_bash(bash: &Path) -> Result<(), ControllerStartError> {
    let output = tokio::process::Command::new(bash)
        .arg("--version")
        .env("LC_ALL", "C")
        .output()
        .await
        .map_err(|_| ControllerStartError::BashMissing {
            path: bash.to_path_buf(),
        })?;
    let said = String::from_utf8_lossy(&output.stdout);
    match parse_bash_version(&said) {
        Some((version, _)) if version >= MIN_BASH => Ok(()),
        Some((_, written)) => Err(ControllerStartError::BashTooOld {
            version: written,
            path: bash.to_path_buf(),
        }),
        None => Err(ControllerStartError::BashTooOld {
            version: format!(
                "of unknown version ({:?})",
                said.lines().next().unwrap_or("")
            ),
            path: bash.to_path_buf(),
        }),
    }
}

async fn start_live(
    config: &ControllerConfig,
    tmux: &Path,
    bash: &Path,
) -> Result<RunningServer, ControllerStartError> {
    // The server starts in the home directory: missing, spawning it fails with ENOENT, which
    // would read as tmux missing.
    if !config.home.is_dir() {
        return Err(ControllerStartError::HomeMissing {
            path: config.home.clone(),
        });
    }
    let mut options = ServerOptions::new(config.socket_name());
    options.tmux = tmux.to_path_buf();
    let hooks = HookDir::create(config.secrets == crate::secrets::Mode::Mask)
        .map_err(ControllerStartError::Hook)?;
    // bash reads rat's start-up file, which reads the login files, then puts the hook first.
    // tmux names a pane whose bash is still starting after this command's first word, cut at
    // its first space (`/usr/bin/bash` reads `bash`, as the bash it becomes): quoted only when
    // it must be.
    let shell_command = format!(
        "exec {} --rcfile {} -i",
        shell_word(&bash.to_string_lossy()),
        shell_word(&hooks.rc_path().to_string_lossy())
    );
    let prompts = Prompts::new(hooks);
    prompts
        .start_reading()
        .map_err(ControllerStartError::Hook)?;
    options.env_remove = vec![
        OsString::from("NOTIFY_SOCKET"),
        OsString::from("PROMPT_COMMAND"),
    ];
    let mut env: Vec<(OsString, OsString)> = vec![
        ("LC_ALL".into(), "C.UTF-8".into()),
        ("PAGER".into(), "cat".into()),
        ("GIT_PAGER".into(), "cat".into()),
        ("MANPAGER".into(), "cat".into()),
        ("SYSTEMD_PAGER".into(), "cat".into()),
    ];
    env.push(("HOME".into(), config.home.clone().into_os_string()));
    options.env = env;
    options.current_dir = Some(config.home.clone());
    let server = Server::start_with(options).await.map_err(|e| match e {
        tmux_cc::Error::ServerSocketInUse { socket, pid } => {
            ControllerStartError::ServerSocketInUse { socket, pid }
        }
        other => ControllerStartError::Tmux(other),
    })?;
    let client = server
        .connect(ClientOptions {
            command_timeout: config.command_timeout,
            service_session: Some(own_session_name()),
            ..ClientOptions::default()
        })
        .await
        .map_err(ControllerStartError::Setup)?;
    let (w, h) = TERMINAL_SIZE;
    client
        .input_ok(&[
            Command::new("set-option")
                .args(["-g", "default-shell"])
                .arg(bash.as_os_str().as_encoded_bytes()),
            Command::new("set-option").args(["-g", "default-command", &shell_command]),
            Command::new("set-option").args(["-g", "history-limit", &HISTORY_LIMIT.to_string()]),
            Command::new("set-option").args(["-g", "default-size", &format!("{w}x{h}")]),
            Command::new("set-option").args(["-g", "-w", "allow-rename", "off"]),
            Command::new("set-option").args(["-s", "message-limit", "0"]),
            // A window whose shell ends stays, dead, until an answer reported how it ended
            // (docs/design/prompts.md, A shell that ends).
            Command::new("set-option").args(["-g", "-w", "remain-on-exit", "on"]),
        ])
        .await
        .map_err(ControllerStartError::Setup)?;
    // Without tmux's own line in the dead pane (`Pane is dead (status 3, ...)`), from tmux
    // 3.3 on; 3.2a has no such option, and its line is left out of the rows read.
    client
        .input(&[Command::new("set-option").args(["-g", "-w", "remain-on-exit-format", ""])])
        .await
        .map_err(ControllerStartError::Setup)?;
    Ok(RunningServer {
        server,
        client,
        prompts,
        follows: Arc::new(Follows::default()),
    })
}
