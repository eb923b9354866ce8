//! What the clients print, read back: JSON-line steps, a transcript, times and hosts redacted.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::{Output, Ratd, binaries, run};

/// Removes ANSI escape sequences (colours) from a log line.
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// One line a client script printed per step: `{"step": ..., "isError": ..., "text": ...}`
/// (JSON lines, as the scripts in `tests/python` and `tests/node` print them).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What the script did (a tool name, `tools/list`, ...).
    pub step: String,
    /// The result's isError, when a tool was called.
    pub is_error: Option<bool>,
    /// The text the step produced (a result's text content, a list of names, ...).
    pub text: String,
}

/// Parses the JSON lines a client script printed into its [`Step`]s, in order.
///
/// # Panics
/// On a line that is not such a step.
pub fn steps(stdout: &str) -> Vec<Step> {
    stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON step ({e}): {line}"));
            Step {
                step: value["step"].as_str().expect("a step name").to_owned(),
                is_error: value["isError"].as_bool(),
                text: value["text"].as_str().unwrap_or_default().to_owned(),
            }
        })
        .collect()
}

/// Renders steps as a transcript for snapshots: `## STEP [isError]` then the text.
pub fn transcript(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        out.push_str("## ");
        out.push_str(&step.step);
        if step.is_error == Some(true) {
            out.push_str(" [isError]");
        }
        out.push('\n');
        out.push_str(&step.text);
        if !step.text.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The host name of this machine (`/proc/sys/kernel/hostname`), as ratd names it in its title
/// and bash in its prompt.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .expect("the host name")
}

/// Replaces the numbers of the times that change from run to run with `N`: `3s ago`, `12ms`,
/// `3m since`, `(0s ago)`.
pub fn redact_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(|c: char| c.is_ascii_digit()) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, after) = tail.split_at(end);
        let timed = [
            "s ago", "m ago", "h ago", "d ago", "ms", "s since", "m since", "h since",
        ]
        .iter()
        .any(|unit| after.starts_with(unit));
        out.push_str(if timed { "N" } else { digits });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The end of a `list_windows` line for a window whose bash has not recorded a prompt yet.
pub const NO_PROMPT_YET: &str =
    ", no prompt recorded yet: bash still starting, or its startup files replace PROMPT_COMMAND";

/// The first `list_windows` step of a scenario lists the main it just created, in the same
/// call: on a loaded machine its bash may have recorded its first prompt already, or not yet,
/// both right. Checks the line is one of the two, then writes it as "not yet", so that the
/// transcript reads the same every time.
///
/// # Panics
/// When there is no `list_windows` step, or its text is neither.
pub fn fresh_main_as_starting(steps: &mut [Step]) {
    let step = steps
        .iter_mut()
        .find(|s| s.step == "list_windows")
        .expect("a list_windows step");
    let text = step.text.clone();
    let (header, main) = text.split_once('\n').expect("a header, then main");
    assert_eq!(
        header, "[your terminals did not exist: a fresh main was just created]",
        "{text}"
    );
    assert!(main.starts_with("main: bash in "), "{text}");
    if !main.ends_with(NO_PROMPT_YET) {
        assert!(redact_times(main).ends_with(", active Ns ago"), "{text}");
        step.text.push_str(NO_PROMPT_YET);
    }
}

/// What `rat-tool config --harness HARNESS` printed for `ratd`'s client `agent`: the
/// configuration alone on stdout, the notes around it on stderr.
///
/// # Panics
/// When rat-tool fails (its output is shown).
pub fn harness_config(ratd: &Ratd, harness: &str) -> Output {
    run(
        &format!("rat-tool config --harness {harness}"),
        Command::new(&binaries().rat_tool)
            .args(["config", "--harness", harness, "--server", &ratd.server()])
            .arg("--bundle")
            .arg(ratd.client_dir("agent")),
        Duration::from_secs(30),
    )
}

/// Runs `rat-tool config [--harness HARNESS]` for `ratd`'s client `agent` as a user writes a
/// harness's file with it, in bash: `rat-tool config ... > FILE`, FILE being `file` (its
/// directory created first). Returns the file's text.
///
/// # Panics
/// When rat-tool fails (its stderr is shown), or the file can not be read.
pub fn write_harness_file(ratd: &Ratd, harness: Option<&str>, file: &Path) -> String {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).expect("the file's directory");
    }
    let harness = harness.map_or(String::new(), |name| format!(" --harness {name}"));
    run(
        &format!("rat-tool config{harness} > FILE"),
        Command::new("bash")
            .args([
                "-c",
                &format!(
                    "\"$RAT_TOOL\" config{harness} --server \"$SERVER\" --bundle \"$BUNDLE\" > \"$FILE\""
                ),
            ])
            .env("RAT_TOOL", &binaries().rat_tool)
            .env("SERVER", ratd.server())
            .env("BUNDLE", ratd.client_dir("agent"))
            .env("FILE", file),
        Duration::from_secs(30),
    );
    std::fs::read_to_string(file).expect("the file written")
}

/// The paragraph of `text` (paragraphs are separated by a blank line) that starts with
/// `start`: in rat-tool config's output, the configuration a user copies.
///
/// # Panics
/// When there is none.
pub fn paragraph<'a>(text: &'a str, start: &str) -> &'a str {
    text.split("\n\n")
        .find(|paragraph| paragraph.starts_with(start))
        .unwrap_or_else(|| panic!("no paragraph starting with {start:?} in:\n{text}"))
}
