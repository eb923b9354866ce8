//! rat: the stdio bridge a harness starts (see the library's documentation).
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    eprintln!("rat: not built yet (see issue 7)");
    std::process::ExitCode::FAILURE
}
