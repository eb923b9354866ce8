//! The controller's side of the control connection: the live server, the connection replaced
//! when it ends while its server runs, commands run and their failures mapped, and the
//! session queries and creation every tool starts with.

use std::sync::atomic::Ordering;

use tmux_cc::{Client, ClientOptions, Command, Reply, commands};

use crate::terminals::texts::NewSessionCause;
use crate::terminals::window::{WindowDescription, parse_window, window_format};

use super::*;

impl ControllerState {
    /// The current server, dead or alive.
    pub(crate) fn current_server(&self) -> RunningServer {
        self.live.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// What the connected tmux server does differently from other versions (tmux-cc's table).
    pub(crate) fn features(&self) -> tmux_cc::Features {
        self.current_server().client.features().clone()
    }

    /// The control connection, unless the terminals restart. A control connection that ended
    /// while its server runs (its `tmux -C` process killed) is replaced here: no supervisor
    /// would notice it, as the server did not die.
    pub(crate) async fn client(&self) -> Result<Client, TmuxFailure> {
        let live = self.current_server();
        if self.restarting.load(Ordering::SeqCst) || live.server.exit().is_some() {
            return Err(TmuxFailure::Restarting);
        }
        if live.client.end().is_none() {
            return Ok(live.client);
        }
        let _reconnecting = self.reconnect.lock().await;
        let live = self.current_server();
        if live.client.end().is_none() {
            return Ok(live.client);
        }
        if live.server.exit().is_some() {
            return Err(TmuxFailure::Restarting);
        }
        tracing::warn!(end = ?live.client.end(), "the tmux control connection ended while its server runs: connecting again");
        let client = live
            .server
            .connect(ClientOptions {
                command_timeout: self.config.command_timeout,
                service_session: Some(super::own_session_name()),
                ..ClientOptions::default()
            })
            .await
            .map_err(|e| TmuxFailure::Internal(format!("reconnecting to tmux failed: {e}")))?;
        self.live.write().unwrap_or_else(|e| e.into_inner()).client = client.clone();
        Ok(client)
    }

    pub(crate) fn map_error(&self, e: tmux_cc::Error) -> TmuxFailure {
        match e {
            tmux_cc::Error::ConnectionEnded(_) => TmuxFailure::Restarting,
            tmux_cc::Error::Timeout { .. } => TmuxFailure::Timeout(e.to_string()),
            other => TmuxFailure::Internal(other.to_string()),
        }
    }

    /// Sends commands as one write, returning every reply.
    pub(crate) async fn input(&self, cmds: &[Command]) -> Result<Vec<Reply>, TmuxFailure> {
        let client = self.client().await?;
        client.input(cmds).await.map_err(|e| self.map_error(e))
    }

    /// One command's reply.
    pub(crate) async fn reply(&self, cmd: Command) -> Result<Reply, TmuxFailure> {
        let client = self.client().await?;
        client.reply(&cmd).await.map_err(|e| self.map_error(e))
    }

    /// The windows of `session`, `None` when it does not exist.
    pub(crate) async fn list_windows(
        &self,
        session: &str,
    ) -> Result<Option<Vec<WindowDescription>>, TmuxFailure> {
        let reply = self
            .reply(commands::list_windows(
                &format!("={session}"),
                &window_format(false),
            ))
            .await?;
        if !reply.success {
            // The only way list-windows fails on a running server: the session is missing.
            return Ok(None);
        }
        let home = self.config.home.to_string_lossy();
        let prompts = self.current_server().prompts;
        Ok(Some(
            lines(&reply)
                .iter()
                .filter_map(|l| parse_window(l, false))
                .map(|mut w| {
                    w.fill(&prompts, &home);
                    w
                })
                .collect(),
        ))
    }

    /// Whether `session` exists.
    pub(crate) async fn has_session(&self, session: &str) -> Result<bool, TmuxFailure> {
        Ok(self
            .reply(Command::new("has-session").args(["-t", &format!("={session}")]))
            .await?
            .success)
    }

    /// Creates `session` with its window main (200x24, manual size, bash at home). Says
    /// whether this call created it, and why it had to (`None`: created concurrently, not an
    /// error).
    pub(crate) async fn create_session(
        &self,
        session: &str,
    ) -> Result<Option<NewSessionCause>, TmuxFailure> {
        let home = self.config.home.to_string_lossy().into_owned();
        let replies = self
            .input(&[
                new_terminal_session(session, Some(FIRST_WINDOW), &home),
                resize_to_terminal(&format!("={session}:={FIRST_WINDOW}")),
            ])
            .await?;
        if replies[0].success {
            let origin = self
                .sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .created(session);
            return Ok(Some(origin));
        }
        if self.has_session(session).await? {
            return Ok(None);
        }
        Err(TmuxFailure::Internal(format!(
            "new-session failed: {}",
            lines(&replies[0]).join(" ")
        )))
    }
}
