//! `rat-tool config`: the configuration alone on stdout, written to each harness's own file
//! with `> FILE` and parsed by that format's parser (serde_json, toml), the notes on stderr; the
//! printed `mcpServers` entry, started as is by a real client (the official Python SDK),
//! reaches a real terminal; a whole bundle given instead of a client directory is refused,
//! saying which directory to give.

use std::process::Command;
use std::time::Duration;

use tests::{
    Ratd, binaries, harness_config, paragraph, python, run, run_to_exit, steps, write_harness_file,
};

#[test]
fn the_printed_entry_starts_rat_and_reaches_a_terminal() {
    let ratd = Ratd::start("config", &["agent"]);
    let config = ratd.scratch().join("harness.json");
    let written = write_harness_file(&ratd, None, &config);
    let entry: serde_json::Value = serde_json::from_str(&written).expect("valid JSON");
    let name = format!("rat-{}", ratd.tenant);
    assert_eq!(
        entry,
        serde_json::json!({"mcpServers": {name.clone(): {
            "command": binaries().rat.display().to_string(),
            "args": ["--server", ratd.server(), "--bundle",
                     ratd.client_dir("agent").display().to_string()],
        }}})
    );
    // The notes, on stderr: the direct URL among them.
    let output = run(
        "rat-tool config",
        Command::new(&binaries().rat_tool)
            .args(["config", "--server", &ratd.server(), "--bundle"])
            .arg(ratd.client_dir("agent")),
        Duration::from_secs(30),
    );
    assert_eq!(output.stdout, written);
    assert!(
        output
            .stderr
            .contains(&format!("  URL          {}\n", ratd.url())),
        "{}",
        output.stderr
    );

    let output = run(
        "the Python SDK from the printed configuration",
        python("from_config.py").arg(&config),
        Duration::from_secs(60),
    );
    let steps = steps(&output.stdout);
    assert_eq!(steps[0].text, name);
    assert_eq!(
        steps[3].text,
        "Pasted 15 characters into main, then pressed Enter."
    );
    assert!(
        steps[4].text.starts_with("main: the command finished ")
            && steps[4]
                .text
                .ends_with(", exit status 0.\n[1 row printed]\nconfigured"),
        "{:?}",
        steps[4]
    );
    assert_eq!(steps[5].text, "e2e$ echo configured\nconfigured\ne2e$");
}

#[test]
fn a_whole_bundle_is_refused_with_the_directory_to_give() {
    let dir = tempfile::tempdir().expect("a directory");
    let bundle = dir.path().join("bundle");
    rat_wire::mtls::generate("config-refused", &["agent"], &bundle).expect("a bundle");
    let (status, output) = run_to_exit(
        "rat-tool config",
        Command::new(&binaries().rat_tool)
            .args(["config", "--server", "127.0.0.1:7281", "--bundle"])
            .arg(&bundle),
        Duration::from_secs(30),
    );
    assert_eq!(status.code(), Some(1));
    assert_eq!(output.stdout, "");
    let stderr = output
        .stderr
        .replace(&bundle.display().to_string(), "BUNDLE");
    insta::assert_snapshot!(stderr);
}

/// The stdio entry a harness starts rat with: its command and args.
fn stdio_entry(ratd: &Ratd) -> (String, Vec<String>) {
    (
        binaries().rat.display().to_string(),
        vec![
            "--server".to_owned(),
            ratd.server(),
            "--bundle".to_owned(),
            ratd.client_dir("agent").display().to_string(),
        ],
    )
}

#[test]
fn each_harness_gets_its_own_file_and_format() {
    let ratd = Ratd::start("harness", &["agent"]);
    let name = format!("rat-{}", ratd.tenant);
    let (command, args) = stdio_entry(&ratd);
    let json_entry = |with_type: bool| {
        let mut entry = serde_json::json!({"command": command, "args": args});
        if with_type {
            entry["type"] = "stdio".into();
        }
        entry
    };
    // Each harness's file written as a user writes it, `rat-tool config --harness H > FILE`, in
    // a HOME of the test (a project's files in its project directory).
    let home = ratd.scratch().join("home");
    let project = home.join("project");
    let file = |harness: &str, path: &std::path::Path| {
        let text = write_harness_file(&ratd, Some(harness), path);
        let output = harness_config(&ratd, harness);
        assert_eq!(output.stdout, text, "stdout is the file");
        (text, output.stderr)
    };
    let parse_json = |text: &str| -> serde_json::Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("valid JSON: {e}\n{text}"))
    };

    // Claude Code: .mcp.json, and its own `claude mcp add` line among the notes.
    let (claude, notes) = file("claude-code", &project.join(".mcp.json"));
    assert!(notes.contains("\"mcpServers\" of .mcp.json"), "{notes}");
    assert_eq!(
        parse_json(&claude),
        serde_json::json!({"mcpServers": {name.clone(): json_entry(true)}})
    );
    assert_eq!(
        paragraph(&notes, "  claude mcp add"),
        format!(
            "  claude mcp add {name} -- {command} --server {} --bundle {}",
            ratd.server(),
            args[3]
        )
    );

    // Codex: a TOML table, ~/.codex/config.toml, and `codex mcp add` among the notes.
    let (codex, notes) = file("codex", &home.join(".codex/config.toml"));
    assert!(notes.contains("~/.codex/config.toml"), "{notes}");
    let table: toml::Table = toml::from_str(&codex).expect("valid TOML");
    let expected: toml::Table = serde_json::from_value(serde_json::json!({
        "mcp_servers": {name.clone(): {"command": command, "args": args}},
    }))
    .expect("a TOML table");
    assert_eq!(table, expected);
    assert!(
        paragraph(&notes, "  codex mcp add").starts_with(&format!("  codex mcp add {name} -- ")),
        "{notes}"
    );

    // VS Code: "servers", each with its type, in .vscode/mcp.json.
    let (vscode, notes) = file("vscode", &project.join(".vscode/mcp.json"));
    assert!(notes.contains(".vscode/mcp.json"), "{notes}");
    assert_eq!(
        parse_json(&vscode),
        serde_json::json!({"servers": {name.clone(): json_entry(true)}})
    );

    // Gemini CLI and Cursor: "mcpServers" in their own files.
    for (harness, path, shown) in [
        (
            "gemini",
            home.join(".gemini/settings.json"),
            "~/.gemini/settings.json",
        ),
        (
            "cursor",
            project.join(".cursor/mcp.json"),
            ".cursor/mcp.json",
        ),
    ] {
        let (text, notes) = file(harness, &path);
        assert!(notes.contains(shown), "{notes}");
        assert_eq!(
            parse_json(&text),
            serde_json::json!({"mcpServers": {name.clone(): json_entry(false)}})
        );
    }
}

#[test]
fn an_unknown_harness_is_refused_with_the_known_ones() {
    let (status, output) = run_to_exit(
        "rat-tool config --harness",
        Command::new(&binaries().rat_tool).args([
            "config",
            "--harness",
            "emacs",
            "--server",
            "127.0.0.1:7281",
            "--bundle",
            "/nonexistent",
        ]),
        Duration::from_secs(30),
    );
    assert_eq!(status.code(), Some(2));
    assert!(
        output.stderr.contains(
            "invalid value 'emacs' for '--harness <NAME>'\n  [possible values: claude-code, codex, vscode, gemini, cursor]"
        ),
        "{}",
        output.stderr
    );
}
