//! ratd as a service (`docs/design/status-and-logs.md`; `docs/design/terminals.md`,
//! Lifecycle): what an operator relies on to trust and watch a ratd, apart from serving.
//!
//! - [`notify`]: systemd's notify protocol (`READY=1`, `STATUS=`, `STOPPING=1`), one datagram
//!   on `NOTIFY_SOCKET`, the address kept once the variable leaves the environment.
//! - [`status`]: the one status line `systemctl status` shows: degradations first, last seen per
//!   session, waits in flight, the steps of a stop; rendered every 10 s, sent when changed.
//! - [`logs`]: text lines on stderr, in the journal's form (`<N>` priority, no time) when stderr
//!   is the journal stream; rmcp's, hyper's and rustls' chatter only at debug.
//! - [`warnings`]: the startup warnings (root, a bundle its user can replace) and the bundle's
//!   expiry.
//! - [`requests`]: the method of each MCP request, for its debug line.
//! - [`deaths`]: the deaths of the tmux server within the budget's window, which the
//!   supervisor counts and the status line shows.
//! - [`supervisor`]: keeps the tmux server running, within a crash budget of five deaths in
//!   five minutes.

pub mod deaths;
pub mod logs;
pub mod notify;
pub mod requests;
pub mod status;
pub mod supervisor;
pub mod warnings;
