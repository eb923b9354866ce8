//! Shared helpers for rat's benchmarks (the benches themselves are in `benches/benches/`).
//! Under construction: no benchmark yet.
#![forbid(unsafe_code)]
