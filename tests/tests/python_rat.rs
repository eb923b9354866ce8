//! The official Python MCP SDK driving `rat` as a stdio server through an agent's scenario
//! (issue 8): windows, a failing pipeline told by its statuses, files, an interrupted command
//! (`tests/python/agent_scenario.py`).

use std::time::Duration;

use tests::{Ratd, binaries, python, run, steps, transcript};

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
    let steps = steps(&output.stdout);
    let text = transcript(&steps)
        .replace(&scratch.display().to_string(), "[SCRATCH]")
        .replace(&ratd.tenant, "[TENANT]");
    println!("{text}");
    assert_eq!(
        steps[0].text, "2026-07-28",
        "protocol negotiated through rat"
    );
    // The file the pipeline wrote, read back whole.
    let pipeline_file = std::fs::read_to_string(scratch.join("x")).expect("the pipeline wrote x");
    assert_eq!(pipeline_file, "a\nb\n");
    let notes = std::fs::read_to_string(scratch.join("notes/today.txt")).expect("notes written");
    assert_eq!(notes, "one\ntwo\nthree\nfour\n");
    insta::assert_snapshot!(redact_times(&text));
}

/// Replaces the times that change from run to run ("3s ago", "since 2s") with N.
fn redact_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(|c: char| c.is_ascii_digit()) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, after) = tail.split_at(end);
        let timed = ["s ago", "m ago", "h ago", "ms", "s since", "m since"]
            .iter()
            .any(|unit| after.starts_with(unit));
        out.push_str(if timed { "N" } else { digits });
        rest = after;
    }
    out.push_str(rest);
    out
}
