//! Running a tool call: the arguments read into rat-core's input types, the session bound, the
//! deadline of the call (`docs/design/transport.md`, Timeouts), the cancellation of wait_window
//! when its HTTP request ends or ratd stops (`docs/design/terminals.md`, Shutdown). The tools
//! themselves are rat-core's.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rat_core::catalog::{Tool, call_wait};
use rat_core::files::{self, ReadFile, WriteFile};
use rat_core::result::{ReadBudget, ToolResult};
use rat_core::secrets::Vault;
use rat_core::terminals::{
    CloseWindow, Controller, CreateWindow, ReadWindow, SendKeys, SendText, WaitWindow, texts,
};
use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::in_flight::InFlight;
use crate::peer::Peer;
use crate::service::logs::cut_quoted;

/// How long a tool call may take, plus its wait for wait_window (`docs/design/transport.md`,
/// Timeouts): tmux answers in milliseconds, beyond this it is stuck.
pub(crate) const TOOL_TIMEOUT: Duration = Duration::from_secs(10);

/// Reads the arguments of `tool` into its input type, or the result telling the agent what is
/// wrong with them (MCP: bad arguments are a tool result with isError, which the model reads,
/// rather than a protocol error, which harnesses show as an opaque failure).
pub(crate) fn arguments<T: DeserializeOwned>(
    tool: &str,
    arguments: JsonObject,
) -> Result<T, ToolResult> {
    serde_json::from_value(serde_json::Value::Object(arguments)).map_err(|error| {
        // serde names the value it could not read: a text, keys spelling a password. The agent
        // sent it and reads its start; the log never holds it.
        let error = error.to_string();
        ToolResult::refused(
            format!(
                "The arguments of {tool} are not valid: {}. Nothing was done: call {tool} \
again with arguments that follow its input schema.",
                cut_quoted(&error, 64)
            ),
            format!("invalid arguments: {}", cut_quoted(&error, 0)),
        )
    })
}

/// The text of a call tmux did not answer within its time (beyond it, tmux is stuck, and the
/// agent is told so: `docs/design/transport.md`, Timeouts).
pub(crate) fn tmux_not_answering(tool: &str, limit: Duration) -> ToolResult {
    ToolResult::failed(
        // The words of rat-core's own timeout of a tmux command.
        texts::NOT_ANSWERING,
        format!("{tool}: no answer from tmux within {} s", limit.as_secs()),
    )
}

struct Counted<'a>(&'a AtomicUsize);

impl<'a> Counted<'a> {
    fn new(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Self(counter)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs the tools of rat-core for the sessions of one tenant.
pub(crate) struct Runner {
    controller: Controller,
    pub(crate) read_budget: ReadBudget,
    pub(crate) in_flight: Arc<InFlight>,
    /// The writes in progress (`rat_core::files::journal`), when it could be opened.
    pub(crate) journal: Option<Arc<rat_core::files::journal::Journal>>,
}

impl Runner {
    pub(crate) fn new(controller: Controller, read_budget: ReadBudget) -> Self {
        Self {
            controller,
            read_budget,
            in_flight: Arc::default(),
            journal: None,
        }
    }

    /// Runs `tool` with `arguments` in the session of `peer`. `request` fires when the HTTP
    /// request ends (rmcp cancels the request's context): it ends a wait at once, as
    /// [`Controller::announce_stop`] does when ratd stops.
    pub(crate) async fn call(
        &self,
        tool: &str,
        args: JsonObject,
        peer: &Peer,
        request: CancellationToken,
    ) -> ToolResult {
        let _call = Counted::new(&self.in_flight.calls);
        let vault = self.controller.secrets().vault(&peer.client);
        let (Ok(mut result) | Err(mut result)) =
            self.run(tool, args, peer, request, vault.as_deref()).await;
        // Every answer masked (docs/design/secrets.md); read_window's before its budget's cut,
        // in rat-core, as the rows of the answers that wait.
        if let Some(vault) = &vault
            && tool != "read_window"
        {
            vault.mask_result(&mut result);
        }
        result
    }

    async fn run(
        &self,
        name: &str,
        args: JsonObject,
        peer: &Peer,
        request: CancellationToken,
        vault: Option<&Vault>,
    ) -> Result<ToolResult, ToolResult> {
        let Some(tool) = Tool::from_name(name) else {
            return Err(ToolResult::refused(
                format!(
                    "There is no tool named {name:?}: ratd offers {}.",
                    Tool::NAMES.join(", ")
                ),
                format!("unknown tool {name:?}"),
            ));
        };
        // Checked against the tool's schema first, so that a mistyped argument is told in the
        // agent's terms rather than serde's.
        let args = rat_core::arguments::check(name, args)?;
        // A call that waits (wait_window, a send asked to wait) is a wait: its deadline sized by
        // its wait, counted among the waits in flight, ended by the request's end or ratd's
        // stop. The wait is read from the table, as rat reads it for its own deadline.
        let wait = call_wait(name, &args);
        let _wait = (!wait.is_zero()).then(|| Counted::new(&self.in_flight.waits));
        let limit = TOOL_TIMEOUT + wait;
        let session = self.controller.session(&peer.client);
        // Matched on every tool: a tool added to the table without a handler does not compile.
        Ok(match tool {
            Tool::ListWindows => within(name, limit, session.list_windows()).await,
            Tool::CreateWindow => {
                let input: CreateWindow = arguments(name, args)?;
                within(name, limit, session.create_window(input)).await
            }
            Tool::CloseWindow => {
                let input: CloseWindow = arguments(name, args)?;
                within(name, limit, session.close_window(input)).await
            }
            Tool::SendText => {
                let mut input: SendText = arguments(name, args)?;
                restore(vault, &mut input.text, name, "text")?;
                within(name, limit, session.send_text_with(input, request)).await
            }
            Tool::SendKeys => {
                let input: SendKeys = arguments(name, args)?;
                within(name, limit, session.send_keys_with(input, request)).await
            }
            Tool::ReadWindow => {
                let input: ReadWindow = arguments(name, args)?;
                within(name, limit, session.read_window(input)).await
            }
            Tool::WaitWindow => {
                let input: WaitWindow = arguments(name, args)?;
                within(name, limit, session.wait_window(input, request)).await
            }
            // The file tools bound their own work (a stuck file system is told as such).
            Tool::WriteFile => {
                let mut input: WriteFile = arguments(name, args)?;
                restore(vault, &mut input.content, name, "content")?;
                files::write_file_noted(input, TOOL_TIMEOUT, self.journal.clone()).await
            }
            Tool::ReadFile => {
                let input: ReadFile = arguments(name, args)?;
                files::read_file_noted(
                    input,
                    self.read_budget,
                    TOOL_TIMEOUT,
                    self.journal.as_deref(),
                )
                .await
            }
        })
    }
}

/// The placeholders of `text` (send_text's text, write_file's content) replaced by their
/// values, or the call refused when one is unknown: nothing sent or written
/// (`docs/design/secrets.md`, The way back).
fn restore(
    vault: Option<&Vault>,
    text: &mut String,
    tool: &str,
    what: &str,
) -> Result<(), ToolResult> {
    if let Some(vault) = vault {
        match vault.restore(text) {
            Ok(std::borrow::Cow::Owned(restored)) => *text = restored,
            Ok(std::borrow::Cow::Borrowed(_)) => {}
            Err(unknown) => return Err(unknown.refusal(tool, what)),
        }
    }
    Ok(())
}

/// The one deadline of a terminal tool's call: its result, or tmux not answering within
/// `limit`.
async fn within(tool: &str, limit: Duration, call: impl Future<Output = ToolResult>) -> ToolResult {
    tokio::time::timeout(limit, call)
        .await
        .unwrap_or_else(|_| tmux_not_answering(tool, limit))
}
