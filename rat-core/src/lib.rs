//! rat-core: the nine tools of rat as plain async functions bound to a tmux session, with no
//! HTTP anywhere: the terminals (over `tmux-cc`), the files, their input schemas, descriptions
//! and result texts, and the mTLS bundles shared by ratd, rat and rat-tool.
//!
//! Under construction (issues 3, 4, 5).
#![forbid(unsafe_code)]

pub mod tools;
pub mod catalog;
pub mod connect;
pub mod files;
pub mod mtls;
pub mod terminals;
