//! The official Python MCP SDK reaching ratd directly over mutual TLS: initialize (protocol
//! 2025-11-25) and discover (2026-07-28), tools listed and called (`tests/python/direct_mtls.py`).

use std::time::Duration;

use tests::{Ratd, host_name, python, run, steps};

#[test]
fn python_sdk_initializes_and_discovers_over_mtls() {
    let ratd = Ratd::start("py-direct", &["agent"]);
    let output = run(
        "the Python SDK over mTLS",
        python("direct_mtls.py")
            .arg(ratd.url())
            .arg(ratd.client_dir("agent")),
        Duration::from_secs(60),
    );
    let steps = steps(&output.stdout);
    let names: Vec<&str> = steps.iter().map(|s| s.step.as_str()).collect();
    assert_eq!(
        names,
        [
            "legacy: connected",
            "legacy: instructions",
            "legacy: tools/list",
            "legacy: list_windows",
            "auto: connected",
            "auto: instructions",
            "auto: tools/list",
            "auto: list_windows",
        ]
    );
    let host = host_name();
    let title = format!("title 'rat {} on {host}'", ratd.tenant);
    assert_eq!(
        steps[0].text,
        format!("protocol 2025-11-25, server rat 0.1.0, {title}")
    );
    assert_eq!(
        steps[4].text,
        format!("protocol 2026-07-28, server rat 0.1.0, {title}")
    );
    assert_eq!(
        steps[1].text, steps[5].text,
        "the same instructions either way"
    );
    assert_eq!(steps[2].text, steps[6].text, "the same tools either way");
}
