//! Shared helpers for rat's benchmarks (the benches themselves are in `benches/benches/`).
#![forbid(unsafe_code)]

/// The value at quantile `p` (0.0 to 1.0) of `sorted` (ascending, not empty): the nearest rank,
/// as every bench here reports its p50 and p99.
pub fn percentile<T: Copy>(sorted: &[T], p: f64) -> T {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}
