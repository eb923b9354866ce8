//! The MCP side: rmcp's `ServerHandler`, implemented by hand over rat-core's catalog (the
//! descriptions depend on the startup check of the terminals), and the rmcp service built for
//! each request, bound to the tmux session of its client (`docs/design/transport.md`, A
//! service per request; `docs/design/tools.md`).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rat_core::result::{Outcome, ToolResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::peer::Peer;
use crate::service::logs::{call_line, cut_quoted};
use crate::tools::Runner;

/// The largest request body rmcp reads: 4 MiB of JSON, 413 beyond
/// (`docs/design/transport.md`, Body limits).
pub const MAX_REQUEST_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The protocol versions ratd serves: every version rmcp 3.11 knows, as the official Go MCP
/// SDK accepts them all. 2024-11-05 is served over Streamable HTTP like the
/// others (a client speaking its HTTP+SSE transport, deprecated, never gets this far: ratd
/// serves no SSE endpoint); it predates tool annotations, which its clients ignore. Batches
/// are served up to 2025-03-26 (see `bodies`).
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// What every request of a ratd shares: built once at startup, read by the service built for
/// each request.
pub(crate) struct McpState {
    /// Server info and instructions, as initialize and server/discover return them.
    info: ServerConfig,
    /// The tools of the table, with their schemas, descriptions and annotations.
    tools: Vec<Tool>,
    /// The tool runners: the terminals of the tenant and the read budget of the file tools.
    pub(crate) runner: Runner,
    /// The status line: last seen per session, degradations, waits
    /// (`docs/design/status-and-logs.md`).
    pub(crate) status: Arc<crate::service::status::Status>,
    /// The read budget: each message of a batch is counted at it (`bodies::batch_limit`).
    pub(crate) read_budget: rat_core::result::ReadBudget,
    /// The places of the batches served at once (`bodies::BATCHES_AT_ONCE`).
    pub(crate) batches: tokio::sync::Semaphore,
    sessions: Arc<NeverSessionManager>,
    http: StreamableHttpServerConfig,
}

impl McpState {
    /// The shared state of a ratd serving `tenant` on `host`, whose tools are `tools`, whose
    /// instructions are `instructions` and whose entry in the MCP `capabilities.experimental` is
    /// `capability` (what the terminals lose, by name: `rat_core::catalog::capability`).
    pub(crate) fn new(
        tenant: &str,
        host: &str,
        tools: Vec<Tool>,
        instructions: String,
        capability: serde_json::Map<String, serde_json::Value>,
        runner: Runner,
        status: Arc<crate::service::status::Status>,
    ) -> Self {
        let mut server_info = Implementation::new("rat", env!("CARGO_PKG_VERSION"));
        server_info.title = Some(format!("rat {tenant} on {host}"));
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        capabilities.experimental = Some(
            [(rat_core::catalog::CAPABILITY.to_string(), capability)]
                .into_iter()
                .collect(),
        );
        let mut info = ServerConfig::new(capabilities);
        info.server_info = server_info;
        info.instructions = Some(instructions);
        let http = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_sse_retry(None)
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_max_request_body_bytes(MAX_REQUEST_BODY_BYTES);
        Self {
            info,
            tools,
            read_budget: runner.read_budget,
            batches: tokio::sync::Semaphore::new(crate::bodies::BATCHES_AT_ONCE),
            runner,
            status,
            sessions: Arc::new(NeverSessionManager::default()),
            http,
        }
    }

    /// The rmcp service for one request of `peer`: its handler bound to the tmux session the
    /// client certificate names (`docs/design/transport.md`, A service per request).
    /// rmcp asks the factory for a handler several times per request (tool schemas, then to
    /// serve): each is a pair of reference counts.
    pub(crate) fn service_for(
        self: &Arc<Self>,
        peer: Peer,
    ) -> StreamableHttpService<RatServer, NeverSessionManager> {
        let shared = self.clone();
        StreamableHttpService::new(
            move || Ok(shared.handler(peer.clone())),
            self.sessions.clone(),
            self.http.clone(),
        )
    }

    /// The handler rmcp asks the factory of [`McpState::service_for`] for, bound to `peer`.
    pub(crate) fn handler(self: &Arc<Self>, peer: Peer) -> RatServer {
        RatServer {
            shared: self.clone(),
            peer,
        }
    }
}

/// rat's MCP server for one request: the tools bound to the session of `peer`.
#[derive(Clone)]
pub struct RatServer {
    shared: Arc<McpState>,
    peer: Peer,
}

impl ServerHandler for RatServer {
    fn get_info(&self) -> ServerConfig {
        self.shared.info.clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.shared.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.shared
            .tools
            .iter()
            .find(|tool| tool.name == name)
            .cloned()
    }

    /// What rmcp does not read as a request it knows: a tools/call whose params do not follow
    /// its schema (rmcp falls back to a custom request, then "method not found") is told as
    /// JSON-RPC's invalid params with serde's reason; any other method, not found, as rmcp
    /// tells it.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        let params = request.params.unwrap_or(serde_json::Value::Null);
        // Only tools/call: the methods a protocol removed (initialize, logging/setLevel,
        // resources/subscribe from 2026-07-28) come here too, and must stay "method not
        // found", which rmcp answers with HTTP 404 (SEP-2575).
        let reason = match method {
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params)
                .err()
                .map(|e| e.to_string()),
            _ => {
                refused(&self.peer, method, "method not found");
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    method.to_owned(),
                    None,
                ));
            }
        };
        refused(&self.peer, method, "invalid params");
        Err(ErrorData::invalid_params(
            format!(
                "invalid params of {method}: {}",
                reason.as_deref().unwrap_or("not read")
            ),
            None,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let name = request.name.as_ref();
        // The one place the name is resolved: rat-core's table.
        let Some(tool) = rat_core::tools::find(name) else {
            let shown = format!("{name:?}");
            tracing::info!(
                session = %self.peer.client,
                addr = %self.peer.addr,
                tool = crate::service::logs::head(name, 64),
                outcome = "error",
                cause = "unknown tool",
                "call of an unknown tool"
            );
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {}: ratd offers {}",
                    cut_quoted(&shown, 64),
                    rat_core::tools::NAMES.join(", ")
                ),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let result = self
            .shared
            .runner
            .call(tool, arguments, &self.peer, context.ct.clone())
            .await;
        log_call(&self.peer, tool.name, &result, started.elapsed());
        let content = vec![ContentBlock::text(result.text)];
        Ok(if result.outcome.is_error() {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// One line per tool call (`docs/design/status-and-logs.md`): info, or warning for a failure the
/// agent did not cause; the tool and the facts the tool gave for its log (never content) first,
/// then the session, the address, the outcome (with its cause for an error) and the duration:
///
/// ```text
/// INFO call send_text window=main bytes=20 enter=true session=alice addr=10.0.0.5:59344 tool="send_text" outcome="ok" duration_ms=0.7
/// ```
fn log_call(peer: &Peer, tool: &str, result: &ToolResult, duration: Duration) {
    let line = call_line(tool, &result.log);
    let duration_ms = (duration.as_secs_f64() * 1000.0 * 10.0).round() / 10.0;
    match &result.outcome {
        Outcome::Ok => {
            tracing::info!(session = %peer.client, addr = %peer.addr, tool, outcome = "ok", duration_ms, "{line}")
        }
        Outcome::Message => {
            tracing::info!(session = %peer.client, addr = %peer.addr, tool, outcome = "message", duration_ms, "{line}")
        }
        Outcome::Refused { cause } => {
            tracing::info!(session = %peer.client, addr = %peer.addr, tool, outcome = "error", cause, duration_ms, "{line}")
        }
        Outcome::Failed { cause } => {
            tracing::warn!(session = %peer.client, addr = %peer.addr, tool, outcome = "error", cause, duration_ms, "{line}")
        }
    }
}

/// One line for a request refused before any tool ran (an unknown method, params not
/// following the method's schema): the agent's own mistake, at info level, with the session
/// and the address. Never the params.
fn refused(peer: &Peer, method: &str, cause: &'static str) {
    tracing::info!(
        session = %peer.client,
        addr = %peer.addr,
        method = crate::service::logs::head(method, 64),
        cause,
        "MCP request refused"
    );
}

/// An rmcp [`Tool`] from rat-core's definition, every annotation hint set explicitly
/// (MCP reads a missing destructive or open world hint as true: `docs/design/tools.md`).
pub(crate) fn rmcp_tool(def: rat_core::catalog::ToolDef) -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(def.annotations.read_only)
        .destructive(def.annotations.destructive)
        .idempotent(def.annotations.idempotent)
        .open_world(def.annotations.open_world);
    let tool = Tool::new(def.name, def.description, Arc::new(def.input_schema));
    match def.title {
        Some(title) => tool.with_title(title),
        None => tool,
    }
    .annotate(annotations)
}
