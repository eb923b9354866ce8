//! Blocking commands on a second control connection.
//!
//! tmux runs the commands of one client in order, and a command that blocks (`wait-for
//! CHANNEL`, `run-shell` without `-b`, `if-shell` without `-b`) holds every command sent after
//! it on the same connection until it returns: their replies are matched in order, so nothing
//! else answers meanwhile (head-of-line blocking). The rule of this crate: never a fork per
//! call; ONE connection for commands, and more only where a blocking command or a stream needs
//! one. [`Client::blocking`] is that second connection, opened on demand the first time and
//! kept for the life of the client. Modules built on the connection open theirs the same way
//! (`Client::open_extra`) and keep their state with the client (`Client::extension`): the
//! jobs' event connection, parked in `wait-for` on their channel, is one. A stream's
//! connection is adopted (`Client::adopt`): closed before the client ([`Client::close`]).

use std::any::Any;
use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::OnceCell;

use super::{Client, ClientFlags, ClientOptions, Inner};
use crate::command::Command;
use crate::error::Result;

/// Long enough to be no timeout: a `wait-for` waits as long as its channel is not signalled.
pub(crate) const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The options a client was made with, and its extra connections, each opened once, lazily.
pub(crate) struct Extra {
    /// As given to [`Client::connect`]: the extra connections attach the same way.
    options: ClientOptions,
    blocking: OnceCell<Client>,
    /// The state of the modules built on the connection, one value per type, each made once
    /// ([`Client::extension`]).
    extensions: tokio::sync::Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
    /// The connections opened for this client that close before it (its streams'):
    /// [`Client::close`].
    adopted: Mutex<Vec<WeakClient>>,
}

impl Extra {
    pub(super) fn new(options: ClientOptions) -> Extra {
        Extra {
            options,
            blocking: OnceCell::new(),
            extensions: tokio::sync::Mutex::new(Vec::new()),
            adopted: Mutex::new(Vec::new()),
        }
    }
}

/// A handle on a client that does not keep its connection alive (the jobs' event task holds
/// one, so that the connection still ends when its last [`Client`] goes).
#[derive(Clone)]
pub(crate) struct WeakClient {
    inner: Weak<Inner>,
    timeout: Duration,
}

impl std::fmt::Debug for WeakClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeakClient")
            .field("live", &(self.inner.strong_count() > 0))
            .finish()
    }
}

impl WeakClient {
    /// The client, while a [`Client`] handle of it lives.
    pub(crate) fn upgrade(&self) -> Option<Client> {
        self.inner.upgrade().map(|inner| Client {
            inner,
            timeout: self.timeout,
        })
    }
}

impl Client {
    /// The second control connection, for blocking commands (`wait-for`, `run-shell` without
    /// `-b`), so that they never hold up the commands of this one. Opened the first time it
    /// is asked for (`Client::connect` to the same socket, with the options this client was
    /// made with and a hidden service session of its own: `NAME-blocking` when a name was
    /// given), then kept as long as this client: every call returns a handle on the same
    /// connection, never a new process.
    ///
    /// Its commands are in turn matched in order: a blocking command holds the ones sent after
    /// it on that connection (two `wait-for`s there return one after the other).
    ///
    /// # Errors
    /// Those of [`Client::connect`], the first time (a later call tries again).
    pub async fn blocking(&self) -> Result<Client> {
        let extra = &self.inner.extra;
        extra
            .blocking
            .get_or_try_init(|| self.open_extra("blocking"))
            .await
            .cloned()
    }

    /// `wait-for CHANNEL` on the [blocking](Client::blocking) connection: returns once the
    /// channel is signalled ([`Client::signal`], `tmux wait-for -S`, a hook), at once if it was
    /// signalled while nobody waited (tmux keeps such a signal until the next wait). No
    /// timeout: wrap it in `tokio::time::timeout` to give up.
    ///
    /// A wait given up (its future dropped) would still hold the blocking connection in tmux;
    /// so the channel is then signalled (on this connection), which releases it, and wakes any
    /// other waiter of that channel too.
    ///
    /// # Errors
    /// [`Error::Command`](crate::Error::Command) (e.g. an empty channel name), the
    /// connection's errors.
    pub async fn wait_for(&self, channel: &str) -> Result<()> {
        let blocking = self.blocking().await?.with_timeout(FOREVER);
        let mut release = Release {
            client: Some(self.clone()),
            channel: channel.to_string(),
        };
        let result = wait(&blocking, channel).await;
        release.client = None;
        result
    }

    /// `wait-for -S CHANNEL` on this connection (it never blocks): wakes every waiter of the
    /// channel, or, when none waits, keeps the signal for the next [`Client::wait_for`].
    ///
    /// # Errors
    /// [`Error::Command`](crate::Error::Command), the connection's errors.
    pub async fn signal(&self, channel: &str) -> Result<()> {
        self.run(&Command::new("wait-for").args(["-S", "--", channel]))
            .await
            .map(drop)
    }

    /// The value of type `T` kept with this client for a module built on the connection (the
    /// jobs' hub), made by `make` the first time it is asked for; a later call returns the same
    /// value. A `make` that fails is tried again by the next call.
    pub(crate) async fn extension<T, F, Fut>(&self, make: F) -> Result<Arc<T>>
    where
        T: Send + Sync + 'static,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let mut slots = self.inner.extra.extensions.lock().await;
        if let Some(found) = slots.iter().find_map(|s| s.clone().downcast::<T>().ok()) {
            return Ok(found);
        }
        let made = Arc::new(make().await?);
        slots.push(made.clone());
        Ok(made)
    }

    /// Makes `connection`, opened for this client (a stream's), close before it: see
    /// [`Client::close`].
    pub(crate) fn adopt(&self, connection: &Client) {
        let mut adopted = self
            .inner
            .extra
            .adopted
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        adopted.retain(|weak| weak.inner.strong_count() > 0);
        adopted.push(connection.downgrade());
    }

    /// The live connections opened for this client, and those opened for them, in turn: each
    /// after the one it was opened for.
    pub(super) fn adopted(&self) -> Vec<Client> {
        let mut found = Vec::new();
        let mut next = 0;
        let mut from = self.clone();
        loop {
            let adopted = from
                .inner
                .extra
                .adopted
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .filter_map(WeakClient::upgrade)
                .collect::<Vec<_>>();
            found.extend(adopted);
            let Some(connection) = found.get(next) else {
                return found;
            };
            from = connection.clone();
            next += 1;
        }
    }

    /// A handle that does not keep the connection alive.
    pub(crate) fn downgrade(&self) -> WeakClient {
        WeakClient {
            inner: Arc::downgrade(&self.inner),
            timeout: self.timeout,
        }
    }

    /// Whether `name` is one of this client's own hidden sessions: its service session, or
    /// that of one of its extra connections (`SERVICE-blocking`, `SERVICE-events`). `false`
    /// for every name when the client is attached to a user's session
    /// ([`Attach::Session`](crate::Attach::Session)): its extra connections attach there too.
    pub fn is_own_session(&self, name: &str) -> bool {
        let Some(service) = self.service_session() else {
            return false;
        };
        name == service
            || EXTRA_ROLES.iter().any(|role| {
                name.strip_prefix(service).and_then(|r| r.strip_prefix('-')) == Some(role)
            })
    }

    /// Opens another control connection for this client, attached as it was, its service
    /// session named `SERVICE-ROLE` (`role` one of the extra connections' roles). Not
    /// [adopted](Client::adopt): such a connection may be parked in a `wait-for`, and tmux
    /// 3.3a can crash when a client parked there is detached before `kill-server`
    /// (docs/design/engine-streams.md, "tmux crashes"); it goes with this client.
    pub(crate) async fn open_extra(&self, role: &str) -> Result<Client> {
        let mut options = self.inner.extra.options.clone();
        // Named after this client's service session, so that lists hide them with it.
        options.service_session = self.service_session().map(|name| format!("{name}-{role}"));
        // A connection for commands: whatever the main one asked, it takes no pane output.
        options.flags = ClientFlags::default();
        // An open given up (its caller dropped it: a wait_for under a timeout) may have left
        // the session behind, made by tmux before `destroy-unattached` was set: joined.
        let client =
            Client::connect_with(&self.inner.tmux, &self.inner.socket, options, None, true).await?;
        tracing::debug!(socket = %self.inner.label, role, pid = client.pid(), "extra control connection");
        Ok(client)
    }
}

/// The roles of the extra connections, which name their service sessions `SERVICE-ROLE`.
const EXTRA_ROLES: [&str; 2] = ["blocking", "events"];

/// `wait-for CHANNEL` then an empty `display-message`, in one write, and the replies of both.
///
/// tmux answers `wait-for` itself at once (its `%end` is written when the command returns,
/// even when it returns "wait"; cmd-queue.c, 3.2a to 3.7c): the wait shows only in the
/// commands after it on the same connection, which run once it is over. So the reply that
/// shows the wait is over is the next command's.
pub(crate) async fn wait(blocking: &Client, channel: &str) -> Result<()> {
    blocking
        .input_ok(&[
            Command::new("wait-for").arg("--").arg(channel),
            Command::new("display-message").args(["-p", ""]),
        ])
        .await
        .map(drop)
}

/// Signals the channel of a wait given up, releasing the blocking connection.
struct Release {
    client: Option<Client>,
    channel: String,
}

impl Drop for Release {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        let channel = std::mem::take(&mut self.channel);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = client.signal(&channel).await;
            });
        }
    }
}
