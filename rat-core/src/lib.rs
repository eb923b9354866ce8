//! rat-core: the tools of rat as plain async functions, with no HTTP anywhere. ratd only
//! wraps them in MCP; anything else (a test, another server) can call them directly.
//!
//! # Layout
//! - [`result`]: what every tool returns ([`result::ToolResult`], [`result::Outcome`]) and the
//!   read budget shared by `read_window` and `read_file`.
//! - [`terminals`]: the [`terminals::Controller`] owning the tenant's tmux server (through
//!   `tmux-cc`), the startup check, and [`terminals::Terminals`], the terminal tools
//!   bound to one tmux session.
//! - [`files`]: `write_file` and `read_file`.
//! - [`tool`]: what a tool is (the [`tool::Tool`] trait); [`tools`]: the table of tools, one
//!   file each, and [`tools::call`], the one way into a tool; [`arguments`]: a call's
//!   arguments checked against the tool's schema, a mistyped one reported in the agent's terms.
//! - [`catalog`]: the tools as MCP sees them (names, input schemas, descriptions,
//!   annotations) and the MCP instructions.
//!
//! # Example
//! ```no_run
//! use rat_core::terminals::{Controller, ControllerConfig};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let controller = Controller::start(ControllerConfig::new("demo")).await?; // tmux -L rat-demo
//! let check = controller.check_terminals().await; // what bash startup files defeat
//! let result = controller.session("alice").list_windows().await; // creates the session: a fresh main
//! println!("{}", result.text);
//! # let _ = check; controller.stop().await?; Ok(()) }
//! ```
#![forbid(unsafe_code)]

pub mod arguments;
pub mod catalog;
pub mod files;
pub mod result;
pub mod secrets;
pub mod terminals;
pub mod tool;
pub mod tools;
