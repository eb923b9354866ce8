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
fn nine_tools_in_a_fixed_order() {
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
