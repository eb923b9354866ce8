//! tmux-cc: one persistent `tmux -C` control-mode connection per tmux server, so captures,
//! pastes, keys and queries never fork a process.
//!
//! ```no_run
//! # async fn demo() -> tmux_cc::Result<()> {
//! use tmux_cc::{Capture, ClientOptions, NewSession, Server};
//!
//! let server = Server::start("my-socket").await?;          // tmux -u -D -f /dev/null -L my-socket
//! let client = server.connect(ClientOptions::default()).await?; // tmux -u -C, attached
//! client.new_session(&NewSession::new("work")).await?;      // 200x24, detached
//! let screen = client.capture("=work:", &Capture::default()).await?; // bytes, no fork
//! client.paste("=work:", b"echo hi", &[tmux_cc::leave_modes("=work:")],
//!              &[tmux_cc::send_keys("=work:", &["Enter"])]).await?;
//! let report = server.stop().await?;                         // kill-server, SIGTERM, SIGKILL
//! println!("{} bytes; {}", screen.len(), report.step);
//! # Ok(()) }
//! ```
//!
//! # Start a job and watch it live
//! [`Client::start_job_streamed`] opens the job's stream before the command runs: every byte
//! from the first, then [`StreamEnd::Finished`] at the job's end (tmux-cc's end marker never
//! reaches a caller), and [`Job::wait`] gives the status.
//!
//! ```no_run
//! # async fn demo(client: &tmux_cc::Client) -> tmux_cc::Result<()> {
//! use tmux_cc::{JobSpec, StreamItem, StreamOptions};
//!
//! let spec = JobSpec::window("=work:", "echo first; echo second; exit 5");
//! let (mut job, mut stream) = client.start_job_streamed(&spec, StreamOptions::default()).await?;
//! while let Some(item) = stream.next().await {
//!     if let StreamItem::Data(bytes) = item {
//!         print!("{}", String::from_utf8_lossy(&bytes)); // first, second: as they come
//!     }
//! }
//! assert_eq!(job.wait().await?.status, Some(5));
//! # Ok(()) }
//! ```
//!
//! # Examples
//! Programs a user would write, each runnable as it is (`cargo run -p tmux-cc --example NAME`):
//! - `tail` (`-- -L SOCKET -t TARGET`, or `-- CMD...`): a pane's bytes to standard output as
//!   it prints them, with flow control, until the pane goes ([`Client::stream`]).
//! - `jobs` (`-- 'CMD' 'CMD' ...`): shell command lines run in parallel, each one's exit
//!   status or signal and its every byte of output ([`Client::start_job`]).
//! - `watch` (`-- -L SOCKET`): attaches to a running server as it is and prints its
//!   topology, then every change as it happens ([`Topology`]).
//! - `roundtrip`, `job_loss`: a file through tmux's buffers and a paste; how often tmux
//!   itself loses the output of a fast exit.
//!
//! # Connections
//! Never a fork per call; one connection for commands, more only where a blocking command or
//! a stream needs one. A [`Client`] is one `tmux -C` process whose commands tmux runs in
//! order, so a command that waits (`wait-for`, `run-shell` without `-b`) would hold up every
//! command after it: those go on [`Client::blocking`], a second connection opened once on
//! demand, and each [`PaneStream`] has a connection of its own, so that a stalled reader never
//! holds up a reply. The README lists them.
//!
//! # Layout
//! - [`parse`]: the control-mode parser, pure and incremental (bytes in, events out), and
//!   [`parse::Layout`], tmux's window layout strings as a tree.
//! - [`quote`]: any argument into a command line, byte for byte.
//! - [`Server`] (`server.rs`): a tmux server run in the foreground as a child, readiness by
//!   pid, exit waited once for many waiters, a stop that reports which step was needed.
//! - [`Client`] (`client.rs`): the control connection, commands pipelined and matched to
//!   their replies in order (`client/commands.rs`), a timeout per command, notifications, its
//!   end reported once; under `client/`: its options (where and how it attaches), the state its
//!   tasks share, the reader and writer tasks, its private directory, the [`Subscription`] of
//!   notifications, and `blocking` (the extra connections, opened on demand). It knows
//!   nothing of streams, jobs, topology or watches: they plug in by a route of notifications
//!   and values kept with the client (docs/ARCHITECTURE.md, the layers).
//! - [`Job`] (`jobs.rs`, `jobs/hub.rs`, `jobs/gate.rs`): a command line in a pane of its own,
//!   its status and complete output by event (docs/design/jobs.md), watched live if asked.
//! - [`PaneStream`] (`stream.rs`, `stream/control.rs`, `stream/pipe.rs`): one pane's output as
//!   a bounded stream, its source one of two:
//!   by [`Transport::ControlMode`], on a control connection of its own with tmux's
//!   pause-after flow control, or by [`Transport::Pipe`], the pane's pipe read at full speed;
//!   a resync by capture either way; see docs/design/engine-streams.md.
//! - [`Command`] (`command.rs`): one command line, quoted.
//! - `ops.rs`: typed operations as methods of [`Client`] (sessions, windows, captures,
//!   buffers, pastes, keys, options) and builders of [`Command`]s for one-write inputs.
//! - `ops/topology.rs`: the server's shape ([`Client::list_sessions`], [`Client::list_panes`],
//!   [`Client::list_windows_all`], [`Client::shape`]), every pane with its geometry.
//! - [`Watch`] (`watch.rs`): typed `refresh-client -B` subscriptions ([`Client::watch`]).
//! - [`Topology`] (`topology.rs`): a model of the server kept current from notifications and
//!   one subscription, with its changes as events (docs/design/topology.md).
//! - [`commands`]: builders of the commands that create, size and list sessions and windows,
//!   for callers that write them in an input of their own.
//! - [`create_private_dir`], [`dead_process_dirs`] (`dirs.rs`): private directories of one
//!   process, found again once it has died.
//! - `spawn.rs`: children that die with their owner (the crate's one `unsafe`).
//! - `stderr.rs`: a child tmux's standard error drained, logged, and partly kept.
//!
//! tmux-cc knows tmux, nothing of its callers: no MCP, HTTP, TLS or JSON. Every fact and trap
//! it handles was measured on tmux 3.3a; see the README.

pub mod commands;
pub mod parse;
pub mod quote;
#[cfg(feature = "test-support")]
pub mod test_support;

mod client;
mod command;
mod dirs;
mod end;
mod error;
mod exit;
mod fifo;
mod jobs;
mod marker;
mod ops;
mod server;
mod spawn;
mod stderr;
mod stream;
mod topology;
mod version;
mod watch;

pub use client::{
    Attach, Client, ClientFlags, ClientOptions, ConnectionEnd, Delivery, ServerSocket,
    Subscription, validate_socket_name,
};
pub use command::Command;
pub use dirs::{create_private_dir, dead_process_dirs};
pub use error::{Error, Result};
pub use exit::{ExitKind, ServerExit, StopReport, StopStep};
pub use jobs::{Job, JobExit, JobPlace, JobSpec, NUDGES};
pub use ops::{
    Capture, DEFAULT_HEIGHT, DEFAULT_WIDTH, NewSession, NewWindow, OptionScope, PaneInfo,
    PaneScope, SessionCreated, SessionInfo, Shape, WindowCreated, WindowInfo, WindowPanes,
    leave_modes, send_keys, send_literal, set_pane_option,
};
pub use parse::{Notification, PaneId, Reply, SessionId, WindowId};
pub use server::{Server, ServerOptions, tmux_version};
pub use stream::{PaneStream, Snapshot, StreamEnd, StreamItem, StreamOptions, Transport};
pub use topology::{TOPOLOGY_FORMAT, Topology, TopologyEvent};
pub use version::{DIFFERENCES, Difference, Features, Probe, Row, TmuxVersion, Versions};
pub use watch::{Watch, WatchScope, WatchValue};
