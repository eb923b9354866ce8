//! Running a tool call: the client's session built for rat-core's one entry point
//! ([`rat_core::tools::call`]), which checks the arguments, sets the call's deadline
//! (`docs/design/transport.md`, Timeouts) and runs the tool; the request's end cancels a wait
//! (`docs/design/terminals.md`, Shutdown). ratd names no tool: they are rat-core's table.

use std::sync::Arc;

use rat_core::result::{ReadBudget, ToolResult};
use rat_core::terminals::Controller;
use rat_core::tool::{Entry, Session};
use rat_core::tools::Counted;
use rmcp::model::JsonObject;
use tokio_util::sync::CancellationToken;

use crate::in_flight::InFlight;
use crate::peer::Peer;

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
        tool: &'static Entry,
        arguments: JsonObject,
        peer: &Peer,
        request: CancellationToken,
    ) -> ToolResult {
        let _call = Counted::new(&self.in_flight.calls);
        let session = Session {
            terminals: self.controller.session(&peer.client),
            read_budget: self.read_budget,
            journal: self.journal.clone(),
            waits: self.in_flight.waits.clone(),
        };
        rat_core::tools::call(tool, arguments, &session, request).await
    }
}
