//! An agent's typical work through rat, the official Python SDK driving it
//! (`tests/python/workload.py`), taken two ways: each command as three calls (send_text,
//! wait_window, read_window), and as one (send_text with wait_seconds). A short command must
//! take one call and a long one two, with no more bytes answered in all than the three-call
//! way's. The table it prints (`-- --nocapture`) is docs/benchmarks.md's.

use std::time::Duration;

use tests::{Ratd, binaries, python, run};

/// One step of the workload, as the script printed it.
#[derive(Debug)]
struct Step {
    what: String,
    kind: String,
    calls: u64,
    bytes: u64,
    texts: Vec<String>,
}

fn workload(way: &str) -> Vec<Step> {
    let ratd = Ratd::start("workload", &["agent"]);
    let project = ratd.scratch().join("project");
    std::fs::create_dir(&project).expect("the project's directory");
    let output = run(
        "the workload through rat",
        python("workload.py")
            .arg(&binaries().rat)
            .arg(ratd.server())
            .arg(ratd.client_dir("agent"))
            .arg(&project)
            .arg(way),
        Duration::from_secs(240),
    );
    output
        .stdout
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON step");
            Step {
                what: v["what"].as_str().expect("what").to_owned(),
                kind: v["kind"].as_str().expect("kind").to_owned(),
                calls: v["calls"].as_u64().expect("calls"),
                bytes: v["bytes"].as_u64().expect("bytes"),
                texts: v["texts"]
                    .as_array()
                    .expect("texts")
                    .iter()
                    .map(|t| t.as_str().expect("a text").to_owned())
                    .collect(),
            }
        })
        .collect()
}

#[test]
fn a_short_command_is_one_call_and_a_long_one_two() {
    let three = workload("three");
    let one = workload("one");
    assert_eq!(three.len(), 20);
    assert_eq!(one.len(), 20);
    let mut table = String::from(
        "| step | what | calls, 3 ways | bytes | calls, waiting send | bytes |\n|---|---|---|---|---|---|\n",
    );
    for (i, (a, b)) in three.iter().zip(&one).enumerate() {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            i + 1,
            a.what,
            a.calls,
            a.bytes,
            b.calls,
            b.bytes
        ));
    }
    let sum = |steps: &[Step], f: fn(&Step) -> u64| steps.iter().map(f).sum::<u64>();
    table.push_str(&format!(
        "| | all | {} | {} | {} | {} |\n",
        sum(&three, |s| s.calls),
        sum(&three, |s| s.bytes),
        sum(&one, |s| s.calls),
        sum(&one, |s| s.bytes)
    ));
    println!("{table}");
    // Every step one call: the long build two, started (still running at its 2 s) and waited
    // for later.
    for step in &one {
        assert_eq!(step.calls, 1, "{step:?}");
        if step.kind == "command" {
            assert!(
                step.texts[0].contains(": the command finished "),
                "a short command ends within its wait: {step:?}"
            );
        }
    }
    // Six seconds of build can not end within the 2 s waited (the window's bash may even be
    // starting still, on a loaded machine).
    let start = one.iter().find(|s| s.kind == "start").expect("a start");
    assert!(
        start.texts[0].starts_with("build: ") && !start.texts[0].contains(" finished "),
        "{start:?}"
    );
    let finish = one.iter().find(|s| s.kind == "finish").expect("a finish");
    assert!(
        finish.texts[0].ends_with("compiling part 6\nbuilt"),
        "the build's last rows come with its wait: {finish:?}"
    );
    // What the agent needed, in the one call.
    let error = &one[2].texts[0];
    assert!(
        error.contains("exit status 1.\n") && error.contains("SyntaxError"),
        "{error}"
    );
    let tests_ran = &one[7].texts[0];
    assert!(
        tests_ran.contains("Ran 2 tests in ") && tests_ran.ends_with("\nOK"),
        "{tests_ran}"
    );
    assert!(
        sum(&one, |s| s.bytes) <= sum(&three, |s| s.bytes),
        "no more bytes than the three-call way's\n{table}"
    );
}
