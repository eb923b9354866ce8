//! rat's integration tests, one binary: each former test file is a module, the set-up they share
//! (`common`: bundles, test servers, the rat binary) built once. Every test runs its own rat
//! and server, so none needs a process of its own.

mod common;

mod end_to_end;
mod headers;
mod relay;
mod timeout;
