//! The harnesses' own CLIs (from npm, pinned in `tests/harnesses`, run under Node 22) read what
//! `rat-tool config --harness NAME` printed, in a HOME of the test holding it, and list their
//! MCP servers: Claude Code and Gemini CLI start rat and show it connected (no account needed
//! for that); Codex lists the entry as it read it (its listing connects to no server).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tests::{
    Output, Ratd, binaries, harness_config, node_dir, paragraph, run, workspace_root,
    write_harness_file,
};

/// The harness CLI `name` (`claude`, `codex`, `gemini`) of `tests/harnesses`, run with HOME
/// `home` (and started there), Node 22 first in PATH, their update checks and telemetry off.
///
/// # Panics
/// When it is not installed: the message says to run scripts/test.
fn harness(name: &str, home: &Path) -> Command {
    let bin = workspace_root()
        .join("tests/harnesses/node_modules/.bin")
        .join(name);
    assert!(
        bin.is_file(),
        "{} is missing: run scripts/test, which installs it (npm ci --prefix tests/harnesses)",
        bin.display()
    );
    let node = node_dir().join("node_modules/.bin");
    assert!(
        node.join("node").is_file(),
        "Node 22 is missing in {}: run scripts/test, which installs it",
        node.display()
    );
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![node];
    paths.extend(std::env::split_paths(&path));
    let mut command = Command::new(bin);
    command
        .current_dir(home)
        .env("HOME", home)
        .env("PATH", std::env::join_paths(paths).expect("a PATH"))
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("GEMINI_CLI_DISABLE_AUTO_UPDATE", "true")
        .env("NO_COLOR", "1");
    command
}

/// An empty HOME for the harness, in ratd's scratch directory.
fn home(ratd: &Ratd, name: &str) -> PathBuf {
    let home = ratd.scratch().join(name);
    std::fs::create_dir_all(&home).expect("a HOME");
    home
}

/// The command line the harnesses show for rat: the command, then its arguments.
fn rat_command_line(ratd: &Ratd) -> String {
    format!(
        "{} --server {} --bundle {}",
        binaries().rat.display(),
        ratd.server(),
        ratd.client_dir("agent").display()
    )
}

/// Runs the `NAME mcp add ...` line of rat-tool config's notes `text` as a user pastes it into
/// bash, `NAME` being the harness CLI of [`harness`], with HOME `home`.
fn run_printed_line(text: &str, name: &str, home: &Path) {
    let line = paragraph(text, &format!("  {name} mcp add ")).trim_start();
    let cli = harness(name, home);
    run(
        &format!("the printed {name} mcp add"),
        Command::new("bash")
            .args([
                "-c",
                &format!("{name}() {{ \"$HARNESS_CLI\" \"$@\"; }}; {line}"),
            ])
            .env("HARNESS_CLI", cli.get_program())
            .envs(cli.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .current_dir(home),
        Duration::from_secs(120),
    );
}

fn listing(what: &str, command: &mut Command) -> Output {
    run(what, command, Duration::from_secs(180))
}

#[test]
fn claude_code_shows_rat_connected_from_the_json_and_from_its_own_add_line() {
    let ratd = Ratd::start("claude", &["agent"]);
    let text = harness_config(&ratd, "claude-code").stderr;
    let connected = format!(
        "rat-{}: {} - ✔ Connected",
        ratd.tenant,
        rat_command_line(&ratd)
    );

    // The JSON, as ~/.claude.json (the user's own servers): rat-tool config > ~/.claude.json.
    let home_json = home(&ratd, "claude-json");
    write_harness_file(&ratd, Some("claude-code"), &home_json.join(".claude.json"));
    let output = listing(
        "claude mcp list",
        harness("claude", &home_json).args(["mcp", "list"]),
    );
    assert!(
        output.stdout.lines().any(|line| line == connected),
        "{connected:?} not in:\n{}\n--- stderr:\n{}",
        output.stdout,
        output.stderr
    );

    // The printed `claude mcp add` line, run as is, in another empty HOME.
    let home_add = home(&ratd, "claude-add");
    run_printed_line(&text, "claude", &home_add);
    let output = listing(
        "claude mcp list",
        harness("claude", &home_add).args(["mcp", "list"]),
    );
    assert!(
        output.stdout.lines().any(|line| line == connected),
        "{connected:?} not in:\n{}\n--- stderr:\n{}",
        output.stdout,
        output.stderr
    );
}

#[test]
fn gemini_cli_shows_rat_connected_from_its_settings() {
    let ratd = Ratd::start("gemini", &["agent"]);
    let home = home(&ratd, "gemini");
    write_harness_file(&ratd, Some("gemini"), &home.join(".gemini/settings.json"));
    // Gemini CLI disables every MCP server in a folder the user has not trusted: the HOME it
    // runs in is trusted, as a user answering its first question would.
    std::fs::write(
        home.join(".gemini/trustedFolders.json"),
        serde_json::json!({home.display().to_string(): "TRUST_FOLDER"}).to_string(),
    )
    .expect("written");
    let output = listing(
        "gemini mcp list",
        harness("gemini", &home).args(["mcp", "list"]),
    );
    let connected = format!(
        "✓ rat-{}: {} (stdio) - Connected",
        ratd.tenant,
        rat_command_line(&ratd)
    );
    // Gemini CLI writes its listing to stderr when that is not a terminal.
    assert!(
        output.stderr.lines().any(|line| line == connected),
        "{connected:?} not in:\n{}\n--- stderr:\n{}",
        output.stdout,
        output.stderr
    );
}

#[test]
fn codex_reads_the_toml_and_its_own_add_line() {
    let ratd = Ratd::start("codex", &["agent"]);
    let text = harness_config(&ratd, "codex").stderr;
    let name = format!("rat-{}", ratd.tenant);
    let expected = format!(
        "{name}\n  enabled: true\n  transport: stdio\n  command: {}\n  args: --server {} --bundle {}\n",
        binaries().rat.display(),
        ratd.server(),
        ratd.client_dir("agent").display()
    );

    // The TOML table, as ~/.codex/config.toml.
    let home_toml = home(&ratd, "codex-toml");
    write_harness_file(&ratd, Some("codex"), &home_toml.join(".codex/config.toml"));
    let output = listing(
        "codex mcp get",
        harness("codex", &home_toml).args(["mcp", "get", &name]),
    );
    assert!(output.stdout.starts_with(&expected), "{}", output.stdout);

    // The printed `codex mcp add` line, run as is, in another empty HOME.
    let home_add = home(&ratd, "codex-add");
    std::fs::create_dir(home_add.join(".codex")).expect("~/.codex");
    run_printed_line(&text, "codex", &home_add);
    let output = listing(
        "codex mcp get",
        harness("codex", &home_add).args(["mcp", "get", &name]),
    );
    assert!(output.stdout.starts_with(&expected), "{}", output.stdout);
}
