//! rat-tool: generates and inspects certificate bundles, and checks a running ratd.
//!
//! Not built yet (issue 5): this binary only says so and exits non-zero.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    eprintln!("rat-tool: not built yet (see issue 5)");
    std::process::ExitCode::FAILURE
}
