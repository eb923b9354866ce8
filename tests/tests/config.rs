//! `rat-tool config`: the printed `mcpServers` entry, started as is by a real client
//! (the official Python SDK), reaches a real terminal; a whole bundle given instead of a client
//! directory is refused, saying which directory to give.

use std::process::Command;
use std::time::Duration;

use tests::{Ratd, binaries, harness_config, paragraph, python, run, run_to_exit, steps};

#[test]
fn the_printed_entry_starts_rat_and_reaches_a_terminal() {
    let ratd = Ratd::start("config", &["agent"]);
    let output = run(
        "rat-tool config",
        Command::new(&binaries().rat_tool)
            .args(["config", "--server", &ratd.server(), "--bundle"])
            .arg(ratd.client_dir("agent")),
        Duration::from_secs(30),
    );
    let start = output.stdout.find("{\n").expect("a JSON object");
    let end = output.stdout.find("\n}\n").expect("its end") + 2;
    let entry: serde_json::Value =
        serde_json::from_str(&output.stdout[start..end]).expect("valid JSON");
    let name = format!("rat-{}", ratd.tenant);
    assert_eq!(
        entry,
        serde_json::json!({"mcpServers": {name.clone(): {
            "command": binaries().rat.display().to_string(),
            "args": ["--server", ratd.server(), "--bundle",
                     ratd.client_dir("agent").display().to_string()],
        }}})
    );
    assert!(
        output
            .stdout
            .contains(&format!("  URL          {}\n", ratd.url())),
        "{}",
        output.stdout
    );
    let config = ratd.scratch().join("harness.json");
    std::fs::write(&config, &output.stdout[start..end]).expect("the configuration written");

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
    rat_core::mtls::generate("config-refused", &["agent"], &bundle).expect("a bundle");
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
    let parse_json = |text: &str| -> serde_json::Value {
        serde_json::from_str(paragraph(text, "{\n")).expect("valid JSON")
    };

    // Claude Code: .mcp.json, and its own `claude mcp add` line.
    let claude = harness_config(&ratd, "claude-code");
    assert!(claude.contains("\"mcpServers\" of .mcp.json"), "{claude}");
    assert_eq!(
        parse_json(&claude),
        serde_json::json!({"mcpServers": {name.clone(): json_entry(true)}})
    );
    assert_eq!(
        paragraph(&claude, "  claude mcp add"),
        format!(
            "  claude mcp add {name} -- {command} --server {} --bundle {}",
            ratd.server(),
            args[3]
        )
    );

    // Codex: a TOML table in ~/.codex/config.toml, and `codex mcp add`.
    let codex = harness_config(&ratd, "codex");
    assert!(codex.contains("~/.codex/config.toml"), "{codex}");
    let table: toml::Table =
        toml::from_str(paragraph(&codex, "[mcp_servers.")).expect("valid TOML");
    let server = &table["mcp_servers"][name.as_str()];
    assert_eq!(server["command"].as_str(), Some(command.as_str()));
    let toml_args: Vec<&str> = server["args"]
        .as_array()
        .expect("args, an array")
        .iter()
        .map(|arg| arg.as_str().expect("a string"))
        .collect();
    assert_eq!(toml_args, args);
    assert!(
        paragraph(&codex, "  codex mcp add").starts_with(&format!("  codex mcp add {name} -- ")),
        "{codex}"
    );

    // VS Code: "servers", each with its type.
    let vscode = harness_config(&ratd, "vscode");
    assert!(vscode.contains(".vscode/mcp.json"), "{vscode}");
    assert_eq!(
        parse_json(&vscode),
        serde_json::json!({"servers": {name.clone(): json_entry(true)}})
    );

    // Gemini CLI and Cursor: "mcpServers" in their own files.
    for (harness, file) in [
        ("gemini", "~/.gemini/settings.json"),
        ("cursor", ".cursor/mcp.json"),
    ] {
        let text = harness_config(&ratd, harness);
        assert!(text.contains(file), "{text}");
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
