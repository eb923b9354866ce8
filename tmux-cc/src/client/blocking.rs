//! Blocking commands on a second control connection.
//!
//! tmux runs the commands of one client in order, and a command that blocks (`wait-for
//! CHANNEL`, `run-shell` without `-b`, `if-shell` without `-b`) holds every command sent after
//! it on the same connection until it returns: their replies are matched in order, so nothing
//! else answers meanwhile (head-of-line blocking). The rule of this crate: never a fork per
//! call; ONE connection for commands, and more only where a blocking command or a stream needs
//! one. [`Client::blocking`] is that second connection, opened on demand the first time and
//! kept for the life of the client; the jobs ([`crate::Job`]) have a third one of their own,
//! parked in `wait-for` on their event channel, opened the same way.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::OnceCell;

use super::{Client, ClientFlags, ClientOptions, Inner};
use crate::command::Command;
use crate::error::Result;
use crate::jobs::Hub;

/// Long enough to be no timeout: a `wait-for` waits as long as its channel is not signalled.
pub(crate) const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The options a client was made with, and its extra connections, each opened once, lazily.
pub(crate) struct Extra {
    /// As given to [`Client::connect`]: the extra connections attach the same way.
    options: ClientOptions,
    blocking: OnceCell<Client>,
    hub: OnceCell<Hub>,
}

impl Extra {
    pub(super) fn new(options: ClientOptions) -> Extra {
        Extra {
            options,
            blocking: OnceCell::new(),
            hub: OnceCell::new(),
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

    /// The jobs' event hub, started (its connection opened) the first time.
    pub(crate) async fn hub(&self) -> Result<&Hub> {
        let extra = &self.inner.extra;
        extra
            .hub
            .get_or_try_init(|| async {
                let events = self.open_extra("events").await?;
                Hub::start(self, events).await
            })
            .await
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

    async fn open_extra(&self, role: &str) -> Result<Client> {
        let mut options = self.inner.extra.options.clone();
        // Named after this client's service session, so that lists hide them with it.
        options.service_session = self.service_session().map(|name| format!("{name}-{role}"));
        // A connection for commands: whatever the main one asked, it takes no pane output.
        options.flags = ClientFlags::default();
        let client = Client::connect_to(&self.inner.tmux, &self.inner.socket, options).await?;
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
/// tells the wait is over is the next command's.
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
