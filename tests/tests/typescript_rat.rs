//! The official TypeScript MCP SDK (`@modelcontextprotocol/sdk`, Node 22) driving `rat` as a
//! stdio server: initialize, tools listed with their annotations, a few tools called, a bad
//! key refused (`tests/node/sdk_client.mjs`).

use std::time::Duration;

use tests::{Ratd, binaries, node, redact_times, run, steps, transcript};

#[test]
fn the_typescript_sdk_through_rat() {
    let ratd = Ratd::start("ts-rat", &["agent"]);
    let scratch = ratd.scratch().to_path_buf();
    let output = run(
        "the TypeScript SDK through rat",
        node()
            .arg("sdk_client.mjs")
            .arg(&binaries().rat)
            .arg(ratd.server())
            .arg(ratd.client_dir("agent"))
            .arg(&scratch),
        Duration::from_secs(120),
    );
    let mut steps = steps(&output.stdout);
    tests::fresh_main_as_starting(&mut steps);
    // The command's length depends on where the scratch directory is.
    let command = format!("echo typescript > {}/from-typescript", scratch.display());
    let pasted = format!("Pasted {} characters", command.chars().count());
    let text = transcript(&steps)
        .replace(&pasted, "Pasted [the command's length in] characters")
        .replace(&ratd.home().display().to_string(), "[HOME]")
        .replace(&scratch.display().to_string(), "[SCRATCH]")
        .replace(&ratd.tenant, "[TENANT]")
        .replace(&tests::host_name(), "[HOST]");
    let text = redact_times(&text);
    assert_eq!(
        steps[0].text,
        format!(
            "protocol 2025-11-25, server rat 0.1.0, title rat {} on {}",
            ratd.tenant,
            tests::host_name()
        )
    );
    // Every tool of the table, in its order.
    assert_eq!(steps[1].text, rat_core::catalog::TOOL_NAMES.join(" "));
    assert_eq!(
        std::fs::read_to_string(scratch.join("from-typescript")).expect("the command wrote it"),
        "typescript\n"
    );
    let send_keys = steps
        .iter()
        .find(|s| s.step == "send_keys")
        .expect("send_keys");
    assert_eq!(send_keys.is_error, Some(true), "an unknown key is an error");
    insta::assert_snapshot!(text);
}
