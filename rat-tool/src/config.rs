//! `rat-tool config --bundle DIR --server HOST:PORT [--harness NAME]`: prints the harness
//! configuration of a client directory: the `mcpServers` entry starting rat, the stdio bridge
//! every harness can start, and the direct URL with the files a harness able to present a
//! client certificate needs; with `--harness`, the entry in that harness's own file and format
//! (JSON or TOML), and its own `mcp add` command line where it has one.
//!
//! The configuration alone goes to stdout, so that `> FILE` and `| jq` take it as it is; what
//! explains it (where it goes, the direct URL, the command lines) goes to stderr, around it,
//! so that a terminal shows both in their order.
//!
//! The entry names rat by the absolute path of the `rat` binary next to rat-tool's own
//! executable (built together, `cargo build --release -p rat -p rat-tool`), and the client
//! directory by its absolute path: a harness starts servers from a directory of its own.
//! The client directory is loaded and checked first, as rat does at its start: an entry for a
//! bundle rat would refuse is refused here, with the same error.

use std::io::Write;
use std::path::{Path, PathBuf};

use rat_wire::connect::{ServerAddress, ServerArgs};
use rat_wire::mtls;
use serde_json::json;

use crate::bundle::Failure;

/// The name of rat's binary, looked for next to rat-tool's own executable.
const RAT_BINARY: &str = "rat";

/// What the configuration is made of, once the client directory is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The absolute path of rat's binary.
    pub(crate) rat: PathBuf,
    /// The address of ratd, as given.
    pub(crate) server: ServerAddress,
    /// The client directory, absolute.
    pub(crate) client_dir: PathBuf,
    /// The tenant its certificates name.
    pub(crate) tenant: String,
    /// The client (session) its certificate names.
    pub(crate) client: String,
}

/// Runs `rat-tool config`: checks the client directory, finds rat next to this executable,
/// and prints the configuration ([`render`]): the configuration alone to `out` (stdout), the
/// notes before and after it to `notes` (stderr). When `out` is not a terminal (`> FILE`,
/// `| jq`), the note before it says where the configuration went rather than leading into it. A missing rat binary is a warning on stderr:
/// the entry is printed all the same, for a rat installed there later.
///
/// # Errors
/// The client directory does not load (the check that failed, as rat would tell it, with a
/// pointer to `DIR/clients/NAME` when the bundle's top directory was given), a path that JSON
/// can not hold (not UTF-8), or writing to `out` failing.
pub(crate) fn config(
    out: &mut impl Write,
    notes: &mut impl Write,
    args: &ServerArgs,
    harness: Option<Harness>,
    out_is_terminal: bool,
) -> Result<(), Failure> {
    // Without `..` or links where the directory exists (`../demo/bundle/...` as its real path).
    let client_dir = std::fs::canonicalize(&args.bundle)
        .or_else(|_| std::path::absolute(&args.bundle))
        .map_err(|e| format!("can not make {} absolute: {e}", args.bundle.display()))?;
    let side = mtls::load_client(&client_dir).map_err(|e| {
        let mut message = format!(
            "the client directory {} can not be used: {e}",
            client_dir.display()
        );
        if client_dir.join("clients").is_dir() {
            message.push_str(&format!(
                "\n{} is a whole bundle: give the directory of one client, {}",
                client_dir.display(),
                client_dir.join("clients").join("NAME").display()
            ));
        }
        message
    })?;
    let rat = rat_next_to_this_executable()?;
    if !rat.is_file() {
        eprintln!(
            "rat-tool: warning: {} does not exist yet: build rat next to rat-tool (cargo build --release -p rat -p rat-tool), or install both in one directory",
            rat.display()
        );
    }
    let entry = Entry {
        rat,
        server: args.server.clone(),
        client_dir,
        tenant: side.tenant().to_owned(),
        client: side.client_name().to_owned(),
    };
    let mut text = render(&entry, harness)?;
    if !out_is_terminal {
        text.before = format!(
            "{} (it is on stdout)\n",
            text.before.trim_end().trim_end_matches(':')
        );
    }
    // Each part flushed before the next: on a terminal, the three read in their order. Notes
    // that can not be written (stderr closed) do not fail the command; the configuration does.
    let _ = notes
        .write_all(text.before.as_bytes())
        .and_then(|()| notes.flush());
    out.write_all(text.config.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("can not write the configuration: {e}"))?;
    let _ = notes
        .write_all(text.after.as_bytes())
        .and_then(|()| notes.flush());
    Ok(())
}

/// The text `rat-tool config` prints: the configuration, and the notes around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// The notes before the configuration (stderr): the client, and where the configuration
    /// goes.
    pub(crate) before: String,
    /// The configuration alone (stdout): a JSON object, or a TOML table for Codex, ending
    /// with a newline.
    pub(crate) config: String,
    /// The notes after it (stderr): the harness's own command, the direct URL, the check.
    pub(crate) after: String,
}

/// The path of rat next to rat-tool's own executable.
fn rat_next_to_this_executable() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe().map_err(|e| {
        format!("can not tell where rat-tool runs from, to find rat next to it: {e}")
    })?;
    let dir = exe
        .parent()
        .ok_or_else(|| format!("{} has no directory", exe.display()))?;
    Ok(dir.join(RAT_BINARY))
}

/// A path as JSON holds it: UTF-8 only.
fn utf8(path: &Path) -> Result<&str, Failure> {
    path.to_str().ok_or_else(|| {
        format!(
            "{} is not UTF-8, which a JSON configuration can not hold: move it to a path that is",
            path.display()
        )
    })
}

/// A harness `rat-tool config --harness` writes the configuration of, in that harness's own
/// format and file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Harness {
    /// Claude Code: `mcpServers` in a project's `.mcp.json`, or `claude mcp add`.
    ClaudeCode,
    /// Codex: `[mcp_servers.NAME]` in `~/.codex/config.toml`, or `codex mcp add`.
    Codex,
    /// VS Code: `servers` (each with its `type`) in a workspace's `.vscode/mcp.json`.
    Vscode,
    /// Gemini CLI: `mcpServers` in `~/.gemini/settings.json` or a project's
    /// `.gemini/settings.json`.
    Gemini,
    /// Cursor: `mcpServers` in a project's `.cursor/mcp.json` or `~/.cursor/mcp.json`.
    Cursor,
}

/// The configuration and its notes: for `None` the `{"mcpServers": {"rat-TENANT": {"command":
/// RAT, "args": [...]}}}` object (pretty JSON, the server named after the tenant, as
/// harnesses prefix tool names with it), for a harness the object or table of its own file
/// and format. The notes: before it, a header naming the client, the tenant and ratd, and
/// where the configuration goes; after it, the harness's own command line where it has one,
/// for `None` the direct URL `https://HOST:PORT/mcp` with the client certificate, its key and
/// the CA to trust, and the check command.
///
/// # Errors
/// A path that is not UTF-8.
pub(crate) fn render(entry: &Entry, harness: Option<Harness>) -> Result<Rendered, Failure> {
    let rat = utf8(&entry.rat)?;
    let dir = utf8(&entry.client_dir)?;
    let server = entry.server.to_string();
    let name = format!("rat-{}", entry.tenant);
    let args = ["--server", server.as_str(), "--bundle", dir];
    let header = format!(
        "\
Client {client} of tenant {tenant} (its terminals: session {client}), reaching ratd at {server}.
(The configuration alone is on stdout, for > FILE or | jq; these notes are on stderr.)

",
        client = entry.client,
        tenant = entry.tenant,
    );
    let check = format!(
        "Check it first as the harness will reach it:\n  rat-tool check --server {} --bundle {}\n",
        shell_word(&server),
        shell_word(dir),
    );
    // The command line starting rat, as a shell reads it, after a harness's `mcp add NAME --`.
    let command_line = std::iter::once(rat)
        .chain(args)
        .map(shell_word)
        .collect::<Vec<_>>()
        .join(" ");
    let stdio = json!({"command": rat, "args": args});
    let typed = json!({"type": "stdio", "command": rat, "args": args});
    let (before, config, after) = match harness {
        None => (
            "\
For any harness: rat, the stdio bridge, started by the harness. Add this server to the
\"mcpServers\" of the harness's MCP configuration (for example the .mcp.json of a Claude
Code project; rat-tool config --harness NAME prints the file and format of claude-code,
codex, vscode, gemini and cursor):

"
            .to_owned(),
            pretty(&json!({"mcpServers": {name.clone(): stdio}}))?,
            format!(
                "\
For a harness that can present a client certificate itself (no bridge):
  URL          {url}
  certificate  {cert}
  key          {key}
  CA           {ca}
               (trust this CA alone, and do not check the host name: ratd's
               certificate names tenant {tenant}, not a host)

",
                tenant = entry.tenant,
                url = entry.server.url(),
                cert = entry.client_dir.join("client.crt").display(),
                key = entry.client_dir.join("client.key").display(),
                ca = entry.client_dir.join("ca.crt").display(),
            ),
        ),
        Some(Harness::ClaudeCode) => (
            "\
Claude Code: add this server to the \"mcpServers\" of .mcp.json at the root of the project
(shared with the project), or of ~/.claude.json (yours alone):

"
            .to_owned(),
            pretty(&json!({"mcpServers": {name.clone(): typed}}))?,
            format!(
                "\
Or let Claude Code write it (--scope project for .mcp.json, --scope user for every project):

  claude mcp add {name} -- {command_line}

"
            ),
        ),
        Some(Harness::Codex) => (
            "\
Codex: add this table to ~/.codex/config.toml:

"
            .to_owned(),
            format!(
                "[mcp_servers.{name}]\ncommand = {command}\nargs = [{args}]",
                command = toml_string(rat),
                args = args.map(toml_string).join(", "),
            ),
            format!(
                "\
Or let Codex write it:

  codex mcp add {name} -- {command_line}

"
            ),
        ),
        Some(Harness::Vscode) => (
            "\
VS Code: add this server to the \"servers\" of .vscode/mcp.json in the workspace (or of
your user configuration: the command MCP: Open User Configuration):

"
            .to_owned(),
            pretty(&json!({"servers": {name.clone(): typed}}))?,
            String::new(),
        ),
        Some(Harness::Gemini) => (
            "\
Gemini CLI: add this server to the \"mcpServers\" of ~/.gemini/settings.json (yours alone),
or of .gemini/settings.json in the project:

"
            .to_owned(),
            pretty(&json!({"mcpServers": {name.clone(): stdio}}))?,
            String::new(),
        ),
        Some(Harness::Cursor) => (
            "\
Cursor: add this server to the \"mcpServers\" of .cursor/mcp.json in the project, or of
~/.cursor/mcp.json for every project:

"
            .to_owned(),
            pretty(&json!({"mcpServers": {name.clone(): stdio}}))?,
            String::new(),
        ),
    };
    // The configuration ends with its newline; the notes after it open with a blank line.
    Ok(Rendered {
        before: header + &before,
        config: config + "\n",
        after: "\n".to_owned() + &after + &check,
    })
}

/// `value` as pretty JSON.
fn pretty(value: &serde_json::Value) -> Result<String, Failure> {
    serde_json::to_string_pretty(value)
        .map_err(|e| format!("can not write the configuration as JSON: {e}"))
}

/// `text` as a TOML basic string. JSON's escapes are TOML's (`\"`, `\\`, `\n`, `\uXXXX`...),
/// but for DEL, which TOML wants escaped and JSON leaves as is.
fn toml_string(text: &str) -> String {
    serde_json::Value::from(text)
        .to_string()
        .replace('\u{7f}', "\\u007F")
}

/// `word` as one word of a POSIX shell, to paste: as is when it holds only characters no shell
/// reads specially, else between single quotes (a `'` written `'\''`).
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:@%+=,-".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_are_quoted_for_a_shell_when_needed() {
        use super::shell_word;
        assert_eq!(
            shell_word("/srv/rat/clients/agent"),
            "/srv/rat/clients/agent"
        );
        assert_eq!(shell_word("127.0.0.1:7281"), "127.0.0.1:7281");
        assert_eq!(shell_word("[::1]:7281"), "'[::1]:7281'");
        assert_eq!(shell_word("/tmp/my dir"), "'/tmp/my dir'");
        assert_eq!(shell_word("/tmp/it's"), r"'/tmp/it'\''s'");
        assert_eq!(shell_word("/tmp/$HOME"), "'/tmp/$HOME'");
    }

    use super::*;

    /// What a terminal shows, each part under the stream it goes to.
    fn shown(rendered: &Rendered) -> String {
        format!(
            "--- stderr\n{}--- stdout\n{}--- stderr\n{}",
            rendered.before, rendered.config, rendered.after
        )
    }

    fn render_default(entry: &Entry) -> Result<String, Failure> {
        render(entry, None).map(|rendered| shown(&rendered))
    }

    fn entry(server: &str) -> Entry {
        Entry {
            rat: PathBuf::from("/opt/rat/bin/rat"),
            server: server.parse().expect("a valid address"),
            client_dir: PathBuf::from("/home/me/rat/demo/bundle/clients/agent"),
            tenant: "demo".to_owned(),
            client: "agent".to_owned(),
        }
    }

    #[test]
    fn the_entry_and_the_direct_url() {
        insta::assert_snapshot!(render_default(&entry("127.0.0.1:7281")).expect("renders"));
    }

    #[test]
    fn an_ipv6_server_keeps_its_brackets() {
        insta::assert_snapshot!(render_default(&entry("[::1]:7281")).expect("renders"));
    }

    #[test]
    fn the_json_starts_rat_with_its_flags() {
        let text = render(&entry("build.example:7281"), None).expect("renders");
        let config: serde_json::Value = serde_json::from_str(&text.config).expect("valid JSON");
        assert_eq!(
            config,
            json!({"mcpServers": {"rat-demo": {
                "command": "/opt/rat/bin/rat",
                "args": ["--server", "build.example:7281", "--bundle",
                         "/home/me/rat/demo/bundle/clients/agent"],
            }}})
        );
    }

    #[test]
    fn each_harness_in_its_own_format() {
        let entry = entry("127.0.0.1:7281");
        for (harness, name) in [
            (Harness::ClaudeCode, "claude-code"),
            (Harness::Codex, "codex"),
            (Harness::Vscode, "vscode"),
            (Harness::Gemini, "gemini"),
            (Harness::Cursor, "cursor"),
        ] {
            let rendered = render(&entry, Some(harness)).expect("renders");
            insta::assert_snapshot!(name, shown(&rendered));
        }
    }

    #[test]
    fn codex_toml_holds_any_path_a_json_can() {
        let mut odd = entry("127.0.0.1:7281");
        odd.client_dir = PathBuf::from("/tmp/a \"quoted\" \\ dir\u{7f}\u{1}/agent");
        let text = render(&odd, Some(Harness::Codex)).expect("renders");
        let table: toml::Table = toml::from_str(&text.config).expect("valid TOML");
        let args = table["mcp_servers"]["rat-demo"]["args"]
            .as_array()
            .expect("args");
        assert_eq!(args[3].as_str(), odd.client_dir.to_str());
    }

    #[test]
    fn a_path_json_can_not_hold_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let mut bad = entry("127.0.0.1:7281");
        bad.client_dir = PathBuf::from(std::ffi::OsStr::from_bytes(b"/tmp/\xff/agent"));
        insta::assert_snapshot!(render(&bad, None).expect_err("refused"));
    }
}
