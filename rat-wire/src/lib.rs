//! rat-wire: what `rat`, `rat-tool` and `ratd` share on the wire, and nothing else:
//! - [`tool`]: what rat must know of the tools (names, input schemas, waits), read from
//!   `tools.json`, which rat-core's table of tools writes;
//! - [`mtls`]: the certificate bundles (generate, load and check, rustls configurations);
//! - [`connect`]: the defaults and the `--server`/`--bundle` flags ratd's clients share;
//! - [`words`]: the few phrasings every program uses (how long ago, an OS error's reason).
//!
//! `rat`, the stdio bridge, depends on this crate and not on rat-core: it links no terminal,
//! tmux or file code and knows no tool by construction. It computes the `Mcp-Param-Window`
//! header from [`tool::input_schemas`] and a call's time from [`tool::call_wait`], without
//! naming a tool (`docs/ARCHITECTURE.md`).
//!
//! # Example
//! ```
//! use rat_wire::tool::{Wait, call_wait, find};
//!
//! assert_eq!(find("wait_window").map(|tool| tool.wait), Some(Wait::Always));
//! let arguments = serde_json::json!({"window": "main", "max_seconds": 5});
//! let wait = call_wait("wait_window", arguments.as_object().unwrap());
//! assert_eq!(wait.as_secs(), 5);
//! ```
#![forbid(unsafe_code)]

pub mod connect;
pub mod mtls;
pub mod tool;
pub mod words;
