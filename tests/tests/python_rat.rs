//! The official Python MCP SDK driving `rat` as a stdio server through an agent's scenario:
//! windows, a failing pipeline told by its statuses, files, an interrupted command
//! (`tests/python/agent_scenario.py`).

use std::time::Duration;

use tests::{Ratd, binaries, python, redact_times, run, steps, transcript};

#[test]
fn an_agent_scenario_through_rat() {
    let ratd = Ratd::start("py-rat", &["agent"]);
    let scratch = ratd.scratch().to_path_buf();
    let output = run(
        "the Python SDK through rat",
        python("agent_scenario.py")
            .arg(&binaries().rat)
            .arg(ratd.server())
            .arg(ratd.client_dir("agent"))
            .arg(&scratch),
        Duration::from_secs(120),
    );
    let mut steps = steps(&output.stdout);
    tests::fresh_main_as_starting(&mut steps);
    // The pipeline's length depends on where the scratch directory is.
    let pipeline = format!(
        "printf 'a\\nb\\n' > {}/x && false | true",
        scratch.display()
    );
    let pasted = format!("Pasted {} characters", pipeline.chars().count());
    assert_eq!(
        steps[4].text,
        format!("{pasted} into build, then pressed Enter.")
    );
    let text = transcript(&steps)
        .replace(&pasted, "Pasted [the pipeline's length in] characters")
        .replace(&ratd.home().display().to_string(), "[HOME]")
        .replace(&scratch.display().to_string(), "[SCRATCH]")
        .replace(&ratd.tenant, "[TENANT]");
    let text = redact_times(&text);
    let step = |i: usize, tool: &str| {
        assert_eq!(steps[i].step, tool, "step {i}\n{text}");
        assert_eq!(steps[i].is_error, Some(false), "step {i} {tool}\n{text}");
        redact_times(&steps[i].text)
    };
    assert_eq!(
        steps[0].text, "2026-07-28",
        "protocol negotiated through rat"
    );
    assert!(
        step(1, "list_windows").starts_with(
            "[your terminals did not exist: a fresh main was just created]\nmain: bash in "
        ),
        "{text}"
    );
    // The pipeline's first command failed: its status comes first, then the pipeline's.
    assert_eq!(
        step(5, "wait_window"),
        "build: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 1. \
         The pipeline exits with the status of its last command, 0, as bash reports it \
         (statuses, left to right: 1 0).\nNothing printed.",
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.join("x")).expect("the pipeline wrote x"),
        "a\nb\n"
    );
    assert_eq!(
        step(9, "read_file")
            .split_once('\n')
            .map(|(_, content)| content),
        Some("two\nthree\n"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.join("notes/today.txt")).expect("notes written"),
        "one\ntwo\nthree\nfour\n"
    );
    assert!(
        step(11, "wait_window").starts_with("build: still running, "),
        "{text}"
    );
    assert!(
        step(13, "wait_window").ends_with("exit status 130.\n[1 row printed]\n^C"),
        "C-c interrupted sleep\n{text}"
    );
    assert_eq!(step(14, "close_window"), "Window build closed.");
    insta::assert_snapshot!(text);
}

/// What a harness shows when rat can not reach ratd: rat's own JSON-RPC error, -32050.
fn initialize_error(server: &str, client_dir: &std::path::Path) -> String {
    let output = run(
        "the Python SDK through rat, ratd out of reach",
        python("unreachable.py")
            .arg(&binaries().rat)
            .arg(server)
            .arg(client_dir),
        Duration::from_secs(60),
    );
    let steps = steps(&output.stdout);
    assert_eq!(steps.len(), 1, "{}", output.stdout);
    assert_eq!(steps[0].is_error, Some(true), "{}", output.stdout);
    steps[0].text.clone()
}

#[test]
fn a_harness_is_told_why_ratd_is_out_of_reach() {
    let dir = tempfile::tempdir().expect("a directory");
    let tenant = tests::unique_name("py-none");
    rat_wire::mtls::generate(&tenant, &["agent"], &dir.path().join("b")).expect("a bundle");
    let client = dir.path().join("b/clients/agent");

    // Nothing listens.
    let port = tests::free_port();
    assert_eq!(
        initialize_error(&format!("127.0.0.1:{port}"), &client),
        format!("-32050 ratd unreachable at 127.0.0.1:{port}: connection refused")
    );

    // A ratd of another bundle: rat refuses its certificate before sending anything.
    let other = Ratd::start("py-other", &["agent"]);
    let text = initialize_error(&other.server(), &client).replace(&other.server(), "HOST:PORT");
    insta::assert_snapshot!(text);
}
