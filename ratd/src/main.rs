//! ratd: the daemon owning one tmux server per tenant and serving rat's nine tools as MCP over
//! Streamable HTTP behind mutual TLS.
//!
//! Not built yet (issues 6 and 9): this binary only says so and exits non-zero.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    eprintln!("ratd: not built yet (see issues 6 and 9)");
    std::process::ExitCode::FAILURE
}
