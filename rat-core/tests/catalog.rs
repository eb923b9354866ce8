//! The catalog of the tools: names, schemas, annotations, descriptions and instructions,
//! as clients see them, for each outcome of the startup check. Snapshots: any change of wording
//! shows in review.

use std::time::Duration;

use rat_core::catalog::{TOOL_NAMES, input_schemas, instructions, tools};
use rat_core::result::ReadBudget;
use rat_core::terminals::TerminalCheck;
use serde_json::{Value, json};

/// The outcomes of the check that word the texts differently.
fn checks() -> Vec<(&'static str, TerminalCheck)> {
    let all = TerminalCheck::all_holding();
    vec![
        ("everything holds", all.clone()),
        (
            "bracketed paste overridden",
            TerminalCheck {
                bracketed_paste: false,
                ..all.clone()
            },
        ),
        (
            "statuses lost (a command before rat's)",
            TerminalCheck {
                statuses: false,
                ..all.clone()
            },
        ),
        (
            "no prompt recorded (PROMPT_COMMAND assigned)",
            TerminalCheck {
                prompts: false,
                statuses: false,
                ..all.clone()
            },
        ),
        (
            "check could not run",
            TerminalCheck::not_run("blocked", Duration::from_secs(10)),
        ),
    ]
}

#[test]
fn the_tools_in_a_fixed_order() {
    let names: Vec<&str> = tools(&TerminalCheck::all_holding(), ReadBudget::DEFAULT)
        .iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, TOOL_NAMES);
    let schema_names: Vec<&str> = input_schemas().iter().map(|(n, _)| *n).collect();
    assert_eq!(schema_names, TOOL_NAMES);
}

#[test]
fn schemas() {
    let all: serde_json::Map<String, Value> = input_schemas()
        .into_iter()
        .map(|(n, s)| (n.to_string(), Value::Object(s)))
        .collect();
    insta::assert_snapshot!(serde_json::to_string_pretty(&all).unwrap());
}

#[test]
fn schemas_do_not_depend_on_the_check() {
    for (_, check) in checks() {
        for (tool, (name, schema)) in tools(&check, ReadBudget::DEFAULT)
            .iter()
            .zip(input_schemas())
        {
            assert_eq!(tool.name, name);
            assert_eq!(tool.input_schema, schema);
        }
    }
}

#[test]
fn the_window_argument_travels_in_a_header() {
    for (name, schema) in input_schemas() {
        let window = schema.get("properties").and_then(|p| p.get("window"));
        match window {
            Some(window) => {
                assert_eq!(window.get("x-mcp-header"), Some(&json!("Window")), "{name}")
            }
            None => assert!(
                !serde_json::to_string(&schema)
                    .unwrap()
                    .contains("x-mcp-header"),
                "{name}"
            ),
        }
    }
    let with_header: Vec<&str> = input_schemas()
        .iter()
        .filter(|(_, s)| serde_json::to_string(s).unwrap().contains("x-mcp-header"))
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(
        with_header,
        ["send_text", "send_keys", "read_window", "wait_window"]
    );
}

#[test]
fn enter_is_required_and_max_seconds_bounded() {
    let schemas = input_schemas();
    let get = |name: &str| schemas.iter().find(|(n, _)| *n == name).unwrap().1.clone();
    let send_text = get("send_text");
    assert_eq!(send_text["required"], json!(["window", "text", "enter"]));
    let wait = get("wait_window");
    assert_eq!(wait["required"], json!(["window"]));
    let max = &wait["properties"]["max_seconds"];
    assert_eq!(
        (
            max["minimum"].clone(),
            max["maximum"].clone(),
            max["default"].clone()
        ),
        (json!(1), json!(50), json!(20))
    );
    let read = get("read_window");
    assert_eq!(read["properties"]["scrollback_rows"]["minimum"], json!(0));
}

#[test]
fn every_annotation_is_set() {
    let mut table = String::new();
    for tool in tools(&TerminalCheck::all_holding(), ReadBudget::DEFAULT) {
        let a = tool.annotations;
        table.push_str(&format!(
            "{:<14} {:<18} read_only={:<5} destructive={:<5} idempotent={:<5} open_world={}\n",
            tool.name,
            tool.title.unwrap_or_default(),
            a.read_only,
            a.destructive,
            a.idempotent,
            a.open_world
        ));
    }
    insta::assert_snapshot!(table);
}

#[test]
fn descriptions_and_instructions_for_each_outcome_of_the_check() {
    let mut out = String::new();
    for (case, check) in checks() {
        out.push_str(&format!(
            "=== {case}\n\n[instructions]\n{}\n\n",
            instructions("build-01", &check)
        ));
        for tool in tools(&check, ReadBudget::DEFAULT) {
            out.push_str(&format!("[{}]\n{}\n\n", tool.name, tool.description));
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn the_spec_instructions_word_for_word() {
    // The MCP instructions of `docs/design/tools.md`, with everything holding; plus the sentence
    // on a send that waits (a short command in one call, `docs/design/output.md`).
    let expected = "rat gives you persistent terminals on host: commands run there, not where you run. It is asynchronous by design: sending a command returns at once, without waiting for it to finish, unless asked. A short command is one call: send_text with wait_seconds answers once it finished, as wait_window does, with what it printed; a long one is sent without it, left to run, and waited for later. Start long running commands (builds, tests, deployments), carry on with other work, and come back to check them: wait_window waits until a command finished, 50 seconds at most per call, and tells how it exited; list_windows shows the foreground command of each window, and how its last command exited once bash is back at its prompt; read_window shows the screen. Run several commands in parallel in several windows, each long running command in the foreground of a window of its own (create_window): a single list_windows then tells which still run, and reading a window shows its progress, with no need for a script to check jobs or their logs. A command run in the background (&, nohup) looks finished at once: rat follows the foreground command of a window. Each terminal is a window running bash, found by name: windows persist across your restarts and context compactions, so call list_windows first, and close the windows you are done with (close_window). A window named main exists when you start. To copy a whole file to or from the machine, use write_file and read_file rather than the terminal. For the exact output of a long command, run it as command 2>&1 | tee /tmp/name.log: the screen still shows it, and read_file reads the file whole or a range at a time, rather than reading the window over and over. If the terminals restart after a failure, every window disappears and you find a fresh main.";
    assert_eq!(
        instructions("host", &TerminalCheck::all_holding()),
        expected
    );
    let warned = instructions(
        "host",
        &TerminalCheck {
            bracketed_paste: false,
            ..TerminalCheck::all_holding()
        },
    );
    assert_eq!(
        warned,
        format!(
            "{expected} Multi-line text may run line by line even at a prompt: send one line at a time."
        )
    );
}

#[test]
fn descriptions_state_the_read_budget() {
    let budget = ReadBudget::new(20 * 1024).unwrap();
    let all = tools(&TerminalCheck::all_holding(), budget);
    let read_window = all.iter().find(|t| t.name == "read_window").unwrap();
    assert!(
        read_window
            .description
            .contains("A result holds at most 20 KiB"),
        "{}",
        read_window.description
    );
}

/// The numeric ranges a text states (`0 to 50`), as (from, to).
fn ranges(text: &str) -> Vec<(i64, i64)> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-'))
        .collect();
    words
        .windows(3)
        .filter(|w| w[1] == "to")
        .filter_map(|w| Some((w[0].parse().ok()?, w[2].parse().ok()?)))
        .collect()
}

/// Each integer argument of each tool, with its schema: (tool, argument, schema).
fn integer_arguments() -> Vec<(&'static str, String, Value)> {
    let mut found = Vec::new();
    for (tool, schema) in input_schemas() {
        for (name, property) in schema["properties"].as_object().unwrap() {
            if property["type"] == "integer" {
                found.push((tool, name.clone(), property.clone()));
            }
        }
    }
    found
}

/// What the README says of `argument` in the row of `tool` in its table of tools: from the
/// argument's name in backquotes to the next backquote.
fn readme_says(readme: &str, tool: &str, argument: &str) -> Option<String> {
    let row = readme
        .lines()
        .find(|l| l.starts_with(&format!("| `{tool}")))
        .unwrap_or_else(|| panic!("no row of {tool} in the README's table of tools"));
    // the first cell lists the arguments: what is said comes after it
    let said = row.splitn(3, '|').nth(2).unwrap();
    let start = said.find(&format!("`{argument}`"))? + argument.len() + 2;
    let end = said[start..].find('`').map_or(said.len(), |e| start + e);
    Some(said[start..end].to_string())
}

/// One set of bounds: the schema's minimum and maximum of every integer argument, as the README's
/// table of tools, the argument's description and the tool's description state them; and what 0
/// means, for an argument that takes 0, said in each. ratd's own checks use rat-wire's constants,
/// which the schema's bounds of the waits must equal.
#[test]
fn the_readme_and_the_descriptions_state_the_schema_bounds() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README");
    let described = tools(&TerminalCheck::all_holding(), ReadBudget::DEFAULT);
    let mut checked = Vec::new();
    for (tool, argument, schema) in integer_arguments() {
        let (min, max) = (schema["minimum"].as_i64(), schema["maximum"].as_i64());
        let takes_zero = min.is_none_or(|m| m <= 0);
        let readme_text = readme_says(&readme, tool, &argument)
            .unwrap_or_else(|| panic!("the README's row of {tool} says nothing of {argument}"));
        let description = schema["description"].as_str().unwrap();
        let tool_text = &described
            .iter()
            .find(|t| t.name == tool)
            .unwrap()
            .description;
        // the sentences of the tool's description naming the argument
        let in_tool: Vec<&str> = tool_text
            .split(". ")
            .filter(|s| s.contains(argument.as_str()))
            .collect();
        match (min, max) {
            (Some(min), Some(max)) => {
                let bounds = vec![(min, max)];
                assert_eq!(ranges(&readme_text), bounds, "README, {tool} {argument}");
                assert_eq!(ranges(description), bounds, "schema, {tool} {argument}");
                for sentence in &in_tool {
                    assert_eq!(ranges(sentence), bounds, "{tool}'s description: {sentence}");
                }
            }
            (Some(min), None) => {
                assert!(
                    readme_text.starts_with(&format!(" {min} or more")),
                    "README, {tool} {argument}: {readme_text}"
                );
            }
            _ => assert!(ranges(&readme_text).is_empty(), "{readme_text}"),
        }
        if takes_zero {
            assert!(
                readme_text.contains("0 or absent") || readme_text.contains("0 when absent"),
                "the README's row of {tool} says what {argument} 0 means: {readme_text}"
            );
            assert!(
                description.contains('0'),
                "the schema of {tool} says what {argument} 0 means: {description}"
            );
            for sentence in &in_tool {
                assert!(
                    sentence.contains('0'),
                    "{tool}'s description says what {argument} 0 means: {sentence}"
                );
            }
        }
        checked.push(format!("{tool}.{argument}"));
    }
    assert_eq!(
        checked,
        [
            "send_text.wait_seconds",
            "send_keys.wait_seconds",
            "read_window.scrollback_rows",
            "wait_window.max_seconds",
            "read_file.start_line",
            "read_file.max_lines",
        ]
    );
    let schemas = input_schemas();
    let property = |tool: &str, argument: &str| -> Value {
        schemas.iter().find(|(n, _)| *n == tool).unwrap().1["properties"][argument].clone()
    };
    use rat_wire::tool::{DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS};
    for tool in ["send_text", "send_keys"] {
        assert_eq!(
            property(tool, "wait_seconds")["maximum"],
            json!(MAX_WAIT_SECONDS)
        );
    }
    let max_seconds = property("wait_window", "max_seconds");
    assert_eq!(max_seconds["maximum"], json!(MAX_WAIT_SECONDS));
    assert_eq!(max_seconds["default"], json!(DEFAULT_WAIT_SECONDS));
}
