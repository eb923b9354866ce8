//! ratd's integration tests, one binary: each former test file is a module, the set-up they
//! share (`common`: bundles, in-process ratd, tmux guards; `service_common`: the ratd binary
//! started as a service) is built once. Every test drives its own ratd, tenant and tmux socket,
//! and signals go to child processes only, so none needs a process of its own.

mod common;
mod service_common;

mod attacks;
mod bodies;
mod bounds;
mod cancellation;
mod cli;
mod refusals;
mod secrets;
mod service_door;
mod service_logs;
mod service_notify;
mod service_stderr;
mod service_supervisor;
mod service_tls;
mod service_warnings;
mod tools;
mod transport;
