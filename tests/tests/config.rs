//! `rat-tool config` (issue 8): the printed `mcpServers` entry, started as is by a real client
//! (the official Python SDK), reaches a real terminal; a whole bundle given instead of a client
//! directory is refused, saying which directory to give.

use std::process::Command;
use std::time::Duration;

use tests::{Ratd, binaries, python, run, run_to_exit, steps};

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
            && steps[4].text.ends_with(", exit status 0."),
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
