//! rat: the stdio bridge a harness starts, relaying each MCP message to ratd over HTTPS with the
//! client certificate of a bundle (the design: `docs/design/bridge.md`).
//!
//! ```text
//! rat --server HOST:PORT --bundle DIR [--log-level info]
//! ```
//!
//! The binary loads and checks the client directory, then runs a [`Relay`] between stdin and
//! stdout. The library holds the pieces, each testable alone:
//!
//! - [`lines`]: the bounded line reader (16 MiB a message, longer lines drained, never held).
//! - [`message`]: what rat reads inside a line to prepare its request (kind, identifier).
//! - [`headers`]: the HTTP headers computed from a message (protocol version, SEP-2243).
//! - [`failure`]: transport failures, saying what failed, answered with -32050.
//! - [`relay`]: the relay itself: POSTs, the writer, the calls in flight, cancellation, stop.
//!
//! rat knows no tool and no result: it copies bytes. It depends on rat-wire only, for the bundle
//! loader, the flags shared with `rat-tool check`, and the input schemas of the tools (for the
//! `Mcp-Param-*` headers); never on rat-core, tmux-cc or ratd, so it links no tool code.
#![forbid(unsafe_code)]

pub mod failure;
pub mod headers;
pub mod lines;
pub mod message;
pub mod relay;

pub use relay::{Config, Relay, Stop};

/// The path of ratd's MCP endpoint (rat-wire's, shared with ratd): the URL is always
/// `https://HOST:PORT/mcp`.
pub use rat_wire::connect::ENDPOINT_PATH;
