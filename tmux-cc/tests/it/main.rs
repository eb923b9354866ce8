//! tmux-cc against a real tmux server, one test binary: each module a part of the engine, all
//! sharing `common` (the tmux first on PATH, a private socket per test killed at the end).
//! The version matrix (`scripts/tmux-matrix`) runs this binary with each tmux release.

mod attach;
mod buffers;
mod client;
mod common;
mod job_streams;
mod jobs;
mod ops;
mod pastes;
mod server;
mod streams;
mod topology;
mod versions;
