//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, its server
//! scenarios, under Node 22) against a real ratd, through a local TLS bridge presenting a
//! client certificate (socat: the suite speaks plain HTTP).
//!
//! Two runs: the active suite at the 2025-11-25 wire (initialize handshake), and exactly what
//! protocol 2026-07-28 requires (stateless, `--requirements 2026-07-28`, which also runs the
//! extension and pending scenarios, unscored). Every scenario the suite runs must be classified
//! below: one that applies to a server with tools only (no prompts, resources, completions,
//! logging, tasks, nor the suite's fixture tools) must pass every check, but the checks listed
//! with why they can not apply; one that can not apply at all is listed with why. A new
//! scenario of a new suite version fails the test until it is classified here and in
//! docs/conformance.md, which shows these results and the command to reproduce them.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use tests::{Ratd, TlsBridge, node, run_to_exit};

/// How a scenario applies to ratd.
enum Applies {
    /// Every check passes, but these (check id, why it can not apply).
    Yes(&'static [(&'static str, &'static str)]),
    /// The whole scenario can not apply, for this reason.
    No(&'static str),
}

use Applies::{No, Yes};

const FIXTURE: &str =
    "calls a fixture tool of the suite's reference server, which ratd does not offer";
const PROMPTS: &str = "ratd offers no prompts";
const RESOURCES: &str = "ratd offers no resources";
const COMPLETION: &str = "ratd offers no completions (it has no prompts nor resource templates)";
const LOGGING: &str =
    "ratd offers no MCP logging (it logs to its own stderr, see docs/design/status-and-logs.md)";
const DNS: &str = "ratd turns DNS rebinding protection off on purpose: mutual TLS refuses a browser before any request exists, and host names stay free (docs/design/transport.md)";
const INPUT: &str = "ratd's tools never ask the client for input (no elicitation, sampling nor roots), and the scenario calls fixture tools";
const TASKS: &str = "the tasks extension is not offered (and the scenario calls fixture tools); extensions are not scored";
const STATELESS: &str = "ratd is stateless by design (no Mcp-Session-Id, docs/design/transport.md): the check looks for a session";
const NOT_FIXTURE_DIAGNOSTIC: &str =
    "needs a diagnostic fixture tool of the suite's reference server";
const NO_SUBSCRIPTIONS: &str = "ratd advertises no listChanged nor subscribe capability, so subscriptions/listen does not apply (the suite skips it)";

/// The scenarios of the 2025-11-25 run.
fn at_2025_11_25(scenario: &str) -> Option<Applies> {
    Some(match scenario {
        "server-initialize" | "server-session-lifecycle" | "ping" | "tools-list" => Yes(&[]),
        "server-sse-multiple-streams" => Yes(&[("server-sse-multiple-streams-session", STATELESS)]),
        "logging-set-level" | "tools-call-with-logging" => No(LOGGING),
        "completion-complete" => No(COMPLETION),
        "tools-call-simple-text"
        | "tools-call-image"
        | "tools-call-audio"
        | "tools-call-embedded-resource"
        | "tools-call-mixed-content"
        | "tools-call-error"
        | "tools-call-with-progress"
        | "tools-call-sampling"
        | "tools-call-elicitation"
        | "elicitation-sep1034-defaults"
        | "elicitation-sep1330-enums"
        | "server-sse-polling" => No(FIXTURE),
        "resources-list"
        | "resources-read-text"
        | "resources-read-binary"
        | "resources-templates-read"
        | "resources-subscribe"
        | "resources-unsubscribe" => No(RESOURCES),
        "prompts-list"
        | "prompts-get-simple"
        | "prompts-get-with-args"
        | "prompts-get-embedded-resource"
        | "prompts-get-with-image" => No(PROMPTS),
        "dns-rebinding-protection" => No(DNS),
        _ => return None,
    })
}

/// The scenarios of the 2026-07-28 run.
fn at_2026_07_28(scenario: &str) -> Option<Applies> {
    Some(match scenario {
        "tools-list"
        | "server-sse-multiple-streams"
        | "http-header-validation"
        | "http-custom-header-server-validation"
        | "input-required-result-unsupported-methods" => Yes(&[]),
        "server-stateless" => Yes(&[
            (
                "sep-2575-server-rejects-undeclared-capability",
                NOT_FIXTURE_DIAGNOSTIC,
            ),
            (
                "sep-2575-missing-capability-http-400",
                NOT_FIXTURE_DIAGNOSTIC,
            ),
            (
                "sep-2575-http-server-no-independent-requests-on-stream",
                NOT_FIXTURE_DIAGNOSTIC,
            ),
            (
                "sep-2575-server-no-log-without-loglevel",
                NOT_FIXTURE_DIAGNOSTIC,
            ),
            ("sep-2575-server-sends-subscription-ack", NO_SUBSCRIPTIONS),
            ("sep-2575-server-tags-subscription-id", NO_SUBSCRIPTIONS),
            (
                "sep-2575-server-honors-notification-filter",
                NO_SUBSCRIPTIONS,
            ),
            (
                "sep-2575-server-sends-prompts-list-changed-on-subscription",
                NO_SUBSCRIPTIONS,
            ),
            (
                "sep-2575-server-sends-tools-list-changed-on-subscription",
                NO_SUBSCRIPTIONS,
            ),
        ]),
        "caching" => Yes(&[
            ("sep-2549-prompts-list-caching-hints", PROMPTS),
            ("sep-2549-resources-list-caching-hints", RESOURCES),
            ("sep-2549-resources-templates-list-caching-hints", RESOURCES),
            ("sep-2549-resources-read-caching-hints", RESOURCES),
        ]),
        "completion-complete" => No(COMPLETION),
        "tools-call-simple-text"
        | "tools-call-image"
        | "tools-call-audio"
        | "tools-call-embedded-resource"
        | "tools-call-mixed-content"
        | "tools-call-error"
        | "tools-call-with-progress"
        | "json-schema-2020-12" => No(FIXTURE),
        "resources-list"
        | "resources-read-text"
        | "resources-read-binary"
        | "resources-templates-read"
        | "sep-2164-resource-not-found" => No(RESOURCES),
        "prompts-list"
        | "prompts-get-simple"
        | "prompts-get-with-args"
        | "prompts-get-embedded-resource"
        | "prompts-get-with-image" => No(PROMPTS),
        "dns-rebinding-protection" => No(DNS),
        s if s.starts_with("input-required-result-") => No(INPUT),
        s if s.starts_with("tasks-") => No(TASKS),
        _ => return None,
    })
}

/// The scenario name of a result directory `server-NAME-YYYY-MM-DDTHH-MM-SS-mmmZ`.
fn scenario_of(dir: &str) -> &str {
    let name = dir.rsplitn(7, '-').last().unwrap_or(dir);
    name.strip_prefix("server-").unwrap_or(name)
}

/// One check of a scenario, as checks.json holds it.
struct Check {
    id: String,
    status: String,
    message: String,
}

/// Reads every `server-*/checks.json` under `dir`, by scenario.
fn results(dir: &Path) -> BTreeMap<String, Vec<Check>> {
    let mut results = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("the results directory") {
        let entry = entry.expect("an entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path().join("checks.json"))
            .unwrap_or_else(|e| panic!("{name}/checks.json: {e}"));
        let checks: Vec<serde_json::Value> = serde_json::from_str(&text).expect("checks.json");
        let checks = checks
            .iter()
            .map(|c| Check {
                id: c["id"].as_str().unwrap_or_default().to_owned(),
                status: c["status"].as_str().unwrap_or_default().to_owned(),
                message: c["errorMessage"].as_str().unwrap_or_default().to_owned(),
            })
            .collect();
        results.insert(scenario_of(&name).to_owned(), checks);
    }
    results
}

/// Runs the suite with `args` against `url`, then checks every scenario against `classify`;
/// returns the problems found and a summary table (markdown rows).
fn run_suite(
    label: &str,
    url: &str,
    args: &[&str],
    classify: fn(&str) -> Option<Applies>,
    must_run: &[&str],
) -> (Vec<String>, Vec<String>) {
    let out = tempfile::tempdir().expect("a results directory");
    let (_status, output) = run_to_exit(
        &format!("the conformance suite ({label})"),
        node()
            .arg("node_modules/@modelcontextprotocol/conformance/dist/index.js")
            .args(["server", "--url", url])
            .args(args)
            .arg("-o")
            .arg(out.path()),
        Duration::from_secs(300),
    );
    let results = results(out.path());
    let mut problems = Vec::new();
    let mut rows = Vec::new();
    for scenario in must_run {
        if !results.contains_key(*scenario) {
            problems.push(format!("{label}: scenario {scenario} did not run"));
        }
    }
    for (scenario, checks) in &results {
        let mut by_status = BTreeMap::<&str, usize>::new();
        for check in checks {
            *by_status.entry(check.status.as_str()).or_default() += 1;
        }
        let counts = by_status
            .iter()
            .map(|(status, n)| format!("{n} {}", status.to_lowercase()))
            .collect::<Vec<_>>()
            .join(", ");
        match classify(scenario) {
            None => problems.push(format!(
                "{label}: scenario {scenario} is new: classify it in tests/tests/conformance.rs and docs/conformance.md ({counts})"
            )),
            Some(No(why)) => rows.push(format!("| {label} | {scenario} | does not apply: {why} | {counts} |")),
            Some(Yes(exempt)) => {
                let mut failed = Vec::new();
                for check in checks {
                    if exempt.iter().any(|(id, _)| *id == check.id) {
                        continue;
                    }
                    if !matches!(check.status.as_str(), "SUCCESS" | "INFO") {
                        failed.push(format!("{} {}: {}", check.id, check.status, check.message));
                    }
                }
                let verdict = if failed.is_empty() { "passes" } else { "FAILS" };
                let exempted: Vec<&str> = exempt
                    .iter()
                    .filter(|(id, _)| checks.iter().any(|c| c.id == *id && c.status != "SUCCESS"))
                    .map(|(id, _)| *id)
                    .collect();
                let note = if exempted.is_empty() {
                    String::new()
                } else {
                    format!(" (not applicable: {})", exempted.join(", "))
                };
                rows.push(format!("| {label} | {scenario} | {verdict}{note} | {counts} |"));
                for f in failed {
                    problems.push(format!("{label}: {scenario}: {f}"));
                }
            }
        }
    }
    if results.is_empty() {
        problems.push(format!(
            "{label}: no result at all\n--- stdout:\n{}\n--- stderr:\n{}",
            output.stdout, output.stderr
        ));
    }
    (problems, rows)
}

#[test]
fn the_conformance_suite_passes_every_scenario_that_applies() {
    let ratd = Ratd::start("conf", &["conformance"]);
    let bridge = TlsBridge::start(&ratd, "conformance");
    let url = bridge.url();
    let (mut problems, mut rows) = run_suite(
        "2025-11-25",
        &url,
        &["--spec-version", "2025-11-25"],
        at_2025_11_25,
        &["server-initialize", "ping", "tools-list"],
    );
    let (more_problems, more_rows) = run_suite(
        "2026-07-28",
        &url,
        &["--requirements", "2026-07-28"],
        at_2026_07_28,
        &[
            "server-stateless",
            "tools-list",
            "caching",
            "http-header-validation",
            "http-custom-header-server-validation",
        ],
    );
    problems.extend(more_problems);
    rows.extend(more_rows);
    println!(
        "| wire | scenario | result | checks |\n|---|---|---|---|\n{}",
        rows.join("\n")
    );
    assert!(
        problems.is_empty(),
        "conformance problems:\n{}",
        problems.join("\n")
    );
}

#[test]
fn result_directories_name_their_scenario() {
    assert_eq!(
        scenario_of("server-tools-list-2026-11-30T12-45-56-460Z"),
        "tools-list"
    );
    assert_eq!(
        scenario_of("server-server-initialize-2026-11-30T12-45-55-293Z"),
        "server-initialize"
    );
}
