//! rat: the stdio bridge a harness starts, relaying each MCP message to ratd over HTTPS with the
//! client certificate of a bundle.
//!
//! Not built yet (issue 7): this binary only says so and exits non-zero.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    eprintln!("rat: not built yet (see issue 7)");
    std::process::ExitCode::FAILURE
}
