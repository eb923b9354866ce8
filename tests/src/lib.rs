//! The harness of rat's end-to-end tests (in `tests/tests/`): real binaries (ratd, rat,
//! rat-tool, built by [`binaries`]), a real ratd on a fresh bundle and a private tmux server
//! ([`Ratd`]), and real MCP clients no one here wrote, run as subprocesses: the official Python
//! SDK ([`python`]), the official TypeScript SDK and conformance suite under Node 22
//! ([`node`]), reached through rat or directly over mutual TLS, or through a local TLS bridge
//! ([`TlsBridge`], socat) for clients that speak plain HTTP.
//!
//! What the clients need is installed by `scripts/test` (pinned: `mcp` 2.3.0 from PyPI in
//! `tests/python/.venv`; Node 22,
//! `@modelcontextprotocol/sdk` and `@modelcontextprotocol/conformance` from npm into
//! `tests/node/node_modules`; socat from Debian). A missing one fails the test that needs it,
//! saying to run that install step: never a silent skip.
//!
//! Every ratd gets a tenant of its own ([`unique_name`]), so its tmux server has a socket of
//! its own, `rat-TENANT`, which [`Ratd`]'s `Drop` kills by that name even when the test failed,
//! after ratd itself was asked to stop (SIGTERM, as an admin would).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

pub use tmux_cc::test_support::SocketGuard;
use tmux_cc::test_support::socket_name;

/// The Python MCP SDK version the tests are written for (`scripts/test` installs it).
pub const PYTHON_MCP_VERSION: &str = "2.3.0";

/// What to tell when a client is missing: the README's test command installs it.
pub(crate) const INSTALL_HINT: &str = "run scripts/test, which installs it, then runs every test";

/// The root of the workspace (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the workspace")
        .to_path_buf()
}

/// The built binaries of the workspace that the tests run.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// The daemon.
    pub ratd: PathBuf,
    /// The stdio bridge.
    pub rat: PathBuf,
    /// Bundles, check, config.
    pub rat_tool: PathBuf,
}

/// Builds ratd, rat and rat-tool once per test process (`cargo build -p ratd -p rat -p
/// rat-tool`, in the target directory and profile of this test binary) and returns their
/// paths. A test crate can not name another package's binaries (`CARGO_BIN_EXE_*` covers its
/// own only), so it builds them itself: cargo makes this a no-op when they are up to date.
///
/// # Panics
/// When the build fails (its output is shown).
pub fn binaries() -> &'static Binaries {
    static BINARIES: OnceLock<Binaries> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/PROFILE/deps/TEST-HASH
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("a test binary in target/PROFILE/deps")
            .to_path_buf();
        let target_dir = profile_dir.parent().expect("target/PROFILE").to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .current_dir(workspace_root())
            .args([
                "build", "--quiet", "-p", "ratd", "-p", "rat", "-p", "rat-tool",
            ])
            .arg("--target-dir")
            .arg(&target_dir);
        if profile_dir
            .file_name()
            .is_some_and(|name| name == "release")
        {
            build.arg("--release");
        }
        let output = build.output().expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo build -p ratd -p rat -p rat-tool failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let binaries = Binaries {
            ratd: profile_dir.join("ratd"),
            rat: profile_dir.join("rat"),
            rat_tool: profile_dir.join("rat-tool"),
        };
        for path in [&binaries.ratd, &binaries.rat, &binaries.rat_tool] {
            assert!(path.is_file(), "{} was not built", path.display());
        }
        binaries
    })
}

/// A name unique to this test process and call, `PREFIX-PID-N`, valid as a tenant (letters,
/// digits, `-`, at most 32 characters): its tmux socket `rat-NAME` is then this test's alone.
pub fn unique_name(prefix: &str) -> String {
    let name = socket_name(prefix);
    assert!(
        name.len() <= 32,
        "tenant name {name:?} is over 32 characters"
    );
    name
}

/// Whether a tmux server answers on socket `-L socket`.
pub fn tmux_server_running(socket: &str) -> bool {
    Command::new("tmux")
        .args(["-L", socket, "list-sessions"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

mod clients;
mod ratd;
mod run;
mod transcript;

pub use clients::*;
pub use ratd::*;
pub use run::*;
pub use transcript::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_redacted_and_nothing_else() {
        assert_eq!(
            redact_times("build: the command finished 12s ago, exit status 130 (3m since, 7ms)."),
            "build: the command finished Ns ago, exit status 130 (Nm since, Nms)."
        );
    }

    #[test]
    fn unique_names_are_valid_tenants() {
        let a = unique_name("py");
        let b = unique_name("py");
        assert_ne!(a, b);
        rat_wire::mtls::check_name(&a).expect("a plain name");
    }

    #[test]
    fn steps_are_read_from_json_lines() {
        let steps = steps(
            "{\"step\":\"list_windows\",\"isError\":false,\"text\":\"main\"}\n\n{\"step\":\"tools/list\",\"text\":\"a b\"}\n",
        );
        assert_eq!(
            transcript(&steps),
            "## list_windows\nmain\n## tools/list\na b\n"
        );
    }
}
