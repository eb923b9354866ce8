//! rat-wire: what `rat`, `rat-tool` and `ratd` share on the wire, and nothing else:
//! - [`tool`]: the table of tools ([`tool::Tool`]: names, titles, annotations, waits) and
//!   [`input`], their input types, whose JSON schemas clients get;
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
//! use rat_wire::tool::{Tool, call_wait};
//!
//! assert_eq!(Tool::from_name("wait_window"), Some(Tool::WaitWindow));
//! assert_eq!(Tool::WaitWindow.title(), "Wait for a window");
//! let arguments = serde_json::json!({"window": "main", "max_seconds": 5});
//! let wait = call_wait("wait_window", arguments.as_object().unwrap());
//! assert_eq!(wait.as_secs(), 5);
//! ```
#![forbid(unsafe_code)]

pub mod connect;
pub mod input;
pub mod mtls;
pub mod tool;
pub mod words;
