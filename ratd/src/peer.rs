//! Who sent a request, as every layer of ratd reads it: the door puts it into the request, the
//! MCP handler and the tool runner log it and bind the request to its session.

use std::net::SocketAddr;
use std::sync::Arc;

/// Who sent a request: the client name of its certificate (= its tmux session) and the address
/// of the connection. Put into the extensions of every HTTP request, which rmcp hands to tool
/// calls in their request context (`http::request::Parts`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// The common name of the verified client certificate: the client, and its tmux session.
    pub client: Arc<str>,
    /// The address of the connection (behind a proxy, the proxy's: X-Forwarded-For is never
    /// read: `docs/design/status-and-logs.md`).
    pub addr: SocketAddr,
}
