//! The terminals: the controller over tmux-cc, the startup check, and the terminal tools
//! (`docs/design/terminals.md`, and `tools.md` for the read budget, plumbing and errors). The
//! design decisions are summarized in `rat-core/README.md`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use rat_core::terminals::{Controller, ControllerConfig, SendText, WaitWindow};
//! let controller = Controller::start(ControllerConfig::new("prod")).await?;
//! let check = controller.check_terminals().await; // words the instructions and descriptions
//! let alice = controller.session("alice");
//! println!("{}", alice.list_windows().await.text);
//! alice.send_text(SendText { window: "main".into(), text: "make".into(), enter: true, wait_seconds: 0 }).await;
//! let done = alice
//!     .wait_window(WaitWindow { window: "main".into(), max_seconds: Some(50) }, Default::default())
//!     .await;
//! println!("{}", done.text); // main: the command finished 3s ago, exit status 0.
//! controller.stop().await?;
//! # let _ = check; Ok(()) }
//! ```
//!
//! Layout: [`controller`] (server, options, environment, check, restart, stop), [`hook`] (the
//! start-up file and the `PROMPT_COMMAND` hook reporting each prompt to ratd), `prompts` (what the
//! hooks reported, pane by pane, and the inputs sent), [`tools`] (the terminal tools), `window` (window
//! descriptions from `list-windows`), `foreground` (a pane's foreground process from `/proc`,
//! where tmux's name is cut), `detached` (what a closed window leaves running), `screen`
//! (captures within the read budget), [`names`],
//! [`keys`], [`control_chars`] (the control characters send_text refuses), [`texts`] (every
//! description, message and error).

pub mod check;
pub mod control_chars;
pub mod controller;
pub(crate) mod detached;
pub(crate) mod foreground;
pub mod hook;
pub mod input;
pub mod keys;
pub mod names;
pub(crate) mod output;
pub(crate) mod prompts;
pub(crate) mod screen;
pub mod stopped;
pub mod texts;
pub mod tools;
// Public for the differential test (feature `test-support`).
#[cfg(feature = "test-support")]
pub mod transcript;
#[cfg(not(feature = "test-support"))]
pub(crate) mod transcript;
pub(crate) mod window;

pub use check::TerminalCheck;
pub use controller::{
    Controller, ControllerConfig, ControllerStartError, ExitKind, ServerExit, StopReport,
};
pub use input::{
    CloseWindow, CreateWindow, ListWindows, ReadWindow, RowRange, SendKeys, SendText, WaitWindow,
};
pub use stopped::Stopped;
pub use tools::Terminals;
