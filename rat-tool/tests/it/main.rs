//! rat-tool's integration tests, one binary: each former test file is a module, the set-up they
//! share (`common`: running rat-tool, redacting its output) built once.

mod common;

mod bundle;
mod check;
