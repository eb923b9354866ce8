//! tmux-cc: one persistent `tmux -C` control-mode connection per tmux server.
//!
//! Under construction (issue 2): `parse` (a pure, incremental nom parser of control mode),
//! `quote` (any argument into a command line, byte for byte), `Server` (a tmux server run in
//! the foreground as a child) and `Client` (the control connection, pipelined commands,
//! notifications).

pub mod parse;
pub mod quote;
